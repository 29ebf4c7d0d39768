#!/usr/bin/env bats
# gpu-vi's properties in PRISM's syntax (-p, -P; format/props.h): every
# property of the shared .props files against PRISM's values, expected
# rewards and step-bounded reachability against Storm's values
# (tests/data/storm-values.tsv), boolean label formulas against labels made
# by hand, and the parser's errors with their column.  The GPU runs of the same are in tests/110-gpu-vi-gpu.bats.

load helper

setup() {
    require_models
}

@test "gpu-vi --cpu -P answers every property of every shared model's .props as PRISM does" {
    local n=0
    for m in $(vi_model_names); do
        [ "$m" = coin4_6 ] && continue # a minute on the CPU: tests/110 runs it on the GPU
        props_check "$m" --cpu
        n=$((n + 1))
    done
    [ "$n" -ge "$(at_least 18 15)" ] || fail "only $n models with properties found"
}

@test "gpu-vi prints each property with its value, and the state of each value where there are several initial states" {
    # interval iteration: its bounds meet on the double PRISM prints (the
    # default's certified policy is within 1e-13 of it)
    run --separate-stderr gpu-vi --cpu --method ii -p 'Pmin=? [ F "fin_c0" ];' -p ' Pmax=?[F"fin_c0"]' "$(model_csr coin2)"
    assert_success
    assert_equal "${lines[0]}" "Pmin=? [ F \"fin_c0\" ]: 0.3828125"
    [[ "${lines[1]}" == 'Pmax=?[F"fin_c0"]: 0.555555'* ]] || fail "${lines[1]}"
    run --separate-stderr gpu-vi --cpu -p 'Pmax=? [ F "odd" ]' "$(model_csr dining_crypt3)"
    assert_success
    # PRISM's values of its four initial states, in PRISM's numbering
    [[ "$output" =~ ^Pmax=\?\ \[\ F\ \"odd\"\ \]:\ [0-9]+=[0-9.]+\ [0-9]+=[0-9.]+\ [0-9]+=[0-9.]+\ [0-9]+=[0-9.]+$ ]] || fail "$output"
}

@test "gpu-vi evaluates boolean formulas of labels as the same sets written as labels by hand" {
    # coin2 with labels made by hand: u = fin_c0 | fin_disagree, a = !agree & !finished
    lab=$(model_file coin2.lab)
    python3 - "$lab" > "$BATS_TEST_TMPDIR/c.lab" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
names = {int(k): v.strip('"') for k, v in (e.split("=") for e in lines[1].split())}
idx = {v: k for k, v in names.items()}
u, a = len(names), len(names) + 1
print(lines[0]); print(lines[1] + ' %d="u" %d="a"' % (u, a))
labelled = {}
for l in lines[2:]:
    s, _, rest = l.partition(":")
    labelled[int(s)] = set(int(x) for x in rest.split())
for s in sorted(labelled):
    ls = labelled[s]
    extra = []
    if idx["fin_c0"] in ls or idx["fin_disagree"] in ls: extra.append(u)
    print("%d: %s" % (s, " ".join(str(x) for x in sorted(ls) + extra)))
PY
    prism2csr -l "$BATS_TEST_TMPDIR/c.lab" "$(model_file coin2.tra)" > "$BATS_TEST_TMPDIR/c.csr"
    for dir in min max; do
        want=$(gpu-vi --cpu -t u -m $dir "$BATS_TEST_TMPDIR/c.csr")
        got=$(gpu-vi --cpu -p "P$dir=? [ F (\"fin_c0\" | \"fin_disagree\") ]" "$BATS_TEST_TMPDIR/c.csr")
        assert_equal "${got##*: }" "$want"
        want=$(gpu-vi --cpu -t fin_c0 -a agree -m $dir "$BATS_TEST_TMPDIR/c.csr")
        # PRISM's precedence: ! binds below =, | below !, so this is !"agree" | !"agree"
        got=$(gpu-vi --cpu -p "P$dir=? [ !!\"agree\" = false | !\"agree\" U \"fin_c0\" ]" "$BATS_TEST_TMPDIR/c.csr")
        assert_equal "${got##*: }" "$want"
        got=$(gpu-vi --cpu -p "P$dir=? [ !(\"agree\" & true) | false U \"fin_c0\" ]" "$BATS_TEST_TMPDIR/c.csr")
        assert_equal "${got##*: }" "$want"
    done
}

@test "gpu-vi says where a property does not parse, with its column, prints nothing, and exits 1 for -p as for -P's file" {
    csr=$(model_csr coin2)
    run --separate-stderr gpu-vi --cpu -p 'Pmin=? [ F "fin_c0" ' "$csr"
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" "gpu-vi: -p 'Pmin=? [ F \"fin_c0\" ': syntax error: column 21: expected ']', found the end of the text"
    run --separate-stderr gpu-vi --cpu -p 'Pmin=? [ F "fin_c0" & ]' "$csr"
    assert_failure 1
    [[ "$stderr" == *"column 23: expected an expression, found ']'" ]] || fail "$stderr"
    run --separate-stderr gpu-vi --cpu -p 'Pmin>=0.5 [ F "fin_c0" ] +' "$csr"
    assert_failure 1
    [[ "$stderr" == *"column 27: expected an expression, found the end of the text" ]] || fail "$stderr"
    # forms that parse but have no answer: said per property, exit 1
    for unsupported in 'Pmin=? [ F>=10 "fin_c0" ]' 'Pmin=? [ true U[2,3] "fin_c0" ]' \
        'R{"steps"}min=? [ F<=4 "fin_c0" ]' 'R{"steps"}min=? [ S ]' 'R{"steps"}min=? [ C ]'; do
        run --separate-stderr gpu-vi --cpu -p "$unsupported" "$csr"
        assert_failure 1
        assert_output ""
        [[ "$stderr" == *"not supported"* ]] || fail "$unsupported: $stderr"
    done
    printf 'Pmin=? [ F "fin_c0" ];\n\n// a comment\nPmax=? [ F "fin_c0" "agree" ]\n' > "$BATS_TEST_TMPDIR/bad.props"
    run --separate-stderr gpu-vi --cpu -P "$BATS_TEST_TMPDIR/bad.props" "$csr"
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" "gpu-vi: $BATS_TEST_TMPDIR/bad.props:4: syntax error: column 21: expected ']', found \"agree\""
}

@test "gpu-vi answers the other properties where one names an unknown label or asks P=? of an MDP, and refuses -t with -p and -o with several properties" {
    csr=$(model_csr coin2)
    # refused beside answered ones: said, status 0; alone: status 1
    run --separate-stderr gpu-vi --cpu -p 'Pmin=? [ F "fin_c0" ]' -p 'Pmin=? [ F "nope" ]' -p 'Pmax=? [ F "fin_c0" ]' "$csr"
    assert_success
    assert_line -n 0 --regexp '^Pmin=\? \[ F "fin_c0" \]: 0\.3828124999|^Pmin=\? \[ F "fin_c0" \]: 0\.3828125(000|$)'
    assert_line -n 1 --partial 'Pmax=? [ F "fin_c0" ]: 0.55555'
    [ "${#lines[@]}" -eq 2 ] || fail "$output"
    [[ "$stderr" == "gpu-vi: 'Pmin=? [ F \"nope\" ]': "*'no label "nope" in the model (it has: init, deadlock, '* ]] || fail "$stderr"
    run --separate-stderr gpu-vi --cpu -p 'P=? [ F "fin_c0" ]' "$csr"
    assert_failure 1
    assert_equal "$stderr" "gpu-vi: 'P=? [ F \"fin_c0\" ]': the model is an MDP: P needs Pmin or Pmax"
    run --separate-stderr gpu-vi --cpu -t fin_c0 -m min -p 'Pmin=? [ F "fin_c0" ]' "$csr"
    assert_failure 2
    run --separate-stderr gpu-vi --cpu -o "$BATS_TEST_TMPDIR/v" -p 'Pmin=? [ F "fin_c0" ]' -p 'Pmax=? [ F "fin_c0" ]' "$csr"
    assert_failure 2
    [ ! -e "$BATS_TEST_TMPDIR/v" ] || fail "-o file written"
    # a DTMC's P=? needs no direction
    run gpu-vi --cpu -p 'P=? [ F "six" ]' "$(model_csr dice)"
    assert_success
    [[ "$output" == 'P=? [ F "six" ]: 0.1666666'* ]] || fail "$output"
}

# refuses_property CSR PYTHON-EXPRESSION MESSAGE: gpu-vi --cpu -P of the
# property the expression makes fails with status 1 and a message ending in
# MESSAGE.
refuses_property() {
    python3 -c "print($2)" > "$BATS_TEST_TMPDIR/refused.props"
    run --separate-stderr gpu-vi --cpu -P "$BATS_TEST_TMPDIR/refused.props" "$1"
    assert_failure 1
    [[ "$stderr" == *"$3" ]] || fail "$stderr"
}

@test "gpu-vi refuses properties nested too deep or too long instead of running out of stack" {
    csr=$(model_csr coin2)
    refuses_property "$csr" "'Pmin=? [ F ' + '(' * 100000 + '\"fin_c0\"' + ')' * 100000 + ' ]'" \
        ":1: syntax error: column 268: nested more than 256 deep"
    refuses_property "$csr" "'Pmin=? [ F ' + '\"fin_c0\" & ' * 100000 + 'true ]'" "more than 4096 labels and operators"
    # the cap reached by the ! of the 4097th node (its operand was leaked: fuzz/props, check-sanitize)
    refuses_property "$csr" "'Pmin=? [ F ' + ' | '.join(['\"fin_c0\"'] * 2048) + ' | !\"fin_c0\" ]'" \
        "more than 4096 labels and operators"
    # 200 levels and 2,000 operators are fine
    python3 -c "print('Pmin=? [ F ' + '!' * 200 + '\"fin_c0\" ]'); print('Pmin=? [ F ' + '\"fin_c0\" & ' * 2000 + 'true ]')" > "$BATS_TEST_TMPDIR/ok.props"
    run --separate-stderr gpu-vi --cpu --method ii -P "$BATS_TEST_TMPDIR/ok.props" "$csr"
    assert_success
    [ "${#lines[@]}" -eq 2 ] || fail "$output"
    [[ "${lines[0]}" == *": 0.3828125" ]] || fail "${lines[0]}"
}

@test "gpu-vi --json gives every property's values as the text output does, in one JSON object" {
    csr=$(model_csr dining_crypt3)
    text=$(gpu-vi --cpu -P "$MODELS/dining_crypt3.props" "$csr")
    run --separate-stderr gpu-vi --cpu --json -P "$MODELS/dining_crypt3.props" "$csr"
    assert_success
    [ "${#lines[@]}" -eq 1 ] || fail "not one line: $output"
    python3 -c '
import json, sys
j = json.loads(sys.argv[1])
assert j["tool"] == "gpu-vi" and j["method"] == "pi", j
lines = sys.argv[2].splitlines()
assert len(lines) == len(j["properties"]), (lines, j)
for line, p in zip(lines, j["properties"]):
    text, _, values = line.rpartition(": ")
    assert text == p["property"], (text, p)
    want = [(int(s), float(v)) for s, v in (x.split("=") for x in values.split())]
    got = [(i["state"], i["value"]) for i in p["initial"]]
    assert want == got, (want, got)
    assert p["iterations"] >= 0 and p["maybe"] >= 0
' "$output" "$text" || fail "$output"
    # a property that fails is said in the JSON and on stderr; the others are answered
    # (the whole system: SCC by SCC, dining_crypt3's maybe states are solved one by one, without iterations)
    run --separate-stderr gpu-vi --cpu --no-topological --json --max-iters 1 -p 'Pmax=? [ F "odd" ]' -p 'Pmin=? [ F "done" ]' "$csr"
    assert_failure 1
    [[ "$stderr" == "gpu-vi: 'Pmax=? [ F \"odd\" ]': no convergence within 1 iterations"* ]] || fail "$stderr"
    python3 -c '
import json, sys
j = json.loads(sys.argv[1])
[a], [b] = j["errors"], j["properties"]
assert a["name"] is None and a["text"] == "Pmax=? [ F \"odd\" ]" and "no convergence" in a["error"], a
assert [i["value"] for i in b["initial"]] == [1.0] * 4, b
' "$output" || fail "$output"
}

@test "gpu-vi --cpu answers Storm's expected rewards and step-bounded probabilities on every shared model with a UMB export" {
    n=$(storm_check --cpu)
    [ "$n" -ge "$(at_least 36 20)" ] || fail "only $n properties checked"
    # plain value iteration of rewards still answers within the tests' tolerance on coin2
    run gpu-vi --cpu --vi -e 1e-10 -p 'R{"steps"}max=? [ F "finished" ]' "$BATS_TEST_TMPDIR/coin2.umb.csr"
    assert_success
    [[ "$output" == 'R{"steps"}max=? [ F "finished" ]: 74.99999'* ]] || fail "$output"
    # JSON has no infinity: the string "Infinity", as the text output prints it
    run gpu-vi --cpu --json -p 'R=? [ F "ssuccess" ]' "$BATS_TEST_TMPDIR/brp.umb.csr"
    assert_success
    python3 -c 'import json, sys; j = json.loads(sys.argv[1]); assert j["properties"][0]["initial"][0]["value"] == "Infinity", j' "$output" ||
        fail "$output"
}

@test "gpu-vi R, R{1} and R{\"name\"} name the same reward structure, and Rmin on a restructured model is the plain one's" {
    prism2csr "$MODELS/leader3.umb" > "$BATS_TEST_TMPDIR/l.csr"
    a=$(gpu-vi --cpu -p 'Rmin=? [ F "elected" ]' "$BATS_TEST_TMPDIR/l.csr")
    b=$(gpu-vi --cpu -p 'R{1}min=? [ F "elected" ]' "$BATS_TEST_TMPDIR/l.csr")
    c=$(gpu-vi --cpu -p 'R{"1"}min=? [ F "elected" ]' "$BATS_TEST_TMPDIR/l.csr")
    assert_equal "${a##*: }" "${b##*: }"
    assert_equal "${a##*: }" "${c##*: }"
    # wlan1's collisions: zero-reward end components (Rmin 0) and three structures; restructure keeps them
    prism2csr "$MODELS/wlan1.umb" > "$BATS_TEST_TMPDIR/w.csr"
    restructure -u 3 "$BATS_TEST_TMPDIR/w.csr" > "$BATS_TEST_TMPDIR/w3.csr"
    for p in 'R{"collisions"}min=? [ F "both_sent" ]' 'R{3}min=? [ F "both_sent" ]' 'R{"time"}max=? [ F "both_sent" ]'; do
        want=$(gpu-vi --cpu -p "$p" "$BATS_TEST_TMPDIR/w.csr")
        got=$(gpu-vi --cpu -p "$p" "$BATS_TEST_TMPDIR/w3.csr")
        python3 -c 'import sys; a, b = (float(x.rpartition(": ")[2]) for x in sys.argv[1:]); assert abs(a - b) <= 1e-6 * max(abs(a), 1e-12) or a == b, (a, b)' "$want" "$got" ||
            fail "$p: $want vs $got"
    done
    run gpu-vi --cpu -p 'R{2}max=? [ F "both_sent" ]' "$BATS_TEST_TMPDIR/w.csr"
    [[ "$output" == *": 3865.1"* ]] || fail "R{2} is not \"time\": $output"
}

@test "gpu-vi refuses a reward property on a model without rewards, or naming a structure the model lacks" {
    run --separate-stderr gpu-vi --cpu -p 'R{"steps"}max=? [ F "finished" ]' "$(model_csr coin2)"
    assert_failure 1
    assert_output ""
    [[ "$stderr" == *"the model has no reward structure"* ]] || fail "$stderr"
    prism2csr "$MODELS/wlan1.umb" > "$BATS_TEST_TMPDIR/w.csr"
    for p in 'R{"steps"}max=? [ F "both_sent" ]' 'R{4}max=? [ F "both_sent" ]'; do
        run --separate-stderr gpu-vi --cpu -p "$p" "$BATS_TEST_TMPDIR/w.csr"
        assert_failure 1
        [[ "$stderr" == *'; the model'"'"'s: 1="collisions" 2="time" 3="cost"' ]] || fail "$stderr"
    done
    run --separate-stderr gpu-vi --cpu -p 'R=? [ F "both_sent" ]' "$BATS_TEST_TMPDIR/w.csr"
    assert_failure 1
    [[ "$stderr" == *"R needs Rmin or Rmax" ]] || fail "$stderr"
}

@test "gpu-vi's step bounds: F<k is F<=k-1, F<=0 is the target itself, and values grow with the bound to the unbounded one" {
    csr=$(model_csr coin2)
    a=$(gpu-vi --cpu -p 'Pmax=? [ F<=19 "finished" ]' "$csr")
    b=$(gpu-vi --cpu -p 'Pmax=? [ F<20 "finished" ]' "$csr")
    assert_equal "${a##*: }" "${b##*: }"
    run gpu-vi --cpu -p 'Pmax=? [ F<=0 "finished" ]' -p 'Pmax=? [ F<=0 !"finished" ]' "$csr"
    assert_line 'Pmax=? [ F<=0 "finished" ]: 0'
    assert_line 'Pmax=? [ F<=0 !"finished" ]: 1'
    run --separate-stderr gpu-vi --cpu -p 'Pmax=? [ F<0 "finished" ]' "$csr"
    assert_failure 1
    [[ "$stderr" == *"a bound < 0 holds for no path" ]] || fail "$stderr"
    python3 - "$csr" <<'PY' || fail "not monotone"
import subprocess, sys
vals = [float(subprocess.check_output(["gpu-vi", "--cpu", "-p", 'Pmin=? [ F<=%d "fin_c0" ]' % k, sys.argv[1]]).decode().rpartition(": ")[2])
        for k in (0, 5, 10, 40, 160, 640, 2560)]
unbounded = float(subprocess.check_output(["gpu-vi", "--cpu", "-e", "1e-9", "-p", 'Pmin=? [ F "fin_c0" ]', sys.argv[1]]).decode().rpartition(": ")[2])
assert all(a <= b for a, b in zip(vals, vals[1:])), vals
assert vals[-1] <= unbounded + 1e-9 and unbounded - vals[-1] < 1e-6, (vals, unbounded)
PY
}

@test "gpu-vi --export-scheduler gives, on every shared MDP, a scheduler whose chain attains the optimal values" {
    local n=0
    for m in $(vi_model_names); do
        [ "$m" = coin4_6 ] && continue # a minute on the CPU: tests/110 runs it on the GPU
        csrinfo "$(model_csr "$m")" | head -1 | grep -q ' MDP, ' || continue
        while IFS= read -r prop; do
            [ -n "$prop" ] || continue
            scheduler_check "$(model_csr "$m")" "${prop%;}" --cpu
            n=$((n + 1))
        done < "$MODELS/$m.props"
    done
    [ "$n" -ge "$(at_least 25 10)" ] || fail "only $n properties of MDPs"
    # rewards: zero-reward end components (wlan1's collisions), Rmax, and a split model
    prism2csr "$MODELS/wlan1.umb" > "$BATS_TEST_TMPDIR/w.csr"
    prism2csr "$MODELS/csma2_2.umb" > "$BATS_TEST_TMPDIR/c.csr"
    scheduler_check "$BATS_TEST_TMPDIR/w.csr" 'R{"collisions"}min=? [ F "both_sent" ]' --cpu
    scheduler_check "$BATS_TEST_TMPDIR/w.csr" 'R{"time"}min=? [ F "both_sent" ]' --cpu
    scheduler_check "$BATS_TEST_TMPDIR/c.csr" 'R{"time"}max=? [ F "all_delivered" ]' --cpu
    scheduler_check "$BATS_TEST_TMPDIR/c.csr" 'R{"time"}min=? [ F "all_delivered" ]' --cpu --mem-limit 2M
}

@test "gpu-vi --export-scheduler writes one line per state with the action, and refuses bounded and several properties" {
    prism2csr "$MODELS/wlan1.umb" > "$BATS_TEST_TMPDIR/w.csr"
    run gpu-vi --cpu -p 'Pmax=? [ F "bc1" ]' --export-scheduler "$BATS_TEST_TMPDIR/s.txt" "$BATS_TEST_TMPDIR/w.csr"
    assert_success
    [ "$(wc -l < "$BATS_TEST_TMPDIR/s.txt")" -eq 8625 ] || fail "not a line per state"
    # choices with actions name them, as in the .tra
    grep -Eq '^[0-9]+ [0-9]+ [a-z_0-9]+$' "$BATS_TEST_TMPDIR/s.txt" || fail "no action named"
    awk '$1 != NR - 1 { exit 1 }' "$BATS_TEST_TMPDIR/s.txt" || fail "states not in order"
    run --separate-stderr gpu-vi --cpu -p 'Pmax=? [ F<=5 "bc1" ]' --export-scheduler "$BATS_TEST_TMPDIR/b.txt" "$BATS_TEST_TMPDIR/w.csr"
    assert_failure 2
    [[ "$stderr" == *"memoryless optimal scheduler"* ]] || fail "$stderr"
    run --separate-stderr gpu-vi --cpu -p 'Pmax=? [ F "bc1" ]' -p 'Pmin=? [ F "bc1" ]' --export-scheduler "$BATS_TEST_TMPDIR/b.txt" "$BATS_TEST_TMPDIR/w.csr"
    assert_failure 2
    [ ! -e "$BATS_TEST_TMPDIR/b.txt" ] || fail "file written"
}

@test "gpu-vi computes Prob0/Prob1 once per distinct target and direction for all the properties of a run" {
    prism2csr "$MODELS/coin2.umb" > "$BATS_TEST_TMPDIR/c.csr"
    run --separate-stderr gpu-vi --cpu --stats=json -p 'Pmin=? [ F "finished" ]' -p 'R{"steps"}max=? [ F "finished" ]' \
        -p 'Pmax=? [ F "finished" ]' -p 'R{"steps"}min=? [ F "finished" ]' -p 'Pmax=? [ F "finished" ]' "$BATS_TEST_TMPDIR/c.csr"
    assert_success
    # Pmin and Rmax share Prob1A's classes, Pmax and Rmin Prob1E's: two computations for five properties
    python3 -c '
import json, sys
seen = [json.loads(l)["prob01_computed"] for l in sys.argv[1].splitlines() if l.startswith("{")]
assert seen == [1, 1, 2, 2, 2], seen' "$stderr" || fail "$stderr"
    # and the answers are those of separate runs
    for p in 'Pmin=? [ F "finished" ]' 'R{"steps"}max=? [ F "finished" ]' 'Pmax=? [ F "finished" ]' 'R{"steps"}min=? [ F "finished" ]'; do
        assert_line "$(gpu-vi --cpu -p "$p" "$BATS_TEST_TMPDIR/c.csr")"
    done
    # Rmin's classes first, then Pmax's MECs: the classes kept, the MECs found beside them
    run --separate-stderr gpu-vi --cpu --stats=json -p 'R{"steps"}min=? [ F "finished" ]' -p 'Pmax=? [ F "finished" ]' \
        "$BATS_TEST_TMPDIR/c.csr"
    assert_success
    python3 -c '
import json, sys
seen = [json.loads(l)["prob01_computed"] for l in sys.argv[1].splitlines() if l.startswith("{")]
assert seen == [1, 1], seen' "$stderr" || fail "$stderr"
}

@test "gpu-vi answers a DTMC's probabilities from the classes of its expected rewards, computed once for F, G and R" {
    prism2csr "$MODELS/dice.umb" > "$BATS_TEST_TMPDIR/d.csr"
    run --separate-stderr gpu-vi --cpu --stats=json -p 'P=? [ F "six" ]' -p 'R=? [ F "six" ]' -p 'P=? [ G !"six" ]' \
        "$BATS_TEST_TMPDIR/d.csr"
    assert_success
    # min's Prob0E/Prob1A for all three (a DTMC's min and max are one value): one computation
    python3 -c '
import json, sys
seen = [(json.loads(l)["prob01_computed"], json.loads(l)["maybe"]) for l in sys.argv[1].splitlines() if l.startswith("{")]
assert seen == [(1, 3), (1, 0), (1, 3)], seen' "$stderr" || fail "$stderr"
    prism=$(awk -F'\t' '$2 == "P=? [ F \"six\" ]" { print $6 }' "$(model_file dice.values.tsv)")
    value_close "$(echo "${lines[0]}" | sed 's/.*: //')" "$prism" || fail "${lines[0]} against PRISM's $prism"
    assert_line -n 1 'R=? [ F "six" ]: Infinity'
    value_close "$(echo "${lines[2]}" | sed 's/.*: //')" "$(python3 -c "print(1 - $prism)")" || fail "${lines[2]}"
}

@test "gpu-vi --cpu checks a run's properties at once, each answer and failure as when checked alone, in the given order" {
    pool_check exact --cpu
}
