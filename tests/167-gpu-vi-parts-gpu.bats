#!/usr/bin/env bats
# bats file_tags=gpu
# gpu-vi over parts (issue 18; gpu/multi.h, gpu_reach_iterate_partitioned):
# the Jacobi interval iteration of ref/reach_parts.h on the devices, the
# maybe states' rows split into -g N parts of contiguous states, the foreign
# states' bounds pulled after every iteration and the spanning MECs' upper
# bounds reduced on part 0; where there are fewer GPUs than parts, parts
# share a GPU (the simulated mode); the bounds pulled in place where the GPUs
# map each other's memory (peer, auto's choice), else by copies or NCCL.  Against the CPU's iteration
# over the same parts (--cpu -g N: the same bits), PRISM's values (within
# 1e-6) and gpu-vi --cpu (within 2e-6 on random MDPs).  Skipped where there
# is no GPU.

load helper

setup() {
    require_models
    nvidia-smi -L >/dev/null 2>&1 || skip "no GPU here"
    export GPU_VI_CPU_BELOW=0 # the GPU for every model, small ones too (gpu-vi --cpu-below)
}

# gpu-vi -g over 1, 2, 3, 7 and 16 parts of model M: PRISM's values (-g 3, and -g 16 restructured), every
# state's bits the same for every part count and equal to --cpu -g 3's
vi_parts_gpu_check() { # model
    local m=$1 csr prop query dir target avoid rest parts d="$BATS_TEST_TMPDIR/$1"
    csr=$(model_csr "$m")
    vi_check_model "$csr" "$m" -g 3
    restructure -u 7 "$csr" > "$d.r.csr"
    vi_check_model "$d.r.csr" "$m" -g 16
    while IFS=$'\t' read -r prop query dir target avoid rest; do
        [ "$prop" = prop ] && continue
        vi_query_args "$dir" "$target" "$avoid"
        # coin4_6's 21,000 Jacobi sweeps take 30 s on one core: its CPU run is left out
        [ "$m" = coin4_6 ] || gpu-vi --cpu -g 3 "${VI_ARGS[@]}" -o "$d.cpu" "$csr" > /dev/null ||
            fail "$m p$prop: --cpu -g 3 failed"
        for parts in 1 2 3 7 16; do
            gpu-vi -g "$parts" "${VI_ARGS[@]}" -o "$d.g$parts" "$csr" > /dev/null || fail "$m p$prop: -g $parts failed"
            cmp -s "$d.g1" "$d.g$parts" || fail "$m p$prop: -g 1 and -g $parts differ"
        done
        [ "$m" = coin4_6 ] || cmp -s "$d.cpu" "$d.g3" || fail "$m p$prop: -g 3 on the GPU and on the CPU differ"
    done < "$MODELS/$m.values.tsv"
}

@test "GPU: gpu-vi -g N gives every state the bits of gpu-vi --cpu -g N, the same for 1 to 16 parts, and PRISM's values on every shared model, plain and restructured" {
    local models
    models=$(present_models $(vi_model_names))
    [ "$(echo "$models" | wc -w)" -ge "$(at_least 19 8)" ] || fail "only $models"
    # shellcheck disable=SC2086
    each_model_at_once vi_parts_gpu_check $models
}

@test "GPU: gpu-vi -g N equals --cpu -g N bit for bit and gpu-vi --cpu within 2e-6 on random MDPs, with MECs over several parts and more parts than states" {
    local seed dir parts
    for seed in 1 2 3 4 5 6; do
        randmdp -n $((seed * 400)) -c 3 -k 3 -e 5 -l $((seed * 20)) -g 3 "$seed" > "$BATS_TEST_TMPDIR/r.csr"
        for dir in max min; do
            gpu-vi --cpu -t goal -m $dir -o "$BATS_TEST_TMPDIR/whole" "$BATS_TEST_TMPDIR/r.csr" > /dev/null
            gpu-vi --cpu -g 200 -t goal -m $dir -o "$BATS_TEST_TMPDIR/cpu" "$BATS_TEST_TMPDIR/r.csr" > /dev/null
            # on one GPU every part launches its own kernels each sweep: more parts
            # than states (2409 parts take 127 s on seed 6, H200) only on seed 1
            more=37; [ "$seed" -eq 1 ] && more=409
            for parts in 1 5 $more; do
                gpu-vi -g "$parts" -t goal -m $dir -o "$BATS_TEST_TMPDIR/gpu" "$BATS_TEST_TMPDIR/r.csr" > /dev/null ||
                    fail "seed $seed $dir -g $parts failed"
                cmp -s "$BATS_TEST_TMPDIR/cpu" "$BATS_TEST_TMPDIR/gpu" || fail "seed $seed $dir -g $parts: not --cpu -g's bits"
            done
            run labelcmp -n -t 2e-6 "$BATS_TEST_TMPDIR/whole" "$BATS_TEST_TMPDIR/gpu"
            [ "$status" -eq 0 ] || fail "seed $seed $dir: $output"
        done
    done
    run --separate-stderr gpu-vi -g 200 --stats=json -t goal -m max "$BATS_TEST_TMPDIR/r.csr"
    assert_success
    # every visible GPU takes parts (one on a host of one)
    local n
    n=$(nvidia-smi -L | grep -c '^GPU')
    [ -n "${CUDA_VISIBLE_DEVICES:-}" ] && n=$(echo "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
    # in place where the GPUs map each other's memory (one GPU always does), else by copies
    local expect=peer json=$stderr
    if [ "$n" -gt 1 ] && [ "$(stats_fields exchange < <(echo "$json"))" = copies ]; then
        run gpu-vi -g 2 --exchange peer -t goal -m max "$BATS_TEST_TMPDIR/r.csr"
        assert_failure 2
        expect=copies
    fi
    assert_equal "$(stats_fields parts exchange devices < <(echo "$json"))" "200 $expect [$(seq -s ', ' 0 $((n - 1)))]"
    python3 -c 'import json, sys; j = json.loads(sys.argv[1]); sys.exit(not (j["span_mecs"] > 0 and j["exchanged_bytes"] > 0))' "$json" ||
        fail "no MEC over several parts: $json"
}

@test "GPU: gpu-vi over parts refuses NCCL where parts share a GPU and devices that are not there" {
    csr=$(model_csr coin2)
    run gpu-vi -g 2 --gpus 0 --exchange nccl -t fin_c0 -m min "$csr"
    assert_failure 2
    assert_output --partial "NCCL takes one part a device"
    run gpu-vi --gpus 0,999 -t fin_c0 -m min "$csr"
    assert_failure 3
    assert_output --partial "no CUDA device 999"
    gpu-vi --cpu -g 2 -t fin_c0 -m min -o "$BATS_TEST_TMPDIR/cpu" "$csr" > /dev/null
    gpu-vi --gpus 0,0 -t fin_c0 -m min -o "$BATS_TEST_TMPDIR/gpu" "$csr" > /dev/null
    cmp -s "$BATS_TEST_TMPDIR/cpu" "$BATS_TEST_TMPDIR/gpu" || fail "--gpus 0,0: not --cpu -g 2's bits"
}

@test "GPU: gpu-vi -g is clean under compute-sanitizer memcheck and racecheck on small models" {
    command -v compute-sanitizer >/dev/null || skip "compute-sanitizer not installed"
    randmdp -n 400 -c 3 -k 3 -e 5 -l 20 -g 3 1 > "$BATS_TEST_TMPDIR/r.csr"
    for parts in 1 3 50; do
        for args in "-t fin_c0 -m min $(model_csr coin2)" "-t fin_disagree -m max $(model_csr coin2)" "-t goal -m max $BATS_TEST_TMPDIR/r.csr"; do
            run compute-sanitizer --tool memcheck --error-exitcode 9 gpu-vi -g "$parts" --gpus 0 $args
            [ "$status" -eq 0 ] || fail "memcheck -g $parts $args: $output"
        done
    done
    # no kernel of the parts' iteration shares memory in a block (warp shuffles only): one racecheck run
    run compute-sanitizer --tool racecheck --error-exitcode 9 gpu-vi -g 3 --gpus 0 -t goal -m max "$BATS_TEST_TMPDIR/r.csr"
    [ "$status" -eq 0 ] || fail "racecheck: $output"
}
