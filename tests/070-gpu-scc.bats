#!/usr/bin/env bats
# bats file_tags=gpu
# gpu-scc on the GPU, in every configuration, against Tarjan (--cpu, byte for
# byte) and PRISM's .sccs.  Skipped where there is no GPU; run on the device
# machine (bench/on-device.sh test tests/070-gpu-scc.bats).

load helper

CONFIGS=("" "--nh" "--bfbt" "--no-warp-aggregation" "--no-transpose" "--bfbt --nh" "--no-transpose --bfbt"
         "--host-loop" "--host-loop --nh --bfbt" "--host-loop --no-transpose"
         "-c 3" "-c 7 --nh" "-c 2 --bfbt" "--host-loop -c 3" "--sweep-trim" "--sweep-trim -c 3 --bfbt")

setup() {
    require_models
    nvidia-smi -L >/dev/null 2>&1 || skip "no GPU here"
}

# gpu-scc in every configuration must print exactly what --cpu prints.
all_configs_equal_cpu() { # csr-file what
    gpu-scc --cpu "$1" > "$BATS_TEST_TMPDIR/cpu.labels"
    for config in "${CONFIGS[@]}"; do
        gpu-scc $config "$1" > "$BATS_TEST_TMPDIR/gpu.labels" || fail "$2: gpu-scc $config failed"
        cmp -s "$BATS_TEST_TMPDIR/cpu.labels" "$BATS_TEST_TMPDIR/gpu.labels" ||
            fail "$2: gpu-scc $config differs from --cpu: $(labelcmp -m 3 "$BATS_TEST_TMPDIR/cpu.labels" "$BATS_TEST_TMPDIR/gpu.labels")"
    done
}

@test "GPU: gpu-scc equals Tarjan and PRISM's SCCs on every shared model in every configuration" {
    for m in $(model_names); do
        prism2csr "$(model_file "$m.tra")" > "$BATS_TEST_TMPDIR/$m.csr"
        all_configs_equal_cpu "$BATS_TEST_TMPDIR/$m.csr" "$m"
        run labelcmp -m 3 "$BATS_TEST_TMPDIR/gpu.labels" "$(model_file "$m.sccs")"
        [ "$status" -eq 0 ] || fail "$m: $output"
    done
}

@test "GPU: gpu-scc on restructured input equals Tarjan on plain input on every shared model" {
    for m in $(model_names); do
        prism2csr "$(model_file "$m.tra")" > "$BATS_TEST_TMPDIR/$m.csr"
        gpu-scc --cpu "$BATS_TEST_TMPDIR/$m.csr" > "$BATS_TEST_TMPDIR/plain.labels"
        restructure -u 7 "$BATS_TEST_TMPDIR/$m.csr" > "$BATS_TEST_TMPDIR/$m.r.csr"
        for config in "" "-c 3" "--nh" "--bfbt" "--sweep-trim"; do
            gpu-scc $config "$BATS_TEST_TMPDIR/$m.r.csr" > "$BATS_TEST_TMPDIR/gpu.labels"
            cmp -s "$BATS_TEST_TMPDIR/plain.labels" "$BATS_TEST_TMPDIR/gpu.labels" || fail "$m: gpu-scc $config differs"
        done
    done
}

@test "GPU: gpu-scc equals Tarjan on random MDPs with self-loops and states without transitions" {
    for seed in $(seq 1 24); do
        n=$(( (seed * 37) % 2000 + 2 ))
        randmdp -n "$n" -c 3 -k 3 -e 10 -l $(( seed % 4 * 30 )) "$seed" > "$BATS_TEST_TMPDIR/r.csr"
        all_configs_equal_cpu "$BATS_TEST_TMPDIR/r.csr" "seed $seed, $n states"
    done
}

@test "GPU: gpu-scc makes one SCC of a long cycle" {
    awk 'BEGIN { n = 200000; print n, n; for (i = 0; i < n; i++) print i, (i + 1) % n, 1 }' > "$BATS_TEST_TMPDIR/ring.tra"
    prism2csr "$BATS_TEST_TMPDIR/ring.tra" > "$BATS_TEST_TMPDIR/ring.csr"
    run bash -c "gpu-scc '$BATS_TEST_TMPDIR/ring.csr' | sort -u"
    assert_output "0"
    all_configs_equal_cpu "$BATS_TEST_TMPDIR/ring.csr" ring
}

@test "GPU: gpu-scc gives every state of a long chain an SCC of its own" {
    awk 'BEGIN { n = 100000; print n, n; for (i = 0; i < n - 1; i++) print i, i + 1, 1; print n - 1, n - 1, 1 }' \
        > "$BATS_TEST_TMPDIR/chain.tra"
    prism2csr "$BATS_TEST_TMPDIR/chain.tra" > "$BATS_TEST_TMPDIR/chain.csr"
    gpu-scc "$BATS_TEST_TMPDIR/chain.csr" > "$BATS_TEST_TMPDIR/chain.scc"
    run bash -c "seq 0 99999 | cmp - '$BATS_TEST_TMPDIR/chain.scc'"
    assert_success
}

@test "GPU: gpu-scc handles a model of one state with a self-loop and one without transitions" {
    randmdp -n 1 -k 1 -e 0 -l 100 1 > "$BATS_TEST_TMPDIR/one.csr"
    run gpu-scc "$BATS_TEST_TMPDIR/one.csr"
    assert_output "0"
    randmdp -n 1 -k 1 -e 100 1 > "$BATS_TEST_TMPDIR/none.csr"
    run gpu-scc "$BATS_TEST_TMPDIR/none.csr"
    assert_output "0"
}

@test "GPU: gpu-scc --stats reports counts and times per phase" {
    prism2csr "$MODELS/fmsd_fig1.tra" > "$BATS_TEST_TMPDIR/f.csr"
    run --separate-stderr gpu-scc --stats "$BATS_TEST_TMPDIR/f.csr"
    assert_success
    [[ "$stderr" == *"8 states, 21 transitions: 6 SCCs (2 trivial)"* ]] || fail "$stderr"
    [[ "$stderr" == *"host-to-device"*"trimming"*"pivots"*"searches"*"device-to-host"* ]] || fail "$stderr"
}

@test "GPU: gpu-scc is clean under compute-sanitizer memcheck on small models" {
    command -v compute-sanitizer >/dev/null || skip "compute-sanitizer not installed"
    for m in fmsd_fig1 coin2 leader3 dice; do
        prism2csr "$(model_file "$m.tra")" > "$BATS_TEST_TMPDIR/$m.csr"
        for config in "" "--no-transpose --bfbt" "--host-loop" "-c 3" "--sweep-trim"; do
            run compute-sanitizer --tool memcheck --error-exitcode 9 gpu-scc $config "$BATS_TEST_TMPDIR/$m.csr"
            [ "$status" -eq 0 ] || fail "$m $config: $output"
        done
    done
}
