#!/usr/bin/env bats
# Properties as QVBS writes them (the Quantitative Verification Benchmark
# Set's properties files, over state variables, constants, labels, bounds,
# filters and reward bounds) on the small instances of tests/data/qvbs:
# Storm's UMB exports with state valuations, QVBS's reference values and
# Storm's answers, made once by tests/tools/qvbs-data.py.  --cpu here; the
# same on the GPU in tests/110-gpu-vi-gpu.bats (qvbs_check with no option).

load helper

Q="$DATA/qvbs"

setup() {
    require_models
}

@test "every small QVBS instance answers its properties file as written within 1e-6 of QVBS's values, on the CPU" {
    n=$(qvbs_check --cpu)
    [ "$n" -ge 37 ] || fail "only $n properties checked"
}

@test "every small QVBS instance answers as QVBS does on the CPU with a task per CPU for the smallest loops too (the rewards' set-up, the kept transpose, the zero-valued states' search)" {
    n=$(CSR_TEST_GRAIN=1 qvbs_check --cpu)
    [ "$n" -ge 37 ] || fail "only $n properties checked"
}

@test "gpu-vi --cpu answers reward-bounded, cumulative and expected-time (T) queries as Storm does" {
    n=$(bounded_check --cpu)
    [ "$n" -ge 30 ] || fail "only $n queries checked"
}

@test "wlan.2's R{\"collisions\"}max, whose optimistic value iteration never ended, ends and equals QVBS's value" {
    prism2csr "$Q/wlan.2.COL0.umb" > "$BATS_TEST_TMPDIR/w.csr"
    for method in pi ii; do
        run --separate-stderr timeout 60 gpu-vi --cpu --method $method -P "$Q/wlan.props" --const COL=0 \
            --property num_collisions "$BATS_TEST_TMPDIR/w.csr"
        assert_success
        value_close "${output##*: }" 1.2014594670294494 || fail "--method $method: $output"
    done
}

@test "a property refused among others is said on its own line and in --json, the others answered" {
    prism2csr "$Q/csma.2-2.umb" > "$BATS_TEST_TMPDIR/c.csr"
    run --separate-stderr gpu-vi --cpu -P "$Q/csma.props" "$BATS_TEST_TMPDIR/c.csr"
    assert_success
    assert_equal "$(cut -d: -f1 <<< "$output" | tr '\n' ' ')" "all_before_max all_before_min time_max time_min "
    # csma's some_before uses a formula of the model file, which the export does not carry
    assert_equal "$stderr" "gpu-vi: \"some_before\": line 6, column 27: unknown name 'min_backoff_after_success': not a state variable of the model, nor a constant or formula of the properties file (the model file's formulas are not exported: define them in the properties file)"
    run --separate-stderr gpu-vi --cpu --json -P "$Q/csma.props" "$BATS_TEST_TMPDIR/c.csr"
    assert_success
    python3 -c '
import json, sys
j = json.loads(sys.argv[1])
by = {p["name"]: p for p in j["properties"]}
assert list(by) == ["all_before_max", "all_before_min", "time_max", "time_min"], list(by)
assert all(len(p["initial"]) == 1 for p in by.values())
[e] = j["errors"]
assert e["name"] == "some_before" and "min_backoff_after_success" in e["error"], e
' "$output" || fail "$output"
    # defined in the properties file, it is answered (QVBS: 0.5)
    { echo 'formula min_backoff_after_success = min(s1=4?cd1:K+1,s2=4?cd2:K+1);'; echo 'const int K = 2;'
      cat "$Q/csma.props"; } > "$BATS_TEST_TMPDIR/csma.props"
    run gpu-vi --cpu -P "$BATS_TEST_TMPDIR/csma.props" --property some_before "$BATS_TEST_TMPDIR/c.csr"
    assert_success
    assert_output "some_before: 0.5"
}

@test "a property whose computation fails among others is said on its own line and in --json, the others answered, exit 1" {
    prism2csr "$Q/wlan.0.COL0.umb" > "$BATS_TEST_TMPDIR/w.csr"
    # each system whole (SCC by SCC, cost_min and time_min end within 50 iterations too)
    run --separate-stderr gpu-vi --cpu --no-topological --json --method ii --max-iters 50 -P "$Q/wlan.props" --const COL=0 "$BATS_TEST_TMPDIR/w.csr"
    assert_failure 1
    python3 -c '
import json, sys
j = json.loads(sys.argv[1])
bad = [p["name"] for p in j["errors"]]
good = [p["name"] for p in j["properties"]]
assert len(bad) + len(good) == 7 and set(good) == {"collisions", "sent"}, (bad, good)
assert all("within 50 iterations" in p["error"] for p in j["errors"]), j
' "$output" || fail "$output"
    [[ "$stderr" == *'"cost_max": no upper bound found within 50 iterations; the lower bound '* ]] || fail "$stderr"
}

@test "gpu-vi answers bound queries true or false per initial state, and filters over the states they name" {
    prism2csr "$Q/consensus.2.K2.umb" > "$BATS_TEST_TMPDIR/c.csr"
    run gpu-vi --cpu -p 'P>=1 [ F "finished" ]' -p 'Pmin>0.4 [ F "finished" & "all_coins_equal_1" ]' \
        -p 'Pmin<0.4 [ F "finished" & "all_coins_equal_1" ]' -p 'R{"steps"}max<=75 [ F "finished" ]' \
        -p 'filter(forall, P>=1 [ F "finished" ])' -p 'filter(count, counter=2 & pc1=3)' \
        -p 'filter(min, Pmin=? [ F "finished" & "all_coins_equal_1" ], "init")' \
        -p '"named": filter(max, Pmax=? [ F "finished" & !"agree" ], "init")' -p '2 * K + 1' --const K=3 \
        "$BATS_TEST_TMPDIR/c.csr"
    assert_success
    assert_line -n 0 'P>=1 [ F "finished" ]: true'
    assert_line -n 1 'Pmin>0.4 [ F "finished" & "all_coins_equal_1" ]: false'
    assert_line -n 2 'Pmin<0.4 [ F "finished" & "all_coins_equal_1" ]: true'
    assert_line -n 3 'R{"steps"}max<=75 [ F "finished" ]: true'
    assert_line -n 4 'filter(forall, P>=1 [ F "finished" ]): true'
    # the count from the valuations themselves (csrexport's .sta)
    csrexport -f tra -o "$BATS_TEST_TMPDIR/x" "$BATS_TEST_TMPDIR/c.csr"
    count=$(awk -F'[(,)]' 'NR > 1 && $2 == 2 && $3 == 3 { n++ } END { print n }' "$BATS_TEST_TMPDIR/x.sta")
    assert_line -n 5 "filter(count, counter=2 & pc1=3): $count"
    # QVBS's c2 and disagree
    value_close "${lines[6]##*: }" 0.3828125 || fail "${lines[6]}"
    value_close "${lines[7]##*: }" 0.10833333333333334 || fail "${lines[7]}"
    [[ "${lines[7]}" == "named: "* ]] || fail "${lines[7]}"
    assert_line -n 8 "2 * K + 1: 7"
}
