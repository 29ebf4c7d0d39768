#!/usr/bin/env bats
# UMB in and out (issue 7): prism2csr reads the UMB archives of PRISM 4.10 and
# Storm 2.0 into the CSR file of the same model's .tra/.lab; csrexport writes
# CSR back as PRISM text and as UMB; round trips; bad archives.

load helper

setup() {
    require_models
    T="$BATS_TEST_TMPDIR"
}

# The CSR file of NAME from its .tra and .lab, as the reference.
from_text() { # name output
    prism2csr -l "$(model_file "$1.lab")" "$(model_file "$1.tra")" > "$2"
}

# Names of the shared models with a UMB export: NAME for NAME.umb, NAME.storm for NAME.storm.umb.
umb_names() {
    local f b
    for f in "$MODELS"/*.umb; do
        b=${f##*/}; echo "${b%.umb}"
    done
}

# The CRC-32 of the sections that hold the transition system (csrinfo's table).
core_sections() { # csr
    csrinfo "$1" | awk '$1 ~ /^(STATE_CHOICES|CHOICE_TRANSITIONS|TARGETS|PROBABILITIES|INITIAL_STATES)$/ {print $1, $4}'
}

# A copy of a UMB archive, edited: unpacks SRC, runs the command in the folder, packs the
# members (in SRC's order, except those removed) into DEST with gzip.
umb_edit() { # src dest command
    local src=$1 dest=$2 dir="$T/edit.$RANDOM"
    mkdir -p "$dir"
    tar -xzf "$src" -C "$dir"
    (cd "$dir" && eval "$3")
    local members=()
    while read -r m; do
        [ -f "$dir/$m" ] && members+=("$m")
    done < <(tar -tzf "$src" | grep -v '/$')
    tar --format=ustar -czf "$dest" -C "$dir" "${members[@]}"
}

# prism2csr must refuse FILE: exit 1, the message, nothing on stdout (file and stdin).
refuses() { # file message
    run --separate-stderr prism2csr "$1"
    [ "$status" -eq 1 ] || fail "exit $status for $1: $stderr"
    [ -z "$output" ] || fail "something on stdout"
    [[ "$stderr" == *"$2"* ]] || fail "message '$stderr' lacks '$2'"
    [[ "$stderr" == "prism2csr: $1"* ]] || fail "message does not name the file: $stderr"
    run --separate-stderr bash -c "prism2csr < '$1'"
    [ "$status" -eq 1 ] || fail "exit $status on stdin: $stderr"
    [ -z "$output" ] || fail "something on stdout (stdin)"
    [[ "$stderr" == *"$2"* ]] || fail "stdin: message '$stderr' lacks '$2'"
}

@test "prism2csr reads every PRISM .umb into the same CSR file as its .tra and .lab, rewards and valuations aside" {
    local n=0
    for m in $(umb_names); do
        [[ $m == *.storm ]] && continue
        from_text "$m" "$T/text.csr"
        prism2csr --no-rewards --no-valuations "$MODELS/$m.umb" > "$T/umb.csr" || fail "$m: prism2csr failed"
        cmp -s "$T/text.csr" "$T/umb.csr" || fail "$m: the CSR files differ"
        n=$((n + 1))
    done
    [ "$n" -ge "$(at_least 16 15)" ] || fail "only $n .umb files found"
}

@test "prism2csr reads every Storm .storm.umb into the transition system and labels of its .tra and .lab" {
    # Storm writes no actions and its labels in alphabetical order: the rest is the same.
    local n=0 m
    for s in $(umb_names); do
        [[ $s == *.storm ]] || continue
        m=${s%.storm}
        from_text "$m" "$T/text.csr"
        prism2csr "$MODELS/$s.umb" > "$T/umb.csr" || fail "$s: prism2csr failed"
        diff <(core_sections "$T/text.csr") <(core_sections "$T/umb.csr") || fail "$s: transition system differs"
        [ "$(core_sections "$T/umb.csr" | wc -l)" -eq 5 ] || fail "$s: sections missing"
        csrexport -o "$T/text" "$T/text.csr"
        csrexport -o "$T/umb" "$T/umb.csr"
        diff <(labels_by_name "$T/text.lab") <(labels_by_name "$T/umb.lab") || fail "$s: labels differ"
        n=$((n + 1))
    done
    [ "$n" -ge 5 ] || fail "only $n .storm.umb files found"
}

@test "prism2csr m.umb | gpu-mec --cpu equals PRISM's MECs and gpu-scc --cpu PRISM's SCCs for every shared UMB" {
    local n=0 m
    for s in $(umb_names); do
        m=${s%.storm}
        prism2csr "$MODELS/$s.umb" > "$T/m.csr"
        gpu-scc --cpu "$T/m.csr" > "$T/m.scc"
        run labelcmp -m 3 "$T/m.scc" "$(model_file "$m.sccs")"
        [ "$status" -eq 0 ] || fail "$s SCCs: $output"
        mecs=$(model_file "$m.mecs")
        [ -n "$mecs" ] || continue
        prism2csr "$MODELS/$s.umb" | gpu-mec --cpu > "$T/m.mec"
        run labelcmp -m 3 "$T/m.mec" "$mecs"
        [ "$status" -eq 0 ] || fail "$s MECs: $output"
        n=$((n + 1))
    done
    [ "$n" -ge "$(at_least 15 12)" ] || fail "only $n UMB files of MDPs with .mecs"
}

@test "prism2csr reads a UMB archive from stdin, uncompressed and xz-compressed as from a gzip file" {
    command -v xz > /dev/null || fail "xz not installed (make deps)"
    for s in $(umb_names); do
        prism2csr "$MODELS/$s.umb" > "$T/file.csr"
        prism2csr < "$MODELS/$s.umb" > "$T/stdin.csr" || fail "$s: stdin failed"
        cmp -s "$T/file.csr" "$T/stdin.csr" || fail "$s: stdin differs"
    done
    zcat "$MODELS/coin4.umb" > "$T/coin4.tar"
    xz -T1 -c "$T/coin4.tar" > "$T/coin4.umb.xz"
    prism2csr "$MODELS/coin4.umb" > "$T/gz.csr"
    prism2csr "$T/coin4.tar" | cmp - "$T/gz.csr"
    prism2csr "$T/coin4.umb.xz" | cmp - "$T/gz.csr"
    run prism2csr -v "$T/coin4.umb.xz"
    assert_output --partial "UMB (xz, by PRISM), MDP, 22656 states, 60544 choices, 75232 transitions"
}

@test "prism2csr -v names what of a UMB archive it kept and what it skipped" {
    run --separate-stderr prism2csr -v "$MODELS/coin2.umb"
    assert_success
    [[ "$stderr" == *"state valuations of 5 variables kept"* ]] || fail "valuations are kept since CSR 1.3: $stderr"
    [[ "$stderr" != *"skipped"* ]] || fail "nothing is skipped: $stderr"
    run --separate-stderr prism2csr -v --no-valuations "$MODELS/coin2.umb"
    assert_success
    [[ "$stderr" == *"skipped state valuations (--no-valuations)"* ]] || fail "$stderr"
    run --separate-stderr prism2csr "$MODELS/coin2.umb"
    [ -z "$stderr" ] || fail "notices without -v: $stderr"
}

@test "prism2csr refuses -l with a UMB archive: it carries its own labels" {
    run prism2csr -l "$MODELS/coin2.lab" "$MODELS/coin2.umb"
    assert_failure 2
    assert_output --partial "a UMB archive carries its own labels"
}

@test "csrexport -f tra gives PRISM's .tra and .lab back byte for byte but for comment lines, from plain and restructured CSR" {
    for m in $(model_names); do
        from_text "$m" "$T/a.csr"
        restructure -u 7 "$T/a.csr" > "$T/r.csr"
        for csr in "$T/a.csr" "$T/r.csr"; do
            csrexport -o "$T/out" "$csr" || fail "$m: csrexport failed"
            cmp -s <(zcat -f "$(model_file "$m.tra")" | grep -v '^#') <(grep -v '^#' "$T/out.tra") ||
                fail "$m (${csr##*/}): .tra differs"
            cmp -s <(zcat -f "$(model_file "$m.lab")" | grep -v '^#') <(grep -v '^#' "$T/out.lab") ||
                fail "$m (${csr##*/}): .lab differs"
        done
    done
}

@test "csrexport -f tra writes the .tra on stdout without -o, which prism2csr reads back" {
    from_text coin2 "$T/a.csr"
    csrexport "$T/a.csr" > "$T/c.tra"
    cmp <(grep -v '^#' "$MODELS/coin2.tra") <(grep -v '^#' "$T/c.tra")
    prism2csr -l "$MODELS/coin2.lab" "$T/c.tra" | cmp - "$T/a.csr"
}

@test "csrexport -f tra writes an init label from the initial states of a model whose labels lack one" {
    # randmdp's model has one label, "goal", and initial state 0
    randmdp -n 50 -e 0 -g 20 3 > "$T/g.csr"
    csrexport -o "$T/g" "$T/g.csr"
    run head -2 "$T/g.lab"
    assert_line --index 1 '0="init" 1="goal"'
    assert_line --index 0 '# Labels'
    run grep -c "^0: 0" "$T/g.lab"
    assert_output 1
    prism2csr -l "$T/g.lab" "$T/g.tra" > "$T/g2.csr"
    run csrinfo "$T/g2.csr"
    assert_line --partial 'init'
    gpu-mec --cpu "$T/g.csr" > "$T/1.mecs"
    gpu-mec --cpu "$T/g2.csr" | cmp - "$T/1.mecs"
}

@test "a model with states without choices goes through UMB unchanged, and csrexport -f tra refuses it and says why" {
    # randmdp -e 30: about 30% of the states have no choices (a deadlock without a self-loop)
    randmdp -n 200 -e 30 5 > "$T/e.csr"
    run --separate-stderr csrexport -o "$T/e" "$T/e.csr"
    assert_failure 1
    assert_equal "$stderr" "csrexport: $T/e.tra: unsupported model: state 3 has no choices, which a .tra cannot hold (PRISM gives a deadlock a self-loop): write UMB (-f umb)"
    run ls "$T"
    refute_output --partial "e.tra"
    refute_output --partial "e.lab"
    csrexport -f umb -o "$T/e" "$T/e.csr"
    prism2csr "$T/e.umb" > "$T/back.csr"
    cmp <(core_sections "$T/e.csr") <(core_sections "$T/back.csr")
    gpu-mec --cpu "$T/e.csr" > "$T/1.mecs"
    gpu-mec --cpu "$T/back.csr" | cmp - "$T/1.mecs"
}

@test "UMB to CSR to UMB to CSR gives byte-identical CSR files for every shared UMB" {
    for s in $(umb_names); do
        prism2csr "$MODELS/$s.umb" > "$T/1.csr"
        csrexport -f umb -o "$T/back" "$T/1.csr" || fail "$s: csrexport failed"
        prism2csr "$T/back.umb" > "$T/2.csr" || fail "$s: our UMB does not read back"
        cmp -s "$T/1.csr" "$T/2.csr" || fail "$s: CSR files differ"
    done
}

@test "csrexport -f tra writes the reward structures as PRISM's .srew and .trew, which prism2csr -r reads back into the same CSR file" {
    local n=0
    for m in $(umb_names); do
        [[ $m == *.storm ]] && continue
        prism2csr "$MODELS/$m.umb" > "$T/a.csr"
        count=$(csrinfo "$T/a.csr" | sed -n 's/^  rewards: *\([0-9]*\).*/\1/p')
        [ -n "$count" ] || continue
        rm -f "$T"/x*
        csrexport -o "$T/x" "$T/a.csr"
        args=()
        for r in $(seq "$count"); do
            [ "$count" -eq 1 ] && b="$T/x" || b="$T/x$r"
            files=$(ls "$b.srew" "$b.trew" 2>/dev/null | paste -sd,)
            [ -n "$files" ] || fail "$m: no file of structure $r"
            args+=(-r "$files")
        done
        prism2csr -l "$T/x.lab" -s "$T/x.sta" "${args[@]}" "$T/x.tra" > "$T/b.csr" || fail "$m: prism2csr -r failed"
        cmp -s "$T/a.csr" "$T/b.csr" || fail "$m: the CSR files differ"
        n=$((n + 1))
    done
    [ "$n" -ge "$(at_least 11 3)" ] || fail "only $n models with rewards"
}

@test "CSR to UMB to CSR gives the same CSR file for every shared model, from plain and restructured CSR" {
    for m in $(model_names); do
        from_text "$m" "$T/a.csr"
        restructure -u 7 "$T/a.csr" > "$T/r.csr"
        csrexport -f umb "$T/a.csr" | prism2csr | cmp -s - "$T/a.csr" || fail "$m: plain differs"
        csrexport -f umb "$T/r.csr" | prism2csr | cmp -s - "$T/a.csr" || fail "$m: restructured differs"
    done
}

@test "csrexport writes UMB members in PRISM's layout, index.json first" {
    from_text dice "$T/d.csr"
    csrexport -f umb -o "$T/d" "$T/d.csr"
    run tar -tzf "$T/d.umb"
    assert_line --index 0 "index.json"
    assert_line "branch-to-target.bin"
    assert_line "annotations/aps/six/states/values.bin"
    tar -xzOf "$T/d.umb" index.json | grep -q '"#players": 0' || fail "a DTMC is not #players 0"
    # the arrays are those of PRISM's own export of the same model
    for member in choice-to-branches.bin branch-to-target.bin branch-to-probability.bin state-is-initial.bin \
        annotations/aps/six/states/values.bin; do
        cmp <(tar -xzOf "$T/d.umb" "$member") <(tar -xzOf "$MODELS/dice.umb" "$member") || fail "$member differs"
    done
}

@test "csrexport refuses a bad format, a bad input, and leaves no file behind" {
    from_text coin2 "$T/a.csr"
    run csrexport -f json "$T/a.csr"
    assert_failure 2
    assert_output --partial "unknown format 'json'"
    printf 'not a csr file' > "$T/bad.csr"
    run csrexport -o "$T/x" "$T/bad.csr"
    assert_failure 1
    assert_output --partial "csrexport: $T/bad.csr"
    run csrexport -f umb -o "$T/y" "$T/bad.csr"
    assert_failure 1
    run ls "$T"
    refute_output --partial "x."
    refute_output --partial "y."
    run csrexport -o "$T/nodir/x" "$T/a.csr"
    assert_failure 1
    assert_output --partial "$T/nodir/x.tra.tmp"
}

@test "prism2csr refuses a truncated UMB archive" {
    head -c 2000 "$MODELS/coin4.umb" > "$T/cut.umb"
    refuses "$T/cut.umb" "truncated"
}

@test "prism2csr refuses a UMB archive whose gzip trailer is cut off, from a file and from a pipe" {
    # the tar inside is whole: only the gzip check (CRC-32, length) is lost
    size=$(stat -c %s "$MODELS/coin2.umb")
    head -c $((size - 8)) "$MODELS/coin2.umb" > "$T/cut.umb"
    run --separate-stderr prism2csr "$T/cut.umb"
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" "prism2csr: $T/cut.umb: file is truncated: gzip stream damaged or cut short"
    run --separate-stderr prism2csr - < "$T/cut.umb"
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" "prism2csr: (stdin): file is truncated: compressed stream ends early"
}

@test "prism2csr reads a gzip UMB whose header names its file, and refuses one whose CRC-32 or length in the trailer is wrong" {
    prism2csr "$DATA/qvbs/wlan.2.COL0.umb" > "$T/want.csr"
    # gzip -N writes the file's name into the header (FNAME): the deflate stream starts after it
    zcat "$DATA/qvbs/wlan.2.COL0.umb" > "$T/wlan.umb.tar" && gzip -N -c "$T/wlan.umb.tar" > "$T/named.umb"
    [ "$(head -c 4 "$T/named.umb" | od -An -tx1 | tr -d ' ')" = 1f8b0808 ] || fail "no FNAME in the header"
    prism2csr "$T/named.umb" | cmp - "$T/want.csr"
    size=$(stat -c %s "$T/named.umb")
    # the CRC-32 (checked by a task per CPU over the inflated archive) and ISIZE, each with one byte changed
    for at in $((size - 8)) $((size - 5)) $((size - 4)); do
        cp "$T/named.umb" "$T/bad.umb"
        printf '\x5a' | dd of="$T/bad.umb" bs=1 seek=$at conv=notrunc status=none
        for grain in 1000000000 1; do
            CSR_TEST_GRAIN=$grain run --separate-stderr prism2csr "$T/bad.umb"
            assert_failure 1
            assert_output ""
            assert_equal "$stderr" "prism2csr: $T/bad.umb: file is truncated: gzip stream damaged or cut short"
        done
    done
}

@test "prism2csr refuses a UMB archive whose gzip header checksum is wrong, from a file and from a pipe" {
    # found by fuzz/umb: libdeflate skips the header's CRC-16 (flag FHCRC), zlib checks it
    { printf '\x1f\x8b\x08\x02'; head -c 10 "$MODELS/coin2.umb" | tail -c 6; printf '\x00\x00'; tail -c +11 "$MODELS/coin2.umb"; } > "$T/hcrc.umb"
    run --separate-stderr prism2csr "$T/hcrc.umb"
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" "prism2csr: $T/hcrc.umb: input/output error: gzip: header crc mismatch"
    run --separate-stderr prism2csr - < "$T/hcrc.umb"
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" "prism2csr: (stdin): input/output error: gzip: header crc mismatch"
}

@test "prism2csr refuses a UMB file of two gzip members and says so" {
    cat "$MODELS/coin2.umb" "$MODELS/coin2.umb" > "$T/two.umb"
    run --separate-stderr prism2csr "$T/two.umb"
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" "prism2csr: $T/two.umb: unsupported compression: data after the first gzip member (more members or trailing bytes): PRISM and Storm write one"
}

@test "prism2csr refuses a UMB archive without branch-to-target.bin" {
    umb_edit "$MODELS/fmsd_fig1.storm.umb" "$T/bad.umb" 'rm branch-to-target.bin'
    refuses "$T/bad.umb" "required archive member missing: branch-to-target.bin"
}

@test "prism2csr refuses a UMB array of the wrong length" {
    umb_edit "$MODELS/fmsd_fig1.storm.umb" "$T/bad.umb" 'truncate -s -8 branch-to-probability.bin'
    refuses "$T/bad.umb" "branch-to-probability.bin: 160 bytes where the counts of index.json give 168"
}

@test "prism2csr refuses a UMB archive of a newer format version" {
    umb_edit "$MODELS/fmsd_fig1.storm.umb" "$T/bad.umb" 'sed -i "s/\"format-version\": 1/\"format-version\": 2/" index.json'
    refuses "$T/bad.umb" "unsupported format version: UMB format version 2.0"
}

@test "prism2csr refuses an interval model and an exact (rational) one as not supported" {
    umb_edit "$MODELS/fmsd_fig1.storm.umb" "$T/i.umb" 'sed -i "s/\"type\": \"double\"/\"type\": \"double-interval\"/" index.json'
    refuses "$T/i.umb" 'unsupported model: branch probabilities of type "double-interval"'
    umb_edit "$MODELS/fmsd_fig1.storm.umb" "$T/r.umb" 'sed -i "s/\"type\": \"double\"/\"type\": \"rational\"/" index.json'
    refuses "$T/r.umb" 'unsupported model: branch probabilities of type "rational"'
}

@test "prism2csr refuses continuous time and games as not supported" {
    umb_edit "$MODELS/fmsd_fig1.storm.umb" "$T/c.umb" 'sed -i "s/\"discrete\"/\"stochastic\"/" index.json'
    refuses "$T/c.umb" 'unsupported model: time "stochastic"'
    umb_edit "$MODELS/fmsd_fig1.storm.umb" "$T/g.umb" 'sed -i "s/\"#players\": 1/\"#players\": 2/" index.json'
    refuses "$T/g.umb" "unsupported model: a game of 2 players"
}

@test "prism2csr refuses a UMB archive compressed with bzip2" {
    command -v bzip2 > /dev/null || fail "bzip2 not installed (make deps)"
    zcat "$MODELS/fmsd_fig1.storm.umb" | bzip2 > "$T/b.umb"
    refuses "$T/b.umb" "unsupported compression: bzip2 data"
}

@test "prism2csr refuses a UMB target index out of range" {
    # fmsd_fig1 has 8 states: branch 0 to state 8, then to 2^32 + 1 (which 32 bits would wrap to 1)
    umb_edit "$MODELS/fmsd_fig1.storm.umb" "$T/t.umb" \
        'printf "\x08\0\0\0\0\0\0\0" | dd of=branch-to-target.bin conv=notrunc status=none'
    refuses "$T/t.umb" "target state out of range: branch-to-target.bin: branch 0 goes to state 8 of 8"
    umb_edit "$MODELS/fmsd_fig1.storm.umb" "$T/w.umb" \
        'printf "\x01\0\0\0\x01\0\0\0" | dd of=branch-to-target.bin bs=8 seek=3 conv=notrunc status=none'
    refuses "$T/w.umb" "branch 3 goes to state 4294967297 of 8"
}

@test "prism2csr refuses a UMB reward that is negative, infinite or NaN, naming the member and its first such entry, with one task and a task per CPU" {
    # wlan.0's choice rewards "cost" (3,972 entries): entry 3 infinite, the last NaN; dice's branch rewards: 2 negative, the last NaN
    local c=annotations/rewards/cost/choices/values.bin b=annotations/rewards/coin_flips/branches/values.bin
    umb_edit "$DATA/qvbs/wlan.0.COL0.umb" "$T/c.umb" "printf '\0\0\0\0\0\0\xf8\x7f' | dd of=$c bs=8 seek=3971 conv=notrunc status=none;
        printf '\0\0\0\0\0\0\xf0\x7f' | dd of=$c bs=8 seek=3 conv=notrunc status=none"
    for grain in 1000000000 1; do
        CSR_TEST_GRAIN=$grain refuses "$T/c.umb" "$c: entry 3 is inf (rewards must be finite and non-negative)"
    done
    umb_edit "$MODELS/dice.umb" "$T/d.umb" "printf '\0\0\0\0\0\0\xf8\x7f' | dd of=$b bs=8 seek=19 conv=notrunc status=none;
        printf '\0\0\0\0\0\0\xf0\xbf' | dd of=$b bs=8 seek=2 conv=notrunc status=none"
    for grain in 1000000000 1; do
        CSR_TEST_GRAIN=$grain refuses "$T/d.umb" "$b: entry 2 is -1 (rewards must be finite and non-negative)"
    done
}

@test "prism2csr refuses a UMB index that is not JSON, or lacks a count" {
    umb_edit "$MODELS/fmsd_fig1.storm.umb" "$T/j.umb" 'printf "{\"format-version\": 1,\n oops" > index.json'
    refuses "$T/j.umb" "bad UMB index (index.json): index.json:2:"
    umb_edit "$MODELS/fmsd_fig1.storm.umb" "$T/k.umb" 'sed -i "/#states/d" index.json'
    refuses "$T/k.umb" 'transition-system: "#states" missing'
}

@test "prism2csr refuses UMB offsets that decrease" {
    umb_edit "$MODELS/fmsd_fig1.storm.umb" "$T/o.umb" \
        'printf "\x09\0\0\0\0\0\0\0" | dd of=state-to-choices.bin bs=8 seek=1 conv=notrunc status=none'
    refuses "$T/o.umb" "offsets not ascending from 0 to the count: state-to-choices.bin: entry 2"
}

# gzip files of one deflate stream each: structured (a UMB archive's tar, gzip -1, -6 and -9), random bytes
# (stored blocks), zeros (runs that inflate 1000:1), and all three in turn
inflate_inputs() { # dir
    zcat "$DATA/qvbs/wlan.2.COL0.umb" > "$1/tar"
    for level in 1 6 9; do gzip -n -$level -c "$1/tar" > "$1/tar.$level.gz"; done
    head -c 300000 /dev/urandom > "$1/random"
    head -c 3000000 /dev/zero > "$1/zeros"
    cat "$1/random" "$1/tar" "$1/zeros" "$1/tar" "$1/random" > "$1/mixed"
    for f in random zeros mixed; do gzip -n -6 -c "$1/$f" > "$1/$f.gz"; done
    head -c 400 "$1/tar" | gzip -n -6 > "$1/fixed.gz" # one final block of the fixed code (BTYPE 1)
    [ $(($(od -An -tu1 -j10 -N1 "$1/fixed.gz") & 7)) -eq 3 ] || fail "fixed.gz: not one final fixed block"
}

@test "the chunked inflater gives libdeflate's bytes on stored, fixed and dynamic blocks, in chunks of 16 bytes to 64 KiB" {
    inflate_inputs "$T"
    for f in tar.1 tar.6 tar.9 random zeros mixed fixed; do
        for chunk in 16 64 4096 65536; do
            run inflatecheck "$T/$f.gz" $chunk
            assert_success
            if [ $(($(stat -c %s "$T/$f.gz") - 18)) -le $chunk ]; then # one chunk: left to libdeflate
                assert_output "fell back"
                continue
            fi
            assert_output --regexp '^same [0-9]+ bytes, [0-9]+ chunks$'
            joined=$(echo "$output" | awk '{print $4}')
            # dynamic blocks start chunks; stored ones (random) and a few blocks of zeros may make one
            case $f in
            random | zeros | fixed) ;;
            *) [ "$joined" -gt 1 ] || fail "$f in chunks of $chunk: one chunk joined" ;;
            esac
        done
    done
}

@test "prism2csr reads a gzip UMB inflated in chunks into the same CSR as inflated whole" {
    for f in wlan.2.COL0 firewire.false.delay3.deadline200; do
        zcat "$DATA/qvbs/$f.umb" > "$T/$f.tar"
        for level in 1 9; do
            gzip -n -$level -c "$T/$f.tar" > "$T/$f.$level.umb"
            CSR_TEST_INFLATE_CHUNK=1000000000 prism2csr "$T/$f.$level.umb" > "$T/whole.csr"
            CSR_TEST_INFLATE_CHUNK=2000 prism2csr "$T/$f.$level.umb" > "$T/chunks.csr"
            cmp "$T/whole.csr" "$T/chunks.csr"
            prism2csr "$T/$f.$level.umb" | cmp - "$T/whole.csr"
        done
    done
}

# prism2csr refuses FILE inflated whole (libdeflate) and in chunks of each CHUNK bytes with one message
# naming the file, writing nothing (timeout: a reader that never ends fails too).
refused_alike() { # file chunk...
    local file=$1 whole chunk
    shift
    CSR_TEST_INFLATE_CHUNK=1000000000 run --separate-stderr timeout 60 prism2csr "$file"
    assert_failure 1
    assert_output ""
    whole=$stderr
    assert_regex "$whole" "^prism2csr: $file: "
    for chunk in "$@"; do
        CSR_TEST_INFLATE_CHUNK=$chunk run --separate-stderr timeout 60 prism2csr "$file"
        assert_failure 1
        assert_output ""
        assert_equal "$stderr" "$whole"
    done
}

@test "prism2csr names a damaged deflate stream the same inflated in chunks as whole" {
    zcat "$DATA/qvbs/wlan.2.COL0.umb" | gzip -n -6 > "$T/wlan.umb"
    size=$(stat -c %s "$T/wlan.umb")
    for at in $((size / 3)) $((size / 2)) $((size * 4 / 5)); do
        cp "$T/wlan.umb" "$T/bad.umb"
        printf '\x5a\xa5\x00' | dd of="$T/bad.umb" bs=1 seek=$at conv=notrunc status=none
        refused_alike "$T/bad.umb" 2000
    done
}

@test "prism2csr refuses a gzip UMB cut inside its deflate stream, in chunks as whole, and ends" {
    # the trailer kept (the archive's length read from it), the deflate stream cut: past the input the
    # chunks read zeros, which decode forever unless the reader stops there
    zcat "$DATA/qvbs/wlan.2.COL0.umb" | gzip -n -6 > "$T/wlan.umb"
    size=$(stat -c %s "$T/wlan.umb")
    for keep in $((size * 3 / 5)) $((size - 100)); do
        { head -c $keep "$T/wlan.umb"; tail -c 8 "$T/wlan.umb"; } > "$T/cut.umb"
        refused_alike "$T/cut.umb" 16 2000
    done
}

@test "prism2csr ends on a damaged gzip UMB one of whose chunks decodes past the input" {
    # four bytes changed (found by fuzzing the chunked inflater): in chunks of 4244 bytes a chunk's
    # decoding reached the input's end and went on through zeros for ever before the reader stopped there
    zcat "$DATA/qvbs/wlan.2.COL0.umb" | gzip -n -6 > "$T/bad.umb"
    for edit in 20196:21 116738:ce 181116:26 253855:97; do
        printf "\\x${edit#*:}" | dd of="$T/bad.umb" bs=1 seek=${edit%:*} conv=notrunc status=none
    done
    CSR_TEST_INFLATE_CHUNK=4244 run --separate-stderr timeout 60 prism2csr "$T/bad.umb"
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" "prism2csr: $T/bad.umb: file is truncated: gzip stream damaged or cut short"
}
