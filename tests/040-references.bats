#!/usr/bin/env bats
# The CPU references (gpu-scc --cpu: Tarjan; gpu-mec --cpu: the basic MEC
# algorithm of the FMSD article, section 2.3) on hand-checked graphs.

load helper

setup() {
    require_models
}

# MEC labels of tests/data/$1.tra must equal tests/data/$1.mecs.expected.
mecs_equal() {
    prism2csr "$DATA/$1.tra" > "$BATS_TEST_TMPDIR/m.csr"
    run gpu-mec --cpu "$BATS_TEST_TMPDIR/m.csr"
    assert_success
    assert_output "$(cat "$DATA/$1.mecs.expected")"
}

@test "gpu-scc --cpu finds the SCCs of the FMSD running example" {
    prism2csr "$MODELS/fmsd_fig1.tra" > "$BATS_TEST_TMPDIR/f.csr"
    run gpu-scc --cpu "$BATS_TEST_TMPDIR/f.csr"
    assert_success
    assert_output "$(cat "$DATA/fmsd_fig1.sccs.expected")"
}

@test "gpu-mec --cpu finds the MECs {s2}, {s3}, {s4,s5,s6} of the FMSD running example" {
    prism2csr -l "$MODELS/fmsd_fig1.lab" "$MODELS/fmsd_fig1.tra" | gpu-mec --cpu > "$BATS_TEST_TMPDIR/l"
    run cat "$BATS_TEST_TMPDIR/l"
    assert_output "$(cat "$DATA/fmsd_fig1.mecs.expected")"
}

@test "gpu-mec --cpu does not take an SCC held together by a leaving choice for a MEC" {
    # {0,1} is an SCC only through 0's choice that also leaves to 2: MECs {0}, {2}.
    mecs_equal leaving-choice
}

@test "gpu-mec --cpu finds a MEC that an SCC yields only in a later round" {
    # Round 1 removes 1's leaving choice; round 2 splits {0,1,2} into {0} and the MEC {1,2}.
    mecs_equal split-rounds
}

@test "gpu-mec --cpu removes the attractor of a state that cannot stay" {
    # 2 must leave with probability 1/2; 1 and 0 can only go towards 2.
    mecs_equal attractor
}

@test "gpu-mec --cpu makes a strongly connected DTMC one MEC" {
    mecs_equal cycle
}

@test "gpu-mec --cpu finds the bottom SCCs of a DTMC as its MECs" {
    prism2csr "$MODELS/dice.tra" > "$BATS_TEST_TMPDIR/d.csr"
    run gpu-mec --cpu "$BATS_TEST_TMPDIR/d.csr"
    assert_output "$(cat "$DATA/dice.mecs.expected")"
}

@test "gpu-scc --cpu gives every state of a chain an SCC of its own" {
    awk 'BEGIN { n = 100000; print n, n; for (i = 0; i < n - 1; i++) print i, i + 1, 1; print n - 1, n - 1, 1 }' \
        > "$BATS_TEST_TMPDIR/chain.tra"
    prism2csr "$BATS_TEST_TMPDIR/chain.tra" > "$BATS_TEST_TMPDIR/chain.csr"
    gpu-scc --cpu "$BATS_TEST_TMPDIR/chain.csr" > "$BATS_TEST_TMPDIR/chain.scc"
    run bash -c "seq 0 99999 | cmp - '$BATS_TEST_TMPDIR/chain.scc'"
    assert_success
    run bash -c "gpu-mec --cpu '$BATS_TEST_TMPDIR/chain.csr' | sort | uniq -c | tr -s ' '"
    assert_output " 99999 -
 1 99999"
}

@test "gpu-scc --cpu makes a long cycle one SCC without running out of stack" {
    awk 'BEGIN { n = 1000000; print n, n; for (i = 0; i < n; i++) print i, (i + 1) % n, 1 }' > "$BATS_TEST_TMPDIR/ring.tra"
    prism2csr "$BATS_TEST_TMPDIR/ring.tra" | gpu-scc --cpu > "$BATS_TEST_TMPDIR/ring.scc"
    run bash -c "sort -u '$BATS_TEST_TMPDIR/ring.scc'"
    assert_output "0"
}

@test "gpu-scc, gpu-mec and gpu-vi without --cpu where there is no GPU point to --cpu and exit with 3, gpu-vi only for a model it would not answer on the CPU (small, or without a large SCC)" {
    nvidia-smi -L >/dev/null 2>&1 && skip "a GPU is here (tests/090 covers it)"
    prism2csr -l "$MODELS/fmsd_fig1.lab" "$MODELS/fmsd_fig1.tra" > "$BATS_TEST_TMPDIR/f.csr"
    run --separate-stderr gpu-vi --cpu-below 0 -t s3 -m max "$BATS_TEST_TMPDIR/f.csr"
    assert_failure 3
    assert_output ""
    assert_equal "$stderr" "gpu-vi: no CUDA device; use --cpu for the CPU reference"
    run --separate-stderr env GPU_VI_CPU_BELOW=5 gpu-vi -t s3 -m max "$BATS_TEST_TMPDIR/f.csr"
    assert_failure 3
    assert_equal "$stderr" "gpu-vi: no CUDA device; use --cpu for the CPU reference"
    # below --cpu-below (default 100,000 transitions) the CPU answers, the GPU never asked for
    run --separate-stderr gpu-vi --stats=json -t s3 -m max "$BATS_TEST_TMPDIR/f.csr"
    assert_success
    assert_equal "$output" "$(gpu-vi --cpu -t s3 -m max "$BATS_TEST_TMPDIR/f.csr")"
    [[ "$stderr" == *'"cpu":true'* ]] || fail "$stderr"
    # standard input: no header to peek at, so the device starts while it is read; a small model read
    # from it is answered on the CPU as from a file, a large one fails with 3 once read
    run --separate-stderr bash -c "gpu-vi -t s3 -m max < '$BATS_TEST_TMPDIR/f.csr'"
    assert_success
    assert_equal "$output" "$(gpu-vi --cpu -t s3 -m max "$BATS_TEST_TMPDIR/f.csr")"
    # up to 16 times --cpu-below: the CPU where no SCC holds an eighth of it (a chain), else the GPU (a ring)
    awk 'BEGIN { n = 300000; print n + 1, n + 1; for (i = 0; i <= n; i++) print i, (i < n ? i + 1 : n), 1 }' \
        > "$BATS_TEST_TMPDIR/chain.tra"
    awk 'BEGIN { n = 300000; print n + 1, 2 * n + 1; for (i = 0; i < n; i++) { print i, (i + 1) % n, 0.5; print i, n, 0.5 }
                 print n, n, 1 }' \
        > "$BATS_TEST_TMPDIR/ring.tra"
    printf '0="init" 1="goal"\n0: 0\n300000: 1\n' > "$BATS_TEST_TMPDIR/g.lab"
    for m in chain ring; do
        prism2csr -l "$BATS_TEST_TMPDIR/g.lab" "$BATS_TEST_TMPDIR/$m.tra" > "$BATS_TEST_TMPDIR/$m.csr"
    done
    run --separate-stderr gpu-vi -p 'P=? [ F "goal" ]' "$BATS_TEST_TMPDIR/chain.csr"
    assert_success
    assert_output 'P=? [ F "goal" ]: 1'
    run --separate-stderr gpu-vi -p 'P=? [ F "goal" ]' "$BATS_TEST_TMPDIR/ring.csr"
    assert_failure 3
    assert_equal "$stderr" "gpu-vi: no CUDA device; use --cpu for the CPU reference"
    run --separate-stderr bash -c "gpu-vi -p 'P=? [ F \"goal\" ]' < '$BATS_TEST_TMPDIR/ring.csr'"
    assert_failure 3
    assert_output ""
    assert_equal "$stderr" "gpu-vi: no CUDA device; use --cpu for the CPU reference"
    run --separate-stderr gpu-vi --cpu-below 1000000 -p 'P=? [ F "goal" ]' "$BATS_TEST_TMPDIR/ring.csr"
    assert_success
    assert_output 'P=? [ F "goal" ]: 1'
    run --separate-stderr gpu-vi -d 2 -t s3 -m max "$BATS_TEST_TMPDIR/f.csr"
    assert_success
    for tool in gpu-scc gpu-mec; do
        run --separate-stderr $tool "$BATS_TEST_TMPDIR/f.csr"
        assert_failure 3
        assert_output ""
        assert_equal "$stderr" "$tool: no CUDA device; use --cpu for the CPU reference"
    done
}

@test "gpu-scc and gpu-mec report bad input and bad usage" {
    local hint="prism2csr converts PRISM's and Storm's exports (.tra, DRN, UMB) to CSR"
    run --separate-stderr gpu-scc --cpu "$MODELS/fmsd_fig1.tra"
    assert_failure 1
    assert_equal "$stderr" "gpu-scc: $MODELS/fmsd_fig1.tra: byte 0: not a CSR file (bad magic number): $hint"
    run --separate-stderr gpu-mec --cpu -d x
    assert_failure 2
    assert_equal "$stderr" "gpu-mec: bad device number 'x' (0 to 65536)"
    run --separate-stderr gpu-scc -c 65
    assert_failure 2
    assert_equal "$stderr" "gpu-scc: bad local-cache iteration count '65' (0 to 64)"
    run --separate-stderr gpu-mec --j-set --frobnicate
    assert_failure 2
    [[ "$stderr" == *"unrecognized option"* ]] || fail "$stderr"
    run gpu-scc -h
    assert_success
    assert_line --index 0 --partial "usage: gpu-scc"
}

@test "gpu-scc and gpu-mec refuse engine options that do not go together" {
    prism2csr "$MODELS/fmsd_fig1.tra" > "$BATS_TEST_TMPDIR/f.csr"
    run --separate-stderr gpu-scc --engine lp --bfbt "$BATS_TEST_TMPDIR/f.csr"
    assert_failure 2
    assert_equal "$stderr" "gpu-scc: --bfbt is an option of the fb engine, not of --engine lp"
    run --separate-stderr gpu-scc --engine tarjan "$BATS_TEST_TMPDIR/f.csr"
    assert_failure 2
    assert_equal "$stderr" "gpu-scc: unknown engine 'tarjan' (lp, fb or auto)"
    run --separate-stderr gpu-scc --sweeps 4 -c 3 "$BATS_TEST_TMPDIR/f.csr"
    assert_failure 2
    assert_equal "$stderr" "gpu-scc: -c is an option of the fb engine and --sweeps one of the lp engine"
    run --separate-stderr gpu-mec --scheme interleave --engine fb "$BATS_TEST_TMPDIR/f.csr"
    assert_failure 2
    assert_equal "$stderr" "gpu-mec: the interleaved scheme needs the lp engine (the fb engine finds SCCs only: --scheme rounds)"
    run --separate-stderr gpu-mec --scheme sideways "$BATS_TEST_TMPDIR/f.csr"
    assert_failure 2
    assert_equal "$stderr" "gpu-mec: unknown scheme 'sideways' (interleave, rounds or auto)"
    run --separate-stderr gpu-scc --stats=xml --cpu "$BATS_TEST_TMPDIR/f.csr"
    assert_failure 2
    assert_equal "$stderr" "gpu-scc: bad --stats format 'xml' (text or json)"
    run --separate-stderr gpu-mec --peel-schedule eventually --cpu "$BATS_TEST_TMPDIR/f.csr"
    assert_failure 2
    assert_equal "$stderr" "gpu-mec: bad --peel-schedule 'eventually' (levels or async)"
    run --separate-stderr gpu-scc --label-order middle "$BATS_TEST_TMPDIR/f.csr"
    assert_failure 2
    assert_equal "$stderr" "gpu-scc: bad --label-order 'middle' (alternate, largest or smallest)"
    run --separate-stderr gpu-scc --label-order largest --bfbt "$BATS_TEST_TMPDIR/f.csr"
    assert_failure 2
    assert_equal "$stderr" "gpu-scc: --bfbt is an option of the fb engine and --label-order one of the lp engine"
}

@test "gpu-scc --cpu and gpu-mec --cpu --stats=json print one JSON object with the counts and times" {
    prism2csr "$MODELS/fmsd_fig1.tra" > "$BATS_TEST_TMPDIR/f.csr"
    run --separate-stderr gpu-scc --cpu --stats=json "$BATS_TEST_TMPDIR/f.csr"
    assert_success
    run python3 -c 'import json, sys; j = json.loads(sys.argv[1]); print(j["tool"], j["engine"], j["states"], j["sccs"], j["trivial_sccs"], j["decompose_s"] >= 0)' "$stderr"
    assert_output "gpu-scc tarjan 8 6 2 True"
    run --separate-stderr gpu-mec --cpu --stats=json "$BATS_TEST_TMPDIR/f.csr"
    assert_success
    run python3 -c 'import json, sys; j = json.loads(sys.argv[1]); print(j["tool"], j["scheme"], j["mecs"], j["states_in_mecs"], j["rounds"])' "$stderr"
    assert_output "gpu-mec basic 3 5 2"
}
