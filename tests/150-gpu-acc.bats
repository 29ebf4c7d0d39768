#!/usr/bin/env bats
# gpu-acc on the CPU (issue 17): nested DFS, the sequential OWCTY and MAP
# against brute force on a million random graphs (tests/tools/oracle.c -a),
# against each other on every shared model and label with every lasso checked
# on PRISM's text form, hand-made graphs, and the tool's usage.  The GPU runs
# of the same are in tests/155-gpu-acc-gpu.bats.

load helper

setup() {
    require_models
}

@test "nested DFS, OWCTY and MAP agree with brute force on a million random graphs, every lasso valid" {
    run oracle -a -n 1000000 -s 1
    assert_success
    assert_output --regexp "^oracle: 1000000 random graphs \(seeds 1 to 1000000\): nested DFS, OWCTY and MAP agree with brute force on the accepting cycles \((4|5)[0-9]{5} have one\), every lasso valid$"
}

@test "gpu-acc --cpu: nested DFS, OWCTY and MAP agree on every shared model and label, and every lasso is one of the model" {
    local checked=0 cycles=0 none=0
    for m in $(present_models fmsd_fig1 dice brp herman7 coin2 coin4 leader3 leader4 csma2_2 phil3 mutual3 dining_crypt3 wlan1 zeroconf firewire_dl); do
        csr=$(model_csr "$m")
        for label in $(head -2 "$(model_file "$m.lab")" | grep -o '"[^"]*"' | tr -d '"'); do
            run gpu-acc --cpu -a "$label" "$csr"
            local want=$status
            [ "$want" -eq 0 ] || [ "$want" -eq 3 ] || fail "$m $label: exit $want: $output"
            [ "$want" -eq 3 ] && lasso_check "$csr" "$label" "$output"
            for algo in owcty map; do
                run gpu-acc --cpu --algo "$algo" -a "$label" "$csr"
                [ "$status" -eq "$want" ] || fail "$m $label: $algo exit $status, nested DFS $want"
                [ "$want" -eq 3 ] && lasso_check "$csr" "$label" "$output"
            done
            checked=$((checked + 1))
            [ "$want" -eq 3 ] && cycles=$((cycles + 1)) || none=$((none + 1))
        done
    done
    [ "$checked" -ge "$(at_least 60 10)" ] || fail "only $checked model labels"
    [ "$cycles" -gt 0 ] && [ "$none" -gt 0 ] || fail "$cycles with a cycle, $none without"
}

@test "gpu-acc --cpu on hand-made graphs: an unreachable cycle, a cycle without accepting states, an accepting state before a cycle, a self-loop" {
    # 0 -> 1 -> 2 -> 1; 3 -> 3 (unreachable); labels: a on 0 and 3, b on 2
    tra=$(write_file g.tra '4 4\n0 1 1\n1 2 1\n2 1 1\n3 3 1\n')
    lab=$(write_file g.lab '0="init" 1="a" 2="b"\n0: 0 1\n2: 2\n3: 1\n')
    prism2csr -l "$lab" "$tra" > "$BATS_TEST_TMPDIR/g.csr"
    for algo in "" "--algo owcty" "--algo map"; do
        run gpu-acc --cpu $algo -a a "$BATS_TEST_TMPDIR/g.csr"
        assert_success
        assert_output "no accepting cycle"
        run gpu-acc --cpu $algo -a b "$BATS_TEST_TMPDIR/g.csr"
        assert_failure 3
        assert_line --index 0 "accepting cycle through state 2"
        assert_line --index 1 "prefix: 0 1 2"
        assert_line --index 2 "cycle: 2 1"
    done
    # a self-loop is a cycle of one state; restructured input answers in PRISM's numbering
    tra=$(write_file s.tra '3 3\n0 1 1\n1 2 1\n2 2 1\n')
    lab=$(write_file s.lab '0="init" 1="a"\n0: 0\n2: 1\n')
    prism2csr -l "$lab" "$tra" | restructure -u 1 > "$BATS_TEST_TMPDIR/s.csr"
    run gpu-acc --cpu -a a "$BATS_TEST_TMPDIR/s.csr"
    assert_failure 3
    assert_output "$(printf 'accepting cycle through state 2\nprefix: 0 1 2\ncycle: 2')"
    run gpu-acc --cpu --no-witness -a a "$BATS_TEST_TMPDIR/s.csr"
    assert_failure 3
    assert_output "accepting cycle through state 2"
}

@test "gpu-acc refuses an unknown label, a bad algorithm and a bad file, and answers -h" {
    csr=$(model_csr coin2)
    run --separate-stderr gpu-acc --cpu -a nope "$csr"
    assert_failure 2
    assert_output ""
    [[ "$stderr" == *'no label "nope"; the model'"'"'s labels: init deadlock finished'* ]] || fail "$stderr"
    run --separate-stderr gpu-acc --cpu "$csr"
    assert_failure 2
    [[ "$stderr" == *'no label "accepting"'* ]] || fail "$stderr"
    # a model without labels: said so, not an empty list
    prism2csr "$MODELS/fmsd_fig1.tra" > "$BATS_TEST_TMPDIR/nolabels.csr"
    for mdp in "" --mdp; do
        run --separate-stderr gpu-acc --cpu $mdp -a s3 "$BATS_TEST_TMPDIR/nolabels.csr"
        assert_failure 2
        assert_equal "$stderr" "gpu-acc: $BATS_TEST_TMPDIR/nolabels.csr: no label \"s3\": the model has no labels (convert it with prism2csr -l FILE.lab)"
    done
    run --separate-stderr gpu-acc --cpu --algo tarjan -a finished "$csr"
    assert_failure 2
    [[ "$stderr" == *"--algo takes owcty or map"* ]] || fail "$stderr"
    run --separate-stderr gpu-acc --cpu -a finished "$BATS_TEST_TMPDIR/none.csr"
    assert_failure 1
    head -c 100 "$csr" > "$BATS_TEST_TMPDIR/cut.csr"
    run --separate-stderr gpu-acc --cpu -a finished "$BATS_TEST_TMPDIR/cut.csr"
    assert_failure 1
    assert_output ""
    run gpu-acc -h
    assert_success
    assert_output --partial "usage: gpu-acc"
    run gpu-acc --cpu -a finished < "$csr"
    assert_failure 3
}

@test "gpu-acc --cpu --mdp gives Storm's Pmax(G F label) = 1 and > 0 state by state on every listed shared MDP" {
    n=$(buchi_check --cpu)
    [ "$n" -ge "$(at_least 9 5)" ] || fail "only $n model labels checked"
    # the summary and the initial state's answer
    prism2csr "$MODELS/coin2.umb" > "$BATS_TEST_TMPDIR/c.csr"
    run gpu-acc --cpu --mdp -a agree "$BATS_TEST_TMPDIR/c.csr"
    assert_success
    assert_output "$(printf 'Pmax(G F "agree") = 1: 148 states\nPmax(G F "agree") > 0: 260 states\ninitial state 120: Pmax = 1')"
    run --separate-stderr gpu-acc --cpu --mdp --algo map -a agree "$BATS_TEST_TMPDIR/c.csr"
    assert_failure 2
    run --separate-stderr gpu-acc --cpu -o "$BATS_TEST_TMPDIR/x" -a agree "$BATS_TEST_TMPDIR/c.csr"
    assert_failure 2
}

@test "gpu-acc --cpu gives a short lasso where nested DFS's stacks hold a long one" {
    # 0 -> 2 -> 3 -> ... -> N -> 2 (a cycle through N, found first), and 0 -> 1 -> 1; "a" on 1 and N
    N=100000
    awk -v N=$N 'BEGIN { print N + 1, N + 2, N + 2; print 0, 0, 2, 1; print 0, 1, 1, 1; print 1, 0, 1, 1
        for (s = 2; s < N; s++) print s, 0, s + 1, 1; print N, 0, 2, 1 }' > "$BATS_TEST_TMPDIR/l.tra"
    printf '0="init" 1="a"\n0: 0\n1: 1\n%s: 1\n' $N > "$BATS_TEST_TMPDIR/l.lab"
    prism2csr -l "$BATS_TEST_TMPDIR/l.lab" "$BATS_TEST_TMPDIR/l.tra" > "$BATS_TEST_TMPDIR/l.csr"
    run gpu-acc --cpu -a a "$BATS_TEST_TMPDIR/l.csr"
    assert_failure 3
    assert_output "$(printf 'accepting cycle through state 1\nprefix: 0 1\ncycle: 1')"
}
