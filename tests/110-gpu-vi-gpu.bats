#!/usr/bin/env bats
# bats file_tags=gpu
# gpu-vi on the GPU against PRISM's values and vectors, plain and restructured
# input, the split into SCC groups solved on the GPU (--mem-limit), every
# thread mapping, hand-checked MDPs; compute-sanitizer on the small models.
# Skipped where there is no GPU; run on the device machine
# (bench/on-device.sh test tests/110-gpu-vi-gpu.bats).

load helper

setup() {
    require_models
    nvidia-smi -L >/dev/null 2>&1 || skip "no GPU here"
    export GPU_VI_CPU_BELOW=0 # the GPU for every model, small ones too (gpu-vi --cpu-below)
}

@test "GPU: gpu-vi equals PRISM's values when --mem-limit splits the model into groups solved on the GPU" {
    for m in $(present_models brp coin2 coin4 csma3_2 dining_crypt6 wlan3 zeroconf); do
        vi_check_model "$(model_csr "$m")" "$m" --mem-limit 3M
    done
    run --separate-stderr gpu-vi --mem-limit 2M --stats -t fin_c0 -m min "$(model_csr coin4)"
    assert_success
    [[ "$stderr" =~ split\ path:\ ([0-9]+)\ groups\ \([0-9]+\ SCCs,\ 0\ on\ the\ CPU\) ]] || fail "$stderr"
    [ "${BASH_REMATCH[1]}" -gt 1 ] || fail "$stderr"
}

@test "GPU: gpu-vi checks a run's properties at once on the GPU, each answer and failure as when checked alone, in the given order" {
    pool_check close
}

@test "GPU: gpu-vi reads the model from a pipe as from a file, on the GPU and below --cpu-below on the CPU" {
    f=$(model_csr coin4)
    for below in 0 100000; do
        want=$(gpu-vi $([ $below = 0 ] || echo --cpu) -t fin_c0 -m min "$f")
        run --separate-stderr bash -c "prism2csr -l '$(model_file coin4.lab)' '$(model_file coin4.tra)' |
            gpu-vi --cpu-below $below --stats=json -t fin_c0 -m min"
        assert_success
        assert_output "$want"
        [[ "$stderr" == *"\"cpu\":$([ $below = 0 ] && echo false || echo true)"* ]] || fail "$below: $stderr"
    done
    # a file of 100,000 to 1,600,000 transitions is read first, then the GPU started where an SCC is large
    awk 'BEGIN { n = 300000; print n + 1, 2 * n + 1; for (i = 0; i < n; i++) { print i, (i + 1) % n, 0.5; print i, n, 0.5 }
                 print n, n, 1 }' > "$BATS_TEST_TMPDIR/ring.tra"
    printf '0="init" 1="goal"\n0: 0\n300000: 1\n' > "$BATS_TEST_TMPDIR/g.lab"
    prism2csr -l "$BATS_TEST_TMPDIR/g.lab" "$BATS_TEST_TMPDIR/ring.tra" > "$BATS_TEST_TMPDIR/ring.csr"
    run --separate-stderr gpu-vi --cpu-below 100000 --stats=json -p 'P=? [ F "goal" ]' "$BATS_TEST_TMPDIR/ring.csr"
    assert_success
    assert_output 'P=? [ F "goal" ]: 1'
    [[ "$stderr" == *'"cpu":false'* ]] || fail "$stderr"
}

@test "GPU: gpu-vi gives every state PRISM's value, exactly 0 and 1 where PRISM's are" {
    for m in brp coin2 coin4 csma2_2 dice dining_crypt3 fmsd_fig1; do
        vi_check_vectors "$m"
    done
}

@test "GPU: gpu-vi's Prob0/Prob1, drained (Pmax: by the MEC quotient) and level by level (--host-loop), count as many yes, no and maybe states and MECs as --cpu's on every query of every shared model" {
    local m prop query dir target avoid rest ref got n=0
    for m in $(vi_model_names); do
        while IFS=$'\t' read -r prop query dir target avoid rest; do
            [ "$prop" = prop ] && continue
            vi_query_args "$dir" "$target" "$avoid"
            VI_ARGS+=(--abs -e 0.99) # the classes are what counts here, not the iteration
            ref=$(gpu-vi --cpu "${VI_ARGS[@]}" --stats=json "$(model_csr "$m")" 2>&1 >/dev/null | stats_fields yes no maybe mecs mec_states)
            for mode in "" --host-loop; do
                got=$(gpu-vi $mode "${VI_ARGS[@]}" --stats=json "$(model_csr "$m")" 2>&1 >/dev/null | stats_fields yes no maybe mecs mec_states)
                [ "$got" = "$ref" ] || fail "$m query $prop ($query) $mode: yes, no, maybe, mecs, mec_states $got, --cpu $ref"
            done
            n=$((n + 1))
        done < "$MODELS/$m.values.tsv"
    done
    [ "$n" -ge "$(at_least 30 10)" ] || fail "only $n queries checked"
}

@test "GPU: gpu-vi equals PRISM's values with every number of threads per state" {
    for t in 1 2 4 8 16 32; do
        for m in coin4 zeroconf brp; do
            vi_check_model "$(model_csr "$m")" "$m" --method ii --threads-per-state "$t"
        done
    done
}

@test "GPU: gpu-vi equals PRISM's values with every number of sweep classes, and more classes take fewer iterations on coin4" {
    for k in 1 2 3 6 16 64; do
        for m in $(present_models coin4 zeroconf brp csma3_2 wlan3); do
            vi_check_model "$(model_csr "$m")" "$m" --method ii --sweep-classes "$k"
        done
        vi_check_vectors coin2 --method ii --sweep-classes "$k"
    done
    read -r k1 it1 < <(gpu-vi --method ii --sweep-classes 1 --stats=json -t fin_c0 -m min "$(model_csr coin4)" 2>&1 >/dev/null | stats_fields sweep_classes iterations)
    read -r k3 it3 < <(gpu-vi --method ii --sweep-classes 3 --stats=json -t fin_c0 -m min "$(model_csr coin4)" 2>&1 >/dev/null | stats_fields sweep_classes iterations)
    read -r ka ita levels < <(gpu-vi --method ii --stats=json -t fin_c0 -m min "$(model_csr coin4)" 2>&1 >/dev/null | stats_fields sweep_classes iterations sweep_rounds)
    assert_equal "$k1" 1
    assert_equal "$k3" 3
    # Gauss-Seidel across three classes: fewer iterations of the walk (coin4 Pmin: 2,368 with one class)
    [ "$it3" -lt "$it1" ] || fail "3 classes: $it3 iterations, 1 class: $it1"
    # by default, one class per 8 levels of distance as counted (32 at a time): 4 to 16, no more
    # iterations than 3 classes take
    [ "$ka" -ge 4 ] && [ "$ka" -le 16 ] && [ "$ka" -le $(( levels / 8 )) ] ||
        fail "the default took $ka classes for $levels levels"
    [ "$ita" -le "$it3" ] || fail "the default's $ka classes: $ita iterations, 3 classes: $it3"
}

# gpu-vi OPTIONS... -o $BATS_TEST_TMPDIR/gpu on $BATS_TEST_TMPDIR/r.csr equals
# --cpu's values in $BATS_TEST_TMPDIR/cpu within 2e-6 (labelcmp), or the test
# fails naming WHAT.
gpu_equals_cpu() { # what options...
    local what=$1
    shift
    gpu-vi "$@" -o "$BATS_TEST_TMPDIR/gpu" "$BATS_TEST_TMPDIR/r.csr" > /dev/null || fail "$what: gpu-vi $* failed"
    run labelcmp -n -t 2e-6 "$BATS_TEST_TMPDIR/cpu" "$BATS_TEST_TMPDIR/gpu"
    [ "$status" -eq 0 ] || fail "$what: $output"
}

@test "GPU: gpu-vi equals --cpu on random MDPs, whole and split, exactly 0 and 1 where --cpu is" {
    for seed in 1 2 3 4 5 6; do
        n=$(( seed % 2 ? 3000 : 300 ))
        randmdp -n $n -c 3 -k 3 -e 5 -l $(( seed * 15 )) -g $(( seed % 3 + 1 )) "$seed" > "$BATS_TEST_TMPDIR/r.csr"
        for dir in max min; do
            gpu-vi --cpu --method ii -t goal -m $dir -o "$BATS_TEST_TMPDIR/cpu" "$BATS_TEST_TMPDIR/r.csr" > /dev/null
            for opt in "" "--mem-limit 1100k" "--method ii"; do
                gpu_equals_cpu "seed $seed $dir $opt" $opt -t goal -m $dir
                paste "$BATS_TEST_TMPDIR/cpu" "$BATS_TEST_TMPDIR/gpu" |
                    awk '($1 == "0" || $1 == "1" || $2 == "0" || $2 == "1") && $1 != $2 { bad = 1 } END { exit bad }' ||
                    fail "seed $seed $dir $opt: 0 or 1 on one side only"
            done
        done
    done
}

@test "GPU: gpu-vi equals --cpu on random MDPs whose choices have up to 12 branches, a lane a state or a group of lanes" {
    for seed in 1 2 3; do
        randmdp -n 2000 -c $(( seed % 2 + 1 )) -k 12 -e 5 -l 20 -g 2 "$seed" > "$BATS_TEST_TMPDIR/r.csr"
        for dir in max min; do
            gpu-vi --cpu --method ii -t goal -m $dir -o "$BATS_TEST_TMPDIR/cpu" "$BATS_TEST_TMPDIR/r.csr" > /dev/null
            for opt in "--threads-per-state 1" "--threads-per-state 1 --method ii" "--threads-per-state 4"; do
                gpu_equals_cpu "seed $seed $dir $opt" $opt -t goal -m $dir
            done
        done
    done
}

@test "GPU: gpu-vi's Prob1E by the MEC quotient finds --cpu's yes, no and maybe states and MECs on random MDPs, with either SCC engine and either MEC scheme" {
    local seed l engine ref got n=0
    for seed in 1 2 3 4 5 6 7 8; do
        for l in 60 90; do
            randmdp -n 2000 -c 3 -k 2 -e 5 -l "$l" -g 1 "$seed" > "$BATS_TEST_TMPDIR/r.csr"
            ref=$(gpu-vi --cpu -t goal -m max -o "$BATS_TEST_TMPDIR/cpu" --stats=json "$BATS_TEST_TMPDIR/r.csr" 2>&1 >/dev/null |
                stats_fields yes no maybe mecs mec_states)
            # the options, then the MEC scheme that --stats=json must name (fb's is always rounds)
            for engine in "lp --scheme rounds rounds" "fb rounds" "lp --scheme interleave interleave"; do
                got=$(gpu-vi --engine ${engine% *} -t goal -m max -o "$BATS_TEST_TMPDIR/gpu" --stats=json "$BATS_TEST_TMPDIR/r.csr" 2>&1 >/dev/null |
                    stats_fields yes no maybe mecs mec_states prob1e_by_mecs mec_scheme)
                [ "$got" = "$ref True ${engine##* }" ] ||
                    fail "seed $seed -l $l ${engine% *}: yes no maybe mecs mec_states by_mecs scheme $got, --cpu $ref"
                run labelcmp -n -t 2e-6 "$BATS_TEST_TMPDIR/cpu" "$BATS_TEST_TMPDIR/gpu"
                [ "$status" -eq 0 ] || fail "seed $seed -l $l ${engine% *}: $output"
            done
            [ "$(echo "$ref" | cut -d' ' -f4)" -gt 0 ] && n=$((n + 1))
        done
    done
    [ "$n" -ge 12 ] || fail "only $n models with MECs among the maybe states"
}

@test "GPU: gpu-vi's zero-reward MECs of Rmin, on the resident model, are --cpu's on random MDPs, with either SCC engine and either MEC scheme" {
    local seed r engine ref got n=0
    for seed in 1 2 3 4; do
        for r in 20 60; do
            randmdp -n 2000 -c 3 -k 2 -e 5 -l 90 -g 1 -r "$r" "$seed" > "$BATS_TEST_TMPDIR/r.csr"
            ref=$(gpu-vi --cpu -e 1e-9 -p 'Rmin=? [ F "goal" ]' -o "$BATS_TEST_TMPDIR/cpu" --stats=json \
                "$BATS_TEST_TMPDIR/r.csr" 2>&1 >/dev/null | stats_fields yes no maybe mecs mec_states)
            # the options, then the MEC scheme that --stats=json must name (fb's is always rounds)
            for engine in "lp --scheme rounds rounds" "fb rounds" "lp --scheme interleave interleave"; do
                # no MEC upload: the decomposition ran on the resident model
                got=$(gpu-vi --engine ${engine% *} -e 1e-9 -p 'Rmin=? [ F "goal" ]' -o "$BATS_TEST_TMPDIR/gpu" \
                    --stats=json "$BATS_TEST_TMPDIR/r.csr" 2>&1 >/dev/null |
                    stats_fields yes no maybe mecs mec_states mec_scheme mec_gpu_upload_s)
                [ "$got" = "$ref ${engine##* } 0.0" ] ||
                    fail "seed $seed -r $r ${engine% *}: yes no maybe mecs mec_states scheme upload_s $got, --cpu $ref"
                run labelcmp -n -t 2e-6 "$BATS_TEST_TMPDIR/cpu" "$BATS_TEST_TMPDIR/gpu"
                [ "$status" -eq 0 ] || fail "seed $seed -r $r ${engine% *}: $output"
            done
            [ "$(echo "$ref" | cut -d' ' -f4)" -gt 0 ] && n=$((n + 1))
        done
    done
    [ "$n" -ge 6 ] || fail "only $n models with zero-reward MECs among the maybe states"
}

@test "GPU: gpu-vi solves Fig. 9 of Berger's thesis and collapses the end component of its variant" {
    prism2csr -l "$DATA/berger_fig9.lab" "$DATA/berger_fig9.tra" > "$BATS_TEST_TMPDIR/f9.csr"
    assert_equal "$(gpu-vi -t goal -m max "$BATS_TEST_TMPDIR/f9.csr")" 1
    assert_equal "$(gpu-vi -t goal -m min "$BATS_TEST_TMPDIR/f9.csr")" 0
    prism2csr -l "$DATA/berger_fig9_sink.lab" "$DATA/berger_fig9_sink.tra" > "$BATS_TEST_TMPDIR/s.csr"
    v=$(gpu-vi -t goal -m max "$BATS_TEST_TMPDIR/s.csr")
    awk -v v="$v" 'BEGIN { d = v - 2 / 3; if (d < 0) d = -d; exit !(d <= 1e-6 * 2 / 3) }' || fail "$v is not 2/3"
}

@test "GPU: gpu-vi --vi agrees with the CPU's --vi within 1e-4 on coin4" {
    a=$(gpu-vi --vi -t fin_c0 -m min "$(model_csr coin4)")
    b=$(gpu-vi --cpu --vi -t fin_c0 -m min "$(model_csr coin4)")
    awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-4) }' || fail "$a vs $b"
}

@test "GPU: gpu-vi is clean under compute-sanitizer memcheck and racecheck on small models" {
    command -v compute-sanitizer >/dev/null || skip "compute-sanitizer not installed"
    for q in "fmsd_fig1 -t s3 -m max" "fmsd_fig1 -t s3 -m min" "coin2 -t fin_c0 -m max" "coin2 -t fin_disagree -m min" \
             "dice -t six" "brp -t ssuccess -a sfail"; do
        set -- $q
        m=$1; shift
        for opt in "" "--method ii" "--mem-limit 1100k" "--vi" "--method ii --threads-per-state 32"; do
            run compute-sanitizer --tool memcheck --error-exitcode 9 gpu-vi "$@" $opt "$(model_csr "$m")"
            [ "$status" -eq 0 ] || fail "memcheck $q $opt: $output"
        done
        # certified policy iteration from the start: every kernel of the solver and the certificate
        CSR_TEST_PI_JACOBI=0 run compute-sanitizer --tool memcheck --error-exitcode 9 gpu-vi "$@" "$(model_csr "$m")"
        [ "$status" -eq 0 ] || fail "memcheck $q policies: $output"
        for opt in "" "--method ii"; do
            CSR_TEST_PI_JACOBI=0 run compute-sanitizer --tool racecheck --error-exitcode 9 gpu-vi "$@" $opt "$(model_csr "$m")"
            [ "$status" -eq 0 ] || fail "racecheck $q $opt: $output"
        done
    done
    # MECs inside and outside Prob1E: the quotient's searches (Pmax)
    randmdp -n 300 -c 3 -k 2 -e 5 -l 90 -g 1 2 > "$BATS_TEST_TMPDIR/r.csr"
    for tool in memcheck racecheck; do
        for scheme in rounds interleave; do
            run compute-sanitizer --tool $tool --error-exitcode 9 gpu-vi --scheme $scheme -t goal -m max "$BATS_TEST_TMPDIR/r.csr"
            [ "$status" -eq 0 ] || fail "$tool random MDP Pmax, --scheme $scheme: $output"
        done
    done
    # Rmin's zero-reward MECs: the decomposition given the zero-reward choices
    randmdp -n 300 -c 3 -k 2 -e 5 -l 90 -g 1 -r 20 2 > "$BATS_TEST_TMPDIR/z.csr"
    for tool in memcheck racecheck; do
        for scheme in rounds interleave; do
            run compute-sanitizer --tool $tool --error-exitcode 9 gpu-vi --scheme $scheme -p 'Rmin=? [ F "goal" ]' \
                "$BATS_TEST_TMPDIR/z.csr"
            [ "$status" -eq 0 ] || fail "$tool random MDP Rmin, --scheme $scheme: $output"
        done
    done
}

@test "GPU: gpu-vi stops and says so when the precision asked is below the values' floating-point resolution" {
    run --separate-stderr timeout 60 gpu-vi -e 1e-15 --stats=json -t fin_c0 -m min "$(model_csr coin4)"
    assert_failure 1
    assert_output ""
    [[ "$stderr" == "gpu-vi: 'Pmin=? [ F \"fin_c0\" ]': the bounds stopped changing at ["*"] in state "*" (difference "*" > 1e-15: the floating-point resolution of these values); ask for a larger -e"* ]] ||
        fail "$stderr"
}

@test "GPU: gpu-vi gives the same values with probabilities by dictionary, one f64 per transition, and compacted in many tasks" {
    # CSR_TEST_VI_DICTIONARY_MAX=1 makes gpu-vi keep one f64 per transition,
    # as it does for models with more than 65,536 distinct probabilities;
    # CSR_TEST_GRAIN=1 splits the compaction into a task per CPU
    for m in $(present_models coin4 zeroconf csma3_2); do
        csr=$(model_csr "$m")
        read -r dir target avoid <<< "$(awk -F'\t' 'NR == 2 { print $3, $4, $5 }' "$MODELS/$m.values.tsv")"
        q=(-t "$target" -m "$dir")
        [ "$avoid" = - ] || q+=(-a "$avoid")
        run --separate-stderr gpu-vi --stats "${q[@]}" -o "$BATS_TEST_TMPDIR/dict" "$csr"
        assert_success
        [[ "$stderr" == *"probabilities by dictionary"* ]] || fail "$m: $stderr"
        CSR_TEST_VI_DICTIONARY_MAX=1 run --separate-stderr gpu-vi --stats "${q[@]}" -o "$BATS_TEST_TMPDIR/f64" "$csr"
        assert_success
        [[ "$stderr" != *"probabilities by dictionary"* ]] || fail "$m: $stderr"
        CSR_TEST_GRAIN=1 run --separate-stderr gpu-vi "${q[@]}" -o "$BATS_TEST_TMPDIR/tasks" "$csr"
        assert_success
        gpu-vi --cpu "${q[@]}" -o "$BATS_TEST_TMPDIR/cpu" "$csr" > /dev/null
        for v in dict f64 tasks; do
            run labelcmp -n -t 2e-6 "$BATS_TEST_TMPDIR/cpu" "$BATS_TEST_TMPDIR/$v"
            [ "$status" -eq 0 ] || fail "$m $v: $output"
        done
    done
}

@test "GPU: gpu-vi --method pi equals PRISM's value within 1e-6 on every query of every model, and from the policies' start too" {
    local n=0
    for m in $(vi_model_names); do
        vi_check_model "$(model_csr "$m")" "$m" --method pi
        CSR_TEST_PI_JACOBI=0 vi_check_model "$(model_csr "$m")" "$m" --method pi
        n=$((n + 1))
    done
    [ "$n" -ge "$(at_least 19 15)" ] || fail "only $n models with values found"
    for m in brp coin2 coin4 csma2_2 dice dining_crypt3 fmsd_fig1; do
        CSR_TEST_PI_JACOBI=0 vi_check_vectors "$m" --method pi
    done
}

@test "GPU: gpu-vi certifies coin4's and coin4_6's queries by policy iteration, as --cpu --no-topological does" {
    # (--cpu's topological solver takes these cores by Gauss-Seidel: the whole system is the reference's)
    for q in "coin4 -t fin_c0 -m min" "coin4 -t fin_disagree -m max" "coin4_6 -t fin_c0 -m min"; do
        set -- $q
        m=$1; shift
        [ -n "$(present_models "$m")" ] || continue # coin4_6: with the shared models only
        for where in "" "--cpu --no-topological"; do
            run --separate-stderr gpu-vi $where --stats=json "$@" "$(model_csr "$m")"
            assert_success
            [[ "$stderr" =~ \"pi\":\ ?\{[^}]*\"attempts\":\ ?1,\ ?\"certified\":\ ?1 ]] || fail "$q $where: $stderr"
            [[ "$stderr" =~ \"matvecs\":\ ?([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -gt 0 ] || fail "$q $where: $stderr"
        done
    done
}

@test "GPU: gpu-vi --method pi equals --cpu --method ii on random MDPs, certifying minima and falling back to interval iteration for MECs" {
    local certified=0
    for seed in 21 22 23 24 25 26; do
        randmdp -n 3000 -c 3 -k 3 -e 5 -l $(( seed * 3 )) -g 2 "$seed" > "$BATS_TEST_TMPDIR/r.csr"
        for dir in max min; do
            gpu-vi --cpu --method ii -t goal -m $dir -o "$BATS_TEST_TMPDIR/cpu" "$BATS_TEST_TMPDIR/r.csr" > /dev/null
            CSR_TEST_PI_JACOBI=16 run --separate-stderr gpu-vi --method pi --stats=json -t goal -m $dir -o "$BATS_TEST_TMPDIR/gpu" "$BATS_TEST_TMPDIR/r.csr"
            assert_success
            [[ "$stderr" =~ \"certified\":\ ?([0-9]+) ]] && certified=$((certified + BASH_REMATCH[1]))
            run labelcmp -n -t 2e-6 "$BATS_TEST_TMPDIR/cpu" "$BATS_TEST_TMPDIR/gpu"
            [ "$status" -eq 0 ] || fail "seed $seed $dir: $output"
        done
    done
    [ "$certified" -ge 3 ] || fail "only $certified systems certified"
}

@test "GPU: gpu-vi --method ovi equals PRISM's value within 1e-6 on every query of every model, verifying a guess" {
    local n=0
    for m in $(vi_model_names); do
        vi_check_model "$(model_csr "$m")" "$m" --method ovi
        n=$((n + 1))
    done
    [ "$n" -ge "$(at_least 19 15)" ] || fail "only $n models with values found"
    run --separate-stderr gpu-vi --method ovi --stats=json -t fin_c0 -m min "$(model_csr coin4)"
    assert_success
    [[ "$stderr" =~ \"ovi_guesses\":\ ?([0-9]+) ]] || fail "$stderr"
    [ "${BASH_REMATCH[1]}" -ge 1 ] || fail "no guess: $stderr"
    [[ "$stderr" =~ \"method\":\ ?\"ovi\" ]] || fail "$stderr"
}

@test "GPU: gpu-vi --method ovi equals --cpu on random MDPs, whole and split" {
    for seed in 11 12 13 14; do
        randmdp -n 3000 -c 3 -k 3 -e 5 -l $(( seed * 6 )) -g $(( seed % 3 + 1 )) "$seed" > "$BATS_TEST_TMPDIR/r.csr"
        for dir in max min; do
            gpu-vi --cpu -t goal -m $dir -o "$BATS_TEST_TMPDIR/cpu" "$BATS_TEST_TMPDIR/r.csr" > /dev/null
            for opt in "" "--mem-limit 1100k"; do
                gpu_equals_cpu "seed $seed $dir $opt" --method ovi $opt -t goal -m $dir
            done
        done
    done
}

@test "GPU: gpu-vi -P answers every property of every shared model's .props as PRISM does, ii and ovi" {
    local n=0
    for m in $(vi_model_names); do
        props_check "$m"
        props_check "$m" --method ovi
        n=$((n + 1))
    done
    [ "$n" -ge "$(at_least 19 15)" ] || fail "only $n models with properties found"
}

# ---- one test per model with PRISM's values ----

vi_check_gpu() {
    require_model "$1"
    csr=$(model_csr "$1")
    restructure -u 7 "$csr" > "$BATS_TEST_TMPDIR/$1.u7.csr"
    vi_check_model "$csr" "$1"
    vi_check_model "$BATS_TEST_TMPDIR/$1.u7.csr" "$1"
}

@test "GPU: gpu-vi answers Storm's expected rewards and step-bounded probabilities, whole, split and by plain VI" {
    n=$(storm_check)
    [ "$n" -ge "$(at_least 36 20)" ] || fail "only $n properties checked"
    n=$(storm_check --mem-limit 2M)
    [ "$n" -ge "$(at_least 36 20)" ] || fail "only $n properties checked (split)"
    n=$(storm_check --threads-per-state 32)
    [ "$n" -ge "$(at_least 36 20)" ] || fail "only $n properties checked (32 threads a state)"
    # the split really splits a reward system into groups solved on the GPU
    run --separate-stderr gpu-vi --mem-limit 2M --stats -p 'R{"steps"}min=? [ F "finished" ]' "$BATS_TEST_TMPDIR/coin4.umb.csr"
    assert_success
    [[ "$stderr" =~ split\ path:\ ([0-9]+)\ groups\ \([0-9]+\ SCCs,\ 0\ on\ the\ CPU\) ]] || fail "$stderr"
    [ "${BASH_REMATCH[1]}" -gt 1 ] || fail "$stderr"
}

@test "GPU: gpu-vi's step-bounded values equal --cpu's to the last bit" {
    for m in coin4 csma2_2 wlan1 brp; do
        prism2csr "$MODELS/$m.umb" > "$BATS_TEST_TMPDIR/$m.csr"
    done
    for q in 'coin4|Pmin=? [ F<=300 "finished" ]' 'coin4|Pmax=? [ !"agree" U<=77 "fin_c0" ]' \
        'csma2_2|Pmax=? [ F<=500 "all_delivered" ]' 'wlan1|Pmin=? [ F<=1000 "both_sent" ]' 'brp|P=? [ F<=1000 "sfail" ]'; do
        m=${q%%|*} p=${q#*|}
        gpu-vi -o "$BATS_TEST_TMPDIR/gpu.vec" -p "$p" "$BATS_TEST_TMPDIR/$m.csr" > /dev/null
        gpu-vi --cpu -o "$BATS_TEST_TMPDIR/cpu.vec" -p "$p" "$BATS_TEST_TMPDIR/$m.csr" > /dev/null
        cmp "$BATS_TEST_TMPDIR/gpu.vec" "$BATS_TEST_TMPDIR/cpu.vec" || fail "$m: $p"
    done
}

@test "GPU: gpu-vi ends a billion-step bound where a watched step changes nothing, with --cpu's values to the last bit" {
    f=$(model_csr coin2)
    for p in 'Pmax=? [ F<=1000000000 "fin_c0" ]' 'Pmin=? [ F<=1000000000 "fin_c0" ]'; do
        run timeout 120 gpu-vi -o "$BATS_TEST_TMPDIR/gpu.vec" -p "$p" "$f"
        assert_success
        gpu-vi --cpu -o "$BATS_TEST_TMPDIR/cpu.vec" -p "$p" "$f" > /dev/null
        cmp "$BATS_TEST_TMPDIR/gpu.vec" "$BATS_TEST_TMPDIR/cpu.vec" || fail "$p"
    done
}

@test "GPU: gpu-vi expected rewards equal --cpu's on random MDPs with rewards, Rmin and Rmax, whole and split" {
    for seed in 1 2 3; do
        randmdp -n 3000 -c 3 -k 3 -e 2 -l 60 -g 3 -r $((seed * 15)) "$seed" > "$BATS_TEST_TMPDIR/r.csr"
        for p in 'Rmin=? [ F "goal" ]' 'Rmax=? [ F "goal" ]'; do
            gpu-vi --cpu -e 1e-9 -o "$BATS_TEST_TMPDIR/cpu.vec" -p "$p" "$BATS_TEST_TMPDIR/r.csr" > /dev/null
            for opt in "" "--mem-limit 200k"; do
                gpu-vi $opt -e 1e-9 -o "$BATS_TEST_TMPDIR/gpu.vec" -p "$p" "$BATS_TEST_TMPDIR/r.csr" > /dev/null
                python3 - "$BATS_TEST_TMPDIR/cpu.vec" "$BATS_TEST_TMPDIR/gpu.vec" <<'PY' || fail "seed $seed: $p $opt"
import sys
a, b = ([float(x) for x in open(f)] for f in sys.argv[1:])
assert len(a) == len(b)
for i, (x, y) in enumerate(zip(a, b)):
    assert (x == y) if x == float("inf") or y == float("inf") else abs(x - y) <= 1e-6 * max(abs(x), 1e-9), (i, x, y)
PY
            done
        done
    done
}

@test "GPU: gpu-vi --export-scheduler from the GPU's values gives, on every shared MDP, schedulers whose chains attain them" {
    local n=0
    for m in $(vi_model_names); do
        csrinfo "$(model_csr "$m")" | head -1 | grep -q ' MDP, ' || continue
        while IFS= read -r prop; do
            [ -n "$prop" ] || continue
            scheduler_check "$(model_csr "$m")" "${prop%;}"
            n=$((n + 1))
        done < "$MODELS/$m.props"
    done
    [ "$n" -ge "$(at_least 28 20)" ] || fail "only $n properties of MDPs"
    prism2csr "$MODELS/wlan1.umb" > "$BATS_TEST_TMPDIR/w.csr"
    scheduler_check "$BATS_TEST_TMPDIR/w.csr" 'R{"collisions"}min=? [ F "both_sent" ]'
    scheduler_check "$BATS_TEST_TMPDIR/w.csr" 'R{"time"}max=? [ F "both_sent" ]' --mem-limit 2M
}

@test "GPU: every model of INDEX.tsv with PRISM's values has a test of its own in this file" {
    require_test_per_model "$BATS_TEST_FILENAME" values.tsv
}

@test "fmsd_fig1: GPU: gpu-vi equals PRISM's value within 1e-6 on every query, plain and restructured" { vi_check_gpu fmsd_fig1; }
@test "dice: GPU: gpu-vi equals PRISM's value within 1e-6 on every query, plain and restructured" { vi_check_gpu dice; }
@test "brp: GPU: gpu-vi equals PRISM's value within 1e-6 on every query, plain and restructured" { vi_check_gpu brp; }
@test "herman7: GPU: gpu-vi equals PRISM's value within 1e-6 on every query, plain and restructured" { vi_check_gpu herman7; }
@test "coin2: GPU: gpu-vi equals PRISM's value within 1e-6 on every query, plain and restructured" { vi_check_gpu coin2; }
@test "coin4: GPU: gpu-vi equals PRISM's value within 1e-6 on every query, plain and restructured" { vi_check_gpu coin4; }
@test "leader3: GPU: gpu-vi equals PRISM's value within 1e-6 on every query, plain and restructured" { vi_check_gpu leader3; }
@test "leader4: GPU: gpu-vi equals PRISM's value within 1e-6 on every query, plain and restructured" { vi_check_gpu leader4; }
@test "csma2_2: GPU: gpu-vi equals PRISM's value within 1e-6 on every query, plain and restructured" { vi_check_gpu csma2_2; }
@test "firewire_dl: GPU: gpu-vi equals PRISM's value within 1e-6 on every query, plain and restructured" { vi_check_gpu firewire_dl; }
@test "zeroconf: GPU: gpu-vi equals PRISM's value within 1e-6 on every query, plain and restructured" { vi_check_gpu zeroconf; }
@test "phil3: GPU: gpu-vi equals PRISM's value within 1e-6 on every query, plain and restructured" { vi_check_gpu phil3; }
@test "mutual3: GPU: gpu-vi equals PRISM's value within 1e-6 on every query, plain and restructured" { vi_check_gpu mutual3; }
@test "dining_crypt3: GPU: gpu-vi equals PRISM's value within 1e-6 on every query, plain and restructured" { vi_check_gpu dining_crypt3; }
@test "wlan1: GPU: gpu-vi equals PRISM's value within 1e-6 on every query, plain and restructured" { vi_check_gpu wlan1; }
@test "leader6: GPU: gpu-vi equals PRISM's value within 1e-6 on every query, plain and restructured" { vi_check_gpu leader6; }
@test "coin4_6: GPU: gpu-vi equals PRISM's value within 1e-6 on every query, plain and restructured" { vi_check_gpu coin4_6; }
@test "wlan3: GPU: gpu-vi equals PRISM's value within 1e-6 on every query, plain and restructured" { vi_check_gpu wlan3; }
@test "csma3_2: GPU: gpu-vi equals PRISM's value within 1e-6 on every query, plain and restructured" { vi_check_gpu csma3_2; }
@test "dining_crypt6: GPU: gpu-vi equals PRISM's value within 1e-6 on every query, plain and restructured" { vi_check_gpu dining_crypt6; }

@test "GPU: every small QVBS instance answers its properties file as written within 1e-6 of QVBS's values, as --cpu does" {
    n=$(qvbs_check)
    [ "$n" -ge 37 ] || fail "only $n properties checked"
    n=$(qvbs_check --method ii)
    [ "$n" -ge 37 ] || fail "only $n properties checked by interval iteration"
}

@test "GPU: gpu-vi answers reward-bounded, cumulative and expected-time (T) queries as Storm does, each epoch on the GPU" {
    n=$(bounded_check)
    [ "$n" -ge 30 ] || fail "only $n queries checked"
}

@test "GPU: wlan.2's R{\"collisions\"}max ends and equals QVBS's value, by each method" {
    prism2csr "$DATA/qvbs/wlan.2.COL0.umb" > "$BATS_TEST_TMPDIR/w.csr"
    for method in pi ii ovi; do
        run --separate-stderr timeout 60 gpu-vi --method $method -P "$DATA/qvbs/wlan.props" --const COL=0 \
            --property num_collisions "$BATS_TEST_TMPDIR/w.csr"
        assert_success
        value_close "${output##*: }" 1.2014594670294494 || fail "--method $method: $output"
    done
}

@test "GPU: gpu-vi answers an expected reward by optimistic value iteration first, policy iteration after its iterations, the same values" {
    prism2csr "$DATA/qvbs/wlan.2.COL0.umb" > "$BATS_TEST_TMPDIR/w.csr"
    for prop in time_max cost_min; do
        want=$(gpu-vi --cpu -P "$DATA/qvbs/wlan.props" --const COL=0 --property $prop "$BATS_TEST_TMPDIR/w.csr")
        # the default: optimistic value iteration ends it, policy iteration untried
        run --separate-stderr gpu-vi --stats=json -P "$DATA/qvbs/wlan.props" --const COL=0 --property $prop "$BATS_TEST_TMPDIR/w.csr"
        assert_success
        value_close "${output##*: }" "${want##*: }" || fail "$prop: $output, --cpu $want"
        [[ "$stderr" =~ \"ovi_guesses\":\ ?([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 1 ] || fail "$prop: $stderr"
        [[ "$stderr" =~ \"attempts\":\ ?0, ]] || fail "$prop: $stderr"
        # 16 iterations, then policy iteration; 0: policy iteration first
        for first in 16 0; do
            CSR_TEST_OVI_FIRST=$first run --separate-stderr gpu-vi --stats=json -P "$DATA/qvbs/wlan.props" --const COL=0 \
                --property $prop "$BATS_TEST_TMPDIR/w.csr"
            assert_success
            value_close "${output##*: }" "${want##*: }" || fail "$prop $first: $output, --cpu $want"
            [[ "$stderr" =~ \"attempts\":\ ?1, ]] || fail "$prop $first: $stderr"
        done
        # a small --max-iters leaves policy iteration its turn (optimistic value iteration: half of them at most)
        if [ $prop = cost_min ]; then
            run --separate-stderr gpu-vi --stats=json --max-iters 600 -P "$DATA/qvbs/wlan.props" --const COL=0 --property $prop \
                "$BATS_TEST_TMPDIR/w.csr"
            assert_success
            value_close "${output##*: }" "${want##*: }" || fail "$prop --max-iters 600: $output, --cpu $want"
        fi
        # policy iteration from the a-priori bounds, where from the guesses' lower bound it would certify nothing
        CSR_TEST_OVI_FIRST=16 CSR_TEST_PI_FROM_PRIORI=1 run --separate-stderr gpu-vi --stats=json -P "$DATA/qvbs/wlan.props" \
            --const COL=0 --property $prop "$BATS_TEST_TMPDIR/w.csr"
        assert_success
        value_close "${output##*: }" "${want##*: }" || fail "$prop from the a-priori bounds: $output, --cpu $want"
        [[ "$stderr" =~ \"attempts\":\ ?1, ]] || fail "$prop from the a-priori bounds: $stderr"
    done
}
