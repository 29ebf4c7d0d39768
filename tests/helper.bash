# Common set-up of the Bats suite: bats-support and bats-assert from
bats_require_minimum_version 1.5.0
# BATS_LIB_PATH (Debian: /usr/lib/bats), the tools from build/bin, the models
# from $SHARED/models (default ../shared beside the repository) where it
# exists, else the small tier the repository carries (tests/models).
bats_load_library bats-support
bats_load_library bats-assert

ROOT="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
# make check-sanitize points these at the sanitizer build.
PATH="${TOOLS_BIN:-$ROOT/build/bin}:${TEST_TOOLS_BIN:-$ROOT/build/test-bin}:$PATH"
case "${SHARED:-../shared}" in
    /*) MODELS="${SHARED}/models" ;;
    *) MODELS="$ROOT/${SHARED:-../shared}/models" ;;
esac
[ -d "$MODELS" ] || MODELS="$ROOT/tests/models"
DATA="$ROOT/tests/data"

# The models are part of the test set-up: missing them is a failure.
require_models() {
    [ -f "$MODELS/INDEX.tsv" ] || fail "models not found at $MODELS (tests/models, or SHARED=path/to/shared)"
}

# Skip the test unless model NAME is present (tests/models holds the small
# tier; the medium one needs SHARED).
require_model() {
    require_models
    [ -n "$(model_file "$1.tra")" ] ||
        skip "$1 is not in $MODELS (tests/models holds the small tier: SHARED=path/to/shared runs it)"
}

# Fail unless every model of INDEX.tsv (with a file of the given suffix where
# one is given) has a test of its own in the test file: '@test "NAME: ...'.
require_test_per_model() { # bats-file [suffix]
    local name missing=""
    while IFS=$'\t' read -r name _; do
        [ "$name" = name ] && continue
        [ -z "${2:-}" ] || [ -n "$(model_file "$name.$2")" ] || continue
        grep -q "^@test \"$name: " "$1" || missing+=" $name"
    done < "$MODELS/INDEX.tsv"
    [ -z "$missing" ] || fail "models without a test of their own in ${1##*/}:$missing"
}

# The names given whose .tra is among the models (the medium ones only with SHARED).
present_models() {
    local m
    for m in "$@"; do
        [ -n "$(model_file "$m.tra")" ] && echo "$m"
    done
}

# How many models a loop must have found: $1 with the shared models, $2 with
# the small tier of tests/models alone.
at_least() {
    if [ "$MODELS" = "$ROOT/tests/models" ]; then echo "$2"; else echo "$1"; fi
}

# The number of models INDEX.tsv lists (all of which must be there).
indexed_models() {
    awk -F'\t' 'NR > 1 && $1 != "" { n++ } END { print n + 0 }' "$MODELS/INDEX.tsv"
}

# First existing of NAME.EXT and NAME.EXT.gz in the models folder.
model_file() {
    if [ -f "$MODELS/$1" ]; then echo "$MODELS/$1"; elif [ -f "$MODELS/$1.gz" ]; then echo "$MODELS/$1.gz"; fi
}

# Names of the shared models with a .tra (plain or gzip).
model_names() {
    local f b
    for f in "$MODELS"/*.tra "$MODELS"/*.tra.gz; do
        [ -e "$f" ] || continue
        b=${f##*/}; b=${b%.gz}; echo "${b%.tra}"
    done | sort -u
}

# A file in the test's temporary folder with the given content.
write_file() {
    printf '%b' "$2" > "$BATS_TEST_TMPDIR/$1"
    echo "$BATS_TEST_TMPDIR/$1"
}

# Runs a command with its memory limited to MB megabytes: ulimit -v on a
# normal build; under make check-sanitize (SANITIZED=1), where ASan reserves
# terabytes of shadow memory and cannot start under ulimit -v, ASan's own
# limit on a single allocation instead (an allocation past it returns NULL).
memory_limited() {
    local mb=$1; shift
    if [ -n "${SANITIZED:-}" ]; then
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}max_allocation_size_mb=$mb:allocator_may_return_null=1" "$@"
    else
        (ulimit -v $((mb * 1024)) && exec "$@")
    fi
}

# The gpu-vi options of a query of a .values.tsv row (dir, target, avoid;
# "-" for none): VI_ARGS=(-t target [-a avoid] [-m dir]).
vi_query_args() {
    VI_ARGS=(-t "$2")
    [ "$3" = - ] || VI_ARGS+=(-a "$3")
    [ "$1" = - ] || VI_ARGS+=(-m "$1")
}

# gpu-vi on every query of MODEL's .values.tsv (columns: prop, query, dir,
# target, avoid, value, ...) against PRISM's value in the initial states,
# relative 1e-6 (or 1e-12 absolute near 0), with the given extra options.
vi_check_model() { # csr model options...
    local csr=$1 m=$2 prop query dir target avoid value rest got
    shift 2
    while IFS=$'\t' read -r prop query dir target avoid value rest; do
        [ "$prop" = prop ] && continue
        vi_query_args "$dir" "$target" "$avoid"
        got=$(gpu-vi "${VI_ARGS[@]}" "$@" "$csr" | tr '\n' ' ') || fail "$m query $prop: gpu-vi ${VI_ARGS[*]} $* failed"
        awk -v got="$got" -v ref="$value" 'BEGIN {
                ng = split(got, g, " "); nr = split(ref, r, " ")
                if (nr == 1) { for (i = 2; i <= ng; i++) r[i] = r[1] } else if (nr != ng) exit 1
                if (ng == 0) exit 1
                for (i = 1; i <= ng; i++) {
                    d = g[i] - r[i]; if (d < 0) d = -d
                    a = r[i] + 0; if (a < 0) a = -a
                    if (d > 1e-6 * a && d > 1e-12) exit 1
                }
            }' || fail "$m query $prop ($query) ${*}: gpu-vi says $got, PRISM $value"
    done < "$MODELS/$m.values.tsv"
}

# Names of the shared models with PRISM's values (NAME.values.tsv).
vi_model_names() {
    local f
    for f in "$MODELS"/*.values.tsv; do
        [ -e "$f" ] || continue
        f=${f##*/}; echo "${f%.values.tsv}"
    done
}

# CHECK MODEL for every MODEL given, at once: background jobs, as many as the
# CPUs (at most 16), each with its own output; then one failure naming every
# model whose CHECK failed, with the end of its output.  CHECK runs under the
# test body's errexit (its first failing command, a `fail` among them, ends
# it; not under `run` or in a condition, where bash ignores errexit)
# and keeps its files apart ($BATS_TEST_TMPDIR/MODEL.*): a GPU test spends
# most of a run in the driver's start, which the jobs overlap.
each_model_at_once() { # check model...
    local check=$1 i waited=0 max failed=""
    shift
    local models=("$@") pids=() status=()
    max=$(nproc)
    [ "$max" -le 16 ] || max=16
    for i in "${!models[@]}"; do
        if [ $((i - waited)) -ge "$max" ]; then
            wait "${pids[$waited]}" && status[waited]=0 || status[waited]=$?
            waited=$((waited + 1))
        fi
        ("$check" "${models[$i]}") > "$BATS_TEST_TMPDIR/at_once.$i.log" 2>&1 &
        pids[i]=$!
    done
    for ((; waited < ${#models[@]}; waited++)); do
        wait "${pids[$waited]}" && status[waited]=0 || status[waited]=$?
    done
    for i in "${!models[@]}"; do
        [ "${status[$i]}" = 0 ] ||
            failed+="${models[$i]} (status ${status[$i]}): $(tail -5 "$BATS_TEST_TMPDIR/at_once.$i.log")"$'\n'
    done
    [ -z "$failed" ] || fail "$failed"
}

# A model's CSR with labels in the test's temporary folder.
model_csr() { # name -> path
    local f="$BATS_TEST_TMPDIR/$1.csr"
    [ -f "$f" ] || prism2csr -l "$(model_file "$1.lab")" "$(model_file "$1.tra")" > "$f"
    echo "$f"
}

# Every state's value (-o) against PRISM's vector NAME.pK.vec.gz: within
# 1e-6 relative (labelcmp -n), and exactly 0 and 1 where PRISM's are.
vi_check_vectors() { # model options...
    local m=$1 prop query dir target avoid value rest vec
    shift
    while IFS=$'\t' read -r prop query dir target avoid value rest; do
        [ "$prop" = prop ] && continue
        vec="$MODELS/$m.p$prop.vec.gz"
        [ -f "$vec" ] || continue
        vi_query_args "$dir" "$target" "$avoid"
        gpu-vi "${VI_ARGS[@]}" "$@" -o "$BATS_TEST_TMPDIR/v" "$(model_csr "$m")" > /dev/null || fail "$m p$prop: gpu-vi failed"
        run labelcmp -n "$BATS_TEST_TMPDIR/v" "$vec"
        [ "$status" -eq 0 ] || fail "$m p$prop $*: $output"
        zcat "$vec" | paste - "$BATS_TEST_TMPDIR/v" | awk -F'\t' '
            ($1 + 0 == 0 || $1 + 0 == 1) && $1 + 0 != $2 + 0 { print "state " NR - 1 ": PRISM " $1 ", gpu-vi " $2; bad = 1 }
            ($2 + 0 == 0 || $2 + 0 == 1) && $1 + 0 != $2 + 0 { print "state " NR - 1 ": PRISM " $1 ", gpu-vi " $2; bad = 1 }
            END { exit bad }' > "$BATS_TEST_TMPDIR/exact" || fail "$m p$prop $*: not exact: $(head -3 "$BATS_TEST_TMPDIR/exact")"
    done < "$MODELS/$m.values.tsv"
}

# The disjoint union of every shared model (csrcat), plain: its SCCs and MECs
# are theirs, so one run of a GPU tool checks them all.
shared_union() { # path
    local m files=()
    for m in $(model_names); do
        prism2csr "$(model_file "$m.tra")" > "$BATS_TEST_TMPDIR/$m.csr"
        files+=("$BATS_TEST_TMPDIR/$m.csr")
    done
    csrcat "${files[@]}" > "$1"
}

# The disjoint union of 24 random MDPs of randmdp (2 to 2,000 states, self-loops,
# states without choices).
random_union() { # path
    local seed n files=()
    for seed in $(seq 1 24); do
        n=$(( (seed * 37) % 2000 + 2 ))
        randmdp -n "$n" -c 3 -k 3 -e 10 -l $(( seed % 4 * 30 )) "$seed" > "$BATS_TEST_TMPDIR/r$seed.csr"
        files+=("$BATS_TEST_TMPDIR/r$seed.csr")
    done
    csrcat "${files[@]}" > "$1"
}

# TOOL (gpu-scc or gpu-mec) in each configuration given must print exactly
# the label file EXPECTED on CSR-FILE.
configs_equal_file() { # tool expected csr-file what config...
    local tool=$1 expected=$2 csr=$3 what=$4 config
    shift 4
    for config in "$@"; do
        $tool $config "$csr" > "$BATS_TEST_TMPDIR/gpu.labels" || fail "$what: $tool $config failed"
        cmp -s "$expected" "$BATS_TEST_TMPDIR/gpu.labels" ||
            fail "$what: $tool $config differs: $(labelcmp -m 3 "$expected" "$BATS_TEST_TMPDIR/gpu.labels")"
    done
}

# ... exactly what TOOL --cpu prints on CSR-FILE.
configs_equal_cpu() { # tool csr-file what config...
    local tool=$1 csr=$2
    shift 2
    $tool --cpu "$csr" > "$BATS_TEST_TMPDIR/cpu.labels"
    configs_equal_file "$tool" "$BATS_TEST_TMPDIR/cpu.labels" "$csr" "$@"
}

# The labels of a .lab as sorted "name state" lines: independent of label order.
labels_by_name() { # lab
    awk 'NR == 1 && /^#/ {next}
         !header { for (i = 1; i <= NF; i++) { split($i, kv, "="); gsub(/"/, "", kv[2]); name[kv[1]] = kv[2] } header = 1; next }
         { s = $1; sub(/:$/, "", s); for (i = 2; i <= NF; i++) print name[$i], s }' "$1" | sort
}

# property_lines_match WHO [one-for-all] < lines "OUTPUT<TAB>PROPERTY<TAB>REFS":
# each gpu-vi line (PROPERTY: values, as s=value where there are several
# initial states) names its property and its values equal WHO's REFS within
# 1e-6 relative or 1e-12, infinity exactly; one-for-all: a single reference
# value stands for every initial state (PRISM's .values.tsv writes one where
# all are equal).
property_lines_match() {
    python3 -c '
import sys
who, one_for_all = sys.argv[1], len(sys.argv) > 2
for line in sys.stdin:
    got, query, ref = line.rstrip("\n").split("\t")
    text, _, values = got.rpartition(": ")
    if text != query:
        sys.exit("property %r printed for %r" % (text, query))
    vals = [float(v.split("=")[-1].replace("Infinity", "inf")) for v in values.split()]
    refs = [float(r) for r in ref.split()]
    if one_for_all and len(refs) == 1:
        refs *= len(vals)
    if len(vals) != len(refs) or any((v != r) if r == float("inf") else (abs(v - r) > 1e-6 * abs(r) and abs(v - r) > 1e-12)
                                     for v, r in zip(vals, refs)):
        sys.exit("%s: gpu-vi %s, %s %s" % (query, values, who, ref))' "$@"
}

# storm_check options...: every property of tests/data/storm-values.tsv
# (Storm's values, made by tests/tools/storm-values.py: expected rewards and
# step-bounded reachability) answered by gpu-vi on the model converted from
# PRISM's UMB export (rewards included) within 1e-6 relative or 1e-12, and
# Infinity exactly where Storm's is; per model one run with -P.  Prints the
# number of properties checked (in a command substitution: a mismatch
# returns 1, as set -e does not reach into it).
storm_check() {
    local data="$BATS_TEST_DIRNAME/data/storm-values.tsv" m checked=0
    for m in $(grep -v '^#' "$data" | cut -f1 | uniq); do
        [ -f "$MODELS/$m.umb" ] || continue
        local csr="$BATS_TEST_TMPDIR/$m.umb.csr" props="$BATS_TEST_TMPDIR/$m.storm.props"
        [ -f "$csr" ] || prism2csr "$MODELS/$m.umb" > "$csr"
        awk -F'\t' -v m="$m" '$1 == m { print $2 }' "$data" > "$props"
        run --separate-stderr gpu-vi "$@" -P "$props" "$csr"
        [ "$status" -eq 0 ] || { fail "$m: gpu-vi -P failed: $stderr"; return 1; }
        paste <(printf '%s\n' "$output") <(awk -F'\t' -v m="$m" '$1 == m { print $2 "\t" $3 }' "$data") |
            property_lines_match Storm || { fail "$m"; return 1; }
        checked=$((checked + $(wc -l < "$props")))
    done
    echo "$checked"
}

# scheduler_check CSR PROPERTY options...: gpu-vi --export-scheduler's
# scheduler for PROPERTY (at precision 1e-9, with the options) induces a DTMC
# (induce) whose value, solved by gpu-vi --cpu as P=? / R=?, equals the
# MDP's optimal value in every state within 1e-6 relative (1e-9 absolute);
# infinite values of Rmax are skipped (the scheduler need not attain them).
scheduler_check() {
    local csr=$1 prop=$2 d="$BATS_TEST_TMPDIR/sched"
    shift 2
    mkdir -p "$d"
    gpu-vi "$@" -e 1e-9 -p "$prop" -o "$d/opt.vec" --export-scheduler "$d/s.txt" "$csr" > /dev/null ||
        fail "$prop: gpu-vi failed"
    induce "$csr" "$d/s.txt" > "$d/chain.csr" || fail "$prop: induce failed"
    local chain_prop
    chain_prop=$(sed -E 's/^([PR](\{[^}]*\})?)(min|max)=\?/\1=?/' <<< "$prop")
    gpu-vi --cpu -e 1e-9 -p "$chain_prop" -o "$d/chain.vec" "$d/chain.csr" > /dev/null || fail "$chain_prop: chain failed"
    python3 - "$d/opt.vec" "$d/chain.vec" "$prop" <<'PY' || fail "$csr: $prop: the scheduler's chain misses the optimum"
import sys
opt = [float(x) for x in open(sys.argv[1])]
got = [float(x) for x in open(sys.argv[2])]
assert len(opt) == len(got)
bad = [(s, o, g) for s, (o, g) in enumerate(zip(opt, got))
       if not (o == float("inf") and (g == o or "max" in sys.argv[3])) and not (abs(o - g) <= 1e-6 * abs(o) or abs(o - g) <= 1e-9)]
if bad:
    sys.exit("%d states differ, e.g. %r" % (len(bad), bad[:3]))
PY
}

# props_check NAME options...: gpu-vi -P NAME.props equals PRISM's values
# (NAME.values.tsv, row k for line k) within 1e-6 relative, or 1e-12.
props_check() {
    local m=$1
    shift
    run --separate-stderr gpu-vi "$@" -P "$MODELS/$m.props" "$(model_csr "$m")"
    [ "$status" -eq 0 ] || fail "$m: gpu-vi -P failed: $stderr"
    paste <(printf '%s\n' "$output") <(tail -n +2 "$MODELS/$m.values.tsv" | cut -f2,6) |
        property_lines_match PRISM one-for-all || fail "$m"
}

# lasso_check CSR LABEL OUTPUT: gpu-acc's OUTPUT (stdout of a run that found
# an accepting cycle) is a lasso of the model, checked on PRISM's own text
# form (csrexport -f tra, original numbering), independently of ref/acc.c:
# the prefix starts in an initial state, every step of the prefix and of the
# cycle (and the cycle's last state back to its first) is a transition, and
# the cycle's first state, the state named, carries LABEL.
lasso_check() {
    local base="$BATS_TEST_TMPDIR/lasso"
    csrexport -o "$base" "$1" || fail "csrexport failed"
    python3 - "$base.tra" "$base.lab" "$2" "$3" <<'PY' || fail "$1 -a $2: not a lasso: $3"
import sys
tra, lab, label, out = sys.argv[1:]
edges = set()
for line in open(tra):
    f = line.split()
    if not f or line.startswith("#"):
        continue
    if len(f) >= 4 and "." not in f[2] and ("." in f[3] or f[3] == "1"):  # MDP: s k t p
        edges.add((int(f[0]), int(f[2])))
    elif len(f) >= 3 and ("." in f[2] or f[2] == "1"):                    # DTMC: s t p
        edges.add((int(f[0]), int(f[1])))
lines = open(lab).read().splitlines()
names = {v.strip('"'): int(k) for k, v in (e.split("=") for e in lines[1].split())} if lines[0].startswith("#") else \
        {v.strip('"'): int(k) for k, v in (e.split("=") for e in lines[0].split())}
has = {}
for l in lines[1:]:
    if ":" in l:
        st, _, rest = l.partition(":")
        has[int(st)] = set(int(x) for x in rest.split())
out = out.splitlines()
state = int(out[0].rsplit(" ", 1)[1])
prefix = [int(x) for x in out[1].split(":")[1].split()]
cycle = [int(x) for x in out[2].split(":")[1].split()]
assert out[1].startswith("prefix:") and out[2].startswith("cycle:"), out
assert names["init"] in has.get(prefix[0], set()), "prefix does not start in an initial state"
assert prefix[-1] == cycle[0] == state, (prefix[-1], cycle[0], state)
assert names[label] in has.get(state, set()), "the cycle's state is not accepting"
for a, b in zip(prefix, prefix[1:]):
    assert (a, b) in edges, ("prefix", a, b)
for a, b in zip(cycle, cycle[1:] + cycle[:1]):
    assert (a, b) in edges, ("cycle", a, b)
PY
}

# buchi_check options...: gpu-acc --mdp's classes (-o) equal Storm's
# Pmax=? [ G F "label" ] (tests/data/storm-buchi.tsv, made by
# tests/tools/storm-buchi.py: 1, + or 0 per state) on every model and label
# listed, converted from PRISM's UMB export; prints how many were checked.
buchi_check() {
    local data="$BATS_TEST_DIRNAME/data/storm-buchi.tsv" checked=0 m label want
    while IFS=$'\t' read -r m label want; do
        [[ $m == \#* ]] && continue
        [ -f "$MODELS/$m.umb" ] || continue
        prism2csr "$MODELS/$m.umb" > "$BATS_TEST_TMPDIR/b.csr"
        gpu-acc "$@" --mdp -a "$label" -o "$BATS_TEST_TMPDIR/b.cls" "$BATS_TEST_TMPDIR/b.csr" > /dev/null ||
            { fail "$m $label: gpu-acc --mdp failed"; return 1; }
        got=$(tr -d '\n' < "$BATS_TEST_TMPDIR/b.cls")
        [ "$got" = "$want" ] || { fail "$m $label: gpu-acc --mdp differs from Storm at state $(cmp <(echo "$got") <(echo "$want") | awk '{ print $5 - 1 }')"; return 1; }
        checked=$((checked + 1))
    done < "$data"
    echo "$checked"
}

# stats_fields KEY... < stderr of a --stats=json run: the keys' values of its
# last line (one JSON object), space-separated.
stats_fields() {
    python3 -c 'import json, sys; j = json.loads(sys.stdin.read().strip().splitlines()[-1]); print(*(j[k] for k in sys.argv[1:]))' "$@"
}

# pool_check exact|close OPTIONS...: gpu-vi OPTIONS on coin2 with seven
# properties (one refused: no label "nope") and CSR_TEST_WORKERS 1, 3 and 16:
# each answer, in the given order, is `gpu-vi --cpu`'s for its property alone
# (exact: the same line; close: the same property, its value within 1e-6 by
# value_close), the refusal is said, and gpu-vi says it checked them 3 and 7
# at a time (the 7 properties asked bound the threads), nothing of it with 1.
pool_check() {
    local match=$1 csr="$BATS_TEST_TMPDIR/c.csr" workers p alone i
    shift
    prism2csr "$MODELS/coin2.umb" > "$csr"
    local props=('Pmin=? [ F "finished" ]' 'R{"steps"}max=? [ F "finished" ]' 'Pmax=? [ F "nope" ]'
                 'Pmax=? [ F "fin_c0" ]' 'R{"steps"}min=? [ F "finished" ]' 'Pmin=? [ F "fin_c0" ]'
                 'Pmax=? [ F "finished" ]')
    local args=()
    for p in "${props[@]}"; do args+=(-p "$p"); done
    for workers in 1 3 16; do
        run --separate-stderr env CSR_TEST_WORKERS=$workers gpu-vi "$@" "${args[@]}" "$csr"
        assert_success
        [ "${#lines[@]}" -eq 6 ] || fail "$workers workers: $output"
        i=0
        for p in "${props[@]}"; do
            [ "$p" = 'Pmax=? [ F "nope" ]' ] && continue
            alone=$(gpu-vi --cpu -p "$p" "$csr")
            if [ "$match" = exact ]; then
                assert_line -n $i "$alone"
            else
                [ "${lines[$i]%: *}" = "${alone%: *}" ] || fail "$workers workers, line $i: ${lines[$i]}, alone: $alone"
                value_close "${lines[$i]##*: }" "${alone##*: }" || fail "$workers workers: ${lines[$i]}, alone: $alone"
            fi
            i=$((i + 1))
        done
        [[ "$stderr" == *"gpu-vi: 'Pmax=? [ F \"nope\" ]': "*'no label "nope"'* ]] || fail "$stderr"
        case $workers in
        1) [[ "$stderr" != *"at a time"* ]] || fail "$stderr" ;;
        3) [[ "$stderr" == *"gpu-vi: 3 properties at a time"* ]] || fail "$stderr" ;;
        16) [[ "$stderr" == *"gpu-vi: 7 properties at a time"* ]] || fail "$stderr" ;;
        esac
    done
}

# value_close A B: A and B agree within 1e-6 relative (or 1e-12), or are
# the same word (true, false, Infinity).
value_close() {
    python3 -c '
import sys
a, b = sys.argv[1:]
if a == b:
    sys.exit(0)
x, y = float(a), float(b)
sys.exit(not (abs(x - y) <= 1e-6 * abs(y) or abs(x - y) <= 1e-12))' "$1" "$2"
}

# qvbs_check options...: every instance of tests/data/qvbs/values.tsv
# converted (prism2csr of Storm's UMB) and its properties file answered as
# written (gpu-vi options --json -P FILE --const ...), each property within
# 1e-6 relative of QVBS's value (a qualitative one: true/false); a property
# that uses a formula of the model file must fail saying so.  Prints the
# number of properties checked; fails on the first that misses.
qvbs_check() {
    local q="$DATA/qvbs" inst consts props n=0 json
    while IFS=$'\t' read -r inst consts props; do
        prism2csr "$q/$inst.umb" > "$BATS_TEST_TMPDIR/$inst.csr" || return 1
        local c=()
        [ "$consts" = "-" ] || c=(--const "$consts")
        json=$(gpu-vi "$@" --json -P "$q/$props" "${c[@]}" "$BATS_TEST_TMPDIR/$inst.csr" 2>/dev/null)
        n=$((n + $(python3 - "$q/values.tsv" "$inst" "$json" <<'PY'
import json, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])][1:]
want = {r[2]: r[3] for r in rows if r[0] == sys.argv[2]}
j = json.loads(sys.argv[3])
got = {p["name"]: p for p in j["properties"]}
for e in j["errors"]:
    assert "model file's formulas are not exported" in e["error"], (sys.argv[2], e["name"], e["error"])
checked = 0
for name, ref in want.items():
    if name not in got and any(e["name"] == name for e in j["errors"]):
        continue
    p = got[name]
    v = p["initial"][0]["value"]
    if ref in ("true", "false"):
        ok = v is (ref == "true")
    elif ref == "Infinity":
        ok = v == "Infinity"
    else:
        x, y = float(v), float(ref)
        ok = abs(x - y) <= 1e-6 * abs(y) or abs(x - y) <= 1e-12
    assert ok, (sys.argv[2], name, v, ref)
    checked += 1
print(checked)
PY
)))
    done < <(tail -n +2 "$q/values.tsv" | cut -f1,2,6 | sort -u)
    echo "$n"
}

# bounded_check options...: every query of tests/data/qvbs/bounded.tsv
# (reward-bounded, cumulative and instantaneous, Storm's T, in PRISM's and
# Storm's syntax) within 1e-6 relative of Storm's value (1e-9 absolute).  Prints
# the number checked.
bounded_check() {
    local q="$DATA/qvbs" inst consts prop storm n=0 out
    while IFS=$'\t' read -r inst consts prop storm; do
        [ -e "$BATS_TEST_TMPDIR/$inst.csr" ] || prism2csr "$q/$inst.umb" > "$BATS_TEST_TMPDIR/$inst.csr" || return 1
        local c=()
        [ "$consts" = "-" ] || c=(--const "$consts")
        out=$(gpu-vi "$@" -p "$prop" "${c[@]}" "$BATS_TEST_TMPDIR/$inst.csr") || { echo "$inst: $prop: failed" >&2; return 1; }
        python3 -c '
import sys
x, y = float(sys.argv[1]), float(sys.argv[2])
sys.exit(not (abs(x - y) <= 1e-6 * abs(y) or abs(x - y) <= 1e-9))' "${out##*: }" "$storm" ||
            { echo "$inst: $prop: ${out##*: }, Storm $storm" >&2; return 1; }
        n=$((n + 1))
    done < <(tail -n +2 "$q/bounded.tsv")
    echo "$n"
}
