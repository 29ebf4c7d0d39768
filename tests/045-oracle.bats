#!/usr/bin/env bats
# The CPU references against brute force from the definitions (SCCs by
# reachability closure, MECs as unions of end components, FMSD Definitions
# 4-6) on 10,000 seeded random MDPs of 2 to 10 states, and reach_solve's
# Pmax/Pmin against the best of all memoryless deterministic schedulers on
# those of at most 6 states (tests/tools/oracle.c).

load helper

@test "Tarjan, the basic MEC algorithm, interval iteration, certified policy iteration (whole and SCC by SCC, Gauss-Seidel or policy iteration in the cores), expected rewards and step bounds agree with brute force, and reward bounds by epochs with the product with the budget, on 100,000 random MDPs" {
    run oracle -n 100000 -s 1
    assert_success
    assert_output --regexp "^oracle: 100000 random MDPs \(seeds 1 to 100000\): Tarjan and the basic MEC algorithm agree with brute force \([0-9]+ MECs holding [0-9]+ states\); interval iteration and certified policy iteration \([0-9]{4,} systems certified\), each system whole and SCC by SCC \([0-9]{4,} SCCs by Gauss-Seidel\), agree with the exact Pmax and Pmin, and optimistic value iteration and certified policy iteration \\([0-9]{4,} systems certified\\), whole and SCC by SCC \\([0-9]{4,} SCCs by Gauss-Seidel\\), with the exact Rmax and Rmin, step-bounded iteration with the tree of paths \(0 to 4 steps\), on the [0-9]{5} of at most 6 states; reward bounds \\(<= and >= 0 to 3\\) by epochs with the product's values, [0-9]{6} queries$"
}

@test "the oracle's MDPs have states in MECs and states in none" {
    run oracle -n 3 -s 1 -v
    assert_success
    assert_output --partial "MECs:          0 -"
    assert_output --partial "MECs:          - - 2 - -"
}

@test "the oracle writes the union of its MDPs with their brute-force SCCs and MECs, which the references equal" {
    run oracle -n 3000 -s 5 -u "$BATS_TEST_TMPDIR/u"
    assert_success
    run csrinfo "$BATS_TEST_TMPDIR/u.csr"
    assert_success
    gpu-scc --cpu "$BATS_TEST_TMPDIR/u.csr" | cmp - "$BATS_TEST_TMPDIR/u.sccs"
    gpu-mec --cpu "$BATS_TEST_TMPDIR/u.csr" | cmp - "$BATS_TEST_TMPDIR/u.mecs"
    run bash -c "grep -c -- - '$BATS_TEST_TMPDIR/u.mecs'"
    [ "$output" -gt 1000 ] || fail "only $output states in no MEC"
}
