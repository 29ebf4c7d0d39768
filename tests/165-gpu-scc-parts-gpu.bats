#!/usr/bin/env bats
# bats file_tags=gpu
# gpu-scc over parts (issue 18; gpu/multi.h): the model split into -g N parts
# of contiguous states, label propagation over the parts with trimming over
# them first and between phases: with --exchange copies the foreign states' labels exchanged between
# rounds, the CPU's rounds; with peer (auto's choice on one GPU and over
# NVLink) the owners' labels read and raised in place.  Where there are fewer
# GPUs than parts, parts share a GPU (the simulated mode).  Against Tarjan
# (--cpu, byte for byte), the CPU's rounds over the same parts (--cpu -g N:
# the same phases and rounds) and brute force (the oracle's random MDPs).
# The same expectations on hosts of one GPU and of several.  Skipped where
# there is no GPU.

load helper

setup() {
    require_models
    nvidia-smi -L >/dev/null 2>&1 || skip "no GPU here"
}

# gpu-scc -g over 1, 2, 3, 7 and 16 parts of model M against Tarjan's labels: by copies with the CPU's
# counts, in place with every part on the first GPU, and auto over the host's GPUs on the restructured model
scc_parts_gpu_check() { # model
    local m=$1 csr parts cpu gpu d="$BATS_TEST_TMPDIR/$1"
    csr=$(model_csr "$m")
    gpu-scc --cpu "$csr" > "$d.tarjan"
    restructure -u 7 "$csr" > "$d.r.csr"
    for parts in 1 2 3 7 16; do
        cpu=$(gpu-scc --cpu -g "$parts" --stats=json "$csr" 2>&1 >/dev/null | stats_fields trimmed trim_rounds phases rounds)
        gpu=$(gpu-scc -g "$parts" --exchange copies --stats=json "$csr" 2>"$d.json" > "$d.parts"; stats_fields trimmed trim_rounds phases rounds exchange < "$d.json")
        cmp -s "$d.tarjan" "$d.parts" || fail "$m -g $parts copies: labels differ from Tarjan's"
        [ "$gpu" = "$cpu copies" ] || fail "$m -g $parts: trimmed, trimming rounds, phases, rounds, exchange $gpu; --cpu -g: $cpu"
        # in place: every part on the first GPU (any host), then auto over the host's GPUs
        gpu-scc -g "$parts" --gpus 0 --exchange peer "$csr" > "$d.parts"
        cmp -s "$d.tarjan" "$d.parts" || fail "$m -g $parts peer: labels differ from Tarjan's"
        gpu-scc -g "$parts" "$d.r.csr" > "$d.parts"
        cmp -s "$d.tarjan" "$d.parts" || fail "$m -u 7 -g $parts: labels differ from Tarjan's"
    done
}

@test "GPU: gpu-scc -g N equals Tarjan byte for byte on every shared model, plain and restructured, by copies in the CPU's trimming, phases and rounds, and in place (peer, and auto)" {
    local models
    models=$(present_models fmsd_fig1 dice brp herman7 coin2 coin4 leader3 leader4 csma2_2 phil3 mutual3 dining_crypt3 wlan1 zeroconf firewire_dl)
    [ "$(echo "$models" | wc -w)" -ge "$(at_least 12 8)" ] || fail "only $models"
    # shellcheck disable=SC2086
    each_model_at_once scc_parts_gpu_check $models
}

@test "GPU: gpu-scc -g N equals brute force on 2,000 random MDPs, and with more parts than states" {
    oracle -n 2000 -s 11 -u "$BATS_TEST_TMPDIR/u" > /dev/null
    for parts in 2 5 64; do
        for ex in auto copies; do
            gpu-scc -g "$parts" --exchange $ex "$BATS_TEST_TMPDIR/u.csr" > "$BATS_TEST_TMPDIR/parts"
            run labelcmp -m 3 "$BATS_TEST_TMPDIR/parts" "$BATS_TEST_TMPDIR/u.sccs"
            [ "$status" -eq 0 ] || fail "-g $parts --exchange $ex: $output"
        done
    done
    randmdp -n 9 -c 2 -k 3 -e 10 -l 30 -g 5 4 > "$BATS_TEST_TMPDIR/r.csr"
    gpu-scc --cpu "$BATS_TEST_TMPDIR/r.csr" > "$BATS_TEST_TMPDIR/tarjan"
    run gpu-scc -g 20 "$BATS_TEST_TMPDIR/r.csr"
    assert_success
    assert_output "$(cat "$BATS_TEST_TMPDIR/tarjan")"
}

@test "GPU: gpu-scc over parts refuses NCCL where parts share a GPU and devices that are not there" {
    csr=$(model_csr coin2)
    run gpu-scc -g 2 --gpus 0 --exchange nccl "$csr"
    assert_failure 2
    assert_output --partial "NCCL takes one part a device"
    run gpu-scc --gpus 0,0 --exchange nccl "$csr"
    assert_failure 2
    run gpu-scc --gpus 0,999 "$csr"
    assert_failure 3
    assert_output --partial "no CUDA device 999"
    # --gpus alone: one part a device, two parts on device 0 here, in place (one device maps its own memory)
    gpu-scc --cpu "$csr" > "$BATS_TEST_TMPDIR/tarjan"
    gpu-scc --gpus 0,0 --stats=json "$csr" 2> "$BATS_TEST_TMPDIR/json" > "$BATS_TEST_TMPDIR/parts"
    cmp -s "$BATS_TEST_TMPDIR/tarjan" "$BATS_TEST_TMPDIR/parts" || fail "--gpus 0,0: labels differ from Tarjan's"
    assert_equal "$(stats_fields parts exchange devices < "$BATS_TEST_TMPDIR/json")" "2 peer [0, 0]"
}

@test "GPU: gpu-scc -g is clean under compute-sanitizer memcheck and racecheck on small models" {
    command -v compute-sanitizer >/dev/null || skip "compute-sanitizer not installed"
    # every part on the first GPU, by each of our exchanges (NCCL's own probes are not ours to judge)
    for m in fmsd_fig1 coin2 leader3; do
        for parts in 1 3; do
            for ex in peer copies; do
                run compute-sanitizer --tool memcheck --error-exitcode 9 gpu-scc -g "$parts" --gpus 0 --exchange $ex "$(model_csr "$m")"
                [ "$status" -eq 0 ] || fail "memcheck $m -g $parts $ex: $output"
            done
            run compute-sanitizer --tool racecheck --error-exitcode 9 gpu-scc -g "$parts" --gpus 0 "$(model_csr "$m")"
            [ "$status" -eq 0 ] || fail "racecheck $m -g $parts: $output"
        done
    done
}
