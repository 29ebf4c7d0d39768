#!/usr/bin/env bats
# bats file_tags=gpu
# gpu-scc on the GPU, every engine in every configuration, against Tarjan
# (--cpu, byte for byte), PRISM's .sccs and brute force (the oracle's random
# MDPs).  Skipped where there is no GPU; run on the device machine
# (bench/on-device.sh test tests/070-gpu-scc.bats).

load helper

# The lp engine (the default), and the fb engine in the FMSD article's configurations.
# --label-order: the default alternates; the two others keep one end of the order in every phase.
LP_CONFIGS=("" "--engine lp --no-peel" "--engine lp --peel-schedule async" "--engine lp --sweeps 1" "--engine lp --blocks 3"
            "--engine lp --label-order largest" "--engine lp --label-order smallest --no-peel")
FB_CONFIGS=("--engine fb" "--engine fb --peel" "--nh" "--bfbt" "--no-warp-aggregation" "--no-transpose" "--bfbt --nh"
            "--no-transpose --bfbt" "--host-loop" "--host-loop --nh --bfbt" "--host-loop --no-transpose" "-c 3"
            "-c 7 --nh" "-c 2 --bfbt" "--host-loop -c 3" "--sweep-trim" "--sweep-trim -c 3 --bfbt" "--blocks 5 -c 3")
CONFIGS=("${LP_CONFIGS[@]}" "${FB_CONFIGS[@]}")

setup() {
    require_models
    nvidia-smi -L >/dev/null 2>&1 || skip "no GPU here"
}

@test "GPU: gpu-scc equals Tarjan on every shared model with every engine and configuration" {
    shared_union "$BATS_TEST_TMPDIR/all.csr"
    configs_equal_cpu gpu-scc "$BATS_TEST_TMPDIR/all.csr" "the shared models" "${CONFIGS[@]}"
}

@test "GPU: gpu-scc on restructured input equals Tarjan on plain input on every shared model" {
    shared_union "$BATS_TEST_TMPDIR/all.csr"
    restructure -u 7 "$BATS_TEST_TMPDIR/all.csr" > "$BATS_TEST_TMPDIR/all.r.csr"
    gpu-scc --cpu "$BATS_TEST_TMPDIR/all.csr" > "$BATS_TEST_TMPDIR/plain.labels"
    configs_equal_file gpu-scc "$BATS_TEST_TMPDIR/plain.labels" "$BATS_TEST_TMPDIR/all.r.csr" "the shared models, -u 7" "${CONFIGS[@]}"
}

# fb's pivot rounds grow with the number of components: its configurations
# take 10,000 MDPs (the lp engine 100,000), so that the file runs in minutes.
@test "GPU: gpu-scc equals brute force on 100,000 random MDPs with the lp engine and 10,000 with fb" {
    oracle -n 100000 -s 7 -u "$BATS_TEST_TMPDIR/u" > /dev/null
    configs_equal_file gpu-scc "$BATS_TEST_TMPDIR/u.sccs" "$BATS_TEST_TMPDIR/u.csr" "100,000 random MDPs" "${LP_CONFIGS[@]}"
    oracle -n 10000 -s 8 -u "$BATS_TEST_TMPDIR/v" > /dev/null
    configs_equal_file gpu-scc "$BATS_TEST_TMPDIR/v.sccs" "$BATS_TEST_TMPDIR/v.csr" "10,000 random MDPs" "${FB_CONFIGS[@]}"
}

@test "GPU: gpu-scc equals Tarjan on random MDPs with self-loops and states without transitions" {
    random_union "$BATS_TEST_TMPDIR/r.csr"
    configs_equal_cpu gpu-scc "$BATS_TEST_TMPDIR/r.csr" "24 random MDPs" "${CONFIGS[@]}"
}

@test "GPU: gpu-scc makes one SCC of a long cycle" {
    awk 'BEGIN { n = 200000; print n, n; for (i = 0; i < n; i++) print i, (i + 1) % n, 1 }' > "$BATS_TEST_TMPDIR/ring.tra"
    prism2csr "$BATS_TEST_TMPDIR/ring.tra" > "$BATS_TEST_TMPDIR/ring.csr"
    run bash -c "gpu-scc '$BATS_TEST_TMPDIR/ring.csr' | sort -u"
    assert_output "0"
    configs_equal_cpu gpu-scc "$BATS_TEST_TMPDIR/ring.csr" ring "${CONFIGS[@]}"
}

@test "GPU: gpu-scc gives every state of a long chain an SCC of its own, peeled from both ends" {
    awk 'BEGIN { n = 100000; print n, n; for (i = 0; i < n - 1; i++) print i, i + 1, 1; print n - 1, n - 1, 1 }' \
        > "$BATS_TEST_TMPDIR/chain.tra"
    prism2csr "$BATS_TEST_TMPDIR/chain.tra" > "$BATS_TEST_TMPDIR/chain.csr"
    for config in "" "--engine lp --no-peel" "--engine fb" "--engine fb --peel"; do
        gpu-scc $config "$BATS_TEST_TMPDIR/chain.csr" > "$BATS_TEST_TMPDIR/chain.scc"
        run bash -c "seq 0 99999 | cmp - '$BATS_TEST_TMPDIR/chain.scc'"
        assert_success
    done
    run --separate-stderr gpu-scc --stats=json "$BATS_TEST_TMPDIR/chain.csr"
    [[ "$stderr" == *'"peeled":100000,'* ]] || fail "the chain was not peeled whole: $stderr"
}

@test "GPU: gpu-scc handles a model of one state with a self-loop and one without transitions" {
    randmdp -n 1 -k 1 -e 0 -l 100 1 > "$BATS_TEST_TMPDIR/one.csr"
    randmdp -n 1 -k 1 -e 100 1 > "$BATS_TEST_TMPDIR/none.csr"
    for config in "" "--engine lp --no-peel" "--engine fb"; do
        run gpu-scc $config "$BATS_TEST_TMPDIR/one.csr"
        assert_output "0"
        run gpu-scc $config "$BATS_TEST_TMPDIR/none.csr"
        assert_output "0"
    done
}

@test "GPU: gpu-scc --stats reports counts and times per phase" {
    prism2csr "$MODELS/fmsd_fig1.tra" > "$BATS_TEST_TMPDIR/f.csr"
    for engine in lp fb; do
        run --separate-stderr gpu-scc --engine $engine --stats "$BATS_TEST_TMPDIR/f.csr"
        assert_success
        [[ "$stderr" == *"8 states, 21 transitions: 6 SCCs (2 trivial)"* ]] || fail "$stderr"
        [[ "$stderr" == *"engine $engine: "*" peeled, "*" phases, "*" passes"* ]] || fail "$stderr"
        [[ "$stderr" == *"upload"*"resident"*"prepare"*"peel"*"search"*"finish"*"download"* ]] || fail "$stderr"
    done
}

@test "GPU: gpu-scc --stats=json prints one JSON object with the counts, times and device memory" {
    prism2csr "$MODELS/fmsd_fig1.tra" > "$BATS_TEST_TMPDIR/f.csr"
    run --separate-stderr gpu-scc --stats=json "$BATS_TEST_TMPDIR/f.csr"
    assert_success
    run python3 -c 'import json, sys; j = json.loads(sys.argv[1]); print(j["tool"], j["engine"], j["states"], j["sccs"], j["trivial_sccs"], j["resident_s"] > 0, j["device_bytes_planned"] > 0)' "$stderr"
    assert_output "gpu-scc lp 8 6 2 True True"
}

@test "GPU: the device memory each engine plans before allocating is at least what it allocates" {
    shared_union "$BATS_TEST_TMPDIR/all.csr"
    restructure -u 7 "$BATS_TEST_TMPDIR/all.csr" > "$BATS_TEST_TMPDIR/all.r.csr"
    prism2csr "$MODELS/fmsd_fig1.tra" > "$BATS_TEST_TMPDIR/f.csr"
    for config in "" "--engine lp --no-peel" "--engine fb" "--engine fb --peel" "--no-transpose" "--host-loop"; do
        for csr in "$BATS_TEST_TMPDIR/f.csr" "$BATS_TEST_TMPDIR/all.csr" "$BATS_TEST_TMPDIR/all.r.csr"; do
            run --separate-stderr gpu-scc $config --stats=json "$csr"
            assert_success
            run python3 -c 'import json, sys; j = json.loads(sys.argv[1]); p, a = j["device_bytes_planned"], j["device_bytes_allocated"]; print("ok" if a > 0 and p >= a else "planned %d < allocated %d" % (p, a))' "$stderr"
            [ "$output" = ok ] || fail "${csr##*/} $config: $output"
        done
    done
}

@test "GPU: gpu-scc and gpu-mec on a GPU too small say what they planned, what the GPU has free, and that -g or --cpu runs it" {
    local m tool
    m=$(model_csr leader4)
    for tool in gpu-scc gpu-mec; do
        CSR_TEST_DEVICE_BYTES=100000 run --separate-stderr "$tool" "$m"
        [ "$status" -eq 1 ] || fail "$tool: exit $status"
        [ -z "$output" ] || fail "$tool wrote labels"
        assert_regex "$stderr" "out of memory"
        assert_regex "$stderr" "$tool: the decomposition plans [0-9.]+ GB of device memory; GPU [0-9]+ has [0-9.]+ GB free of [0-9.]+ GB: -g N spreads the model over N GPUs"
        assert_regex "$stderr" "--cpu runs it on the CPU"
    done
}

@test "GPU: gpu-scc is clean under compute-sanitizer memcheck and racecheck on small models" {
    command -v compute-sanitizer >/dev/null || skip "compute-sanitizer not installed"
    for m in fmsd_fig1 coin2 leader3 dice; do
        prism2csr "$(model_file "$m.tra")" > "$BATS_TEST_TMPDIR/$m.csr"
        for config in "" "--engine lp --no-peel" "--engine fb" "--engine fb --peel" "--no-transpose --bfbt" "--host-loop" "-c 3" "--sweep-trim"; do
            run compute-sanitizer --tool memcheck --error-exitcode 9 gpu-scc $config "$BATS_TEST_TMPDIR/$m.csr"
            [ "$status" -eq 0 ] || fail "memcheck $m $config: $output"
        done
        for config in "" "--engine fb -c 3" "--host-loop -c 3"; do
            run compute-sanitizer --tool racecheck --error-exitcode 9 gpu-scc $config "$BATS_TEST_TMPDIR/$m.csr"
            [ "$status" -eq 0 ] || fail "racecheck $m $config: $output"
        done
    done
}

# ---- one test per model (require_test_per_model checks the list) ----

scc_check_gpu() {
    require_model "$1"
    prism2csr "$(model_file "$1.tra")" > "$BATS_TEST_TMPDIR/$1.csr"
    for config in "" "--engine fb"; do
        gpu-scc $config "$BATS_TEST_TMPDIR/$1.csr" > "$BATS_TEST_TMPDIR/gpu.labels"
        run labelcmp -m 3 "$BATS_TEST_TMPDIR/gpu.labels" "$(model_file "$1.sccs")"
        [ "$status" -eq 0 ] || fail "gpu-scc $config: $output"
    done
}

@test "GPU: every model of INDEX.tsv has a test of its own in this file" {
    require_test_per_model "$BATS_TEST_FILENAME"
}

@test "fmsd_fig1: GPU: gpu-scc equals PRISM's SCCs (lp and fb)" { scc_check_gpu fmsd_fig1; }
@test "dice: GPU: gpu-scc equals PRISM's SCCs (lp and fb)" { scc_check_gpu dice; }
@test "brp: GPU: gpu-scc equals PRISM's SCCs (lp and fb)" { scc_check_gpu brp; }
@test "herman7: GPU: gpu-scc equals PRISM's SCCs (lp and fb)" { scc_check_gpu herman7; }
@test "coin2: GPU: gpu-scc equals PRISM's SCCs (lp and fb)" { scc_check_gpu coin2; }
@test "coin4: GPU: gpu-scc equals PRISM's SCCs (lp and fb)" { scc_check_gpu coin4; }
@test "leader3: GPU: gpu-scc equals PRISM's SCCs (lp and fb)" { scc_check_gpu leader3; }
@test "leader4: GPU: gpu-scc equals PRISM's SCCs (lp and fb)" { scc_check_gpu leader4; }
@test "csma2_2: GPU: gpu-scc equals PRISM's SCCs (lp and fb)" { scc_check_gpu csma2_2; }
@test "firewire_dl: GPU: gpu-scc equals PRISM's SCCs (lp and fb)" { scc_check_gpu firewire_dl; }
@test "zeroconf: GPU: gpu-scc equals PRISM's SCCs (lp and fb)" { scc_check_gpu zeroconf; }
@test "phil3: GPU: gpu-scc equals PRISM's SCCs (lp and fb)" { scc_check_gpu phil3; }
@test "mutual3: GPU: gpu-scc equals PRISM's SCCs (lp and fb)" { scc_check_gpu mutual3; }
@test "phil_lss3: GPU: gpu-scc equals PRISM's SCCs (lp and fb)" { scc_check_gpu phil_lss3; }
@test "dining_crypt3: GPU: gpu-scc equals PRISM's SCCs (lp and fb)" { scc_check_gpu dining_crypt3; }
@test "wlan1: GPU: gpu-scc equals PRISM's SCCs (lp and fb)" { scc_check_gpu wlan1; }
@test "leader6: GPU: gpu-scc equals PRISM's SCCs (lp and fb)" { scc_check_gpu leader6; }
@test "coin4_6: GPU: gpu-scc equals PRISM's SCCs (lp and fb)" { scc_check_gpu coin4_6; }
@test "wlan3: GPU: gpu-scc equals PRISM's SCCs (lp and fb)" { scc_check_gpu wlan3; }
@test "csma3_2: GPU: gpu-scc equals PRISM's SCCs (lp and fb)" { scc_check_gpu csma3_2; }
@test "mutual5: GPU: gpu-scc equals PRISM's SCCs (lp and fb)" { scc_check_gpu mutual5; }
@test "dining_crypt6: GPU: gpu-scc equals PRISM's SCCs (lp and fb)" { scc_check_gpu dining_crypt6; }
