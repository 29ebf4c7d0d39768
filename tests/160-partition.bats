#!/usr/bin/env bats
# A model split into parts for several GPUs (issue 18; ref/partition.h): the
# ranges, foreign states, local targets and exchange lists checked against
# the model by tests/tools/partcheck.c, and value iteration over the parts
# with their exchange (the simulated mode of several GPUs) equal bit for bit
# to value iteration on the whole model, max and min; SCCs by label
# propagation over the parts (push and pull of the labels) equal to Tarjan's;
# trimming over the parts (outboxes pushed, flags pulled) leaving exactly the
# states between cycles (Tarjan's SCCs and two breadth-first searches); the
# MEC rounds over the parts (gpu-mec --cpu -g) equal to the basic MEC
# algorithm and to brute force; interval iteration over the parts (gpu-vi
# --cpu -g, ref/reach_parts.h) the same bits for every part count and within
# 1e-6 of PRISM's values (the oracle checks it against exact values).

load helper

setup() {
    require_models
}

@test "value iteration, SCCs and trimming over 1 to 64 parts equal the whole model's on every shared model" {
    local checked=0
    for m in $(present_models fmsd_fig1 dice brp herman7 coin2 coin4 leader3 leader4 csma2_2 phil3 mutual3 dining_crypt3 wlan1 zeroconf firewire_dl); do
        csr=$(model_csr "$m")
        for parts in 1 2 3 7 16 64; do
            run partcheck -p "$parts" -k 40 "$csr"
            assert_success
            assert_output --regexp "^partcheck: $parts parts of [0-9]+ states, .* 40 steps max and min equal bit for bit; [0-9]+ SCCs as Tarjan's \\([0-9]+ phases, [0-9]+ rounds\\); [0-9]+ states trimmed \\([0-9]+ rounds\\), then the SCCs in [0-9]+ phases; [0-9]+ trimmed in all with peeling between them \\([0-9]+ rounds\\)$"
        done
        checked=$((checked + 1))
    done
    [ "$checked" -ge "$(at_least 12 8)" ] || fail "only $checked models"
}

@test "value iteration, SCCs and trimming over parts equal the whole model's on random MDPs, also with more parts than states" {
    for seed in 1 2 3 4 5 6 7 8; do
        randmdp -n $((seed * 37)) -c 3 -k 4 -e 10 -l 30 -g 5 "$seed" > "$BATS_TEST_TMPDIR/r.csr"
        for parts in 2 5 $((seed * 37 + 9)); do
            run partcheck -p "$parts" -k 60 -l goal "$BATS_TEST_TMPDIR/r.csr"
            assert_success
            assert_output --regexp "60 steps max and min equal bit for bit; [0-9]+ SCCs as Tarjan's .*; [0-9]+ states trimmed"
        done
        # one part's transitions localised in chunks by several threads (a transition a chunk at least)
        CSR_TEST_GRAIN=1 run partcheck -p 1 -k 60 -l goal "$BATS_TEST_TMPDIR/r.csr"
        assert_success
        assert_output --regexp "60 steps max and min equal bit for bit"
    done
}

@test "the parts of a model hold their share of its transitions and every foreign state once" {
    csr=$(model_csr wlan1)
    run partcheck -p 4 -k 0 "$csr"
    assert_success
    # 16,196 transitions: at most 16196 / 4 + the widest state's (checked by partcheck), and the
    # foreign states of the four ranges as the model's cross transitions give them
    assert_output --regexp "^partcheck: 4 parts of 8625 states, 16196 transitions: [0-9]+ foreign states, at most 40[0-9][0-9] transitions a part; 0 steps"
}

@test "a partition into no part or more than 65,536 parts is refused" {
    csr=$(model_csr coin2)
    run partcheck -p 0 "$csr"
    assert_failure 1
    assert_output "partcheck: 0 parts: 1 to 65536"
    run partcheck -p 65537 "$csr"
    assert_failure 1
    assert_output "partcheck: 65537 parts: 1 to 65536"
}

# gpu-scc --cpu -g over 1, 3 and 16 parts of model M, plain and restructured, against Tarjan's labels
scc_parts_cpu_check() { # model
    local m=$1 csr parts input d="$BATS_TEST_TMPDIR/$1"
    csr=$(model_csr "$m")
    gpu-scc --cpu "$csr" > "$d.tarjan"
    restructure -u 7 "$csr" > "$d.r.csr"
    for parts in 1 3 16; do
        for input in "$csr" "$d.r.csr"; do
            gpu-scc --cpu -g "$parts" "$input" > "$d.parts"
            cmp -s "$d.tarjan" "$d.parts" || fail "$m -g $parts ($input): labels differ"
        done
    done
}

@test "gpu-scc --cpu -g N (the parts' rounds on the CPU) gives Tarjan's labels on every shared model, plain and restructured" {
    local models
    models=$(present_models fmsd_fig1 dice brp coin2 coin4 leader3 csma2_2 phil3 mutual3 wlan1 zeroconf firewire_dl)
    [ "$(echo "$models" | wc -w)" -ge "$(at_least 10 6)" ] || fail "only $models"
    # shellcheck disable=SC2086
    each_model_at_once scc_parts_cpu_check $models
}

@test "each_model_at_once names every model whose check failed, with its message, and passes where none failed" {
    odd_check() {
        [ "$1" != coin2 ] && [ "$1" != brp ] || fail "$1 is odd"
        echo "$1 checked" > "$BATS_TEST_TMPDIR/$1.ok"
    }
    local status many=() i
    # as a test body calls it: errexit on (under `run` or in a condition bash ignores errexit in the checks)
    (each_model_at_once odd_check dice brp coin2 wlan1) > "$BATS_TEST_TMPDIR/at_once.out" 2>&1 &
    wait $! && status=0 || status=$?
    output=$(cat "$BATS_TEST_TMPDIR/at_once.out")
    [ "$status" -ne 0 ] || fail "no failure: $output"
    assert_output --partial "brp (status 1): brp is odd"
    assert_output --partial "coin2 (status 1): coin2 is odd"
    refute_output --partial dice
    refute_output --partial wlan1
    [ -f "$BATS_TEST_TMPDIR/dice.ok" ] && [ -f "$BATS_TEST_TMPDIR/wlan1.ok" ] && [ ! -f "$BATS_TEST_TMPDIR/brp.ok" ] ||
        fail "the checks that passed did not all run to their end, or a failed one went on"
    # more models than CPUs: every check runs
    for i in $(seq 40); do many+=("m$i"); done
    each_model_at_once odd_check "${many[@]}"
    [ "$(ls "$BATS_TEST_TMPDIR"/m*.ok | wc -l)" -eq 40 ] || fail "not every check ran"
}

@test "gpu-scc refuses a bad part count, device list or exchange" {
    csr=$(model_csr coin2)
    run gpu-scc --cpu -g 0 "$csr"
    assert_failure 2
    assert_output "gpu-scc: bad part count '0' (1 to 65536)"
    run gpu-scc --cpu -g 65537 "$csr"
    assert_failure 2
    run gpu-scc --cpu --gpus 1,x "$csr"
    assert_failure 2
    assert_output "gpu-scc: bad --gpus '1,x' (device numbers, comma-separated, at most 64)"
    run gpu-scc --cpu --exchange smoke "$csr"
    assert_failure 2
    assert_output "gpu-scc: bad --exchange 'smoke' (auto, peer, copies or nccl)"
}

mec_counts() { # the MEC counts of a --stats=json object on stdin
    python3 -c 'import json, sys; j = json.loads(sys.stdin.read().strip().splitlines()[-1]); print(j["mecs"], j["states_in_mecs"], j["removed_states"], j["removed_choices"])'
}

# gpu-mec --cpu -g over 1, 3 and 16 parts of model M, plain and restructured, against the basic algorithm
mec_parts_cpu_check() { # model
    local m=$1 csr parts basic counts d="$BATS_TEST_TMPDIR/$1"
    csr=$(model_csr "$m")
    basic=$(gpu-mec --cpu --stats=json "$csr" 2>&1 > "$d.basic" | mec_counts)
    restructure -u 7 "$csr" > "$d.r.csr"
    for parts in 1 3 16; do
        counts=$(gpu-mec --cpu -g "$parts" --stats=json "$csr" 2>&1 > "$d.parts" | mec_counts)
        cmp -s "$d.basic" "$d.parts" || fail "$m -g $parts: labels differ from the basic algorithm's"
        [ "$counts" = "$basic" ] || fail "$m -g $parts: MECs, states in them, removed states and choices $counts; basic: $basic"
        gpu-mec --cpu -g "$parts" "$d.r.csr" > "$d.parts"
        cmp -s "$d.basic" "$d.parts" || fail "$m -u 7 -g $parts: labels differ"
    done
}

@test "gpu-mec --cpu -g N (the MEC rounds over parts on the CPU) gives the basic algorithm's labels and removes the same states and choices on every shared model, plain and restructured" {
    local models
    models=$(present_models fmsd_fig1 dice brp coin2 coin4 leader3 leader4 csma2_2 phil3 mutual3 herman7 dining_crypt3 wlan1 zeroconf firewire_dl)
    [ "$(echo "$models" | wc -w)" -ge "$(at_least 12 8)" ] || fail "only $models"
    # shellcheck disable=SC2086
    each_model_at_once mec_parts_cpu_check $models
}

@test "gpu-mec --cpu -g N equals brute force on 5,000 random MDPs, and with more parts than states" {
    oracle -n 5000 -s 21 -u "$BATS_TEST_TMPDIR/u" > /dev/null
    for parts in 2 5 64; do
        gpu-mec --cpu -g "$parts" "$BATS_TEST_TMPDIR/u.csr" > "$BATS_TEST_TMPDIR/parts"
        run labelcmp -m 3 "$BATS_TEST_TMPDIR/parts" "$BATS_TEST_TMPDIR/u.mecs"
        [ "$status" -eq 0 ] || fail "-g $parts: $output"
    done
    for seed in 1 2 3 4; do
        randmdp -n $((seed * 7)) -c 3 -k 3 -e 10 -l 30 -g 5 "$seed" > "$BATS_TEST_TMPDIR/r.csr"
        gpu-mec --cpu "$BATS_TEST_TMPDIR/r.csr" > "$BATS_TEST_TMPDIR/basic"
        run gpu-mec --cpu -g $((seed * 7 + 5)) "$BATS_TEST_TMPDIR/r.csr"
        assert_success
        assert_output "$(cat "$BATS_TEST_TMPDIR/basic")"
    done
}

@test "gpu-mec refuses a bad part count, device list or exchange" {
    csr=$(model_csr coin2)
    run gpu-mec --cpu -g 0 "$csr"
    assert_failure 2
    assert_output "gpu-mec: bad part count '0' (1 to 65536)"
    run gpu-mec --cpu --gpus 0,-1 "$csr"
    assert_failure 2
    assert_output "gpu-mec: bad --gpus '0,-1' (device numbers, comma-separated, at most 64)"
    run gpu-mec --cpu --exchange mpi "$csr"
    assert_failure 2
    assert_output "gpu-mec: bad --exchange 'mpi' (auto, peer, copies or nccl)"
}

@test "gpu-vi --cpu -g N (the iteration over parts on the CPU) gives every state the same bits with 1, 3 and 16 parts and PRISM's values on the shared models one core iterates in seconds, plain and restructured" {
    local checked=0 prop query dir target avoid rest
    # coin4_6, coin4 and zeroconf are left to the GPU (tests/167): their Jacobi sweeps take 1-30 s a
    # query on one core (and four times that in make check-sanitize)
    for m in $(present_models $(vi_model_names | grep -vx 'coin4_6\|coin4\|zeroconf')); do
        csr=$(model_csr "$m")
        vi_check_model "$csr" "$m" --cpu -g 3
        restructure -u 7 "$csr" > "$BATS_TEST_TMPDIR/r.csr"
        vi_check_model "$BATS_TEST_TMPDIR/r.csr" "$m" --cpu -g 16
        while IFS=$'\t' read -r prop query dir target avoid rest; do
            [ "$prop" = prop ] && continue
            vi_query_args "$dir" "$target" "$avoid"
            for parts in 1 3 16; do
                gpu-vi --cpu -g "$parts" "${VI_ARGS[@]}" -o "$BATS_TEST_TMPDIR/v$parts" "$csr" > /dev/null ||
                    fail "$m p$prop -g $parts failed"
            done
            cmp -s "$BATS_TEST_TMPDIR/v1" "$BATS_TEST_TMPDIR/v3" || fail "$m p$prop: -g 1 and -g 3 differ"
            cmp -s "$BATS_TEST_TMPDIR/v1" "$BATS_TEST_TMPDIR/v16" || fail "$m p$prop: -g 1 and -g 16 differ"
        done < "$MODELS/$m.values.tsv"
        checked=$((checked + 1))
    done
    [ "$checked" -ge "$(at_least 16 8)" ] || fail "only $checked models"
}

@test "gpu-vi --cpu -g N equals gpu-vi --cpu on random MDPs with end components, the same bits for every N, also with more parts than states" {
    for seed in 1 3 6; do
        randmdp -n $((seed * 400)) -c 3 -k 3 -e 5 -l $((seed * 20)) -g 3 "$seed" > "$BATS_TEST_TMPDIR/r.csr"
        for dir in max min; do
            gpu-vi --cpu -t goal -m $dir -o "$BATS_TEST_TMPDIR/whole" "$BATS_TEST_TMPDIR/r.csr" > /dev/null
            run --separate-stderr gpu-vi --cpu -g 1 --stats -t goal -m $dir -o "$BATS_TEST_TMPDIR/p1" "$BATS_TEST_TMPDIR/r.csr"
            assert_success
            [[ "$stderr" == *"1 parts on the CPU"* ]] || fail "seed $seed $dir: $stderr"
            run labelcmp -n -t 2e-6 "$BATS_TEST_TMPDIR/whole" "$BATS_TEST_TMPDIR/p1"
            [ "$status" -eq 0 ] || fail "seed $seed $dir: $output"
            for parts in 2 7 200 $((seed * 400 + 9)); do
                gpu-vi --cpu -g "$parts" -t goal -m $dir -o "$BATS_TEST_TMPDIR/p" "$BATS_TEST_TMPDIR/r.csr" > /dev/null
                cmp -s "$BATS_TEST_TMPDIR/p1" "$BATS_TEST_TMPDIR/p" || fail "seed $seed $dir -g $parts: not the bits of -g 1"
            done
        done
    done
    # Pmax on the last has MECs over several parts, reduced between the parts
    run --separate-stderr gpu-vi --cpu -g 200 --stats=json -t goal -m max "$BATS_TEST_TMPDIR/r.csr"
    assert_success
    python3 -c 'import json, sys; j = json.loads(sys.argv[1]); sys.exit(not (j["parts"] == 200 and j["mecs"] > 0 and j["span_mecs"] > 0))' "$stderr" ||
        fail "no MEC over several parts: $stderr"
}

@test "gpu-vi -g refuses optimistic value iteration, the GPU's own iteration options, rewards and step bounds" {
    csr=$(model_csr coin2)
    run gpu-vi --cpu -g 2 --method ovi -t fin_c0 -m min "$csr"
    assert_failure 2
    assert_output "gpu-vi: -g: the iteration over parts takes --method ii or vi, and neither --mem-limit, --threads-per-state nor --sweep-classes"
    run gpu-vi -g 2 --sweep-classes 3 -t fin_c0 -m min "$csr"
    assert_failure 2
    assert_output --partial "gpu-vi: -g: the iteration over parts takes"
    run gpu-vi --cpu -g 2 -p 'Pmax=? [ F<=5 "fin_c0" ]' "$csr"
    assert_failure 1
    assert_output "gpu-vi: 'Pmax=? [ F<=5 \"fin_c0\" ]': -g: step-bounded and reward properties are not iterated over parts"
    run gpu-vi --cpu -g 0 -t fin_c0 -m min "$csr"
    assert_failure 2
    assert_output "gpu-vi: bad part count '0' (1 to 65536)"
}

@test "ringmdp's SCCs and MECs, known by construction, are Tarjan's, the basic MEC algorithm's and the CPU's rounds over parts, byte for byte" {
    local args parts
    for args in "-b 1 -k 1 -d 1" "-b 3 -k 4 -d 2" "-b 10 -k 1 -d 3" "-b 31 -k 7 -d 3" "-b 200 -k 50 -d 5" "-b 7 -k 2 -d 64"; do
        # shellcheck disable=SC2086
        "$ROOT/build/bench/ringmdp" $args -S "$BATS_TEST_TMPDIR/sccs" -M "$BATS_TEST_TMPDIR/mecs" 7 > "$BATS_TEST_TMPDIR/r.csr"
        run gpu-scc --cpu "$BATS_TEST_TMPDIR/r.csr"
        assert_success
        assert_output "$(cat "$BATS_TEST_TMPDIR/sccs")"
        run gpu-mec --cpu "$BATS_TEST_TMPDIR/r.csr"
        assert_success
        assert_output "$(cat "$BATS_TEST_TMPDIR/mecs")"
        for parts in 2 5; do
            gpu-scc --cpu -g $parts "$BATS_TEST_TMPDIR/r.csr" | cmp -s - "$BATS_TEST_TMPDIR/sccs" || fail "$args: SCCs over $parts parts"
            gpu-mec --cpu -g $parts "$BATS_TEST_TMPDIR/r.csr" | cmp -s - "$BATS_TEST_TMPDIR/mecs" || fail "$args: MECs over $parts parts"
        done
    done
    # every kind of block is there: MECs, SCCs without a MEC, trivial SCCs
    grep -q -- - "$BATS_TEST_TMPDIR/mecs" || fail "no state outside the MECs"
    [ "$(sort -u "$BATS_TEST_TMPDIR/sccs" | wc -l)" -lt 14 ] || fail "no SCC of several states"
    run "$ROOT/build/bench/ringmdp" -b 0 1
    assert_failure 2
    assert_output --partial "bad arguments"
}

@test "trimming over parts counts no round where its counts queue nothing, and removes a tail into a cycle" {
    # states 0 -> 1 -> 2 -> 0: one SCC, nothing to trim; 3 -> 0 and 4 -> 3: a tail of two trivial SCCs
    printf '3 3 3\n0 0 1 1\n1 0 2 1\n2 0 0 1\n' > "$BATS_TEST_TMPDIR/cycle.tra"
    printf '5 5 5\n0 0 1 1\n1 0 2 1\n2 0 0 1\n3 0 0 1\n4 0 3 1\n' > "$BATS_TEST_TMPDIR/tail.tra"
    for m in cycle tail; do
        prism2csr "$BATS_TEST_TMPDIR/$m.tra" > "$BATS_TEST_TMPDIR/$m.csr"
    done
    for parts in 1 2 3; do
        gpu-scc --cpu -g "$parts" --stats=json "$BATS_TEST_TMPDIR/cycle.csr" 2> "$BATS_TEST_TMPDIR/json" > /dev/null
        run stats_fields trimmed trim_rounds phases < "$BATS_TEST_TMPDIR/json"
        assert_output "0 0 1"
        gpu-scc --cpu -g "$parts" --stats=json "$BATS_TEST_TMPDIR/tail.csr" 2> "$BATS_TEST_TMPDIR/json" > "$BATS_TEST_TMPDIR/tail.labels"
        run stats_fields trimmed phases < "$BATS_TEST_TMPDIR/json"
        assert_output "2 1"
        run cat "$BATS_TEST_TMPDIR/tail.labels"
        assert_output "$(printf '0\n0\n0\n3\n4')"
    done
}

@test "a partition by a bitmap of the states and by sorting the cross targets holds the same foreign states, each checked against the model" {
    # the bitmap where the states are at most 32 times a part's transitions (every model here at 2, 3
    # and 7 parts), the sort forced by CSR_TEST_PARTITION_BY_SORT; 64 parts may take the sort both times
    local m csr parts bitmap sorted checked=0
    for m in $(present_models wlan1 coin4 leader4 csma2_2 zeroconf); do
        csr=$(model_csr "$m")
        checked=$((checked + 1))
        for parts in 2 3 7 64; do
            bitmap=$(partcheck -p "$parts" -k 5 "$csr") || fail "$m -p $parts by bitmap: $bitmap"
            sorted=$(CSR_TEST_PARTITION_BY_SORT=1 partcheck -p "$parts" -k 5 "$csr") || fail "$m -p $parts by sort"
            [ "$bitmap" = "$sorted" ] || fail "$m -p $parts: '$bitmap' by bitmap, '$sorted' by sort"
        done
    done
    [ "$checked" -ge "$(at_least 5 4)" ] || fail "only $checked models"
}
