#!/usr/bin/env bats
# restructure: the segment-interval layout (FMSD section 5.1), its round trip,
# its padding accounting, and every tool reading restructured input alike.

load helper

setup() {
    require_models
    CSR="$BATS_TEST_TMPDIR/fig1.csr"
    prism2csr -l "$MODELS/fmsd_fig1.lab" "$MODELS/fmsd_fig1.tra" > "$CSR"
}

@test "restructure -u 0 undoes restructure byte for byte on every shared model" {
    for m in $(model_names); do
        prism2csr -l "$(model_file "$m.lab")" "$(model_file "$m.tra")" > "$BATS_TEST_TMPDIR/a.csr"
        restructure -u 7 "$BATS_TEST_TMPDIR/a.csr" > "$BATS_TEST_TMPDIR/r.csr" || fail "$m: restructure failed"
        csrinfo -q "$BATS_TEST_TMPDIR/r.csr" || fail "$m: restructured file invalid"
        restructure -u 0 "$BATS_TEST_TMPDIR/r.csr" | cmp -s - "$BATS_TEST_TMPDIR/a.csr" ||
            fail "$m: -u 0 does not give the original back"
    done
}

@test "SCCs and MECs from restructured input equal those from plain input on every shared model" {
    for m in $(model_names); do
        prism2csr -l "$(model_file "$m.lab")" "$(model_file "$m.tra")" > "$BATS_TEST_TMPDIR/a.csr"
        restructure -u 7 "$BATS_TEST_TMPDIR/a.csr" > "$BATS_TEST_TMPDIR/r.csr"
        gpu-scc --cpu "$BATS_TEST_TMPDIR/a.csr" > "$BATS_TEST_TMPDIR/a.scc"
        gpu-scc --cpu "$BATS_TEST_TMPDIR/r.csr" > "$BATS_TEST_TMPDIR/r.scc"
        cmp -s "$BATS_TEST_TMPDIR/a.scc" "$BATS_TEST_TMPDIR/r.scc" || fail "$m: SCC labels differ"
        gpu-mec --cpu "$BATS_TEST_TMPDIR/a.csr" > "$BATS_TEST_TMPDIR/a.mec"
        gpu-mec --cpu "$BATS_TEST_TMPDIR/r.csr" > "$BATS_TEST_TMPDIR/r.mec"
        cmp -s "$BATS_TEST_TMPDIR/a.mec" "$BATS_TEST_TMPDIR/r.mec" || fail "$m: MEC labels differ"
    done
}

@test "prism2csr | restructure -u 7 | gpu-mec --cpu equals PRISM's MECs" {
    run bash -c "prism2csr -l '$MODELS/coin2.lab' '$MODELS/coin2.tra' | restructure -u 7 | gpu-mec --cpu > '$BATS_TEST_TMPDIR/l' &&
                 labelcmp '$BATS_TEST_TMPDIR/l' '$MODELS/coin2.mecs'"
    assert_success
}

@test "csrinfo shows the layout and its padding: FMSD example with u = 3" {
    # Out-degrees 3 5 1 1 2 4 3 2: six states have at most 3, one segment 3 deep.
    restructure -u 3 "$CSR" > "$BATS_TEST_TMPDIR/r.csr"
    run csrinfo "$BATS_TEST_TMPDIR/r.csr"
    assert_success
    assert_line --index 0 --partial "CSR 1.1 MDP, 8 states, 13 choices, 21 transitions"
    assert_line "  layout:       segments of 32 (u = 3): 6 of 8 states interleaved in 1 segments; 96 entries for 12 transitions (87.5% padding)"
    assert_line "  numbering:    renumbered; PERMUTATION gives the original numbers"
    assert_line "  choices:      1.62 per state on average, 2 maximum, 0 states without a choice"
}

@test "csrinfo shows the layout and its padding: FMSD example with u = 1" {
    restructure -u 1 "$CSR" > "$BATS_TEST_TMPDIR/r.csr"
    run csrinfo "$BATS_TEST_TMPDIR/r.csr"
    assert_line "  layout:       segments of 32 (u = 1): 2 of 8 states interleaved in 1 segments; 32 entries for 2 transitions (93.8% padding)"
}

@test "restructure keeps the labels and the initial state, which csrinfo shows in PRISM's numbering" {
    # With u = 1 the states of one transition come first: state 120 moves, and is shown as PRISM's 120.
    prism2csr -l "$MODELS/coin2.lab" "$MODELS/coin2.tra" > "$BATS_TEST_TMPDIR/c.csr"
    restructure -u 1 "$BATS_TEST_TMPDIR/c.csr" > "$BATS_TEST_TMPDIR/r.csr"
    before=$(csrinfo "$BATS_TEST_TMPDIR/c.csr" | grep 'labels:')
    after=$(csrinfo "$BATS_TEST_TMPDIR/r.csr" | grep 'labels:')
    assert_equal "$after" "$before"
    run csrinfo "$BATS_TEST_TMPDIR/r.csr"
    assert_line "  initial:      1 state: 120 (original numbering)"
}

@test "restructure composes with itself" {
    restructure -u 3 "$CSR" | restructure -u 1 | restructure -u 5 > "$BATS_TEST_TMPDIR/r.csr"
    csrinfo -q "$BATS_TEST_TMPDIR/r.csr"
    restructure -u 0 "$BATS_TEST_TMPDIR/r.csr" | cmp - "$CSR"
}

@test "csrinfo rejects a segment entry that disagrees with the transitions behind valid checksums" {
    restructure -u 3 "$CSR" > "$BATS_TEST_TMPDIR/r.csr"
    csrpatch -c "$BATS_TEST_TMPDIR/r.csr" SEGMENT_TARGETS+0 05000000 > "$BATS_TEST_TMPDIR/bad.csr"
    run --separate-stderr csrinfo "$BATS_TEST_TMPDIR/bad.csr"
    assert_failure 1
    assert_equal "$stderr" "csrinfo: $BATS_TEST_TMPDIR/bad.csr: segment layout does not match the transitions: segment 0, state 0, transition 0"
}

@test "csrinfo rejects a permutation that is not a bijection behind valid checksums" {
    restructure -u 3 "$CSR" > "$BATS_TEST_TMPDIR/r.csr"
    csrpatch -c "$BATS_TEST_TMPDIR/r.csr" PERMUTATION+0 07000000 PERMUTATION+4 07000000 > "$BATS_TEST_TMPDIR/bad.csr"
    run --separate-stderr csrinfo "$BATS_TEST_TMPDIR/bad.csr"
    assert_failure 1
    assert_equal "$stderr" "csrinfo: $BATS_TEST_TMPDIR/bad.csr: state permutation is not a bijection: PERMUTATION: entry 1: state 7 appears twice"
}

@test "restructure rejects bad options and bad input" {
    local hint="prism2csr converts PRISM's and Storm's exports (.tra, DRN, UMB) to CSR"
    run restructure "$CSR"
    assert_failure 2
    assert_output --partial "-u N is required"
    run restructure -u 256 "$CSR"
    assert_failure 2
    run restructure -u x "$CSR"
    assert_failure 2
    run --separate-stderr restructure -u 7 "$MODELS/fmsd_fig1.tra"
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" "restructure: $MODELS/fmsd_fig1.tra: byte 0: not a CSR file (bad magic number): $hint"
    run script -qec "restructure -u 7 $CSR" /dev/null
    assert_failure 2
}

@test "restructure blames standard output, not its input, for a write error" {
    prism2csr "$MODELS/coin2.tra" > "$BATS_TEST_TMPDIR/c.csr"
    run --separate-stderr restructure -u 7 "$BATS_TEST_TMPDIR/c.csr"
    assert_success
    run --separate-stderr bash -c "restructure -u 7 '$BATS_TEST_TMPDIR/c.csr' > /dev/full"
    assert_failure 1
    assert_equal "$stderr" "restructure: (stdout): input/output error: write: No space left on device"
}

@test "csrinfo shows the initial states of a restructured file in PRISM's numbering" {
    prism2csr -l "$(model_file zeroconf.lab)" "$(model_file zeroconf.tra)" > "$BATS_TEST_TMPDIR/z.csr"
    restructure -u 3 "$BATS_TEST_TMPDIR/z.csr" > "$BATS_TEST_TMPDIR/z.r.csr"
    run csrinfo "$BATS_TEST_TMPDIR/z.csr"
    assert_line "  initial:      1 state: 1"
    run csrinfo "$BATS_TEST_TMPDIR/z.r.csr"
    assert_line "  numbering:    renumbered; PERMUTATION gives the original numbers"
    assert_line "  initial:      1 state: 1 (original numbering)"
}
