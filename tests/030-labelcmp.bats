#!/usr/bin/env bats
# labelcmp: label files as partitions, PRISM's .sccs/.mecs, value files.

load helper

setup() {
    require_models
}

@test "labelcmp finds two labelings equal up to renaming" {
    a=$(write_file a.labels '0\n0\n2\n-\n4\n')
    b=$(write_file b.labels '7\n7\n1\n-\n99\n')
    run labelcmp "$a" "$b"
    assert_success
    assert_output ""
}

@test "labelcmp reports states whose components differ" {
    a=$(write_file a.labels '0\n0\n2\n-\n4\n')
    b=$(write_file b.labels '0\n1\n1\n-\n-\n')
    run labelcmp "$a" "$b"
    assert_failure 1
    assert_output "$a and $b differ:
state 1: 0 in a, 1 in b
state 2: 2 in a, 1 in b
state 4: 4 in a, - in b
3 of 5 states differ"
}

@test "labelcmp -q says nothing and -m limits the differences shown" {
    a=$(write_file a.labels '0\n1\n2\n')
    b=$(write_file b.labels '0\n0\n0\n')
    run labelcmp -q "$a" "$b"
    assert_failure 1
    assert_output ""
    run labelcmp -m 1 "$a" "$b"
    assert_failure 1
    assert_output "$a and $b differ:
state 1: 1 in a, 0 in b
2 of 3 states differ"
}

@test "labelcmp reads PRISM's SCC export, unlisted states being SCCs of their own" {
    run labelcmp "$DATA/fmsd_fig1.sccs.expected" "$MODELS/fmsd_fig1.sccs"
    assert_success
    wrong=$(write_file wrong.labels '0\n1\n2\n3\n4\n4\n7\n7\n')
    run labelcmp "$wrong" "$MODELS/fmsd_fig1.sccs"
    assert_failure 1
    assert_line "state 6: 7 in a, SCC 4 in b"
    assert_line "state 7: 7 in a, (an SCC of its own) in b"
}

@test "labelcmp reads PRISM's MEC export, unlisted states being in no MEC" {
    run labelcmp "$MODELS/fmsd_fig1.mecs" "$DATA/fmsd_fig1.mecs.expected"
    assert_success
    wrong=$(write_file wrong.labels '-\n-\n2\n3\n4\n4\n4\n7\n')
    run labelcmp "$wrong" "$MODELS/fmsd_fig1.mecs"
    assert_failure 1
    assert_output --partial "state 7: 7 in a, - in b"
}

@test "labelcmp reads gzip-compressed files and standard input" {
    gzip -c "$DATA/fmsd_fig1.sccs.expected" > "$BATS_TEST_TMPDIR/l.gz"
    run labelcmp "$BATS_TEST_TMPDIR/l.gz" "$MODELS/fmsd_fig1.sccs"
    assert_success
    run bash -c "labelcmp - '$MODELS/fmsd_fig1.sccs' < '$BATS_TEST_TMPDIR/l.gz'"
    assert_success
}

@test "labelcmp reports files of different state counts as different, by their counts (label files have no header)" {
    a=$(write_file a.labels '0\n0\n')
    b=$(write_file b.labels '0\n0\n0\n')
    run labelcmp "$a" "$b"
    assert_failure 1
    assert_output "$a and $b differ: 2 states in a, 3 in b"
    run labelcmp "$a" "$MODELS/fmsd_fig1.mecs"
    assert_failure 1
    assert_output "$a and $MODELS/fmsd_fig1.mecs differ: index out of range: lists state 6, but there are only 2 states"
}

@test "labelcmp rejects a malformed label file with status 2" {
    a=$(write_file a.labels '0\nx1\n2\n')
    run --separate-stderr labelcmp "$a" "$a"
    assert_failure 2
    assert_equal "$stderr" "labelcmp: $a:2: syntax error: expected a component id or \"-\""
}

@test "labelcmp rejects a PRISM export cut short with status 2" {
    head -n 9 "$MODELS/fmsd_fig1.sccs" > "$BATS_TEST_TMPDIR/cut.sccs"
    run --separate-stderr labelcmp "$DATA/fmsd_fig1.sccs.expected" "$BATS_TEST_TMPDIR/cut.sccs"
    assert_failure 2
    assert_equal "$stderr" "labelcmp: $BATS_TEST_TMPDIR/cut.sccs:9: file is truncated: 3 of 4 blocks"
}

@test "labelcmp rejects a PRISM export that lists a state past the other file's count without allocating for it" {
    # Found by fuzzing (tests/data/fuzz/labels/oom-*): the reader used to size
    # its array by the largest listed state, 3.7 GB for this one.
    f=$(write_file far.mecs 'Variables: (x)\n\nMEC 1/1:\n2:(2)\n467440737:(1)\n')
    printf '0\n1\n2\n' > "$BATS_TEST_TMPDIR/three"
    run memory_limited 400 labelcmp "$f" "$BATS_TEST_TMPDIR/three"
    assert_failure 1
    assert_output "$f and $BATS_TEST_TMPDIR/three differ: index out of range: lists state 467440737, but there are only 3 states"
}

@test "labelcmp rejects a state listed twice in a PRISM export" {
    f=$(write_file twice.mecs 'Variables: (x)\n\nMEC 1/2:\n2:(2)\n\nMEC 2/2:\n2:(2)\n')
    run --separate-stderr labelcmp "$f" "$DATA/fmsd_fig1.mecs.expected"
    assert_failure 2
    assert_equal "$stderr" "labelcmp: $f:7: syntax error: state 2 is listed twice"
}

@test "labelcmp -n compares values within a relative tolerance" {
    a=$(write_file a.values '0.5\n1\n0\n1e-9\n')
    b=$(write_file b.values '0.5000004\n1\n0\n1.0000001e-9\n')
    run labelcmp -n "$a" "$b"
    assert_success
    c=$(write_file c.values '0.5\n0.99\n0\n1e-9\n')
    run labelcmp -n "$a" "$c"
    assert_failure 1
    assert_output "$a and $c differ:
state 1: 1 in a, 0.98999999999999999 in b (difference 0.01)
1 of 4 values differ by more than 1e-06 (relative)"
    run labelcmp -n -t 0.02 "$a" "$c"
    assert_success
}

@test "labelcmp -n takes nan for nan and infinity for infinity as equal, either against a number as different" {
    a=$(write_file a.values 'nan\ninf\n0.5\n')
    b=$(write_file b.values 'nan\ninf\n0.5\n')
    run labelcmp -n "$a" "$b"
    assert_success
    c=$(write_file c.values '0.25\n-inf\n0.5\n')
    run labelcmp -n -q "$a" "$c"
    assert_failure 1
    run labelcmp -n "$a" "$c"
    assert_line "2 of 3 values differ by more than 1e-06 (relative)"
}

@test "labelcmp -n -a compares values within an absolute tolerance" {
    a=$(write_file a.values '1e-9\n')
    b=$(write_file b.values '3e-9\n')
    run labelcmp -n "$a" "$b"
    assert_failure 1
    run labelcmp -n -a "$a" "$b"
    assert_success
}

@test "labelcmp -n reads PRISM's exported vectors" {
    zcat "$MODELS/coin2.p1.vec.gz" > "$BATS_TEST_TMPDIR/v"
    run labelcmp -n "$MODELS/coin2.p1.vec.gz" "$BATS_TEST_TMPDIR/v"
    assert_success
    sed '5s/.*/0.25/' "$BATS_TEST_TMPDIR/v" > "$BATS_TEST_TMPDIR/w"
    run labelcmp -n -q "$MODELS/coin2.p1.vec.gz" "$BATS_TEST_TMPDIR/w"
    assert_failure 1
}

@test "labelcmp -n rejects a line that is not a number" {
    a=$(write_file a.values '0.5\nhalf\n')
    run --separate-stderr labelcmp -n "$a" "$a"
    assert_failure 2
    assert_equal "$stderr" "labelcmp: $a:2: malformed number: expected one number"
}

@test "labelcmp reports a missing file and bad usage with status 2" {
    run labelcmp "$BATS_TEST_TMPDIR/none" "$DATA/fmsd_fig1.mecs.expected"
    assert_failure 2
    assert_output "labelcmp: $BATS_TEST_TMPDIR/none: cannot open: No such file or directory"
    run labelcmp only-one
    assert_failure 2
    run labelcmp -t 0.1 a b
    assert_failure 2
    run labelcmp -h
    assert_success
}

@test "labelcmp reports a write error on standard output" {
    run --separate-stderr bash -c "labelcmp -m 3 '$MODELS/coin2.mecs' '$MODELS/coin2.sccs' > /dev/full"
    assert_failure 2
    assert_equal "$stderr" "labelcmp: (stdout): input/output error: No space left on device"
}
