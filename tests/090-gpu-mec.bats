#!/usr/bin/env bats
# bats file_tags=gpu
# gpu-mec on the GPU, in every configuration, against the basic CPU MEC
# algorithm (--cpu, byte for byte) and PRISM's .mecs; compute-sanitizer on the
# small models (gpu-scc's racecheck too).  Skipped where there is no GPU; run
# on the device machine (bench/on-device.sh test tests/090-gpu-mec.bats).

load helper

CONFIGS=("" "--j-set" "--bfbt" "--nh" "--no-warp-aggregation" "--no-transpose" "-c 3" "--host-loop"
         "--sweep-trim" "--j-set --bfbt -c 3" "--host-loop --j-set --no-transpose")

setup() {
    require_models
    nvidia-smi -L >/dev/null 2>&1 || skip "no GPU here"
}

# gpu-mec in every configuration must print exactly what --cpu prints.
all_configs_equal_cpu() { # csr-file what
    gpu-mec --cpu "$1" > "$BATS_TEST_TMPDIR/cpu.labels"
    for config in "${CONFIGS[@]}"; do
        gpu-mec $config "$1" > "$BATS_TEST_TMPDIR/gpu.labels" || fail "$2: gpu-mec $config failed"
        cmp -s "$BATS_TEST_TMPDIR/cpu.labels" "$BATS_TEST_TMPDIR/gpu.labels" ||
            fail "$2: gpu-mec $config differs from --cpu: $(labelcmp -m 3 "$BATS_TEST_TMPDIR/cpu.labels" "$BATS_TEST_TMPDIR/gpu.labels")"
    done
}

@test "GPU: prism2csr | restructure -u 7 | gpu-mec equals PRISM's MECs on every shared MDP" {
    local n=0
    for m in $(model_names); do
        mecs=$(model_file "$m.mecs")
        [ -n "$mecs" ] || continue
        prism2csr -l "$(model_file "$m.lab")" "$(model_file "$m.tra")" | restructure -u 7 | gpu-mec > "$BATS_TEST_TMPDIR/l"
        run labelcmp "$BATS_TEST_TMPDIR/l" "$mecs"
        [ "$status" -eq 0 ] || fail "$m: $output"
        n=$((n + 1))
    done
    [ "$n" -ge 18 ] || fail "only $n MDPs with .mecs found"
}

@test "GPU: gpu-mec equals the CPU MEC algorithm on every shared model in every configuration" {
    for m in $(model_names); do
        prism2csr "$(model_file "$m.tra")" > "$BATS_TEST_TMPDIR/$m.csr"
        all_configs_equal_cpu "$BATS_TEST_TMPDIR/$m.csr" "$m"
    done
}

@test "GPU: gpu-mec on restructured input equals the CPU on plain input on every shared model" {
    for m in $(model_names); do
        prism2csr "$(model_file "$m.tra")" > "$BATS_TEST_TMPDIR/$m.csr"
        gpu-mec --cpu "$BATS_TEST_TMPDIR/$m.csr" > "$BATS_TEST_TMPDIR/plain.labels"
        restructure -u 7 "$BATS_TEST_TMPDIR/$m.csr" > "$BATS_TEST_TMPDIR/$m.r.csr"
        for config in "" "--j-set" "--bfbt -c 3" "--sweep-trim"; do
            gpu-mec $config "$BATS_TEST_TMPDIR/$m.r.csr" > "$BATS_TEST_TMPDIR/gpu.labels"
            cmp -s "$BATS_TEST_TMPDIR/plain.labels" "$BATS_TEST_TMPDIR/gpu.labels" || fail "$m: gpu-mec $config differs"
        done
    done
}

@test "GPU: gpu-mec counts the same rounds, removed states and removed choices as the CPU algorithm" {
    for m in $(model_names); do
        prism2csr "$(model_file "$m.tra")" > "$BATS_TEST_TMPDIR/$m.csr"
        cpu=$(gpu-mec --cpu --stats "$BATS_TEST_TMPDIR/$m.csr" 2>&1 >/dev/null | sed -n '1s/; read.*//p')
        gpu=$(gpu-mec --stats "$BATS_TEST_TMPDIR/$m.csr" 2>&1 >/dev/null | sed -n '1s/; read.*//p')
        [[ "$cpu" == *"rounds"* ]] || fail "$m: no counts in '$cpu'"
        assert_equal "$gpu" "$cpu"
    done
}

# MEC labels of tests/data/$1.tra on the GPU must equal tests/data/$1.mecs.expected.
gpu_mecs_equal() {
    prism2csr "$DATA/$1.tra" > "$BATS_TEST_TMPDIR/m.csr"
    for config in "${CONFIGS[@]}"; do
        run gpu-mec $config "$BATS_TEST_TMPDIR/m.csr"
        assert_success
        assert_output "$(cat "$DATA/$1.mecs.expected")"
    done
}

@test "GPU: gpu-mec finds the MECs {s2}, {s3}, {s4,s5,s6} of the FMSD running example" {
    prism2csr -l "$MODELS/fmsd_fig1.lab" "$MODELS/fmsd_fig1.tra" > "$BATS_TEST_TMPDIR/f.csr"
    for config in "${CONFIGS[@]}"; do
        run gpu-mec $config "$BATS_TEST_TMPDIR/f.csr"
        assert_output "$(cat "$DATA/fmsd_fig1.mecs.expected")"
    done
}

@test "GPU: gpu-mec does not take an SCC held together by a choice that leaves it with some transitions for a MEC" {
    gpu_mecs_equal leaving-choice
}

@test "GPU: gpu-mec finds a MEC that an SCC yields only in a later round" {
    gpu_mecs_equal split-rounds
}

@test "GPU: gpu-mec removes the attractor of a state that cannot stay" {
    gpu_mecs_equal attractor
}

@test "GPU: gpu-mec makes a long cycle one MEC and a long chain one MEC at its end" {
    gpu_mecs_equal cycle
    awk 'BEGIN { n = 200000; print n, n; for (i = 0; i < n; i++) print i, (i + 1) % n, 1 }' > "$BATS_TEST_TMPDIR/ring.tra"
    prism2csr "$BATS_TEST_TMPDIR/ring.tra" > "$BATS_TEST_TMPDIR/ring.csr"
    run bash -c "gpu-mec '$BATS_TEST_TMPDIR/ring.csr' | sort -u"
    assert_output "0"
    awk 'BEGIN { n = 100000; print n, n; for (i = 0; i < n - 1; i++) print i, i + 1, 1; print n - 1, n - 1, 1 }' \
        > "$BATS_TEST_TMPDIR/chain.tra"
    prism2csr "$BATS_TEST_TMPDIR/chain.tra" > "$BATS_TEST_TMPDIR/chain.csr"
    run bash -c "gpu-mec '$BATS_TEST_TMPDIR/chain.csr' | sort | uniq -c | tr -s ' '"
    assert_output " 99999 -
 1 99999"
}

@test "GPU: gpu-mec puts no state in a MEC when no state has a choice" {
    randmdp -n 500 -e 100 7 > "$BATS_TEST_TMPDIR/none.csr"
    run bash -c "gpu-mec '$BATS_TEST_TMPDIR/none.csr' | sort | uniq -c | tr -s ' '"
    assert_output " 500 -"
}

@test "GPU: gpu-mec finds the bottom SCCs of a DTMC as its MECs" {
    prism2csr "$MODELS/dice.tra" > "$BATS_TEST_TMPDIR/d.csr"
    run gpu-mec "$BATS_TEST_TMPDIR/d.csr"
    assert_output "$(cat "$DATA/dice.mecs.expected")"
}

@test "GPU: gpu-mec equals the CPU MEC algorithm on random MDPs with self-loops and states without choices" {
    for seed in $(seq 1 24); do
        n=$(( (seed * 37) % 2000 + 2 ))
        randmdp -n "$n" -c 3 -k 3 -e 10 -l $(( seed % 4 * 30 )) "$seed" > "$BATS_TEST_TMPDIR/r.csr"
        all_configs_equal_cpu "$BATS_TEST_TMPDIR/r.csr" "seed $seed, $n states"
    done
}

@test "GPU: gpu-mec --stats reports MEC rounds, removed states and times per phase" {
    prism2csr "$MODELS/fmsd_fig1.tra" > "$BATS_TEST_TMPDIR/f.csr"
    run --separate-stderr gpu-mec --stats "$BATS_TEST_TMPDIR/f.csr"
    assert_success
    [[ "$stderr" == *"8 states, 13 choices, 21 transitions: 3 MECs with 5 states; "*" rounds"* ]] || fail "$stderr"
    [[ "$stderr" == *"host-to-device"*"SCCs"*"attractors"*"device-to-host"*"trimming"*"pivots"*"searches"* ]] ||
        fail "$stderr"
}

@test "GPU: gpu-mec and gpu-scc are clean under compute-sanitizer memcheck and racecheck on small models" {
    command -v compute-sanitizer >/dev/null || skip "compute-sanitizer not installed"
    for m in fmsd_fig1 coin2 leader3 dice; do
        prism2csr "$(model_file "$m.tra")" > "$BATS_TEST_TMPDIR/$m.csr"
        for config in "" "--j-set --no-transpose --bfbt" "--host-loop" "-c 3" "--sweep-trim"; do
            run compute-sanitizer --tool memcheck --error-exitcode 9 gpu-mec $config "$BATS_TEST_TMPDIR/$m.csr"
            [ "$status" -eq 0 ] || fail "memcheck $m $config: $output"
        done
        for tool in gpu-scc gpu-mec; do
            for config in "" "-c 3" "--host-loop -c 3"; do
                run compute-sanitizer --tool racecheck --error-exitcode 9 $tool $config "$BATS_TEST_TMPDIR/$m.csr"
                [ "$status" -eq 0 ] || fail "racecheck $tool $m $config: $output"
            done
        done
    done
}
