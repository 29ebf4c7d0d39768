#!/usr/bin/env bats
# gpu-vi's CPU reference (--cpu) against PRISM's values (.values.tsv, interval
# iteration at 1e-9) and vectors (.pK.vec.gz), hand-checked MDPs, the split
# into SCC groups (--mem-limit), bad queries and inputs.  The GPU runs are in
# tests/110-gpu-vi-gpu.bats.

load helper

setup() {
    require_models
}

@test "gpu-vi --cpu equals PRISM's values when --mem-limit splits the model into groups of SCCs" {
    for m in $(present_models brp coin2 coin4 csma3_2 dining_crypt6 fmsd_fig1 wlan3 zeroconf); do
        vi_check_model "$(model_csr "$m")" "$m" --cpu --mem-limit 2M
    done
    run gpu-vi --cpu --mem-limit 2M --stats -t fin_c0 -m min "$(model_csr coin4)"
    assert_success
    assert_line --regexp "split path: [0-9]+ groups \([0-9]+ SCCs, [0-9]+ on the CPU\)"
    refute_line --partial "split path: 1 groups"
}

@test "gpu-vi --cpu gives random MDPs the same values whole and split into SCC groups" {
    for seed in 1 2 3 4; do
        randmdp -n 2000 -c 3 -k 3 -e 5 -l $(( seed * 20 )) -g 3 "$seed" > "$BATS_TEST_TMPDIR/r.csr"
        for dir in max min; do
            gpu-vi --cpu -t goal -m $dir -o "$BATS_TEST_TMPDIR/whole" "$BATS_TEST_TMPDIR/r.csr" > /dev/null
            run --separate-stderr gpu-vi --cpu --stats --mem-limit 1 -t goal -m $dir -o "$BATS_TEST_TMPDIR/split" "$BATS_TEST_TMPDIR/r.csr"
            assert_success
            [[ "$stderr" == *"split path"* ]] || fail "seed $seed $dir: not split: $stderr"
            run labelcmp -n -t 2e-6 "$BATS_TEST_TMPDIR/whole" "$BATS_TEST_TMPDIR/split"
            [ "$status" -eq 0 ] || fail "seed $seed $dir: $output"
        done
    done
}

@test "gpu-vi --cpu gives every state PRISM's value, exactly 0 and 1 where PRISM's are" {
    for m in brp coin2 coin4 csma2_2 dice dining_crypt3 fmsd_fig1; do
        vi_check_vectors "$m" --cpu
    done
}

@test "gpu-vi --cpu finds PRISM's Prob0 and Prob1 state counts" {
    for m in $(present_models coin2 csma3_2 brp zeroconf); do
        while IFS=$'\t' read -r prop query dir target avoid value a b c d e yes no maybe; do
            [ "$prop" = prop ] && continue
            vi_query_args "$dir" "$target" "$avoid"
            run --separate-stderr gpu-vi --cpu --stats "${VI_ARGS[@]}" "$(model_csr "$m")"
            assert_success
            [[ "$stderr" == *"Prob1 $yes, Prob0 $no, maybe $maybe states"* ]] || fail "$m p$prop: $stderr"
        done < "$MODELS/$m.values.tsv"
    done
}

@test "gpu-vi --cpu solves the MDP of Fig. 9 of Berger's thesis by Prob0 and Prob1 alone" {
    prism2csr -l "$DATA/berger_fig9.lab" "$DATA/berger_fig9.tra" > "$BATS_TEST_TMPDIR/f9.csr"
    run gpu-vi --cpu -t goal -m max -o "$BATS_TEST_TMPDIR/max" "$BATS_TEST_TMPDIR/f9.csr"
    assert_success
    assert_output "1"
    assert_equal "$(tr '\n' ' ' < "$BATS_TEST_TMPDIR/max")" "1 1 1 "
    run gpu-vi --cpu -t goal -m min -o "$BATS_TEST_TMPDIR/min" "$BATS_TEST_TMPDIR/f9.csr"
    assert_success
    assert_output "0"
    assert_equal "$(tr '\n' ' ' < "$BATS_TEST_TMPDIR/min")" "0 0 1 "
}

@test "gpu-vi --cpu converges to Pmax = 2/3 through an end component that only interval iteration with MECs collapsed bounds" {
    # Fig. 9 with a sink: state 1's first choice goes to 0, goal and sink with
    # 1/4, 1/2, 1/4; {0, 1} is an end component, so the upper bound iterated
    # without collapsing it would stay at 1.
    prism2csr -l "$DATA/berger_fig9_sink.lab" "$DATA/berger_fig9_sink.tra" > "$BATS_TEST_TMPDIR/s.csr"
    for opt in "" "--abs" "-e 1e-9" "--mem-limit 1"; do
        run --separate-stderr gpu-vi --cpu --stats $opt -t goal -m max "$BATS_TEST_TMPDIR/s.csr"
        assert_success
        awk -v v="$output" 'BEGIN { d = v - 2 / 3; if (d < 0) d = -d; exit !(d <= 1e-6 * 2 / 3) }' ||
            fail "$opt: $output is not 2/3"
    done
    [[ "$stderr" == *"1 MECs with 2 states collapsed"* ]] || fail "$stderr"
    run gpu-vi --cpu -t goal -m min "$BATS_TEST_TMPDIR/s.csr"
    assert_output "0"
}

@test "gpu-vi computes a DTMC's probabilities with or without -m" {
    csr=$(model_csr dice)
    value=$(awk -F'\t' 'NR == 2 { print $6 }' "$MODELS/dice.values.tsv")
    a=$(gpu-vi --cpu -t six "$csr")
    b=$(gpu-vi --cpu -t six -m min "$csr")
    c=$(gpu-vi --cpu -t six -m max "$csr")
    assert_equal "$a" "$b"
    assert_equal "$a" "$c"
    awk -v v="$a" -v r="$value" 'BEGIN { d = v - r; if (d < 0) d = -d; exit !(d <= 1e-6 * r) }' || fail "$a vs PRISM $value"
}

@test "gpu-vi reads restructured input and standard input and reports in PRISM's numbering" {
    csr=$(model_csr coin2)
    restructure -u 7 "$csr" > "$BATS_TEST_TMPDIR/u7.csr"
    gpu-vi --cpu -t fin_c0 -m max -o "$BATS_TEST_TMPDIR/plain" "$csr" > "$BATS_TEST_TMPDIR/plain.out"
    gpu-vi --cpu -t fin_c0 -m max -o "$BATS_TEST_TMPDIR/u7" - < "$BATS_TEST_TMPDIR/u7.csr" > "$BATS_TEST_TMPDIR/u7.out"
    run labelcmp -n -t 1e-9 "$BATS_TEST_TMPDIR/plain" "$BATS_TEST_TMPDIR/u7"
    assert_success
    run labelcmp -n "$BATS_TEST_TMPDIR/u7" "$MODELS/coin2.p2.vec.gz"
    assert_success
    assert_equal "$(wc -l < "$BATS_TEST_TMPDIR/u7.out")" 1
}

@test "gpu-vi --vi runs plain value iteration, within 1e-4 of PRISM's value on coin4" {
    run --separate-stderr gpu-vi --cpu --vi --stats -t fin_c0 -m min "$(model_csr coin4)"
    assert_success
    [[ "$stderr" == *"value iteration, whole path"* ]] || fail "$stderr"
    awk -v v="$output" 'BEGIN { d = v - 0.3173828125; if (d < 0) d = -d; exit !(d <= 1e-4) }' || fail "$output"
}

@test "gpu-vi names the labels present when asked for an unknown one" {
    run --separate-stderr gpu-vi --cpu -t nowhere -m max "$(model_csr fmsd_fig1)"
    assert_failure 2
    assert_output ""
    [[ "$stderr" == 'gpu-vi: no label "nowhere"; the model'"'"'s labels: init deadlock'* ]] || fail "$stderr"
    run --separate-stderr gpu-vi --cpu -t s3 -a nowhere -m max "$(model_csr fmsd_fig1)"
    assert_failure 2
}

@test "gpu-vi rejects a model without labels or without probabilities" {
    prism2csr "$(model_file fmsd_fig1.tra)" > "$BATS_TEST_TMPDIR/nolab.csr"
    run --separate-stderr gpu-vi --cpu -t s3 -m max "$BATS_TEST_TMPDIR/nolab.csr"
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" "gpu-vi: $BATS_TEST_TMPDIR/nolab.csr: no labels and no state valuations; convert with prism2csr -l FILE.lab (or -s FILE.sta)"
    # retype the PROBABILITIES section (entry 3) as an unknown optional one
    csrpatch -c "$BATS_TEST_TMPDIR/nolab.csr" 160 63000000 164 01000000 > "$BATS_TEST_TMPDIR/graph.csr"
    run --separate-stderr gpu-vi --cpu -t s3 -m max "$BATS_TEST_TMPDIR/graph.csr"
    assert_failure 1
    assert_equal "$stderr" "gpu-vi: $BATS_TEST_TMPDIR/graph.csr: no probabilities (a graph-only CSR file); convert with prism2csr"
}

@test "gpu-vi reports an iteration limit reached with status 1 and nothing on stdout" {
    run --separate-stderr gpu-vi --cpu --max-iters 5 -t fin_c0 -m min "$(model_csr coin4)"
    assert_failure 1
    assert_output ""
    [[ "$stderr" == "gpu-vi: 'Pmin=? [ F \"fin_c0\" ]': no convergence within 5 iterations: bounds ["*"] in state "*" (difference "*" > 1e-06); raise --max-iters" ]] || fail "$stderr"
}

@test "gpu-vi answers -h and rejects bad usage with status 2" {
    run gpu-vi -h
    assert_success
    assert_line --partial "usage: gpu-vi -t LABEL"
    csr=$(model_csr fmsd_fig1)
    for bad in "-m max" "-t s3" "-t s3 -m maybe" "-t s3 -m max -e 0" "-t s3 -m max -e x" \
               "-t s3 -m max --threads-per-state 3" "-t s3 -m max --mem-limit lots" "-t s3 -m max --max-iters 0" \
               "-t s3 -m max --bogus" "-t s3 -m max --method gs" "-t s3 -m max --method ovi" \
               "-t s3 -m max --sweep-classes 0" "-t s3 -m max --sweep-classes 65" "-t s3 -m max --sweep-classes 2x" \
               "-t s3 -m max --scheme fast" "-t s3 -m max --scheme interleave --engine fb" \
               "-t s3 -m max --scheme rounds -g 2"; do
        run --separate-stderr gpu-vi --cpu $bad "$csr"
        [ "$status" -eq 2 ] || fail "$bad: status $status"
        assert_output ""
    done
    run gpu-vi --cpu -t s3 -m max "$csr" "$csr"
    assert_failure 2
}

@test "gpu-vi --cpu --method ovi says that optimistic value iteration runs on the GPU, --method vi equals --vi and pi is the default" {
    csr=$(model_csr coin2)
    run --separate-stderr gpu-vi --cpu --method ovi -t fin_c0 -m min "$csr"
    assert_failure 2
    assert_equal "$stderr" "gpu-vi: --method ovi runs on the GPU; the CPU reference iterates ii, pi or vi"
    assert_equal "$(gpu-vi --cpu --method vi -t fin_c0 -m min "$csr")" "$(gpu-vi --cpu --vi -t fin_c0 -m min "$csr")"
    assert_equal "$(gpu-vi --cpu --method pi -t fin_c0 -m min "$csr")" "$(gpu-vi --cpu -t fin_c0 -m min "$csr")"
    run --separate-stderr gpu-vi --cpu --stats=json -t fin_c0 -m min "$csr"
    [[ "$stderr" =~ \"method\":\ ?\"pi\" ]] || fail "$stderr"
}

@test "gpu-vi --cpu --method pi certifies coin2's and coin4's queries by policy iteration, within 1e-6 of PRISM's values" {
    for m in coin2 coin4; do
        vi_check_model "$(model_csr "$m")" "$m" --cpu --method pi
    done
    for q in "-t fin_c0 -m min" "-t fin_disagree -m max"; do
        # the whole system (SCC by SCC, the sweeps of SCCs tried on their own count too)
        run --separate-stderr gpu-vi --cpu --no-topological --method pi --stats=json $q "$(model_csr coin4)"
        assert_success
        [[ "$stderr" =~ \"attempts\":\ ?1,\ ?\"certified\":\ ?1,\ ?\"jacobi\":\ ?512, ]] || fail "$q: $stderr"
        [[ "$stderr" =~ \"matvecs\":\ ?([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -gt 0 ] || fail "$q: $stderr"
        [[ "$stderr" =~ \"iterations\":\ ?512, ]] || fail "$q: interval iteration went on: $stderr"
    done
}

@test "gpu-vi --cpu --method pi from the policies' start gives PRISM's value on every query and every state PRISM's value" {
    # CSR_TEST_PI_JACOBI=0: no Jacobi iterations first, the small models reach the policies too
    local n=0 certified=0 m
    for m in $(vi_model_names); do
        [ "$m" = coin4_6 ] && continue # seconds on the CPU: tests/110 runs it on the GPU
        CSR_TEST_PI_JACOBI=0 vi_check_model "$(model_csr "$m")" "$m" --cpu --method pi
        n=$((n + 1))
    done
    [ "$n" -ge "$(at_least 18 15)" ] || fail "only $n models with values found"
    for m in brp coin2 coin4 csma2_2 dice dining_crypt3 fmsd_fig1; do
        CSR_TEST_PI_JACOBI=0 vi_check_vectors "$m" --cpu --method pi
    done
    for q in "coin2 -t fin_c0 -m max" "coin4 -t fin_disagree -m max" "zeroconf -t ip_used -m min" "brp -t sfail"; do
        set -- $q
        m=$1; shift
        # the reference's policy iteration on the whole system (SCC by SCC, these are solved state by state)
        CSR_TEST_PI_JACOBI=0 run --separate-stderr gpu-vi --cpu --no-topological --method pi --stats=json "$@" "$(model_csr "$m")"
        assert_success
        [[ "$stderr" =~ \"certified\":\ ?1, ]] && certified=$((certified + 1))
    done
    [ "$certified" -eq 4 ] || fail "$certified of 4 certified"
}

@test "gpu-vi --cpu --method pi gives the same bits with its matrix narrowed to a palette as with the model's probabilities" {
    # CSR_TEST_PI_LAYOUT=wide: 32-bit successors and the model's probabilities (a system of more than
    # 65,536 states or 256 probabilities); CSR_TEST_GRAIN=1: the palette collected by a task per CPU
    local q m palettes=0 wide_palettes=0 p1 p2
    randmdp -n 2000 -c 3 -k 3 -e 5 -l 20 -g 2 3 > "$BATS_TEST_TMPDIR/random.csr"
    # 65,536 states: successor slots up to 65,535 in 16 bits
    randmdp -n 65536 -c 3 -k 3 -e 5 -l 20 -g 2 3 > "$BATS_TEST_TMPDIR/random65536.csr"
    # 304 probabilities, 156 or fewer in each half of the states (two tasks' palettes fit, their union
    # not): state i's first choice reaches the goal (150) with p = (i + 1) / 1001, a sink (151) with
    # 0.05 and state i + 1 with 0.95 - p, its second 0.2, 0.1 and 0.7 (state i + 7); no end component
    awk 'BEGIN { n = 150; print n + 2, 2 * n + 2, 6 * n + 2
                 for (i = 0; i < n; i++) { p = (i + 1) / 1001
                     printf "%d 0 %d %.17g\n%d 0 %d %.17g\n%d 0 %d 0.05\n", i, (i + 1) % n, 0.95 - p, i, n, p, i, n + 1
                     printf "%d 1 %d 0.7\n%d 1 %d 0.2\n%d 1 %d 0.1\n", i, (i + 7) % n, i, n, i, n + 1 }
                 print n, 0, n, 1; print n + 1, 0, n + 1, 1 }' > "$BATS_TEST_TMPDIR/many.tra"
    printf '0="init" 1="goal"\n0: 0\n150: 1\n' > "$BATS_TEST_TMPDIR/many.lab"
    prism2csr -l "$BATS_TEST_TMPDIR/many.lab" "$BATS_TEST_TMPDIR/many.tra" > "$BATS_TEST_TMPDIR/many.csr"
    for q in "coin2 -t fin_c0 -m max" "coin4 -t fin_disagree -m max" "zeroconf -t ip_used -m min" "brp -t sfail" \
        "random -t goal -m min" "random65536 -t goal -m min" "many -t goal -m min" "many -t goal -m max"; do
        set -- $q
        m=$1; shift
        local csr="$BATS_TEST_TMPDIR/$m.csr"
        [ -f "$csr" ] || csr=$(model_csr "$m")
        # every run certified: interval iteration after it could hide a wrong matrix
        run --separate-stderr env CSR_TEST_PI_JACOBI=0 gpu-vi --cpu --no-topological --method pi --stats=json \
            -o "$BATS_TEST_TMPDIR/narrow.vec" "$@" "$csr"
        assert_success
        [[ "$stderr" =~ \"attempts\":\ ?1,\ ?\"certified\":\ ?1, ]] || fail "$q: not certified: $stderr"
        [[ "$stderr" =~ \"palette\":\ ?([0-9]+) ]] || fail "$q: $stderr"
        p1=${BASH_REMATCH[1]}
        palettes=$((palettes + p1))
        run --separate-stderr env CSR_TEST_PI_JACOBI=0 CSR_TEST_GRAIN=1 gpu-vi --cpu --no-topological --method pi \
            --stats=json -o "$BATS_TEST_TMPDIR/tasks.vec" "$@" "$csr"
        assert_success
        [[ "$stderr" =~ \"certified\":\ ?1, ]] || fail "$q: not certified in tasks: $stderr"
        [[ "$stderr" =~ \"palette\":\ ?([0-9]+) ]] && p2=${BASH_REMATCH[1]}
        [ "$p2" = "$p1" ] || fail "$q: a palette in one task and not in several, or the reverse"
        run --separate-stderr env CSR_TEST_PI_JACOBI=0 CSR_TEST_PI_LAYOUT=wide gpu-vi --cpu --no-topological \
            --method pi --stats=json -o "$BATS_TEST_TMPDIR/wide.vec" "$@" "$csr"
        assert_success
        [[ "$stderr" =~ \"certified\":\ ?1, ]] || fail "$q: not certified wide: $stderr"
        [[ "$stderr" =~ \"palette\":\ ?([0-9]+) ]] && wide_palettes=$((wide_palettes + BASH_REMATCH[1]))
        cmp "$BATS_TEST_TMPDIR/narrow.vec" "$BATS_TEST_TMPDIR/wide.vec" || fail "$q: the layouts' values differ"
        cmp "$BATS_TEST_TMPDIR/narrow.vec" "$BATS_TEST_TMPDIR/tasks.vec" || fail "$q: the tasks' palette differs"
    done
    # the PRISM models' and the random MDPs' probabilities (equal in a choice) fit a palette, the 304 do not
    [ "$palettes" -eq 6 ] || fail "$palettes of 6 systems through a palette"
    [ "$wide_palettes" -eq 0 ] || fail "a palette with CSR_TEST_PI_LAYOUT=wide"
}

@test "gpu-vi --cpu --method pi gives random MDPs interval iteration's values, certifying minima and leaving MECs to interval iteration" {
    local certified=0 attempted_max=0 seed l dir
    for seed in 1 2 3 4 5; do
        for l in 20 90; do
            randmdp -n 2000 -c 3 -k 3 -e 5 -l "$l" -g 2 "$seed" > "$BATS_TEST_TMPDIR/r.csr"
            for dir in min max; do
                gpu-vi --cpu --method ii -t goal -m $dir -o "$BATS_TEST_TMPDIR/ii" "$BATS_TEST_TMPDIR/r.csr" > /dev/null
                # the whole system (SCC by SCC, a core without MECs may take policy iteration)
                CSR_TEST_PI_JACOBI=8 run --separate-stderr gpu-vi --cpu --no-topological --method pi --stats=json -t goal -m $dir -o "$BATS_TEST_TMPDIR/pi" "$BATS_TEST_TMPDIR/r.csr"
                assert_success
                run labelcmp -n -t 2e-6 "$BATS_TEST_TMPDIR/ii" "$BATS_TEST_TMPDIR/pi"
                [ "$status" -eq 0 ] || fail "seed $seed -l $l $dir: $output"
                read -r mecs attempts certs < <(echo "$stderr" | tail -1 | python3 -c 'import json, sys; j = json.load(sys.stdin); print(j["mecs"], j["pi"]["attempts"], j["pi"]["certified"])')
                certified=$((certified + certs))
                [ "$dir" = max ] && [ "$mecs" -gt 0 ] && attempted_max=$((attempted_max + attempts))
            done
        done
    done
    [ "$certified" -ge 5 ] || fail "only $certified systems certified"
    [ "$attempted_max" -eq 0 ] || fail "policy iteration tried on $attempted_max systems with MECs to collapse"
}

@test "gpu-vi --cpu --method pi leaves to interval iteration what its solves cannot reach, and --max-iters below 512 to it alone" {
    # 1e-13 relative asks for a residual below the solves' ulps
    run --separate-stderr gpu-vi --cpu --method pi -e 1e-13 --stats=json -t fin_c0 -m min "$(model_csr coin2)"
    assert_success
    [[ "$stderr" =~ \"attempts\":\ ?1,\ ?\"certified\":\ ?0, ]] || fail "$stderr"
    # interval iteration went on from the Jacobi iterations' bounds: within 1e-13 of its own answer
    ii=$(gpu-vi --cpu --method ii -e 1e-13 -t fin_c0 -m min "$(model_csr coin2)")
    awk -v a="$output" -v b="$ii" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 2e-13 * b) }' || fail "$output against $ii"
    run --separate-stderr gpu-vi --cpu --method pi --max-iters 300 --stats=json -t fin_c0 -m min "$(model_csr coin2)"
    assert_success
    [[ "$stderr" != *'"attempts"'* || "$stderr" =~ \"attempts\":\ ?0, ]] || fail "$stderr"
    assert_equal "$output" "$(gpu-vi --cpu --method ii -t fin_c0 -m min "$(model_csr coin2)")"
}

@test "gpu-vi --cpu stops and says so when the precision asked is below the values' floating-point resolution" {
    run --separate-stderr timeout 60 gpu-vi --cpu -e 1e-15 -t fin_c0 -m min "$(model_csr coin4)"
    assert_failure 1
    assert_output ""
    [[ "$stderr" == "gpu-vi: 'Pmin=? [ F \"fin_c0\" ]': the bounds stopped changing at ["*"] in state "*" (difference "*" > 1e-15: the floating-point resolution of these values); ask for a larger -e" ]] ||
        fail "$stderr"
}

# ---- one test per model with PRISM's values (require_test_per_model checks the list) ----

vi_check_cpu() {
    require_model "$1"
    vi_check_model "$(model_csr "$1")" "$1" --cpu
}

@test "gpu-vi --cpu solves SCC by SCC, a state alone by one step, an SCC on its own or in a core, within 2e-6 of the whole system's values on random MDPs with MECs and rewards" {
    local spec seed q method alone=0 core=0 cores=0 stats
    # (some SCCs of several states converge on their own, others in cores, some cores after others, their
    # successors then holding two bounds)
    for spec in "-n 2000 -c 3 -k 2 -e 20 -l 80 -g 2 -r 30 1" "-n 2000 -c 3 -k 2 -e 20 -l 80 -g 2 -r 30 2" \
        "-n 2000 -c 3 -k 2 -e 20 -l 80 -g 2 -r 30 3" "-n 2000 -c 2 -k 2 -e 10 -l 90 -g 1 -r 20 4"; do
        randmdp $spec > "$BATS_TEST_TMPDIR/r.csr"
        for q in 'Pmax=? [ F "goal" ]' 'Pmin=? [ F "goal" ]' 'R{"r"}max=? [ F "goal" ]' 'R{"r"}min=? [ F "goal" ]'; do
            for method in pi ii; do
                gpu-vi --cpu --no-topological --method $method -p "$q" -o "$BATS_TEST_TMPDIR/whole" "$BATS_TEST_TMPDIR/r.csr" > /dev/null
                run --separate-stderr gpu-vi --cpu --method $method --stats=json -p "$q" -o "$BATS_TEST_TMPDIR/topo" "$BATS_TEST_TMPDIR/r.csr"
                assert_success
                stats=$(python3 -c 'import json, sys; t = json.loads(sys.argv[1])["topological"]; print(t["alone"], t["core"], t["cores"] + (t["sccs_alone"] > 0), t["whole"])' "$stderr")
                read -r a c k w <<< "$stats"
                [ "$w" -eq 0 ] || fail "randmdp $spec, $q, $method: bounds that missed epsilon, finished whole: $stderr"
                [ "$a" -gt 0 ] && alone=$((alone + 1))
                [ "$c" -gt 0 ] && core=$((core + 1))
                [ "$k" -gt 1 ] && cores=$((cores + 1))
                run labelcmp -n -t 2e-6 "$BATS_TEST_TMPDIR/whole" "$BATS_TEST_TMPDIR/topo"
                [ "$status" -eq 0 ] || fail "randmdp $spec, $q, $method: $output"
            done
        done
    done
    [ "$alone" -ge 24 ] && [ "$core" -ge 16 ] && [ "$cores" -ge 4 ] ||
        fail "states alone in $alone queries, a core in $core, SCCs on their own or several cores in $cores"
}

@test "gpu-vi --cpu solves the states of brp, firewire_dl and csma2_2 that are alone in their SCCs one by one, PRISM's values with and without" {
    local q m n=0
    for q in "brp -t sfail" "firewire_dl -t done -m max" "csma2_2 -t all_delivered -a collision_max_backoff -m min"; do
        set -- $q
        m=$1; shift
        [ -e "$MODELS/$m.values.tsv" ] || continue
        vi_check_model "$(model_csr "$m")" "$m" --cpu --no-topological
        run --separate-stderr gpu-vi --cpu --stats=json "$@" "$(model_csr "$m")"
        assert_success
        python3 -c '
import json, sys
j = json.loads(sys.argv[1]); t = j["topological"]
assert t["alone"] + t["core"] == j["maybe"] and t["alone"] > 0 and t["systems"] == 1, j' "$stderr" || fail "$m: $stderr"
        n=$((n + 1))
    done
    [ "$n" -ge "$(at_least 3 1)" ] || fail "only $n models"
}

@test "every model of INDEX.tsv with PRISM's values has a test of its own in this file" {
    require_test_per_model "$BATS_TEST_FILENAME" values.tsv
}

@test "fmsd_fig1: gpu-vi --cpu equals PRISM's value within 1e-6 on every query" { vi_check_cpu fmsd_fig1; }
@test "dice: gpu-vi --cpu equals PRISM's value within 1e-6 on every query" { vi_check_cpu dice; }
@test "brp: gpu-vi --cpu equals PRISM's value within 1e-6 on every query" { vi_check_cpu brp; }
@test "herman7: gpu-vi --cpu equals PRISM's value within 1e-6 on every query" { vi_check_cpu herman7; }
@test "coin2: gpu-vi --cpu equals PRISM's value within 1e-6 on every query" { vi_check_cpu coin2; }
@test "coin4: gpu-vi --cpu equals PRISM's value within 1e-6 on every query" { vi_check_cpu coin4; }
@test "leader3: gpu-vi --cpu equals PRISM's value within 1e-6 on every query" { vi_check_cpu leader3; }
@test "leader4: gpu-vi --cpu equals PRISM's value within 1e-6 on every query" { vi_check_cpu leader4; }
@test "csma2_2: gpu-vi --cpu equals PRISM's value within 1e-6 on every query" { vi_check_cpu csma2_2; }
@test "firewire_dl: gpu-vi --cpu equals PRISM's value within 1e-6 on every query" { vi_check_cpu firewire_dl; }
@test "zeroconf: gpu-vi --cpu equals PRISM's value within 1e-6 on every query" { vi_check_cpu zeroconf; }
@test "phil3: gpu-vi --cpu equals PRISM's value within 1e-6 on every query" { vi_check_cpu phil3; }
@test "mutual3: gpu-vi --cpu equals PRISM's value within 1e-6 on every query" { vi_check_cpu mutual3; }
@test "dining_crypt3: gpu-vi --cpu equals PRISM's value within 1e-6 on every query" { vi_check_cpu dining_crypt3; }
@test "wlan1: gpu-vi --cpu equals PRISM's value within 1e-6 on every query" { vi_check_cpu wlan1; }
@test "leader6: gpu-vi --cpu equals PRISM's value within 1e-6 on every query" { vi_check_cpu leader6; }
@test "coin4_6: gpu-vi --cpu equals PRISM's value within 1e-6 on every query" {
    # certified policy iteration, the default: 2-3 s (interval iteration alone, --method ii: a minute)
    vi_check_cpu coin4_6
}
@test "wlan3: gpu-vi --cpu equals PRISM's value within 1e-6 on every query" { vi_check_cpu wlan3; }
@test "csma3_2: gpu-vi --cpu equals PRISM's value within 1e-6 on every query" { vi_check_cpu csma3_2; }
@test "dining_crypt6: gpu-vi --cpu equals PRISM's value within 1e-6 on every query" { vi_check_cpu dining_crypt6; }

@test "gpu-vi --cpu ends a step bound of a billion steps where a step changes nothing, with the values of all the steps" {
    f=$(model_csr coin2)
    # (before: about an hour on 272 states)
    run --separate-stderr timeout 60 gpu-vi --cpu -p 'Pmax=? [ F<=1000000000 "fin_c0" ]' \
        -p 'Pmin=? [ F<=1000000000 "fin_c0" ]' "$f"
    assert_success
    # past the step where nothing changes, every bound gives the same values
    assert_equal "$output" "$(gpu-vi --cpu -p 'Pmax=? [ F<=100000 "fin_c0" ]' -p 'Pmin=? [ F<=100000 "fin_c0" ]' "$f" |
        sed 's/<=100000 /<=1000000000 /')"
    # and those of the unbounded property, PRISM's 0.5555... and 0.3828125, within 1e-9
    awk -F': ' 'NR == 1 { d = $2 - 5 / 9 } NR == 2 { e = $2 - 0.3828125 }
        END { exit !(d * d < 1e-18 && e * e < 1e-18) }' <<< "$output" || fail "$output"
    # a bound that ends before: its own values (not the limit's)
    run gpu-vi --cpu -p 'Pmax=? [ F<=10 "fin_c0" ]' "$f"
    assert_output 'Pmax=? [ F<=10 "fin_c0" ]: 0'
}

@test "gpu-vi leaves no partial -o or --export-scheduler file where the disk fills, and says why" {
    f=$(model_csr coin4)
    cd "$BATS_TEST_TMPDIR"
    # a file size limit of 4 KiB stands for a full disk (the writes fail with EFBIG)
    for out in "-o v.out" "--export-scheduler s.out"; do
        run --separate-stderr bash -c "trap '' XFSZ; ulimit -f 4; gpu-vi --cpu -t fin_c0 -m min $out '$f'"
        assert_failure 1
        assert_equal "$stderr" "gpu-vi: ${out#* }: File too large"
        [ ! -e "${out#* }" ] || fail "${out#* } left behind ($(wc -c < "${out#* }") bytes)"
    done
    run --separate-stderr bash -c "trap '' XFSZ; ulimit -f 4; gpu-acc --cpu --mdp -a fin_c0 -o a.out '$f'"
    assert_failure 1
    assert_equal "$stderr" "gpu-acc: a.out: File too large"
    [ ! -e a.out ] || fail "a.out left behind"
}

@test "gpu-vi's JSON prints each real as the shortest decimal that reads back the same, seconds to 6 digits" {
    f=$(model_csr coin2)
    run --separate-stderr gpu-vi --cpu --json --stats=json -p 'Pmin=? [ F "fin_c0" ]' "$f"
    assert_success
    [[ "$output" == *'"epsilon":1e-06,'* ]] || fail "$output"
    text=$(gpu-vi --cpu -p 'Pmin=? [ F "fin_c0" ]' "$f")
    # the same double as the text's 17 digits, in no more digits than it needs
    python3 - "$output" "${text##*: }" "$stderr" <<'PY' || fail "$output"
import json, sys
out, text, stats = json.loads(sys.argv[1]), float(sys.argv[2]), json.loads(sys.argv[3])
v = out["properties"][0]["initial"][0]["value"]
assert v == text, (v, text)
raw = sys.argv[1].split('"value":')[1].split('}')[0]
assert raw == repr(v), (raw, repr(v))  # Python's repr is the shortest round trip too
for k, x in stats.items():
    if k.endswith("_s"):
        digits = [c for c in repr(x).split("e")[0] if c.isdigit()]
        assert len("".join(digits).lstrip("0")) <= 6, (k, x)
PY
}

@test "gpu-vi shows a long step bound's progress on a terminal, and clears it, and says nothing of it elsewhere" {
    command -v script >/dev/null || skip "no script(1) here (util-linux)"
    # 99 states that reach the goal with probability 1e-5 a step: a double's fixpoint after about 2.5M steps
    awk 'BEGIN { n = 100; print n, 2 * (n - 1) + 1; for (i = 0; i < n - 1; i++) { print i, i, 0.99999; print i, n - 1, 0.00001 }
                 print n - 1, n - 1, 1 }' > "$BATS_TEST_TMPDIR/slow.tra"
    printf '0="init" 1="goal"\n0: 0\n99: 1\n' > "$BATS_TEST_TMPDIR/slow.lab"
    prism2csr -l "$BATS_TEST_TMPDIR/slow.lab" "$BATS_TEST_TMPDIR/slow.tra" > "$BATS_TEST_TMPDIR/slow.csr"
    p='P=? [ F<=1000000000 "goal" ]'
    run env CSR_TEST_PROGRESS_AFTER=0 script -qec "gpu-vi --cpu -p '$p' '$BATS_TEST_TMPDIR/slow.csr'" /dev/null
    assert_success
    [[ "$output" =~ gpu-vi:\ step\ [0-9]+\ of\ 1000000000 ]] || fail "no progress: $output"
    [[ "$output" == *$'\r\033[K'"$p: 0.9999999999"* ]] || fail "not cleared: $output"
    run --separate-stderr env CSR_TEST_PROGRESS_AFTER=0 gpu-vi --cpu -p "$p" "$BATS_TEST_TMPDIR/slow.csr"
    assert_success
    assert_equal "$stderr" ""
    assert_output --regexp '^P=\? \[ F<=1000000000 "goal" \]: 0\.9999999999[0-9]*$'
}

@test "the zero-valued states of Rmin and Rmax searched by a task per CPU give every state the values one task gives, on random MDPs with zero rewards" {
    local seed p zeros=0
    for seed in 1 2 3 4 5 6; do
        randmdp -n 3000 -c 3 -k 3 -e 2 -l 60 -g 3 -r $((seed * 15)) "$seed" > "$BATS_TEST_TMPDIR/r.csr"
        for p in 'Rmin=? [ F "goal" ]' 'Rmax=? [ F "goal" ]'; do
            CSR_TEST_GRAIN=1 gpu-vi --cpu -p "$p" -o "$BATS_TEST_TMPDIR/tasks.vec" "$BATS_TEST_TMPDIR/r.csr" > /dev/null
            CSR_TEST_GRAIN=1000000000000 gpu-vi --cpu -p "$p" -o "$BATS_TEST_TMPDIR/one.vec" "$BATS_TEST_TMPDIR/r.csr" > /dev/null
            cmp -s "$BATS_TEST_TMPDIR/tasks.vec" "$BATS_TEST_TMPDIR/one.vec" || fail "seed $seed: $p differs"
            zeros=$((zeros + $(grep -c '^0$' "$BATS_TEST_TMPDIR/one.vec")))
        done
    done
    [ "$zeros" -ge 100 ] || fail "only $zeros states of value 0"
}
