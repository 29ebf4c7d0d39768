#!/usr/bin/env bats
# prism2csr: PRISM .tra/.lab to binary CSR, and every class of bad input.

load helper

setup() {
    require_models
    # A small valid MDP: 3 states, 4 choices, 5 transitions.
    GOOD='# Transitions (MDP)\n3 4 5\n0 0 1 0.5\n0 0 2 0.5\n0 1 0 1\n1 0 0 1\n2 0 2 1\n'
}

# Run prism2csr on a .tra made of $1; it must fail with status 1, write nothing
# on stdout, and say $2 on stderr.
rejects() {
    local tra
    tra=$(write_file bad.tra "$1")
    run --separate-stderr prism2csr "$tra"
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" "prism2csr: $tra$2"
}

@test "prism2csr converts the FMSD running example with its counts and labels" {
    prism2csr -l "$MODELS/fmsd_fig1.lab" "$MODELS/fmsd_fig1.tra" > "$BATS_TEST_TMPDIR/f.csr"
    run csrinfo "$BATS_TEST_TMPDIR/f.csr"
    assert_success
    assert_line --index 0 --partial "CSR 1.0 MDP, 8 states, 13 choices, 21 transitions"
    assert_line --partial 'labels:       3: "init" (1), "deadlock" (0), "s3" (1)'
    assert_line --partial "initial:      1 state: 0"
    assert_line --partial "valid:        yes"
}

@test "prism2csr takes the initial states from the init label" {
    prism2csr -l "$MODELS/coin2.lab" "$MODELS/coin2.tra" > "$BATS_TEST_TMPDIR/c.csr"
    run csrinfo "$BATS_TEST_TMPDIR/c.csr"
    assert_line --partial "initial:      1 state: 120"
    prism2csr -l "$MODELS/herman7.lab" "$MODELS/herman7.tra" > "$BATS_TEST_TMPDIR/h.csr"
    run csrinfo "$BATS_TEST_TMPDIR/h.csr"
    assert_line --partial "CSR 1.0 DTMC, 128 states, 128 choices, 2188 transitions"
    assert_line --partial "initial:      128 states: 0 1 2 3 4 5 6 7 ..."
}

@test "prism2csr makes state 0 initial without a label file" {
    prism2csr "$MODELS/coin2.tra" > "$BATS_TEST_TMPDIR/c.csr"
    run csrinfo "$BATS_TEST_TMPDIR/c.csr"
    assert_line --partial "initial:      1 state: 0"
    assert_line --partial "labels:       0"
}

@test "prism2csr keeps the action names of the choices" {
    prism2csr "$MODELS/leader3.tra" > "$BATS_TEST_TMPDIR/l.csr"
    run csrinfo "$BATS_TEST_TMPDIR/l.csr"
    named=$(awk 'NF==5' "$MODELS/leader3.tra" | cut -d' ' -f1,2 | sort -u | wc -l)
    assert_line --regexp "actions: +[0-9]+ names, on $named of 573 choices"
}

@test "prism2csr reads gzip-compressed input from a file and from stdin alike" {
    gzip -c "$MODELS/coin2.tra" > "$BATS_TEST_TMPDIR/c.tra.gz"
    prism2csr "$MODELS/coin2.tra" > "$BATS_TEST_TMPDIR/plain.csr"
    prism2csr "$BATS_TEST_TMPDIR/c.tra.gz" > "$BATS_TEST_TMPDIR/file.csr"
    prism2csr < "$BATS_TEST_TMPDIR/c.tra.gz" > "$BATS_TEST_TMPDIR/stdin.csr"
    prism2csr - < "$MODELS/coin2.tra" > "$BATS_TEST_TMPDIR/dash.csr"
    cmp "$BATS_TEST_TMPDIR/plain.csr" "$BATS_TEST_TMPDIR/file.csr"
    cmp "$BATS_TEST_TMPDIR/plain.csr" "$BATS_TEST_TMPDIR/stdin.csr"
    cmp "$BATS_TEST_TMPDIR/plain.csr" "$BATS_TEST_TMPDIR/dash.csr"
}

@test "prism2csr reads a .tra without PRISM 4.10's comment line" {
    tail -n +2 "$MODELS/coin2.tra" > "$BATS_TEST_TMPDIR/old.tra"
    prism2csr "$MODELS/coin2.tra" > "$BATS_TEST_TMPDIR/a.csr"
    prism2csr "$BATS_TEST_TMPDIR/old.tra" > "$BATS_TEST_TMPDIR/b.csr"
    cmp "$BATS_TEST_TMPDIR/a.csr" "$BATS_TEST_TMPDIR/b.csr"
}

@test "prism2csr output is byte-reproducible" {
    prism2csr -l "$MODELS/leader4.lab" "$MODELS/leader4.tra" > "$BATS_TEST_TMPDIR/1.csr"
    prism2csr -l "$MODELS/leader4.lab" "$MODELS/leader4.tra" > "$BATS_TEST_TMPDIR/2.csr"
    cmp "$BATS_TEST_TMPDIR/1.csr" "$BATS_TEST_TMPDIR/2.csr"
    [ $(( $(stat -c %s "$BATS_TEST_TMPDIR/1.csr") % 64 )) -eq 0 ]
}

@test "prism2csr refuses to write to a terminal" {
    tra=$(write_file good.tra "$GOOD")
    run script -qec "prism2csr $tra" /dev/null
    assert_failure 2
    assert_output --partial "will not write binary data to a terminal"
}

@test "prism2csr rejects fewer transitions than the header says" {
    rejects '3 4 6\n0 0 1 0.5\n0 0 2 0.5\n0 1 0 1\n1 0 0 1\n2 0 2 1\n' \
        ':6: counts do not match the header: header says 3 states, 4 choices, 6 transitions; found 3, 4, 5'
}

@test "prism2csr rejects more transitions than the header says" {
    rejects '3 4 4\n0 0 1 0.5\n0 0 2 0.5\n0 1 0 1\n1 0 0 1\n2 0 2 1\n' \
        ":6: counts do not match the header: more than the header's 4 transitions"
}

@test "prism2csr rejects more choices than the header says" {
    rejects '3 3 5\n0 0 1 0.5\n0 0 2 0.5\n0 1 0 1\n1 0 0 1\n2 0 2 1\n' \
        ":6: counts do not match the header: more than the header's 3 choices"
}

@test "prism2csr rejects fewer states than the header says" {
    rejects '4 4 5\n0 0 1 0.5\n0 0 2 0.5\n0 1 0 1\n1 0 0 1\n2 0 2 1\n' \
        ':6: counts do not match the header: header says 4 states, 4 choices, 5 transitions; found 3, 4, 5'
}

@test "prism2csr rejects a target state out of range" {
    rejects '3 4 5\n0 0 1 0.5\n0 0 3 0.5\n0 1 0 1\n1 0 0 1\n2 0 2 1\n' \
        ':3: index out of range: target state 3 >= 3 states'
}

@test "prism2csr rejects a source state out of range" {
    rejects '3 4 5\n0 0 1 0.5\n0 0 2 0.5\n0 1 0 1\n1 0 0 1\n7 0 2 1\n' \
        ':6: index out of range: source state 7 >= 3 states'
}

@test "prism2csr rejects source states that are not ascending" {
    rejects '3 4 5\n0 0 1 0.5\n0 0 2 0.5\n1 0 0 1\n0 1 0 1\n2 0 2 1\n' \
        ':5: not ascending and contiguous: source state 0 after state 1'
}

@test "prism2csr rejects a state without transitions" {
    rejects '3 3 4\n0 0 1 0.5\n0 0 2 0.5\n0 1 0 1\n2 0 2 1\n' \
        ':5: not ascending and contiguous: source state 2 after state 0: state 1 has no transitions'
}

@test "prism2csr rejects choice indices that are not contiguous" {
    rejects '3 4 5\n0 0 1 0.5\n0 0 2 0.5\n0 2 0 1\n1 0 0 1\n2 0 2 1\n' \
        ':4: not ascending and contiguous: state 0: choice 2 after choice 0'
}

@test "prism2csr rejects a first choice that is not 0" {
    rejects '3 4 5\n0 0 1 0.5\n0 0 2 0.5\n0 1 0 1\n1 1 0 1\n2 0 2 1\n' \
        ':5: not ascending and contiguous: state 1: first choice is 1, not 0'
}

@test "prism2csr rejects a probability above 1" {
    rejects '3 4 5\n0 0 1 0.5\n0 0 2 1.5\n0 1 0 1\n1 0 0 1\n2 0 2 1\n' \
        ':3: probability not finite or outside (0,1]: 1.5'
}

@test "prism2csr rejects a probability of 0" {
    rejects '3 4 5\n0 0 1 0\n0 0 2 1\n0 1 0 1\n1 0 0 1\n2 0 2 1\n' \
        ':2: probability not finite or outside (0,1]: 0'
}

@test "prism2csr rejects a negative probability" {
    rejects '3 4 5\n0 0 1 -0.5\n0 0 2 0.5\n0 1 0 1\n1 0 0 1\n2 0 2 1\n' \
        ':2: probability not finite or outside (0,1]: -0.5'
}

@test "prism2csr rejects a probability that is not finite" {
    rejects '3 4 5\n0 0 1 nan\n0 0 2 0.5\n0 1 0 1\n1 0 0 1\n2 0 2 1\n' \
        ':2: probability not finite or outside (0,1]: nan'
    rejects '3 4 5\n0 0 1 inf\n0 0 2 0.5\n0 1 0 1\n1 0 0 1\n2 0 2 1\n' \
        ':2: probability not finite or outside (0,1]: inf'
}

@test "prism2csr rejects a choice that does not sum to one" {
    rejects '3 4 5\n0 0 1 0.5\n0 0 2 0.4\n0 1 0 1\n1 0 0 1\n2 0 2 1\n' \
        ':2: probabilities of a choice do not sum to 1: state 0 choice 0 sums to 0.90000000000000002'
}

@test "prism2csr rejects a second transition of a choice to the same state" {
    rejects '3 4 5\n0 0 1 0.5\n0 0 1 0.5\n0 1 0 1\n1 0 1 1\n2 0 2 1\n' \
        ':3: targets of a choice not strictly ascending: state 0 choice 0: a second transition to state 1'
}

@test "prism2csr rejects the targets of a choice out of order" {
    rejects '3 4 5\n0 0 2 0.5\n0 0 1 0.5\n0 1 0 1\n1 0 1 1\n2 0 2 1\n' \
        ':3: targets of a choice not strictly ascending: state 0 choice 0: target 1 after target 2'
}

@test "prism2csr accepts a sum within 1e-6 of one" {
    tra=$(write_file ok.tra '3 4 5\n0 0 1 0.5\n0 0 2 0.4999995\n0 1 0 1\n1 0 0 1\n2 0 2 1\n')
    prism2csr "$tra" > "$BATS_TEST_TMPDIR/ok.csr"
    run csrinfo -q "$BATS_TEST_TMPDIR/ok.csr"
    assert_success
}

@test "prism2csr accepts 0.333333 three times, within PRISM's default sum tolerance 1e-5" {
    tra=$(write_file third.tra '3 4 6\n0 0 0 0.333333\n0 0 1 0.333333\n0 0 2 0.333333\n0 1 0 1\n1 0 1 1\n2 0 2 1\n')
    prism2csr "$tra" > "$BATS_TEST_TMPDIR/third.csr"
    run csrinfo -q "$BATS_TEST_TMPDIR/third.csr"
    assert_success
}

@test "prism2csr --sum-tolerance sets how far from one a choice may sum" {
    tra=$(write_file third.tra '3 4 6\n0 0 0 0.333333\n0 0 1 0.333333\n0 0 2 0.333333\n0 1 0 1\n1 0 1 1\n2 0 2 1\n')
    run --separate-stderr prism2csr --sum-tolerance 1e-7 "$tra"
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" "prism2csr: $tra:2: probabilities of a choice do not sum to 1: state 0 choice 0 sums to 0.99999899999999997"
    run --separate-stderr prism2csr --sum-tolerance 0 "$tra"
    assert_failure 2
    assert_equal "$stderr" "prism2csr: bad sum tolerance '0' (above 0, below 1)"
    prism2csr --sum-tolerance 1e-7 -w "$tra" 2>/dev/null > "$BATS_TEST_TMPDIR/w.csr"
    run csrinfo -q --sum-tolerance 1e-7 "$BATS_TEST_TMPDIR/w.csr"
    assert_failure 1
    run csrinfo -q "$BATS_TEST_TMPDIR/w.csr"
    assert_success
}

@test "prism2csr takes a probability a rounding error above one for one" {
    tra=$(write_file one.tra '2 2\n0 1 1.0000000000000002\n1 1 1\n')
    prism2csr "$tra" > "$BATS_TEST_TMPDIR/one.csr"
    run csrinfo -q "$BATS_TEST_TMPDIR/one.csr"
    assert_success
    run csrexport "$BATS_TEST_TMPDIR/one.csr"
    assert_line --index 2 "0 1 1"
    rejects '2 2\n0 1 1.00002\n1 1 1\n' ':2: probability not finite or outside (0,1]: 1.0000199999999999'
}

@test "prism2csr -w turns a bad sum into a warning" {
    tra=$(write_file sum.tra '3 4 5\n0 0 1 0.5\n0 0 2 0.4\n0 1 0 1\n1 0 0 1\n2 0 2 1\n')
    run --separate-stderr prism2csr -w "$tra"
    assert_success
    assert_equal "$stderr" "prism2csr: $tra:2: warning: 1 choices do not sum to 1 within 1e-05 (worst by 0.1)"
    prism2csr -w "$tra" 2>/dev/null > "$BATS_TEST_TMPDIR/w.csr"
    run csrinfo -w "$BATS_TEST_TMPDIR/w.csr"
    assert_success
    run csrinfo "$BATS_TEST_TMPDIR/w.csr"
    assert_failure 1
}

@test "prism2csr rejects a probability below the smallest double, saying so, and a hexadecimal one" {
    rejects '3 4 5\n0 0 1 1e-400\n0 0 2 0.5\n0 1 0 1\n1 0 0 1\n2 0 2 1\n' \
        ':2: probability not finite or outside (0,1]: 1e-400 is below the smallest double (it reads as 0)'
    rejects '3 4 5\n0 0 1 0.0\n0 0 2 0.5\n0 1 0 1\n1 0 0 1\n2 0 2 1\n' ':2: probability not finite or outside (0,1]: 0'
    rejects '3 4 5\n0 0 1 0x1p-1\n0 0 2 0.5\n0 1 0 1\n1 0 0 1\n2 0 2 1\n' ':2: malformed number: probability'
}

@test "prism2csr says a CSR file is one already, named, piped or gzip-compressed" {
    prism2csr -l "$MODELS/fmsd_fig1.lab" "$MODELS/fmsd_fig1.tra" > "$BATS_TEST_TMPDIR/f.csr"
    gzip -c "$BATS_TEST_TMPDIR/f.csr" > "$BATS_TEST_TMPDIR/f.csr.gz"
    for input in "$BATS_TEST_TMPDIR/f.csr" "$BATS_TEST_TMPDIR/f.csr.gz"; do
        run --separate-stderr prism2csr "$input"
        assert_failure 1
        assert_output ""
        assert_equal "$stderr" "prism2csr: $input is a CSR file already (csrinfo describes it; csrexport writes PRISM's files from it)"
    done
    run --separate-stderr bash -c "prism2csr < '$BATS_TEST_TMPDIR/f.csr'"
    assert_failure 1
    assert_equal "$stderr" "prism2csr: (stdin) is a CSR file already (csrinfo describes it; csrexport writes PRISM's files from it)"
}

@test "prism2csr rejects a malformed number" {
    rejects '3 4 5\n0 0 1 0.5x\n0 0 2 0.5\n0 1 0 1\n1 0 0 1\n2 0 2 1\n' ':2: malformed number: probability'
    rejects '3 4 5\n0 0 1 0.5\n0 0 two 0.5\n0 1 0 1\n1 0 0 1\n2 0 2 1\n' ':3: malformed number: target state'
    rejects '3 4 5\n0 0 1 0.5\n0 0 2 0.5\n0 1 0 1\n1 0 0 1\n2 0 99999999999999999999999 1\n' \
        ':6: malformed number: target state'
    rejects '3 x 5\n' ':1: malformed number: in the header "n [c] t"'
}

@test "prism2csr rejects a line with a missing field" {
    rejects '3 4 5\n0 0 1 0.5\n0 0 2\n0 1 0 1\n1 0 0 1\n2 0 2 1\n' ':3: syntax error: probability missing'
}

@test "prism2csr rejects trailing garbage on a line" {
    rejects '3 4 5\n0 0 1 0.5\n0 0 2 0.5 act extra\n0 1 0 1\n1 0 0 1\n2 0 2 1\n' \
        ':3: syntax error: trailing garbage "extra"'
}

@test "prism2csr rejects a file cut in the middle of its last line" {
    rejects '3 4 5\n0 0 1 0.5\n0 0 2 0.5\n0 1 0 1\n1 0 0 1\n2 0 2 1' \
        ':6: file is truncated: the last line has no newline'
}

@test "prism2csr says a file cut within its last line's fields is cut short, not what the line misses" {
    rejects '3 4 5\n0 0 1 0.5\n0 0 2 0.5\n0 1 0 1\n1 0 0 1\n2 0' ':6: file is truncated: the file ends mid-line (cut short?)'
    rejects '3 4 5\n0 0 1 0.5\n0 0 2 0.5\n0 1 0 1\n1 0 0 1\n2' ':6: file is truncated: the file ends mid-line (cut short?)'
    # the same line ended by a newline: what it misses
    rejects '3 4 5\n0 0 1 0.5\n0 0 2 0.5\n0 1 0 1\n1 0 0 1\n2 0\n' ':6: syntax error: target state missing'
}

@test "prism2csr rejects a gzip stream cut short" {
    head -c 200000 "$MODELS/coin4.tra.gz" > "$BATS_TEST_TMPDIR/cut.tra.gz"
    run --separate-stderr prism2csr "$BATS_TEST_TMPDIR/cut.tra.gz"
    assert_failure 1
    assert_output ""
    [[ "$stderr" =~ ^prism2csr:\ .*/cut.tra.gz:[0-9]+:\ file\ is\ truncated:\ compressed\ stream\ ends\ early$ ]]
}

@test "prism2csr rejects an empty file and a file without transitions" {
    rejects '' ': file is truncated: no header line "n [c] t"'
    rejects '# Transitions (MDP)\n' ':1: file is truncated: no header line "n [c] t"'
}

@test "prism2csr rejects a CTMC" {
    rejects '# Transitions (CTMC)\n2 2\n0 1 3.5\n1 0 2\n' \
        ':1: unsupported model:  Transitions (CTMC) (only DTMCs and MDPs)'
}

@test "prism2csr rejects a header that contradicts the comment line" {
    rejects '# Transitions (DTMC)\n3 4 5\n' ':2: syntax error: header has 3 counts but the file says DTMC'
}

@test "prism2csr rejects two actions on one choice" {
    rejects '3 4 5\n0 0 1 0.5 a\n0 0 2 0.5 b\n0 1 0 1\n1 0 0 1\n2 0 2 1\n' \
        ':3: syntax error: state 0 choice 0: action "b" differs from "a" on line 2'
}

@test "prism2csr reads DTMCs with one choice per state" {
    tra=$(write_file d.tra '# Transitions (DTMC)\n3 4\n0 1 0.5\n0 2 0.5\n1 0 1\n2 2 1\n')
    prism2csr "$tra" > "$BATS_TEST_TMPDIR/d.csr"
    run csrinfo "$BATS_TEST_TMPDIR/d.csr"
    assert_line --index 0 --partial "CSR 1.0 DTMC, 3 states, 3 choices, 4 transitions"
}

@test "prism2csr rejects a label file with an undeclared label" {
    tra=$(write_file good.tra "$GOOD")
    lab=$(write_file bad.lab '0="init" 1="deadlock"\n0: 0\n2: 2\n')
    run --separate-stderr prism2csr -l "$lab" "$tra"
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" "prism2csr: $lab:3: index out of range: label index 2, only 2 labels declared"
}

@test "prism2csr rejects a label file naming a state out of range" {
    tra=$(write_file good.tra "$GOOD")
    lab=$(write_file bad.lab '0="init" 1="deadlock"\n0: 0\n3: 1\n')
    run --separate-stderr prism2csr -l "$lab" "$tra"
    assert_failure 1
    assert_equal "$stderr" "prism2csr: $lab:3: index out of range: state 3 >= 3 states"
}

@test "prism2csr rejects a label file without init states" {
    tra=$(write_file good.tra "$GOOD")
    lab=$(write_file bad.lab '0="goal"\n2: 0\n')
    run --separate-stderr prism2csr -l "$lab" "$tra"
    assert_failure 1
    assert_equal "$stderr" "prism2csr: $lab:2: bad label: no label \"init\" for the initial states"
}

@test "prism2csr rejects states of a label file out of order" {
    tra=$(write_file good.tra "$GOOD")
    lab=$(write_file bad.lab '0="init"\n2: 0\n1: 0\n')
    run --separate-stderr prism2csr -l "$lab" "$tra"
    assert_failure 1
    assert_equal "$stderr" "prism2csr: $lab:3: not ascending and contiguous: state 1 after state 2"
}

@test "prism2csr reports a missing input file" {
    run --separate-stderr prism2csr "$BATS_TEST_TMPDIR/none.tra"
    assert_failure 1
    assert_equal "$stderr" "prism2csr: $BATS_TEST_TMPDIR/none.tra: cannot open: No such file or directory"
}

@test "prism2csr answers -h and rejects bad usage with status 2" {
    run prism2csr -h
    assert_success
    assert_line --index 0 --partial "usage: prism2csr"
    run prism2csr -x
    assert_failure 2
    run prism2csr a.tra b.tra
    assert_failure 2
}

@test "prism2csr rejects a bad thread count" {
    run --separate-stderr prism2csr -j 0 "$MODELS/fmsd_fig1.tra"
    assert_failure 2
    assert_equal "$stderr" "prism2csr: bad thread count '0' (1 to 256)"
    run --separate-stderr prism2csr -j many "$MODELS/fmsd_fig1.tra"
    assert_failure 2
}

# The parallel reader cut into many small chunks (tracmp: at least 2 to 16
# threads of 1 to 64 bytes of text), against the sequential one.
@test "the parallel .tra reader gives every shared model the same CSR as the sequential one, wherever the chunks are cut" {
    for m in $(model_names); do
        zcat -f "$(model_file "$m.tra")" > "$BATS_TEST_TMPDIR/m.tra"
        for j in 2 3 16; do
            for c in 1 64; do
                run tracmp -j "$j" -c "$c" "$BATS_TEST_TMPDIR/m.tra"
                [ "$status" -eq 0 ] || fail "$m -j $j -c $c: $output"
            done
        done
    done
}

@test "the parallel .tra reader reports each fault of 1,600 mutated files as the sequential reader does" {
    for m in coin2 leader3 dice brp; do
        run tracmp -j 5 -c 50 -m 400 -s 11 "$(model_file "$m.tra")"
        [ "$status" -eq 0 ] || fail "$m: $output"
    done
}

@test "prism2csr writes the same CSR with one thread and with several" {
    zcat -f "$(model_file coin4.tra)" > "$BATS_TEST_TMPDIR/c.tra"
    prism2csr -j 1 -l "$MODELS/coin4.lab" "$BATS_TEST_TMPDIR/c.tra" > "$BATS_TEST_TMPDIR/one.csr"
    prism2csr -j 4 -l "$MODELS/coin4.lab" "$BATS_TEST_TMPDIR/c.tra" > "$BATS_TEST_TMPDIR/four.csr"
    prism2csr -l "$MODELS/coin4.lab" < "$BATS_TEST_TMPDIR/c.tra" > "$BATS_TEST_TMPDIR/stdin.csr"
    cmp "$BATS_TEST_TMPDIR/one.csr" "$BATS_TEST_TMPDIR/four.csr"
    cmp "$BATS_TEST_TMPDIR/one.csr" "$BATS_TEST_TMPDIR/stdin.csr"
}

@test "prism2csr says that a file starting with a byte order mark does" {
    rejects '\xef\xbb\xbf3 4 5\n0 0 1 0.5\n0 0 2 0.5\n0 1 0 1\n1 0 0 1\n2 0 2 1\n' \
        ":1: syntax error: the file starts with a UTF-8 byte order mark, which PRISM's exports do not have: remove those 3 bytes"
}

@test "prism2csr reads a file that starts as Storm's DRN as DRN, and says that comment lines alone are not a .tra" {
    rejects '// Exported by storm\n// Original model type: MDP\n@type: mdp\n' \
        ':3: file is truncated: no @model section'
    rejects '// Exported by storm\n// Original model type: MDP\n' \
        ':1: unsupported model: "// Exported by storm" looks like Storm'"'"'s DRN format: prism2csr reads PRISM'"'"'s .tra (with its .lab) and UMB archives'
}

@test "prism2csr says that a label file given as the model is one" {
    rejects '# Labels\n0="init" 1="deadlock"\n0: 0\n' \
        ':2: syntax error: this looks like a PRISM label file (.lab): give it with -l, and the .tra as the input'
}

@test "prism2csr names itself, not its path, in the messages of bad options" {
    run --separate-stderr "$(command -v prism2csr)" -x
    [ "$status" -eq 2 ] || fail "status $status"
    [[ "${stderr_lines[0]}" == "prism2csr: invalid option -- 'x'" ]] || fail "${stderr_lines[0]}"
}

@test "prism2csr reports a NUL byte on its own line" {
    rejects '3 4 5\n0 0 1 0.5\n0 0 2 0.5\n0 1 0 1\x00\n1 0 0 1\n2 0 2 1\n' ':4: syntax error: NUL byte in a text line'
}

@test "prism2csr says that an xz-compressed .tra is not a UMB archive and what to do" {
    printf '3 4 5\n0 0 1 0.5\n0 0 2 0.5\n0 1 0 1\n1 0 0 1\n2 0 2 1\n' | xz > "$BATS_TEST_TMPDIR/m.tra.xz"
    run --separate-stderr prism2csr "$BATS_TEST_TMPDIR/m.tra.xz"
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" "prism2csr: $BATS_TEST_TMPDIR/m.tra.xz: bad tar archive: xz-compressed data that is not a tar archive: a UMB archive is a tar; a compressed .tra must be gzip-compressed (or decompress it first)"
}

@test "prism2csr rejects bytes after a gzip stream that do not start another member, from a file and from stdin" {
    { gzip -c "$MODELS/coin2.tra"; printf 'garbage\n'; } > "$BATS_TEST_TMPDIR/g.tra.gz"
    run --separate-stderr prism2csr "$BATS_TEST_TMPDIR/g.tra.gz"
    assert_failure 1
    assert_output ""
    [[ "$stderr" =~ ^prism2csr:\ .*/g.tra.gz:[0-9]+:\ trailing\ data\ after\ the\ end\ of\ the\ file:\ data\ after\ the\ gzip\ stream\ that\ is\ not\ another\ gzip\ member$ ]] ||
        fail "$stderr"
    run --separate-stderr prism2csr < "$BATS_TEST_TMPDIR/g.tra.gz"
    assert_failure 1
    assert_output ""
    [[ "$stderr" == *"trailing data after the end of the file: data after the gzip stream that is not another gzip member" ]] ||
        fail "$stderr"
}

@test "prism2csr reads a gzip file of several members (cat a.gz b.gz) as their concatenation" {
    head -n 1000 "$MODELS/coin2.tra" | gzip -c > "$BATS_TEST_TMPDIR/two.tra.gz"
    tail -n +1001 "$MODELS/coin2.tra" | gzip -c >> "$BATS_TEST_TMPDIR/two.tra.gz"
    prism2csr "$MODELS/coin2.tra" > "$BATS_TEST_TMPDIR/plain.csr"
    prism2csr "$BATS_TEST_TMPDIR/two.tra.gz" > "$BATS_TEST_TMPDIR/two.csr"
    cmp "$BATS_TEST_TMPDIR/plain.csr" "$BATS_TEST_TMPDIR/two.csr"
    prism2csr < "$BATS_TEST_TMPDIR/two.tra.gz" | cmp - "$BATS_TEST_TMPDIR/plain.csr"
}

@test "prism2csr reads a line longer than its 1 MiB buffer, plain and gzip-compressed" {
    { printf '3 4 5\n0 0 1 0.5'; head -c 2000000 /dev/zero | tr '\0' ' '; printf '\n0 0 2 0.5\n0 1 0 1\n1 0 0 1\n2 0 2 1\n'; } \
        > "$BATS_TEST_TMPDIR/long.tra"
    gzip -c "$BATS_TEST_TMPDIR/long.tra" > "$BATS_TEST_TMPDIR/long.tra.gz"
    prism2csr -j 1 "$BATS_TEST_TMPDIR/long.tra" > "$BATS_TEST_TMPDIR/one.csr"
    prism2csr "$BATS_TEST_TMPDIR/long.tra.gz" > "$BATS_TEST_TMPDIR/gz.csr"
    run csrinfo "$BATS_TEST_TMPDIR/one.csr"
    assert_line --partial "CSR 1.0 MDP, 3 states, 4 choices, 5 transitions"
    cmp "$BATS_TEST_TMPDIR/one.csr" "$BATS_TEST_TMPDIR/gz.csr"
}

@test "prism2csr reports the first fault of a label file read beside the .tra: a state out of range before a bad line" {
    tra=$(write_file good.tra "$GOOD")
    lab=$(write_file bad.lab '0="init" 1="deadlock"\n0: 0\n3: 1\n4 1\n')
    run --separate-stderr prism2csr -l "$lab" "$tra"
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" "prism2csr: $lab:3: index out of range: state 3 >= 3 states"
    run --separate-stderr prism2csr -l - - < "$tra"
    assert_failure 2
    assert_equal "$stderr" "prism2csr: the .tra and the .lab cannot both come from standard input"
}

@test "prism2csr shows progress on a terminal while it reads a slow input, and none with -q" {
    command -v script >/dev/null || skip "script (util-linux) not installed"
    T=$BATS_TEST_TMPDIR
    randmdp -n 100000 -e 0 7 > "$T/m.csr"
    csrexport -o "$T/m" "$T/m.csr"
    prism2csr -l "$T/m.lab" "$T/m.tra" > "$T/want.csr"
    for quiet in "" -q; do
        rm -f "$T/fifo" && mkfifo "$T/fifo"
        # 4 MB of the text (past what the first reads take), a pause of 1.6 s, the rest: the first progress line comes after 1 s
        (head -c 4000000 "$T/m.tra"; sleep 1.6; tail -c +4000001 "$T/m.tra") > "$T/fifo" &
        script -qefc "prism2csr $quiet -l '$T/m.lab' '$T/fifo' > '$T/got.csr'" "$T/tty.log" > /dev/null
        wait
        cmp "$T/got.csr" "$T/want.csr"
        if [ -z "$quiet" ]; then
            run grep -c "prism2csr: $T/fifo: [0-9]* MB read, [0-9]* MB/s" "$T/tty.log"
            assert_success
        else
            run grep -c "MB read" "$T/tty.log"
            assert_output 0
        fi
    done
}

@test "prism2csr writes the same bytes into a regular file by a shared mapping as into a pipe, after a prefix and in append mode" {
    T=$BATS_TEST_TMPDIR
    lab=$(model_file coin2.lab)
    tra=$(model_file coin2.tra)
    prism2csr -l "$lab" "$tra" | cat > "$T/pipe.csr"
    # CSR_TEST_GRAIN=1: the mapped writer (and a thread per CPU) for a small file too
    CSR_TEST_GRAIN=1 prism2csr -l "$lab" "$tra" > "$T/file.csr"
    cmp "$T/file.csr" "$T/pipe.csr"
    { printf 'abc'; CSR_TEST_GRAIN=1 prism2csr -l "$lab" "$tra"; } > "$T/prefix.csr"
    cmp <(tail -c +4 "$T/prefix.csr") "$T/pipe.csr"
    CSR_TEST_GRAIN=1 prism2csr -l "$lab" "$tra" >> "$T/prefix.csr"
    cmp <(tail -c +4 "$T/prefix.csr") <(cat "$T/pipe.csr" "$T/pipe.csr")
    CSR_TEST_GRAIN=1 prism2csr -l "$lab" "$tra" 1<> "$T/rw.csr"
    cmp "$T/rw.csr" "$T/pipe.csr"
    # a file longer than what is written (1<> does not truncate): write() as before, the rest kept
    CSR_TEST_GRAIN=1 prism2csr -l "$lab" "$tra" 1<> "$T/prefix.csr"
    cmp <(head -c "$(stat -c %s "$T/pipe.csr")" "$T/prefix.csr") "$T/pipe.csr"
}

# near LINE PROPERTY VALUE: gpu-vi's line for PROPERTY holds VALUE within 1e-9 relative.
near() {
    [ "${1%: *}" = "$2" ] || fail "property: $1"
    awk -v got="${1##*: }" -v want="$3" 'BEGIN { d = got - want; if (d < 0) d = -d; exit !(d <= 1e-9 * want) }' ||
        fail "$1, not $3"
}

# Run prism2csr -r on $GOOD with a reward file made of $1 (named $3, default
# r.trew); it must fail with status 1, write nothing on stdout, and say $2
# after the file's name on stderr.
rejects_rewards() {
    local tra rew
    tra=$(write_file good.tra "$GOOD")
    rew=$(write_file "${3:-r.trew}" "$1")
    run --separate-stderr prism2csr -r "$rew" "$tra"
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" "prism2csr: $rew$2"
}

@test "prism2csr -r folds a DTMC's transition rewards into expected choice rewards, as gpu-vi's hand-checked value shows" {
    # 0 -> 1, 2 (1/2 each); 1 -> 2; 2 -> 2 (target). Rewards: state 0 pays 1; transitions 0->1: 4, 0->2: 2, 1->2: 1.
    # R(1) = 1, R(0) = 1 + (4 + 1) / 2 + 2 / 2 = 4.5
    tra=$(write_file d.tra '3 4\n0 1 0.5\n0 2 0.5\n1 2 1\n2 2 1\n')
    lab=$(write_file d.lab '0="init" 1="t"\n0: 0\n2: 1\n')
    srew=$(write_file d.srew '3 1\n0 1\n')
    trew=$(write_file d.trew '3 3\n0 1 4\n0 2 2\n1 2 1\n')
    prism2csr -l "$lab" -r "$srew,$trew" "$tra" > "$BATS_TEST_TMPDIR/d.csr"
    run csrinfo "$BATS_TEST_TMPDIR/d.csr"
    assert_line --partial 'rewards:      1: "1" (states and choices, total 5)'
    near "$(gpu-vi --cpu -e 1e-12 -p 'R=? [ F "t" ]' "$BATS_TEST_TMPDIR/d.csr")" 'R=? [ F "t" ]' 4.5
    # headers name the structure; two -r make two structures
    srew2=$(write_file n.srew '# Reward structure "visits"\n# State rewards\n3 2\n0 1\n1 1\n')
    prism2csr -l "$lab" -r "$srew,$trew" -r "$srew2" "$tra" > "$BATS_TEST_TMPDIR/d2.csr"
    near "$(gpu-vi --cpu -e 1e-12 -p 'R{"visits"}=? [ F "t" ]' "$BATS_TEST_TMPDIR/d2.csr")" 'R{"visits"}=? [ F "t" ]' 1.5
    near "$(gpu-vi --cpu -e 1e-12 -p 'R{1}=? [ F "t" ]' "$BATS_TEST_TMPDIR/d2.csr")" 'R{1}=? [ F "t" ]' 4.5
}

@test "prism2csr -r rejects reward files that do not fit the model, naming the file and line" {
    rejects_rewards '3 5 1\n0 0 1 2\n' ":1: counts do not match the header: the counts do not fit the model of 3 states and 4 choices"
    rejects_rewards '3 4 2\n0 0 1 2\n' ":2: counts do not match the header: 1 reward lines, the first line announces 2"
    rejects_rewards '3 4 1\n0 0 1 2\n0 0 2 2\n' ":3: counts do not match the header: more than the 1 lines the first line announces"
    rejects_rewards '3 4 1\n5 0 1 2\n' ":2: index out of range: state 5 of 3"
    rejects_rewards '3 4 1\n1 1 0 2\n' ":2: index out of range: state 1 has no choice 1"
    rejects_rewards '3 4 1\n0 0 0 2\n' ":2: index out of range: no transition to state 0 in this choice of state 0"
    rejects_rewards '3 4 2\n0 0 1 2\n0 0 2 3\n' ":3: syntax error: choice 0 of state 0 has two rewards"
    rejects_rewards '3 4 2\n0 0 2 2\n0 0 1 2\n' ":3: not ascending and contiguous: not after the line before (state 0, target 1)"
    rejects_rewards '3 4 1\n0 0 1 -2\n' ":2: syntax error: expected \"state choice target reward\" with a finite non-negative reward"
    rejects_rewards '3 4 1\n0 0 1 inf\n' ":2: syntax error: expected \"state choice target reward\" with a finite non-negative reward"
    rejects_rewards '# State rewards\n3 2\n1 1\n0 1\n' ":4: not ascending and contiguous: state 0 after state 1" r.srew
    rejects_rewards '# State rewards\n3 x\n' ":2: malformed number: count 2 of the first line is not a whole number" r.srew
    rejects_rewards '# State rewards\n' ":1: file is truncated: no count line" r.srew
    # two state reward files for one structure, and a UMB input with -r
    srew=$(write_file a.srew '3 0\n')
    run --separate-stderr prism2csr -r "$srew,$srew" "$(write_file g.tra "$GOOD")"
    assert_failure 1
    [[ "$stderr" == *"a second file of state rewards for one reward structure" ]] || fail "$stderr"
    run --separate-stderr prism2csr -r "$srew" "$MODELS/coin2.umb"
    assert_failure 2
    [[ "$stderr" == *"-l, -s and -r are for a .tra" ]] || fail "$stderr"
}
