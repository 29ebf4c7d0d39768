#!/bin/bash
# Value iteration benchmark (issue 5): for each shared model and query of its
# NAME.values.tsv, PRISM's explicit times (interval iteration at 1e-9 and
# default value iteration, measured by PRISM on its machine), the CPU
# reference (gpu-vi --cpu) and gpu-vi, both with the defaults (interval
# iteration, relative 1e-6) and with -u 7 restructured input for the GPU.
# Per run: iterations, the iteration phase (--stats), time per iteration, the
# bandwidth the iteration kernels reach (bytes they read and write, estimated
# by gpu-vi, per second; the device's peak is in the header), and end to end.
# Each answer is checked against PRISM's value (relative 1e-6): "BAD" marks a
# miss.  Best of RUNS runs (default 3).
#   bench/vi.sh                all models with a .values.tsv
#   bench/vi.sh NAME...        these models
#   EXTRA="--mem-limit 2M" bench/vi.sh   force the split
set -euo pipefail
. "$(dirname "$0")/common.sh"
runs=${RUNS:-3}
extra=${EXTRA:-}

# run label csr args...: prints "answer iterations iterate_s e2e_s gbps"
run() {
    local csr=$1; shift
    local best_e=999999 best_line="" i t0 t1 e ans st
    for i in $(seq "$runs"); do
        t0=$(now)
        ans=$("$bin/gpu-vi" "$@" $extra --stats "$csr" 2>"$out/vi.err" | tr '\n' ' ') || { echo "FAIL|-|-|-|-"; return; }
        t1=$(now)
        e=$(awk "BEGIN { print $t1 - $t0 }")
        st=$(tr '\n' ' ' < "$out/vi.err")
        if awk "BEGIN { exit !($e < $best_e) }"; then
            best_e=$e
            local its iter gbps
            its=$(echo "$st" | sed -n 's/.* \([0-9]*\) iterations, final.*/\1/p')
            iter=$(echo "$st" | sed -n 's/.*iteration \([0-9.]*\) s.*/\1/p')
            gbps=$(echo "$st" | sed -n 's/.*about \([0-9.]*\) GB\/s.*/\1/p')
            best_line="$ans|${its:--}|${iter:--}|$e|${gbps:--}"
        fi
    done
    echo "$best_line"
}

ratio() { # a b k -> k * a / b, or - when either is missing
    awk -v a="$1" -v b="$2" -v k="$3" 'BEGIN { if (a != "-" && b != "-" && b + 0 > 0) printf "%.1f", k * a / b; else print "-" }'
}

check() { # answer reference -> ok/BAD
    python3 -c '
import sys
try: got=[float(x) for x in sys.argv[1].split()]
except ValueError: print("FAIL"); sys.exit()
ref=[float(x) for x in sys.argv[2].split()]
if len(ref)==1: ref=ref*len(got)
ok=len(got)==len(ref) and all(abs(g-r)<=1e-6*abs(r) or abs(g-r)<1e-12 for g,r in zip(got,ref))
print("ok" if ok else "BAD")' "$1" "$2"
}

peak=$(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | head -1 || true)
echo "device: ${peak:-none}; $(date -u +%F); commit $(git -C "$root" rev-parse --short HEAD)${extra:+; $extra}"
echo
echo "| model | query | maybe | PRISM ii s | PRISM vi s | CPU its | CPU iter s | GPU its | GPU iter s | us/it | GB/s | GPU e2e s | GPU u7 iter s | CPU/GPU | PRISM ii/GPU | check |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
    for v in "$models"/*.values.tsv; do names+=("$(basename "$v" .values.tsv)"); done
fi
for name in "${names[@]}"; do
    tra="$models/$name.tra"; [ -f "$tra" ] || tra="$tra.gz"
    lab="$models/$name.lab"; [ -f "$lab" ] || lab="$lab.gz"
    "$bin/prism2csr" -l "$lab" "$tra" > "$out/$name.csr"
    "$bin/restructure" -u 7 "$out/$name.csr" > "$out/$name.u7.csr"
    tail -n +2 "$models/$name.values.tsv" | while IFS=$'\t' read -r prop query dir target avoid value iis iiits vival vis viits yes no maybe; do
        args=(-t "$target")
        [ "$avoid" != "-" ] && args+=(-a "$avoid")
        [ "$dir" != "-" ] && args+=(-m "$dir")
        IFS='|' read -r cans cits citer ce cg <<< "$(run "$out/$name.csr" "${args[@]}" --cpu)"
        IFS='|' read -r gans gits giter ge gg <<< "$(run "$out/$name.csr" "${args[@]}")"
        IFS='|' read -r uans uits uiter ue ug <<< "$(run "$out/$name.u7.csr" "${args[@]}")"
        ok="CPU $(check "$cans" "$value"), GPU $(check "$gans" "$value"), u7 $(check "$uans" "$value")"
        usit=$(ratio "$giter" "$gits" 1e6)
        sp=$(ratio "$citer" "$giter" 1)
        sp2=$(ratio "$iis" "$giter" 1)
        echo "| $name | $prop: $query | $maybe | $iis | $vis | $cits | $citer | $gits | $giter | $usit | $gg | $ge | $uiter | $sp | $sp2 | $ok |"
    done
done
