#!/usr/bin/env bats
# bats file_tags=gpu
# gpu-mec on the GPU, both schemes on every engine in every configuration,
# against the basic CPU MEC algorithm (--cpu, byte for byte), PRISM's .mecs
# and brute force (the oracle's random MDPs); compute-sanitizer on the small
# models.  Skipped where there is no GPU; run on the device machine
# (bench/on-device.sh test tests/090-gpu-mec.bats).

load helper

# The default (by the model's class), the round-based scheme on the lp
# engine, the interleaved one, and the round-based one on the fb engine in the
# article's configurations.
LP_CONFIGS=("" "--scheme rounds" "--scheme interleave" "--scheme interleave --blocks 2" "--scheme interleave --peel-schedule async"
            "--scheme rounds --engine lp --no-peel" "--scheme interleave --sweeps 1"
            "--scheme interleave --label-order largest" "--scheme interleave --label-order smallest"
            "--scheme rounds --label-order largest")
FB_CONFIGS=("--engine fb" "--j-set" "--bfbt" "--nh" "--no-warp-aggregation" "--no-transpose" "-c 3" "--host-loop"
            "--sweep-trim" "--engine fb --peel" "--j-set --bfbt -c 3" "--host-loop --j-set --no-transpose")
CONFIGS=("${LP_CONFIGS[@]}" "${FB_CONFIGS[@]}")
SOME_CONFIGS=("" "--scheme interleave" "--engine fb" "--j-set --host-loop" "--sweep-trim -c 3")

setup() {
    require_models
    nvidia-smi -L >/dev/null 2>&1 || skip "no GPU here"
}

@test "GPU: gpu-mec equals the CPU MEC algorithm on every shared model with every scheme, engine and configuration" {
    shared_union "$BATS_TEST_TMPDIR/all.csr"
    configs_equal_cpu gpu-mec "$BATS_TEST_TMPDIR/all.csr" "the shared models" "${CONFIGS[@]}"
}

@test "GPU: gpu-mec on restructured input equals the CPU on plain input on every shared model" {
    shared_union "$BATS_TEST_TMPDIR/all.csr"
    restructure -u 7 "$BATS_TEST_TMPDIR/all.csr" > "$BATS_TEST_TMPDIR/all.r.csr"
    gpu-mec --cpu "$BATS_TEST_TMPDIR/all.csr" > "$BATS_TEST_TMPDIR/plain.labels"
    configs_equal_file gpu-mec "$BATS_TEST_TMPDIR/plain.labels" "$BATS_TEST_TMPDIR/all.r.csr" "the shared models, -u 7" "${CONFIGS[@]}"
}

# fb's pivot rounds grow with the number of components: its configurations
# take 10,000 MDPs (the lp engine 100,000), so that the file runs in minutes.
@test "GPU: gpu-mec equals brute force on 100,000 random MDPs with the lp engine and 10,000 with fb" {
    oracle -n 100000 -s 11 -u "$BATS_TEST_TMPDIR/u" > /dev/null
    configs_equal_file gpu-mec "$BATS_TEST_TMPDIR/u.mecs" "$BATS_TEST_TMPDIR/u.csr" "100,000 random MDPs" "${LP_CONFIGS[@]}"
    oracle -n 10000 -s 12 -u "$BATS_TEST_TMPDIR/v" > /dev/null
    configs_equal_file gpu-mec "$BATS_TEST_TMPDIR/v.mecs" "$BATS_TEST_TMPDIR/v.csr" "10,000 random MDPs" "${FB_CONFIGS[@]}"
}

@test "GPU: the round-based scheme counts the same rounds, removed states and removed choices as the CPU algorithm" {
    for m in $(present_models zeroconf firewire_dl coin4_6 wlan3); do
        prism2csr "$(model_file "$m.tra")" > "$BATS_TEST_TMPDIR/$m.csr"
        cpu=$(gpu-mec --cpu --stats=json "$BATS_TEST_TMPDIR/$m.csr" 2>&1 >/dev/null | python3 -c 'import json, sys; j = json.load(sys.stdin); print(j["mecs"], j["states_in_mecs"], j["rounds"], j["removed_states"], j["removed_choices"])')
        for config in "--scheme rounds" "--engine fb"; do
            gpu=$(gpu-mec $config --stats=json "$BATS_TEST_TMPDIR/$m.csr" 2>&1 >/dev/null | python3 -c 'import json, sys; j = json.load(sys.stdin); print(j["mecs"], j["states_in_mecs"], j["rounds"], j["removed_states"], j["removed_choices"])')
            assert_equal "$gpu" "$cpu"
        done
    done
    shared_union "$BATS_TEST_TMPDIR/all.csr"
    cpu=$(gpu-mec --cpu --stats "$BATS_TEST_TMPDIR/all.csr" 2>&1 >/dev/null | sed -n '1s/; read.*//p')
    [[ "$cpu" == *"rounds"* ]] || fail "no counts in '$cpu'"
    for config in "--scheme rounds" "--engine fb" "--j-set"; do
        gpu=$(gpu-mec $config --stats "$BATS_TEST_TMPDIR/all.csr" 2>&1 >/dev/null | sed -n '1s/; read.*//p')
        assert_equal "$gpu" "$cpu"
    done
}

# MEC labels of tests/data/$1.tra on the GPU must equal tests/data/$1.mecs.expected.
gpu_mecs_equal() {
    prism2csr "$DATA/$1.tra" > "$BATS_TEST_TMPDIR/m.csr"
    for config in "${SOME_CONFIGS[@]}"; do
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
    awk 'BEGIN { n = 100000; print n, n; for (i = 0; i < n - 1; i++) print i, i + 1, 1; print n - 1, n - 1, 1 }' \
        > "$BATS_TEST_TMPDIR/chain.tra"
    prism2csr "$BATS_TEST_TMPDIR/chain.tra" > "$BATS_TEST_TMPDIR/chain.csr"
    for config in "" "--scheme interleave" "--engine fb"; do
        run bash -c "gpu-mec $config '$BATS_TEST_TMPDIR/ring.csr' | sort -u"
        assert_output "0"
        run bash -c "gpu-mec $config '$BATS_TEST_TMPDIR/chain.csr' | sort | uniq -c | tr -s ' '"
        assert_output " 99999 -
 1 99999"
    done
}

@test "GPU: gpu-mec puts no state in a MEC when no state has a choice" {
    randmdp -n 500 -e 100 7 > "$BATS_TEST_TMPDIR/none.csr"
    for config in "" "--scheme interleave" "--engine fb"; do
        run bash -c "gpu-mec $config '$BATS_TEST_TMPDIR/none.csr' | sort | uniq -c | tr -s ' '"
        assert_output " 500 -"
    done
}

@test "GPU: gpu-mec finds the bottom SCCs of a DTMC as its MECs" {
    prism2csr "$MODELS/dice.tra" > "$BATS_TEST_TMPDIR/d.csr"
    for config in "" "--scheme interleave" "--engine fb"; do
        run gpu-mec $config "$BATS_TEST_TMPDIR/d.csr"
        assert_output "$(cat "$DATA/dice.mecs.expected")"
    done
}

@test "GPU: gpu-mec equals the CPU MEC algorithm on random MDPs with self-loops and states without choices" {
    random_union "$BATS_TEST_TMPDIR/r.csr"
    configs_equal_cpu gpu-mec "$BATS_TEST_TMPDIR/r.csr" "24 random MDPs" "${CONFIGS[@]}"
}

@test "GPU: gpu-mec --stats reports MEC rounds, removed states and times per phase" {
    prism2csr "$MODELS/fmsd_fig1.tra" > "$BATS_TEST_TMPDIR/f.csr"
    for config in "" "--scheme interleave" "--engine fb"; do
        run --separate-stderr gpu-mec $config --stats "$BATS_TEST_TMPDIR/f.csr"
        assert_success
        [[ "$stderr" == *"8 states, 13 choices, 21 transitions: 3 MECs with 5 states; "*" rounds"* ]] || fail "$stderr"
        [[ "$stderr" == *"scheme "*"upload"*"resident"*"download"*"engine "*"peeled"*"passes"* ]] || fail "$stderr"
    done
    run --separate-stderr gpu-mec --scheme rounds --stats=json "$BATS_TEST_TMPDIR/f.csr"
    run python3 -c 'import json, sys; j = json.loads(sys.argv[1]); print(j["scheme"], j["mecs"], j["states_in_mecs"], j["scc"]["engine"], j["device_bytes_planned"] >= j["device_bytes_allocated"] > 0)' "$stderr"
    assert_output "rounds 3 5 lp True"
}

@test "GPU: gpu-mec's default scheme is the interleaved one below 3 transitions a state and the round-based one from 3 on or with the fb engine or J sets" {
    scheme_of() {
        gpu-mec "$@" --stats=json 2>&1 >/dev/null | python3 -c 'import json, sys; print(json.loads(sys.stdin.read().strip().splitlines()[-1])["scheme"])'
    }
    prism2csr "$MODELS/fmsd_fig1.tra" > "$BATS_TEST_TMPDIR/f.csr" # 8 states, 21 transitions
    prism2csr "$MODELS/mutual3.tra" > "$BATS_TEST_TMPDIR/m.csr"   # 2,368 states, 8,272 transitions
    assert_equal "$(scheme_of "$BATS_TEST_TMPDIR/f.csr")" interleave
    assert_equal "$(scheme_of "$BATS_TEST_TMPDIR/m.csr")" rounds
    assert_equal "$(scheme_of --engine fb "$BATS_TEST_TMPDIR/f.csr")" rounds
    assert_equal "$(scheme_of --j-set "$BATS_TEST_TMPDIR/f.csr")" rounds
    assert_equal "$(scheme_of --scheme rounds "$BATS_TEST_TMPDIR/f.csr")" rounds
    assert_equal "$(scheme_of --scheme interleave "$BATS_TEST_TMPDIR/m.csr")" interleave
}

@test "GPU: the device memory each MEC scheme plans before allocating is at least what it allocates" {
    shared_union "$BATS_TEST_TMPDIR/all.csr"
    prism2csr "$MODELS/fmsd_fig1.tra" > "$BATS_TEST_TMPDIR/f.csr"
    for config in "" "--scheme interleave" "--engine fb" "--engine fb --peel --j-set"; do
        for csr in "$BATS_TEST_TMPDIR/f.csr" "$BATS_TEST_TMPDIR/all.csr"; do
            run --separate-stderr gpu-mec $config --stats=json "$csr"
            assert_success
            run python3 -c 'import json, sys; j = json.loads(sys.argv[1]); p, a = j["device_bytes_planned"], j["device_bytes_allocated"]; print("ok" if a > 0 and p >= a else "planned %d < allocated %d" % (p, a))' "$stderr"
            [ "$output" = ok ] || fail "${csr##*/} $config: $output"
        done
    done
}

@test "GPU: gpu-mec is clean under compute-sanitizer memcheck and racecheck on small models" {
    command -v compute-sanitizer >/dev/null || skip "compute-sanitizer not installed"
    for m in fmsd_fig1 coin2 leader3 dice; do
        prism2csr "$(model_file "$m.tra")" > "$BATS_TEST_TMPDIR/$m.csr"
        for config in "" "--scheme interleave" "--j-set --no-transpose --bfbt" "--host-loop" "-c 3" "--sweep-trim"; do
            run compute-sanitizer --tool memcheck --error-exitcode 9 gpu-mec $config "$BATS_TEST_TMPDIR/$m.csr"
            [ "$status" -eq 0 ] || fail "memcheck $m $config: $output"
        done
        for config in "" "--engine fb -c 3" "--host-loop -c 3"; do
            run compute-sanitizer --tool racecheck --error-exitcode 9 gpu-mec $config "$BATS_TEST_TMPDIR/$m.csr"
            [ "$status" -eq 0 ] || fail "racecheck $m $config: $output"
        done
    done
}

# ---- one test per MDP with PRISM's MECs (require_test_per_model checks the list) ----

mec_check_gpu() {
    require_model "$1"
    prism2csr -l "$(model_file "$1.lab")" "$(model_file "$1.tra")" | restructure -u 7 | gpu-mec > "$BATS_TEST_TMPDIR/l"
    run labelcmp "$BATS_TEST_TMPDIR/l" "$(model_file "$1.mecs")"
    [ "$status" -eq 0 ] || fail "$output"
}

@test "GPU: every model of INDEX.tsv with PRISM's MECs has a test of its own in this file" {
    require_test_per_model "$BATS_TEST_FILENAME" mecs
}

@test "fmsd_fig1: GPU: prism2csr | restructure -u 7 | gpu-mec equals PRISM's MECs" { mec_check_gpu fmsd_fig1; }
@test "coin2: GPU: prism2csr | restructure -u 7 | gpu-mec equals PRISM's MECs" { mec_check_gpu coin2; }
@test "coin4: GPU: prism2csr | restructure -u 7 | gpu-mec equals PRISM's MECs" { mec_check_gpu coin4; }
@test "leader3: GPU: prism2csr | restructure -u 7 | gpu-mec equals PRISM's MECs" { mec_check_gpu leader3; }
@test "leader4: GPU: prism2csr | restructure -u 7 | gpu-mec equals PRISM's MECs" { mec_check_gpu leader4; }
@test "csma2_2: GPU: prism2csr | restructure -u 7 | gpu-mec equals PRISM's MECs" { mec_check_gpu csma2_2; }
@test "firewire_dl: GPU: prism2csr | restructure -u 7 | gpu-mec equals PRISM's MECs" { mec_check_gpu firewire_dl; }
@test "zeroconf: GPU: prism2csr | restructure -u 7 | gpu-mec equals PRISM's MECs" { mec_check_gpu zeroconf; }
@test "phil3: GPU: prism2csr | restructure -u 7 | gpu-mec equals PRISM's MECs" { mec_check_gpu phil3; }
@test "mutual3: GPU: prism2csr | restructure -u 7 | gpu-mec equals PRISM's MECs" { mec_check_gpu mutual3; }
@test "phil_lss3: GPU: prism2csr | restructure -u 7 | gpu-mec equals PRISM's MECs" { mec_check_gpu phil_lss3; }
@test "dining_crypt3: GPU: prism2csr | restructure -u 7 | gpu-mec equals PRISM's MECs" { mec_check_gpu dining_crypt3; }
@test "wlan1: GPU: prism2csr | restructure -u 7 | gpu-mec equals PRISM's MECs" { mec_check_gpu wlan1; }
@test "leader6: GPU: prism2csr | restructure -u 7 | gpu-mec equals PRISM's MECs" { mec_check_gpu leader6; }
@test "coin4_6: GPU: prism2csr | restructure -u 7 | gpu-mec equals PRISM's MECs" { mec_check_gpu coin4_6; }
@test "wlan3: GPU: prism2csr | restructure -u 7 | gpu-mec equals PRISM's MECs" { mec_check_gpu wlan3; }
@test "csma3_2: GPU: prism2csr | restructure -u 7 | gpu-mec equals PRISM's MECs" { mec_check_gpu csma3_2; }
@test "mutual5: GPU: prism2csr | restructure -u 7 | gpu-mec equals PRISM's MECs" { mec_check_gpu mutual5; }
@test "dining_crypt6: GPU: prism2csr | restructure -u 7 | gpu-mec equals PRISM's MECs" { mec_check_gpu dining_crypt6; }
