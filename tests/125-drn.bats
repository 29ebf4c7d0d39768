#!/usr/bin/env bats
# Storm's DRN format in (issue 19): prism2csr reads the DRN files Storm 2.0
# writes (tests/data/drn, made by make-drn.py from the shared UMB archives)
# into the model of the same .tra/.lab: the same states, choices, targets and
# labels, probabilities within Storm's 10 printed digits, PRISM's action names
# where Storm kept them; bad DRN input refused with its line.

load helper

setup() {
    require_models
    T="$BATS_TEST_TMPDIR"
    DRN="$DATA/drn"
}

# The .tra of a CSR file without comments and, with "noactions", without the action column.
tra_of() { # csr noactions?
    csrexport -o "$T/x" "$1"
    if [ -n "${2:-}" ]; then
        awk '/^#/ {next} NR <= 2 && NF <= 3 {print; next} { n = (NF >= 5 || (NF == 4 && $4 !~ /^[0-9.e-]+$/)) ? NF - 1 : NF; line = $1; for (i = 2; i <= n; i++) line = line " " $i; print line }' "$T/x.tra"
    else
        grep -v '^#' "$T/x.tra"
    fi
}

# Two .tra texts equal but for probabilities within 1e-9 (relative).
same_tra() { # a b
    paste -d '|' "$1" "$2" | awk -F'|' '{ na = split($1, a, " "); nb = split($2, b, " ");
        if (na != nb) { print "line " NR ": " $0; bad++; next }
        for (i = 1; i <= na; i++) if (a[i] != b[i]) {
            d = a[i] - b[i]; if (d < 0) d = -d
            if (a[i] ~ /^[0-9.e-]+$/ && b[i] ~ /^[0-9.e-]+$/ && i == na - (a[na] !~ /^[0-9.e-]+$/) && d <= 1e-9 * b[i]) continue
            print "line " NR ": " $0; bad++; break } }
        END { exit bad > 0 }'
}

@test "prism2csr reads every DRN file Storm 2.0 wrote into the model of the same .tra and .lab" {
    for f in "$DRN"/*.drn; do
        n=${f##*/}; n=${n%.drn}; name=${n%.storm}
        [ -n "$(model_file "$name.tra")" ] || continue
        prism2csr "$f" > "$T/d.csr" || fail "$n: prism2csr failed"
        prism2csr -l "$(model_file "$name.lab")" "$(model_file "$name.tra")" > "$T/t.csr"
        csrinfo -q "$T/d.csr" || fail "$n: not a valid CSR file"
        # Storm keeps PRISM's action names of an MDP in PRISM's UMB, not in its own UMB or a DTMC
        noactions=
        case $n in *.storm | dice | brp) noactions=1 ;; esac
        tra_of "$T/d.csr" $noactions > "$T/d.tra"
        tra_of "$T/t.csr" $noactions > "$T/t.tra"
        same_tra "$T/d.tra" "$T/t.tra" || fail "$n: transitions differ"
        cmp <(labels_by_name "$T/x.lab") <(csrexport -o "$T/y" "$T/t.csr" && labels_by_name "$T/y.lab") ||
            fail "$n: labels differ"
        gpu-mec --cpu "$T/d.csr" > "$T/d.mecs"
        gpu-mec --cpu "$T/t.csr" | cmp - "$T/d.mecs" || fail "$n: MECs differ"
    done
}

@test "prism2csr reads a DRN file from stdin and gzip-compressed, and says what it kept and skipped with -v" {
    prism2csr "$DRN/coin2.drn" > "$T/a.csr"
    prism2csr < "$DRN/coin2.drn" | cmp - "$T/a.csr"
    gzip -c "$DRN/coin2.drn" > "$T/c.drn.gz"
    prism2csr "$T/c.drn.gz" | cmp - "$T/a.csr"
    run --separate-stderr prism2csr -v "$DRN/coin2.drn"
    assert_success
    assert_equal "$(echo "$stderr" | grep -c '1 reward model(s) kept as reward structures')" 1
    assert_equal "$(echo "$stderr" | grep -c 'state valuations of 5 variables kept')" 1
    run --separate-stderr prism2csr -v --no-valuations "$DRN/coin2.drn"
    assert_success
    assert_equal "$(echo "$stderr" | grep -c 'skipped: 272 state valuations (--no-valuations)')" 1
    run --separate-stderr prism2csr -l "$(model_file coin2.lab)" "$DRN/coin2.drn"
    assert_failure 2
    assert_equal "$stderr" "prism2csr: $DRN/coin2.drn: a DRN file carries its own labels, rewards and valuations: -l, -s and -r are for a .tra"
}

# prism2csr on DRN text must fail with status 1, nothing on stdout, and "file:line: message".
drn_refused() { # text line message
    printf "$1" > "$T/bad.drn"
    run --separate-stderr prism2csr "$T/bad.drn"
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" "prism2csr: $T/bad.drn:$2: $3"
}

HEAD='@type: MDP\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n2\n@model\n'

@test "prism2csr refuses DRN input that breaks the grammar, naming the line" {
    drn_refused "${HEAD}state 0 init\n\taction a\n\t\t1 : 1\nstate 1\n" 14 \
        "syntax error: state 1 has no action (Storm gives a deadlock a self-loop)"
    drn_refused "${HEAD}state 0 init\n\taction a\n\t\t1 : 0.5\n\t\t0 : 0.5\nstate 1\n\taction b\n\t\t1 : 1\n" 14 \
        "targets of a choice not strictly ascending: state 0 after state 1"
    drn_refused "${HEAD}state 0 init\n\taction a\n\t\t2 : 1\n" 13 "index out of range: target state 2 >= 2 states"
    drn_refused "${HEAD}state 0 init\n\taction a\n\t\t1 : 0.5\nstate 1\n\taction b\n\t\t1 : 1\n" 13 \
        "probabilities of a choice do not sum to 1: state 0, choice 0 sums to 0.5"
    drn_refused "${HEAD}state 1 init\n" 11 "not ascending and contiguous: the first state is 1, not 0"
    drn_refused "${HEAD}state 0 init\n\taction a\n\t\t1 : 1\nstate 1\n\taction b\n\t\t1 : 1\n\taction c\n\t\t0 : 1\n" 18 \
        "counts do not match the header: 3 choices, but @nr_choices is 2"
    drn_refused "${HEAD}state 0\n\taction a\n\t\t1 : 1\nstate 1\n\taction b\n\t\t1 : 1\n" 16 \
        "no initial state: no state is labelled \"init\""
    drn_refused "@type: CTMC\n" 1 "unsupported model: DRN model type \"CTMC\": prism2csr reads DTMCs and MDPs"
    drn_refused "@type: MDP\n@value_type: parametric\n" 2 "unsupported model: DRN values of type \"parametric\": only double"
    drn_refused "@type: MDP\n@parameters\np q\n" 3 "unsupported model: a parametric DRN model (parameters \"p q\")"
    drn_refused "@type: MDP\n@model\n" 2 "syntax error: @model before @nr_states"
    drn_refused "${HEAD}state 0 init\n\taction a\n\t\t1 ; 1\n" 13 "syntax error: expected \"target : probability\""
}

@test "prism2csr turns a DRN choice that does not sum to one into a warning with -w" {
    printf "${HEAD}state 0 init\n\taction a\n\t\t1 : 0.5\nstate 1\n\taction b\n\t\t1 : 1\n" > "$T/w.drn"
    run --separate-stderr prism2csr -w "$T/w.drn"
    assert_success
    assert_equal "$stderr" "prism2csr: $T/w.drn:13: warning: 1 choices do not sum to 1 within 1e-05 (worst by 0.5)"
}

@test "prism2csr keeps a DRN file's reward models: the same structures and values as PRISM's UMB of the model" {
    # coin2 (state rewards) and leader3 (choice rewards); Storm's DRN of a DTMC (dice, brp) carries
    # zeros where PRISM's UMB has transition rewards: Storm's DRN has no place for those
    for m in coin2 leader3; do
        prism2csr "$DRN/$m.drn" > "$T/d.csr"
        prism2csr "$MODELS/$m.umb" > "$T/u.csr"
        assert_equal "$(csrinfo "$T/d.csr" | grep 'rewards:')" "$(csrinfo "$T/u.csr" | grep 'rewards:')"
        case $m in coin2) p='R{"steps"}min=? [ F "finished" ]' ;; leader3) p='Rmax=? [ F "elected" ]' ;; esac
        gpu-vi --cpu -o "$T/d.vec" -p "$p" "$T/d.csr" > /dev/null
        gpu-vi --cpu -o "$T/u.vec" -p "$p" "$T/u.csr" > /dev/null
        cmp "$T/d.vec" "$T/u.vec" || fail "$m: values differ"
    done
    bad=$(write_file bad.drn '@type: DTMC\n@value_type: double\n@reward_models\nr\n@nr_states\n1\n@nr_choices\n1\n@model\nstate 0 [-1]\n\taction 0 [0]\n\t\t0 : 1\n')
    run --separate-stderr prism2csr "$bad"
    assert_failure 1
    [[ "$stderr" == *':10: malformed number: reward 1 of 1: "-1" is not a finite non-negative number' ]] || fail "$stderr"
}
