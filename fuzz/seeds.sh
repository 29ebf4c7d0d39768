#!/bin/bash
# Seed corpora for the fuzz targets (make fuzz), from the shared models: the
# small ones whole, cut pieces of the medium ones, CSR files made by prism2csr
# and restructure.  Usage: fuzz/seeds.sh BIN OUT (OUT/<target>/ per target).
set -eu
bin=$1 out=$2
models=${SHARED:-../shared}/models
mkdir -p "$out"/{tra,tra_parallel,lab,labels,csr,umb,drn,props,rewards,sta,inflate}
cat_model() { if [ -f "$models/$1" ]; then cat "$models/$1"; else zcat "$models/$1.gz"; fi; }
small="fmsd_fig1 dice brp herman7 coin2 leader3 csma2_2 phil3 dining_crypt3"
medium="leader6 coin4_6 wlan3 csma3_2 mutual5 dining_crypt6"
for m in $small; do
    cat_model "$m.tra" > "$out/tra/$m"
    n=$(head -1 "$out/tra/$m" | awk '{ print $1 }'); [ "$n" -gt 0 ] 2>/dev/null || n=$(sed -n 2p "$out/tra/$m" | awk '{ print $1 }')
    { printf "\\x$(printf %02x $(((n - 1) % 64)))"; cat_model "$m.lab"; } > "$out/lab/$m"
    "$bin/prism2csr" -l "$models/$m.lab" "$(ls "$models/$m.tra"* | head -1)" > "$out/csr/$m"
    "$bin/restructure" -u 3 "$out/csr/$m" > "$out/csr/$m.u3"
    for kind in sccs mecs; do
        [ -e "$models/$m.$kind" ] || [ -e "$models/$m.$kind.gz" ] || continue
        { printf "\\x$(printf %02x $((n % 256)))\\x$(printf %02x $((n / 256 % 256)))"; cat_model "$m.$kind"; } > "$out/labels/$m.$kind"
    done
done
gzip -c "$out/tra/coin2" > "$out/tra/coin2.gz"
cp "$out"/tra/* "$out/tra_parallel/"
for f in "$models"/*.umb; do
    [ "$(stat -c %s "$f")" -le 65536 ] && cp "$f" "$out/umb/"
    # the tar inside too, so that mutations reach the members and not only gzip's checksum
    zcat "$f" > "$out/umb/$(basename "$f").tar" 2>/dev/null && [ "$(stat -c %s "$out/umb/$(basename "$f").tar")" -le 65536 ] ||
        rm -f "$out/umb/$(basename "$f").tar"
done
# inflate: the deflate streams of the small gzip archives (header and trailer off), chunks of 16 + 2000 bytes
for f in "$out"/umb/*.umb tests/data/qvbs/*.umb; do
    size=$(stat -c %s "$f")
    [ "$size" -le 65536 ] && [ "$(head -c 4 "$f" | od -An -tx1 | tr -d ' ')" = 1f8b0800 ] &&
        { printf '\xd0\x07'; tail -c +11 "$f" | head -c $((size - 18)); } > "$out/inflate/$(basename "$f")"
done
for m in $medium; do
    cat_model "$m.tra" | head -c 3000 > "$out/tra/$m.head"
    cat_model "$m.tra" | head -c 200000 | tail -c 3000 > "$out/tra/$m.middle"
done
for f in tests/data/*.expected; do
    n=$(wc -l < "$f")
    { printf "\\x$(printf %02x $((n % 256)))\\x00"; cat "$f"; } > "$out/labels/$(basename "$f")"
done
{ printf '\x0a\x00'; zcat "$models/brp.p1.vec.gz" | head -10; } > "$out/labels/brp.p1.vec"
for f in tests/data/drn/*.drn tests/data/valuations/*.drn; do
    head -c 65536 "$f" > "$out/drn/$(basename "$f")"
done
# state valuations (CSR 1.3): CSR files with them, Storm's archives, .sta text
# for the harness's model of N states (first byte N - 1)
for f in tests/data/valuations/*.umb "$models/coin2.umb" "$models/brp.umb"; do
    b=$(basename "$f" .umb)
    "$bin/prism2csr" "$f" > "$out/csr/$b.valuations"
    "$bin/restructure" -u 3 "$out/csr/$b.valuations" > "$out/csr/$b.valuations.u3"
    case $f in tests/*) cp "$f" "$out/umb/"; zcat "$f" > "$out/umb/$b.umb.tar" ;; esac
done
for f in tests/data/valuations/*.sta.gz; do
    n=$(zcat "$f" | grep -c '^[0-9]')
    [ "$n" -le 64 ] && { printf "\\x$(printf %02x $((n - 1)))"; zcat "$f"; } > "$out/sta/$(basename "$f" .sta.gz)"
done
printf '\x02# States\n(x, b,y)\n0:(-1,true,9223372036854775807)\n1:(0,false,-9223372036854775808)\n2:(5,true,0)\n' > "$out/sta/shapes"
# props: every shared .props line, and the fragment's shapes
i=0
cat "$models"/*.props | while IFS= read -r line; do
    printf '%s' "$line" > "$out/props/p$i"; i=$((i + 1))
done
printf '%s' 'Pmax=? [ !("a" | false) & true U !!"b" ];' > "$out/props/shapes"
# whole properties files: QVBS's, and one of every definition and form
for f in "$models"/../qvbs/*/*/*.props; do
    if [ -f "$f" ]; then cp "$f" "$out/props/qvbs-$(basename "$(dirname "$f")")-$(basename "$f")"; fi
done
printf '%s\n' 'const int K; const double p = 0.5; formula f = x > K & y;' 'label "l" = mod(x, 2) = 0 => f;' \
    '"n": Pmin>=p [ "l" U<=K !f ]' 'filter(max, R{"r"}=? [ F^{rew{"r"}<=K*2} x = max(1, floor(p * 3)) ], "init");' \
    'R=? [ C<=3 ] P=? [ F{"r"}>1 "a" {x=0}{min} ]' > "$out/props/file"
echo "seeds: $(ls "$out"/tra | wc -l) tra, $(ls "$out"/lab | wc -l) lab, $(ls "$out"/labels | wc -l) labels, $(ls "$out"/csr | wc -l) csr, $(ls "$out"/umb | wc -l) umb, $(ls "$out"/drn | wc -l) drn, $(ls "$out"/props | wc -l) props"
# rewards: the harness's model of 3 states (byte 0x02: DTMC, 0x22: MDP) with files as PRISM writes them
printf '\x02# Reward structure "a"\n# State rewards\n3 2\n0 1\n2 0.5\n' > "$out/rewards/srew"
printf '\x02# Reward structure\n# Transition rewards\n3 3\n0 0 1\n0 1 2\n2 0 3\n' > "$out/rewards/trew_dtmc"
printf '\x22# Reward structure "b"\n# Transition rewards\n3 6 4\n0 1 0 2\n0 1 1 2\n2 0 0 1\n2 0 2 1\n' > "$out/rewards/trew_mdp"
