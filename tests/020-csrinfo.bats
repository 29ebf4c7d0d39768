#!/usr/bin/env bats
# csrinfo and the CSR reader: description, validation, corrupt files, pipes.

load helper

setup() {
    require_models
    CSR="$BATS_TEST_TMPDIR/fig1.csr"
    prism2csr -l "$MODELS/fmsd_fig1.lab" "$MODELS/fmsd_fig1.tra" > "$CSR"
}

# csrinfo must fail with status 1, nothing on stdout, and $1 on stderr.
invalid() {
    run --separate-stderr csrinfo "$BATS_TEST_TMPDIR/bad.csr"
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" "csrinfo: $BATS_TEST_TMPDIR/bad.csr$1"
}

@test "csrinfo describes the sections, degrees and choices of a model" {
    run csrinfo "$CSR"
    assert_success
    assert_line --index 0 "$CSR:	CSR 1.0 MDP, 8 states, 13 choices, 21 transitions"
    assert_line --partial "file:         1216 bytes (1.2KB), header 384 bytes, 8 sections"
    assert_line "  layout:       plain"
    assert_line "  numbering:    original"
    assert_line --regexp "^ +TARGETS +640 +84 [0-9a-f]{8} - \(84B\)$"
    assert_line "  out-degree:   2.62 average, 5 maximum (transitions per state)"
    assert_line "  choices:      1.62 per state on average, 2 maximum, 0 states without a choice"
    assert_line "  distribution: 1.62 transitions per choice on average, 3 maximum"
}

@test "csrinfo reads a model from a pipe" {
    run bash -c "prism2csr -l '$MODELS/leader4.lab' '$MODELS/leader4.tra' | csrinfo"
    assert_success
    assert_line --index 0 "(stdin):	CSR 1.0 MDP, 3172 states, 6252 choices, 7144 transitions"
}

@test "csrinfo detects a stream cut short in a pipe" {
    run --separate-stderr bash -c "prism2csr '$MODELS/leader4.tra' | head -c 5000 | csrinfo"
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" "csrinfo: (stdin): byte 5000: file is truncated: input ends at byte 5000"
}

@test "csrinfo rejects a truncated file" {
    head -c 1000 "$CSR" > "$BATS_TEST_TMPDIR/bad.csr"
    invalid ": byte 0: file is truncated: 1000 bytes, header says 1216"
}

@test "csrinfo rejects data after the end of the file" {
    { cat "$CSR"; printf 'x'; } > "$BATS_TEST_TMPDIR/bad.csr"
    invalid ": byte 0: trailing data after the end of the file: 1217 bytes, header says 1216"
    run --separate-stderr bash -c "cat '$BATS_TEST_TMPDIR/bad.csr' | csrinfo"
    assert_failure 1
    assert_equal "$stderr" "csrinfo: (stdin): byte 1216: trailing data after the end of the file: data after byte 1216"
}

@test "csrinfo rejects a file that is not CSR" {
    local hint="prism2csr converts PRISM's and Storm's exports (.tra, DRN, UMB) to CSR"
    cp "$MODELS/fmsd_fig1.tra" "$BATS_TEST_TMPDIR/bad.csr"
    invalid ": byte 0: not a CSR file (bad magic number): $hint"
    run --separate-stderr csrinfo < "$MODELS/fmsd_fig1.tra"
    assert_failure 1
    assert_equal "$stderr" "csrinfo: (stdin): byte 0: not a CSR file (bad magic number): $hint"
}

@test "csrinfo rejects an empty input" {
    : > "$BATS_TEST_TMPDIR/bad.csr"
    invalid ": file is truncated: 0 bytes"
    run --separate-stderr csrinfo < /dev/null
    assert_failure 1
    assert_equal "$stderr" "csrinfo: (stdin): file is truncated: empty input"
}

@test "csrinfo finds a flipped byte in a section by its checksum" {
    csrpatch "$CSR" TARGETS+4 07 > "$BATS_TEST_TMPDIR/bad.csr"
    invalid ": byte 640: section checksum mismatch: section TARGETS"
}

@test "csrinfo finds a flipped byte in the header by its checksum" {
    csrpatch "$CSR" 30 01 > "$BATS_TEST_TMPDIR/bad.csr"
    run --separate-stderr csrinfo "$BATS_TEST_TMPDIR/bad.csr"
    assert_failure 1
    [[ "$stderr" == "csrinfo: $BATS_TEST_TMPDIR/bad.csr: byte 0: header checksum mismatch: stored "* ]]
}

@test "csrinfo refuses a newer major version and says so" {
    csrpatch -c "$CSR" 8 0200 > "$BATS_TEST_TMPDIR/bad.csr"
    invalid ": byte 0: unsupported format version: file is version 2.0, this reader reads 1.x (newer major version)"
}

@test "csrinfo accepts a newer minor version" {
    csrpatch -c "$CSR" 10 0700 > "$BATS_TEST_TMPDIR/minor.csr"
    run csrinfo "$BATS_TEST_TMPDIR/minor.csr"
    assert_success
    assert_line --index 0 --partial "CSR 1.7 MDP"
}

@test "csrinfo rejects a reserved flag that is set" {
    csrpatch -c "$CSR" 16 04 > "$BATS_TEST_TMPDIR/bad.csr"
    invalid ": byte 0: reserved field or flag is not zero: header flags 00000004"
}

@test "csrinfo rejects a reserved section flag that is set" {
    csrpatch -c "$CSR" 68 02 > "$BATS_TEST_TMPDIR/bad.csr"
    invalid ": byte 0: reserved field or flag is not zero: section table entry 0"
}

@test "csrinfo skips an unknown optional section and rejects an unknown required one" {
    # Section 7 (LABEL_FIRST) retyped as 99: optional, the labels are incomplete;
    # retype ACTION-free section 4 (PROBABILITIES, entry 3) as optional 99 instead.
    csrpatch -c "$CSR" 160 63000000 164 01000000 > "$BATS_TEST_TMPDIR/opt.csr"
    run csrinfo "$BATS_TEST_TMPDIR/opt.csr"
    assert_success
    assert_line --partial "probability:  none (graph only)"
    assert_line --regexp "^ +unknown +768 +168 [0-9a-f]{8} optional"
    csrpatch -c "$CSR" 160 63000000 > "$BATS_TEST_TMPDIR/bad.csr"
    invalid ": byte 0: unknown section not marked optional: type 99"
}

@test "csrinfo rejects a target out of range behind valid checksums" {
    csrpatch -c "$CSR" TARGETS+0 08000000 > "$BATS_TEST_TMPDIR/bad.csr"
    invalid ": target state out of range: TARGETS: transition 0: state 8 >= 8 states"
}

@test "csrinfo rejects two transitions of a choice to one state behind valid checksums" {
    csrpatch -c "$CSR" TARGETS+4 04000000 > "$BATS_TEST_TMPDIR/bad.csr"
    invalid ": targets of a choice not strictly ascending: TARGETS: choice 1: two transitions to state 4"
}

@test "csrinfo rejects the targets of a choice out of order behind valid checksums" {
    csrpatch -c "$CSR" TARGETS+4 05000000 > "$BATS_TEST_TMPDIR/bad.csr"
    invalid ": targets of a choice not strictly ascending: TARGETS: choice 1: state 4 after state 5"
}

@test "csrinfo rejects decreasing offsets behind valid checksums" {
    csrpatch -c "$CSR" STATE_CHOICES+8 0500000000000000 > "$BATS_TEST_TMPDIR/bad.csr"
    invalid ": offsets not ascending from 0 to the count: STATE_CHOICES: entry 2 (4) is below entry 1 (5)"
}

@test "csrinfo rejects an empty choice behind valid checksums" {
    csrpatch -c "$CSR" CHOICE_TRANSITIONS+8 0000000000000000 > "$BATS_TEST_TMPDIR/bad.csr"
    invalid ": choice without transitions: CHOICE_TRANSITIONS: choice 0"
}

@test "csrinfo rejects a probability outside (0,1] behind valid checksums" {
    csrpatch -c "$CSR" PROBABILITIES+0 000000000000f87f > "$BATS_TEST_TMPDIR/bad.csr"
    invalid ": probability not finite or outside (0,1]: PROBABILITIES: transition 0: nan"
}

@test "csrinfo rejects a choice that does not sum to one unless -w" {
    csrpatch -c "$CSR" PROBABILITIES+0 000000000000e03f > "$BATS_TEST_TMPDIR/bad.csr"
    run --separate-stderr csrinfo "$BATS_TEST_TMPDIR/bad.csr"
    assert_failure 1
    assert_line --partial "valid:        no"
    assert_equal "$stderr" "csrinfo: $BATS_TEST_TMPDIR/bad.csr: probabilities of a choice do not sum to 1: choice 0 sums to 0.5"
    run csrinfo -q -w "$BATS_TEST_TMPDIR/bad.csr"
    assert_success
    assert_output ""
}

@test "csrinfo rejects initial states out of order behind valid checksums" {
    csrpatch -c "$CSR" INITIAL_STATES+0 09000000 > "$BATS_TEST_TMPDIR/bad.csr"
    invalid ": state list not strictly ascending or out of range: INITIAL_STATES: entry 0: state 9 >= 8 states"
}

@test "csrinfo rejects a label list out of range behind valid checksums" {
    csrpatch -c "$CSR" LABEL_STATES+4 08000000 > "$BATS_TEST_TMPDIR/bad.csr"
    invalid ": state list not strictly ascending or out of range: LABEL_STATES: label \"s3\": entry 0: state 8 >= 8 states"
}

@test "csrinfo rejects non-zero padding behind valid checksums" {
    csrpatch -c "$CSR" INITIAL_STATES+4 01 > "$BATS_TEST_TMPDIR/bad.csr"
    invalid ": byte 964: padding bytes are not zero: after section INITIAL_STATES"
}

@test "csrinfo rejects a count that makes a section length overflow" {
    csrpatch -c "$CSR" 40 ffffffffffffff7f > "$BATS_TEST_TMPDIR/bad.csr"
    invalid ": byte 640: count too large for the format or this machine: section TARGETS for the header's counts"
    csrpatch -c "$CSR" 24 0000000002000000 > "$BATS_TEST_TMPDIR/bad.csr"
    invalid ": byte 0: count too large for the format or this machine: 8589934592 states (at most 2^32)"
}

# Counts at and past 2^32 and 2^29 in a crafted header behind valid checksums:
# every length is computed in 64 bits (no wrap-around), from a file and from a
# pipe alike, and the GPU tools refuse the same file the same way.
limit_case() { # offset hexbytes expected-message-after-the-file-name
    csrpatch -c "$CSR" "$1" "$2" > "$BATS_TEST_TMPDIR/bad.csr"
    invalid "$3"
    run --separate-stderr bash -c "cat '$BATS_TEST_TMPDIR/bad.csr' | csrinfo"
    assert_failure 1
    assert_equal "$stderr" "csrinfo: (stdin)$3"
    run --separate-stderr gpu-mec --cpu "$BATS_TEST_TMPDIR/bad.csr"
    assert_failure 1
    assert_equal "$stderr" "gpu-mec: $BATS_TEST_TMPDIR/bad.csr$3"
}

@test "csrinfo reads transition counts at and past 2^32 in a crafted header without wrapping around" {
    limit_case 40 ffffffff00000000 ": byte 640: section length does not match the counts: section TARGETS: 84 bytes, expected 17179869180"
    limit_case 40 0000000001000000 ": byte 640: section length does not match the counts: section TARGETS: 84 bytes, expected 17179869184"
    limit_case 40 0100000001000000 ": byte 640: section length does not match the counts: section TARGETS: 84 bytes, expected 17179869188"
    limit_case 32 0000000001000000 ": byte 512: section length does not match the counts: section CHOICE_TRANSITIONS: 112 bytes, expected 34359738376"
}

@test "csrinfo reads state counts at and past 2^29 and 2^32 in a crafted header without wrapping around" {
    limit_case 24 0000002000000000 ": byte 384: section length does not match the counts: section STATE_CHOICES: 72 bytes, expected 4294967304"
    limit_case 24 0100002000000000 ": byte 384: section length does not match the counts: section STATE_CHOICES: 72 bytes, expected 4294967312"
    limit_case 24 0000000001000000 ": byte 384: section length does not match the counts: section STATE_CHOICES: 72 bytes, expected 34359738376"
    limit_case 24 0100000001000000 ": byte 0: count too large for the format or this machine: 4294967297 states (at most 2^32)"
}

@test "csrinfo -q prints nothing and answers by its exit status" {
    run csrinfo -q "$CSR"
    assert_success
    assert_output ""
}

@test "csrinfo answers -h and rejects bad usage with status 2" {
    run csrinfo -h
    assert_success
    assert_line --index 0 --partial "usage: csrinfo"
    run csrinfo -z
    assert_failure 2
    run csrinfo "$CSR" "$CSR"
    assert_failure 2
}

@test "csrinfo says that it cannot open a missing file" {
    run --separate-stderr csrinfo "$BATS_TEST_TMPDIR/none.csr"
    assert_failure 1
    assert_equal "$stderr" "csrinfo: $BATS_TEST_TMPDIR/none.csr: cannot open: No such file or directory"
}

@test "csrinfo gives the same verdict and message when the checksums and checks run in parallel" {
    # CSR_TEST_GRAIN=1: a thread per CPU even for 8 states, as for a paper-scale model
    CSR_TEST_GRAIN=1 run csrinfo -q "$CSR"
    assert_success
    for patch in "TARGETS+0 08000000" "TARGETS+4 04000000" "TARGETS+4 05000000" \
        "STATE_CHOICES+8 0500000000000000" "CHOICE_TRANSITIONS+8 0000000000000000" \
        "PROBABILITIES+0 000000000000f87f" "PROBABILITIES+0 000000000000e03f" "LABEL_STATES+4 08000000"; do
        csrpatch -c "$CSR" $patch > "$BATS_TEST_TMPDIR/bad.csr"
        run --separate-stderr csrinfo -q "$BATS_TEST_TMPDIR/bad.csr"
        assert_failure 1
        sequential=$stderr
        CSR_TEST_GRAIN=1 run --separate-stderr csrinfo -q "$BATS_TEST_TMPDIR/bad.csr"
        assert_failure 1
        assert_equal "$stderr" "$sequential"
    done
    # a flipped byte is found by the combined checksum of the chunks
    csrpatch "$CSR" TARGETS+4 03000000 > "$BATS_TEST_TMPDIR/bad.csr"
    CSR_TEST_GRAIN=1 run --separate-stderr csrinfo -q "$BATS_TEST_TMPDIR/bad.csr"
    assert_failure 1
    assert_equal "$stderr" "csrinfo: $BATS_TEST_TMPDIR/bad.csr: byte 640: section checksum mismatch: section TARGETS"
}

@test "csrinfo refuses a reward that is negative, infinite or NaN, naming the first, with its checks in one task and a task per CPU" {
    # wlan.0: 3 structures of 3,972 choice rewards: choice 3 of structure 1 infinite, the last entry NaN
    prism2csr "$DATA/qvbs/wlan.0.COL0.umb" > "$BATS_TEST_TMPDIR/w.csr"
    csrpatch -c "$BATS_TEST_TMPDIR/w.csr" CHOICE_REWARDS+31800 000000000000f07f > "$BATS_TEST_TMPDIR/one.csr"
    csrpatch -c "$BATS_TEST_TMPDIR/one.csr" CHOICE_REWARDS+95320 000000000000f87f > "$BATS_TEST_TMPDIR/bad.csr"
    for grain in 1000000000 1; do
        CSR_TEST_GRAIN=$grain invalid ": reward not finite or negative: CHOICE_REWARDS: choice 3 of structure 1: inf"
    done
    # consensus.2 (K=2): 272 state rewards: state 5 negative, the last NaN
    prism2csr "$DATA/qvbs/consensus.2.K2.umb" > "$BATS_TEST_TMPDIR/c.csr"
    csrpatch -c "$BATS_TEST_TMPDIR/c.csr" STATE_REWARDS+40 000000000000f0bf > "$BATS_TEST_TMPDIR/one.csr"
    csrpatch -c "$BATS_TEST_TMPDIR/one.csr" STATE_REWARDS+2168 000000000000f87f > "$BATS_TEST_TMPDIR/bad.csr"
    for grain in 1000000000 1; do
        CSR_TEST_GRAIN=$grain invalid ": reward not finite or negative: STATE_REWARDS: state 5 of structure 0: -1"
    done
}

@test "prism2csr writes the same bytes and csrinfo accepts every small model with checksums and checks in parallel" {
    for tra in "$MODELS"/*.tra "$MODELS"/*.tra.gz; do
        [ -f "$tra" ] || continue
        name=$(basename "${tra%.gz}" .tra)
        lab=$MODELS/$name.lab
        [ -f "$lab" ] || lab=$lab.gz
        prism2csr -l "$lab" "$tra" > "$BATS_TEST_TMPDIR/seq.csr"
        CSR_TEST_GRAIN=1 prism2csr -l "$lab" "$tra" > "$BATS_TEST_TMPDIR/par.csr"
        cmp "$BATS_TEST_TMPDIR/seq.csr" "$BATS_TEST_TMPDIR/par.csr"
        CSR_TEST_GRAIN=1 run csrinfo -q "$BATS_TEST_TMPDIR/par.csr"
        assert_success
    done
}
