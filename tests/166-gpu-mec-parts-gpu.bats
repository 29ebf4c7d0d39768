#!/usr/bin/env bats
# bats file_tags=gpu
# gpu-mec over parts (issue 18; gpu/multi.h, gpu_mec_partitioned): the MEC
# rounds of ref_mec_partitioned on the devices, the model split into -g N
# parts of contiguous states; with --exchange copies in the CPU's rounds,
# with peer (auto's choice on one GPU and over NVLink) the label propagation
# in place.  Where there are fewer GPUs than parts, parts share a GPU (the
# simulated mode).  Against the basic MEC algorithm (--cpu, byte for byte,
# with its removed states and choices), the CPU's rounds over the same parts
# (--cpu -g N: the same rounds, phases, label rounds and attractor rounds)
# and brute force (the oracle's random MDPs).  The same expectations on
# hosts of one GPU and of several.  Skipped where there is no GPU.

load helper

setup() {
    require_models
    nvidia-smi -L >/dev/null 2>&1 || skip "no GPU here"
}

# gpu-mec -g over 1, 2, 3, 7 and 16 parts of model M against the basic MEC algorithm: by copies with the
# CPU's counts, in place with every part on the first GPU, and auto over the host's GPUs on the
# restructured model
mec_parts_gpu_check() { # model
    local m=$1 csr parts cpu gpu basic d="$BATS_TEST_TMPDIR/$1"
    csr=$(model_csr "$m")
    basic=$(gpu-mec --cpu --stats=json "$csr" 2>&1 > "$d.basic" | stats_fields mecs states_in_mecs removed_states removed_choices)
    restructure -u 7 "$csr" > "$d.r.csr"
    for parts in 1 2 3 7 16; do
        cpu=$(gpu-mec --cpu -g "$parts" --stats=json "$csr" 2>&1 >/dev/null | stats_fields mecs states_in_mecs removed_states removed_choices rounds phases lp_rounds attractor_rounds)
        gpu=$(gpu-mec -g "$parts" --exchange copies --stats=json "$csr" 2>"$d.json" > "$d.parts"; stats_fields mecs states_in_mecs removed_states removed_choices rounds phases lp_rounds attractor_rounds exchange < "$d.json")
        cmp -s "$d.basic" "$d.parts" || fail "$m -g $parts: labels differ from the basic algorithm's"
        [ "$gpu" = "$cpu copies" ] || fail "$m -g $parts: counts $gpu; --cpu -g: $cpu"
        [[ "$gpu" == "$basic "* ]] || fail "$m -g $parts: $gpu against the basic algorithm's $basic"
        # in place: every part on the first GPU (any host), the same MECs and removals
        gpu=$(gpu-mec -g "$parts" --gpus 0 --exchange peer --stats=json "$csr" 2>"$d.json" > "$d.parts"; stats_fields mecs states_in_mecs removed_states removed_choices exchange < "$d.json")
        cmp -s "$d.basic" "$d.parts" || fail "$m -g $parts peer: labels differ from the basic algorithm's"
        [ "$gpu" = "$basic peer" ] || fail "$m -g $parts peer: $gpu against the basic algorithm's $basic"
        gpu-mec -g "$parts" "$d.r.csr" > "$d.parts"
        cmp -s "$d.basic" "$d.parts" || fail "$m -u 7 -g $parts: labels differ"
    done
}

@test "GPU: gpu-mec -g N equals the basic MEC algorithm byte for byte on every shared model, plain and restructured, by copies in the CPU's rounds over the same parts, and in place (peer, and auto)" {
    local models
    models=$(present_models fmsd_fig1 dice brp herman7 coin2 coin4 leader3 leader4 csma2_2 phil3 mutual3 dining_crypt3 wlan1 zeroconf firewire_dl)
    [ "$(echo "$models" | wc -w)" -ge "$(at_least 12 8)" ] || fail "only $models"
    # shellcheck disable=SC2086
    each_model_at_once mec_parts_gpu_check $models
}

@test "GPU: gpu-mec -g N equals brute force on 20,000 random MDPs, and with more parts than states" {
    oracle -n 20000 -s 31 -u "$BATS_TEST_TMPDIR/u" > /dev/null
    for parts in 2 5 64; do
        for ex in auto copies; do
            gpu-mec -g "$parts" --exchange $ex "$BATS_TEST_TMPDIR/u.csr" > "$BATS_TEST_TMPDIR/parts"
            run labelcmp -m 3 "$BATS_TEST_TMPDIR/parts" "$BATS_TEST_TMPDIR/u.mecs"
            [ "$status" -eq 0 ] || fail "-g $parts --exchange $ex: $output"
        done
    done
    randmdp -n 9 -c 3 -k 3 -e 10 -l 30 -g 5 4 > "$BATS_TEST_TMPDIR/r.csr"
    gpu-mec --cpu "$BATS_TEST_TMPDIR/r.csr" > "$BATS_TEST_TMPDIR/basic"
    run gpu-mec -g 20 "$BATS_TEST_TMPDIR/r.csr"
    assert_success
    assert_output "$(cat "$BATS_TEST_TMPDIR/basic")"
}

@test "GPU: gpu-scc and gpu-mec -g N give ringmdp's SCCs and MECs, known by construction, in place and by copies" {
    "$ROOT/build/bench/ringmdp" -b 300 -k 40 -d 4 -S "$BATS_TEST_TMPDIR/sccs" -M "$BATS_TEST_TMPDIR/mecs" 3 > "$BATS_TEST_TMPDIR/r.csr"
    local parts ex
    for parts in 1 4 9; do
        for ex in auto copies; do
            gpu-scc -g $parts --exchange $ex "$BATS_TEST_TMPDIR/r.csr" | cmp -s - "$BATS_TEST_TMPDIR/sccs" || fail "SCCs -g $parts $ex"
            gpu-mec -g $parts --exchange $ex "$BATS_TEST_TMPDIR/r.csr" | cmp -s - "$BATS_TEST_TMPDIR/mecs" || fail "MECs -g $parts $ex"
        done
    done
}

@test "GPU: gpu-mec over parts refuses NCCL where parts share a GPU and devices that are not there" {
    csr=$(model_csr coin2)
    run gpu-mec -g 2 --gpus 0 --exchange nccl "$csr"
    assert_failure 2
    assert_output --partial "NCCL takes one part a device"
    run gpu-mec --gpus 0,999 "$csr"
    assert_failure 3
    assert_output --partial "no CUDA device 999"
    gpu-mec --cpu "$csr" > "$BATS_TEST_TMPDIR/basic"
    gpu-mec --gpus 0,0 --stats=json "$csr" 2> "$BATS_TEST_TMPDIR/json" > "$BATS_TEST_TMPDIR/parts"
    cmp -s "$BATS_TEST_TMPDIR/basic" "$BATS_TEST_TMPDIR/parts" || fail "--gpus 0,0: labels differ from the basic algorithm's"
    assert_equal "$(stats_fields parts exchange devices scheme < "$BATS_TEST_TMPDIR/json")" "2 peer [0, 0] rounds-parts"
}

@test "GPU: gpu-mec -g is clean under compute-sanitizer memcheck and racecheck on small models" {
    command -v compute-sanitizer >/dev/null || skip "compute-sanitizer not installed"
    # every part on the first GPU, by each of our exchanges (NCCL's own probes are not ours to judge)
    for m in fmsd_fig1 coin2 leader3; do
        for parts in 1 3; do
            for ex in peer copies; do
                run compute-sanitizer --tool memcheck --error-exitcode 9 gpu-mec -g "$parts" --gpus 0 --exchange $ex "$(model_csr "$m")"
                [ "$status" -eq 0 ] || fail "memcheck $m -g $parts $ex: $output"
            done
            run compute-sanitizer --tool racecheck --error-exitcode 9 gpu-mec -g "$parts" --gpus 0 "$(model_csr "$m")"
            [ "$status" -eq 0 ] || fail "racecheck $m -g $parts: $output"
        done
    done
}
