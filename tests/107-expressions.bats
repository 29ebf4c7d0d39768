#!/usr/bin/env bats
# PRISM's expression language and properties files (format/expr.h,
# format/props.h) through tests/tools/propcheck: constant expressions
# against values worked out by hand from PRISM's manual and grammar, state
# formulas against PRISM's own labels (the small models' label definitions
# over the valuations of their UMB exports) and against Python's count of
# the same formulas, every QVBS properties file against its index.json, and
# the errors with their line and column.

load helper

setup() {
    require_models
}

@test "constant expressions follow PRISM's precedence, associativity and types, as worked out by hand" {
    # expression <TAB> TYPE:VALUE: precedence (PrismParser.jj: ^ above unary -, ! below =, & above |, = below <),
    # associativity (=> and ^ right, the others left), / a double, floor/ceil/mod/round ints, mod's sign
    # (a result in [0, n)), round half up, int with double, min/max of one or more, PRISM's lexer (012 is a double)
    local cases='1+2*3	int:7
(1+2)*3	int:9
2*3^2	int:18
-2^2	int:4
2^3^2	int:512
10-4-3	int:3
5 - -3	int:8
!false & false	bool:false
true | true & false	bool:true
!1 = 2	bool:true
1 < 2 = true	bool:true
2*3 = 6 = true	bool:true
false => true => false	bool:true
(false => true) => false	bool:false
false ? 1 : false ? 2 : 3	int:3
false ? 1 : true ? 2 : 3	int:2
true ? 1 : 2.5	double:1
7/2	double:3.5
4/2	double:2
mod(-7, 3)	int:2
mod(7, 3)	int:1
mod(-6, 3)	int:0
floor(7/2)	int:3
floor(-7/2)	int:-4
ceil(7/2)	int:4
round(-1.5)	int:-1
round(2.5)	int:3
pow(2, 10)	int:1024
2^10	int:1024
pow(2.0, 10)	double:1024
pow(9.0, 0.5)	double:3
2.0^-1	double:0.5
min(3, 2.5, 7)	double:2.5
max(1, 2, 3)	int:3
max(4)	int:4
func(max, 2, 5)	int:5
log(100, 10) > 1.999999 & log(100, 10) < 2.000001	bool:true
1 < 1.5	bool:true
3 = 3.0	bool:true
2 != 2.0000001	bool:true
1e-6 < 0.001	bool:true
.5 + 012	double:12.5
2147483647.0 + 1	double:2147483648
0/0 = 0/0	bool:true
0.0 = -0.0	bool:false'
    local args=() want=() e v
    while IFS=$'\t' read -r e v; do
        args+=(-p "$e")
        want+=("$e	value value=$v")
    done <<< "$cases"
    run --separate-stderr propcheck "${args[@]}"
    assert_success
    [ "${#lines[@]}" -eq "${#want[@]}" ] || fail "${#lines[@]} lines for ${#want[@]} expressions: $output"
    for i in "${!want[@]}"; do
        got=${lines[$i]#-	}
        got=${got/	state value=/	value value=}
        assert_equal "$got" "${want[$i]}"
    done
}

@test "ill-typed expressions are type errors at the column of the offending operand or operator" {
    run propcheck -p 'true & 3' -p '1 = true' -p '!3' -p '1 + false' -p 'mod(1.5, 2)' -p 'true ? 1 : false' \
        -p '1 ? 2 : 3' -p 'P=? [ F 3 ]' -p 'floor(true)' -p '1 < true'
    assert_success
    assert_line -n 0 "-	true & 3	error: column 8: type error: & applied to an int (wants bools)"
    assert_line -n 1 "-	1 = true	error: column 3: type error: = cannot compare an int and a bool"
    assert_line -n 2 "-	!3	error: column 2: type error: ! applied to an int (wants a bool)"
    assert_line -n 3 "-	1 + false	error: column 5: type error: + applied to a bool (wants ints or doubles)"
    assert_line -n 4 "-	mod(1.5, 2)	error: column 5: type error: mod takes ints, not a double"
    assert_line -n 5 "-	true ? 1 : false	error: column 1: type error: the branches of ? : are an int and a bool"
    assert_line -n 6 "-	1 ? 2 : 3	error: column 1: type error: the condition of ? : is an int, not a bool"
    assert_line -n 7 "-	P=? [ F 3 ]	error: column 9: type error: the operand of a path operator is a int, not a bool"
    assert_line -n 8 "-	floor(true)	error: column 7: type error: floor takes ints or doubles, not a bool"
    assert_line -n 9 "-	1 < true	error: column 3: type error: < cannot compare an int and a bool"
}

@test "integer overflow, mod by a non-positive divisor and a negative integer exponent are errors, but not where lazy evaluation never goes" {
    run propcheck -p '2147483647 + 1' -p '-(-2147483647 - 1)' -p '65536 * 32768' -p 'mod(7, 0)' -p 'mod(7, -3)' \
        -p 'pow(2, -1)' -p 'pow(3, 20)' -p 'floor(1e10)' -p 'false & mod(7, 0) = 1' -p 'true | mod(7, 0) = 1' \
        -p 'false => 1/0 = mod(1, 0)' -p 'true ? 1 : mod(1, 0)' -p 'true & mod(7, 0) = 1' -p 'round(0/0)'
    assert_success
    assert_line -n 0 "-	2147483647 + 1	error: column 12: integer overflow (PRISM's integers are 32-bit)"
    assert_line -n 1 "-	-(-2147483647 - 1)	error: column 1: integer overflow (PRISM's integers are 32-bit)"
    assert_line -n 2 "-	65536 * 32768	error: column 7: integer overflow (PRISM's integers are 32-bit)"
    assert_line -n 3 "-	mod(7, 0)	error: column 1: mod with a non-positive divisor"
    assert_line -n 4 "-	mod(7, -3)	error: column 1: mod with a non-positive divisor"
    assert_line -n 5 "-	pow(2, -1)	error: column 1: a negative exponent in an integer power"
    assert_line -n 6 "-	pow(3, 20)	error: column 1: integer overflow in a power"
    assert_line -n 7 "-	floor(1e10)	error: column 1: a value outside the int range"
    assert_line -n 8 "-	false & mod(7, 0) = 1	state value=bool:false"
    assert_line -n 9 "-	true | mod(7, 0) = 1	state value=bool:true"
    assert_line -n 10 "-	false => 1/0 = mod(1, 0)	state value=bool:true"
    assert_line -n 11 "-	true ? 1 : mod(1, 0)	value value=int:1"
    assert_line -n 12 "-	true & mod(7, 0) = 1	error: column 8: mod with a non-positive divisor"
    # Java's Math.round: NaN rounds to 0
    assert_line -n 13 "-	round(0/0)	value value=int:0"
}

@test "the small models' label definitions, evaluated over their valuations, give PRISM's labels exactly" {
    # per model: the valuations of its UMB export as a PRISM .sta (index.json's one class of bit-packed fields,
    # little-endian bit order, "padding" skipped); its one-line constants and formulas as they are, each label as
    # label "NAME_def", and per label the properties "NAME" <=> "NAME_def" (every state) and "NAME" (as many
    # states as PRISM's .lab gives it)
    python3 - "$MODELS" "$BATS_TEST_TMPDIR" <<'PY'
import gzip, io, json, os, re, subprocess, sys, tarfile
models, tmp = sys.argv[1], sys.argv[2]
def find(name):
    for n in (name, name + '.gz'):
        if os.path.exists(os.path.join(models, n)):
            return os.path.join(models, n)
def text(path):
    return (gzip.open(path, 'rt') if path.endswith('.gz') else open(path)).read()
checked = 0
for m in ['coin2', 'dice', 'brp', 'herman7', 'leader4', 'csma2_2', 'dining_crypt3', 'mutual3', 'phil3', 'wlan1']:
    umb, source, lab = find(m + '.umb'), find(m + '.nm') or find(m + '.pm'), find(m + '.lab')
    if not (umb and source and lab):
        continue
    t = tarfile.open(fileobj=io.BytesIO(gzip.decompress(open(umb, 'rb').read())))
    idx = json.load(t.extractfile('index.json'))
    fields = idx['valuations']['states']['classes'][0]['variables']
    width = (sum(f.get('padding', 0) or f['type']['size'] for f in fields) + 7) // 8
    data = t.extractfile('valuations/states/valuations.bin').read()
    n = idx['transition-system']['#states']
    base = os.path.join(tmp, m)
    with open(base + '.sta', 'w') as out:
        out.write('(' + ','.join(f['name'] for f in fields if 'name' in f) + ')\n')
        for s in range(n):
            row, off, vals = int.from_bytes(data[s * width:(s + 1) * width], 'little'), 0, []
            for f in fields:
                if 'name' not in f:
                    off += f['padding']
                    continue
                x = (row >> off) & ((1 << f['type']['size']) - 1)
                vals.append(('true' if x else 'false') if f['type']['type'] == 'bool' else str(x))
                off += f['type']['size']
            out.write('%d:(%s)\n' % (s, ','.join(vals)))
    labels = []
    with open(base + '.props', 'w') as out:
        for line in text(source).splitlines():
            line = line.split('//')[0].strip()
            if re.match(r'(const|formula)\b', line) and line.endswith(';'):
                out.write(line + '\n')
            d = re.match(r'label\s+"(\w+)"\s*=(.*);$', line)
            if d:
                labels.append(d.group(1))
                out.write('label "%s_def" =%s;\n' % (d.group(1), d.group(2)))
        for l in labels:
            out.write('"%s": "%s" <=> "%s_def";\n"%s_count": "%s"\n' % (l, l, l, l, l))
    # the valuations from the .sta decoded here, not from prism2csr's UMB reader
    open(base + '.csr', 'wb').write(subprocess.run(['prism2csr', '--no-valuations', umb], check=True,
                                                   capture_output=True).stdout)
    got = subprocess.run(['propcheck', '-P', base + '.props', '--model', base + '.csr', '--sta', base + '.sta'],
                         check=True, capture_output=True, text=True, env=dict(os.environ, CSR_TEST_GRAIN='1')).stdout
    lines = [l for l in text(lab).splitlines() if not l.startswith('#')]
    index = {v.strip('"'): int(k) for k, v in (e.split('=') for e in lines[0].split())}
    name_of = {k: v for v, k in index.items()}
    count = {l: 0 for l in index}
    for l in lines[1:]:
        for k in l.partition(':')[2].split():
            count[name_of[int(k)]] += 1
    rows = [r.split('\t') for r in got.splitlines() if not r.startswith('const ')]
    assert len(rows) == 2 * len(labels) > 0, (m, got)
    for name, _, form in rows:
        assert form.startswith('state target='), (m, name, form)
        want = count[name[:-6]] if name.endswith('_count') else n
        assert int(form.split('target=')[1]) == want, (m, name, form, want)
    checked += 1
assert checked >= 8, checked
PY
}

@test "state formulas over 5,000 random valuations count the states Python counts, by blocks on every CPU" {
    python3 - "$BATS_TEST_TMPDIR" <<'PY'
import math, random, sys
random.seed(7)
rows = [(random.randint(-20, 20), random.randint(0, 9), random.random() < 0.5) for _ in range(5000)]
with open(sys.argv[1] + '/r.sta', 'w') as f:
    f.write('(x,y,b)\n')
    for s, (x, y, b) in enumerate(rows):
        f.write('%d:(%d,%d,%s)\n' % (s, x, y, 'true' if b else 'false'))
jround = lambda v: math.floor(v + 0.5)
formulas = [
    ('x > 3 & y != 2', lambda x, y, b: x > 3 and y != 2),
    ('mod(x, 4) = 1 | b', lambda x, y, b: x % 4 == 1 or b),
    ('x/2 >= y - 5', lambda x, y, b: x / 2 >= y - 5),
    ('floor(x/3) = -2', lambda x, y, b: math.floor(x / 3) == -2),
    ('b => x < 0', lambda x, y, b: (not b) or x < 0),
    ('(x > 0 ? x : -x) = y', lambda x, y, b: abs(x) == y),
    ('max(x, y, 3) - min(x, y) > 10', lambda x, y, b: max(x, y, 3) - min(x, y) > 10),
    ('pow(y, 2) + x*x < 50', lambda x, y, b: y ** 2 + x * x < 50),
    ('!b <=> x = 0', lambda x, y, b: (not b) == (x == 0)),
    ('ceil(x/4) = round(x/4.0)', lambda x, y, b: math.ceil(x / 4) == jround(x / 4)),
    ('y > 0 & mod(x, y) = 0', lambda x, y, b: y > 0 and x % y == 0),
    ('"init" | x = 7', lambda x, y, b: None),
    ('b = (y >= 5) | x < -15', lambda x, y, b: b == (y >= 5) or x < -15),
]
with open(sys.argv[1] + '/r.props', 'w') as f, open(sys.argv[1] + '/r.want', 'w') as w:
    for text, fn in formulas:
        f.write('%s;\n' % text)
        if text.startswith('"init"'):
            k = sum(1 for s, (x, y, b) in enumerate(rows) if s == 0 or x == 7)
        else:
            k = sum(1 for x, y, b in rows if fn(x, y, b))
        w.write('-\t%s\tstate target=%d\n' % (text, k))
PY
    CSR_TEST_GRAIN=1 propcheck -P "$BATS_TEST_TMPDIR/r.props" --sta "$BATS_TEST_TMPDIR/r.sta" > "$BATS_TEST_TMPDIR/r.got"
    run diff "$BATS_TEST_TMPDIR/r.want" "$BATS_TEST_TMPDIR/r.got"
    assert_success
}

@test "an evaluation error in a state formula names its position and the first state where it happens" {
    printf '(x,y)\n0:(3,1)\n1:(4,2)\n2:(5,0)\n3:(6,0)\n4:(2147483647,1)\n' > "$BATS_TEST_TMPDIR/e.sta"
    run propcheck --sta "$BATS_TEST_TMPDIR/e.sta" -p 'mod(x, y) = 0' -p 'y > 0 & mod(x, y) = 0' -p 'x + y > 0' -p 'x + 0 > 0'
    assert_success
    assert_line -n 0 "-	mod(x, y) = 0	state	error: column 1: mod with a non-positive divisor in state 2"
    assert_line -n 1 "-	y > 0 & mod(x, y) = 0	state target=3"
    assert_line -n 2 "-	x + y > 0	state	error: column 3: integer overflow (PRISM's integers are 32-bit) in state 4"
    assert_line -n 3 "-	x + 0 > 0	state target=5"
}

@test "names resolve to the file's formulas, then constants (--const too, or model constants), then state variables" {
    printf '(x,b,K)\n0:(0,false,9)\n1:(1,true,9)\n2:(2,true,9)\n3:(3,false,9)\n' > "$BATS_TEST_TMPDIR/s.sta"
    cat > "$BATS_TEST_TMPDIR/n.props" <<'EOF'
const int K;
const double p = K / 4;
const N = 3;
formula x = 2;             // a formula named as a state variable hides it
formula done = b & y < N;  // y: a model constant given by --const
label "ok" = x >= 1 & b;
"a": Pmin=? [ F "ok" ];
"b": P>=p [ F<=N done ]
"c": filter(count, K = 2)
"d": R{K}=? [ F x = 2 ]
EOF
    run propcheck -P "$BATS_TEST_TMPDIR/n.props" --const K=2,y=1 --sta "$BATS_TEST_TMPDIR/s.sta"
    assert_success
    # K from --const (not the state variable K), p = 2/4, N = 3; "ok" = b (x is the formula 2)
    assert_line -n 0 "const K int:2"
    assert_line -n 1 "const p double:0.5"
    assert_line -n 2 "const N int:3"
    assert_line -n 3 "a	Pmin=? [ F \"ok\" ]	P min =? F target=2"
    assert_line -n 4 "b	P>=p [ F<=N done ]	P (min) >=0.5 F steps=3 target=2"
    assert_line -n 5 "c	filter(count, K = 2)	state filter=count value=bool:true target=4"
    assert_line -n 6 "d	R{K}=? [ F x = 2 ]	R any =? reward=#2 F value=bool:true target=4" ||
        assert_line -n 6 "d	R{K}=? [ F x = 2 ]	R any =? reward=#2 F target=4"
}

@test "an unknown name, a constant without a value, a cycle or a missing label is its own property's error, naming it and its column" {
    printf '(x)\n0:(0)\n1:(1)\n' > "$BATS_TEST_TMPDIR/s.sta"
    cat > "$BATS_TEST_TMPDIR/u.props" <<'EOF'
const int K;
formula f = g + 1;
formula g = f;
"fine": P=? [ F x = 1 ];
"unknown": Pmin=? [ F min_backoff_after_success < 2 ]
"undefined": P=? [ F x = K ]
"cycle": P=? [ F f = 2 ]
"label": P=? [ F "nope" ]
"also_fine": P=? [ F x = 0 ];
EOF
    run propcheck -P "$BATS_TEST_TMPDIR/u.props" --sta "$BATS_TEST_TMPDIR/s.sta"
    assert_success
    assert_line -n 1 "fine	P=? [ F x = 1 ]	P any =? F target=1"
    assert_line -n 2 "unknown	Pmin=? [ F min_backoff_after_success < 2 ]	error: line 5, column 23: unknown name 'min_backoff_after_success': not a state variable of the model, nor a constant or formula of the properties file (the model file's formulas are not exported: define them in the properties file)"
    assert_line -n 3 "undefined	P=? [ F x = K ]	error: line 6, column 26: constant 'K' has no value: give it with --const K=VALUE"
    assert_line -n 4 "cycle	P=? [ F f = 2 ]	error: line 3, column 13: formula 'f' is defined through itself"
    assert_line -n 5 "label	P=? [ F \"nope\" ]	error: line 8, column 18: no label \"nope\" in the model (it has: none) or the properties file"
    assert_line -n 6 "also_fine	P=? [ F x = 0 ]	P any =? F target=1"
    # --const: a value of the wrong type for its declaration, and PRISM's experiments (ranges)
    run --separate-stderr propcheck -P "$BATS_TEST_TMPDIR/u.props" --const K=1.5
    assert_failure 2
    assert_equal "$stderr" "propcheck: --const K: a double for a constant declared int (line 1)"
    run --separate-stderr propcheck -P "$BATS_TEST_TMPDIR/u.props" --const K=1:4
    assert_failure 2
    assert_equal "$stderr" "propcheck: --const K: ranges (PRISM's experiments, N=1:5) are not supported"
}

@test "syntax errors stop the file, naming the line and column" {
    check() { # TEXT MESSAGE
        printf '%b' "$1" > "$BATS_TEST_TMPDIR/x.props"
        run --separate-stderr propcheck -P "$BATS_TEST_TMPDIR/x.props"
        assert_failure 1
        assert_output ""
        assert_equal "$stderr" "propcheck: $BATS_TEST_TMPDIR/x.props: $2"
    }
    check 'P=? [ F x=1 ];\n\n// a comment\nPmax=? [ F x=1 "b" ]' 'line 4, column 16: expected '"']', found \"b\""
    check 'P=? [ F x=1\n  & ]' 'line 2, column 5: expected an expression, found '"']'"
    check 'const int K = 2\nP=? [ F x=K ]' "line 2, column 1: expected ';' after the constant's definition"
    check 'label ok = x=1;' 'line 1, column 7: a label'"'"'s name is written in double quotes: label "ok" = ...'
    check 'formula f = "a";' 'line 1, column 13: a label ("a") outside a property'"'"'s formulas (definitions and bounds take none)'
    check 'P=? [ F<=P=? [ F "a" ] "a" ]' "line 1, column 10: a P operator outside a property's formulas (definitions and bounds take none)"
    check 'const int K = 1;\nformula K = 2;' "line 2, column 9: 'K' is already defined (a constant, line 1)"
    check '"n": P=? [ F b ];\n"n": P=? [ F b ]' 'line 2, column 1: a second property named "n"'
    check 'P=? [ F x@1 ]' "line 1, column 10: an unexpected character '@'"
    check 'P=? [ F "abc ]' "line 1, column 9: a name in double quotes without its closing '\"'"
    check 'P=? [ F x=3000000000 ]' "line 1, column 11: an integer literal above 2147483647 (PRISM's integers are 32-bit)"
    check 'P=? [ F x=1 U y=2 U z=3 ]' "line 1, column 19: expected ']', found 'U'"
    check 'P=? [ F foo(1) ]' "line 1, column 9: unknown function 'foo' (PRISM's: min, max, floor, ceil, round, pow, mod, log)"
    check 'P=? [ F floor(1, 2) = 1 ]' 'line 1, column 9: floor takes 1 argument, not 2'
    check 'formula f = x U y;' "line 1, column 15: 'U' (a path operator) outside P [ ], R [ ], E [ ] or A [ ]"
    check 'const int F = 1;' "line 1, column 11: 'F' is a keyword of PRISM's language, not a name"
    # a -p property: its column alone
    run --separate-stderr propcheck -p 'Pmin=? [ F "a" ] ]'
    assert_failure 1
    assert_equal "$stderr" "propcheck: -p 'Pmin=? [ F \"a\" ] ]': column 18: expected the end of the property, found ']'"
}

@test "every form resolves to its fields: P and R queries and bounds, step and reward bounds, C, I, filters" {
    printf '(x,b)\n0:(0,false)\n1:(1,true)\n2:(2,true)\n3:(3,false)\n' > "$BATS_TEST_TMPDIR/s.sta"
    cat > "$BATS_TEST_TMPDIR/f.props" <<'EOF'
const int K = 2;
"c": P<0.25 [ x<2 U<K b ];   "d": Pmax>=0.5 [ G x<3 ]
"e": R{"r"}<=10 [ F b ]
"f": R{2}min=? [ C<=K ]
"g": R=? [ I=3 ] ; "h": R=? [ C ]
"i": filter(max, R=? [ F "init" ], x > 1)
"j": P=? [ F^{rew{"time"}<=K*100} b ]
"k": Pmin=? [ F{"r"}>2.5 b ]
"l": P=? [ F{rew<=4} b ]
"m": P=? [ X b ]
"n": P=? [ F x=1 {x=0} ]
"o": P=? [ F x=1 {x=0}{min}{max} ]
"p": Rmin=? [ F<=5 b ]
"q": filter(forall, P>=1 [ F b ], "init")
EOF
    run propcheck -P "$BATS_TEST_TMPDIR/f.props" --sta "$BATS_TEST_TMPDIR/s.sta"
    assert_success
    # a bound without min/max gets PRISM's direction: all schedulers, so >= is min and <= max
    assert_line "c	P<0.25 [ x<2 U<K b ]	P (max) <0.25 U steps=1 avoid=2 target=2"
    assert_line "d	Pmax>=0.5 [ G x<3 ]	P max >=0.5 G target=3"
    assert_line "e	R{\"r\"}<=10 [ F b ]	R (max) <=10 reward=\"r\" F target=2"
    assert_line "f	R{2}min=? [ C<=K ]	R min =? reward=#2 C steps=2"
    assert_line "g	R=? [ I=3 ]	R any =? reward=first I steps=3"
    assert_line "h	R=? [ C ]	R any =? reward=first C"
    assert_line "i	filter(max, R=? [ F \"init\" ], x > 1)	R any =? reward=first F filter=max target=1 states=2"
    assert_line "j	P=? [ F^{rew{\"time\"}<=K*100} b ]	P any =? F rbound<=200{\"time\"} target=2"
    assert_line "k	Pmin=? [ F{\"r\"}>2.5 b ]	P min =? F rbound>2.5{\"r\"} target=2"
    assert_line "l	P=? [ F{rew<=4} b ]	P any =? F rbound<=4 target=2"
    assert_line "m	P=? [ X b ]	P any =? X target=2"
    assert_line "n	P=? [ F x=1 {x=0} ]	P any =? F filter=state target=1 states=1"
    assert_line "o	P=? [ F x=1 {x=0}{min}{max} ]	P any =? F filter=range target=1 states=1"
    assert_line "p	Rmin=? [ F<=5 b ]	R min =? reward=first F steps=5 target=2"
    assert_line "q	filter(forall, P>=1 [ F b ], \"init\")	P (min) >=1 F filter=forall target=2 states=1"
    # steps: F<k is F<=k-1; negative, strict zero, a double, a bound outside [0, 1], R{0}
    run propcheck -p 'P=? [ F<=-1 b ]' -p 'P=? [ F<0 b ]' -p 'P=? [ F<=1.5 b ]' -p 'P>1.5 [ F b ]' -p 'R{0}=? [ F b ]' \
        -p 'P=? [ F<=x b ]' --sta "$BATS_TEST_TMPDIR/s.sta"
    assert_line -n 0 "-	P=? [ F<=-1 b ]	error: column 10: a negative step bound"
    assert_line -n 1 "-	P=? [ F<0 b ]	error: column 9: a bound < 0 holds for no path"
    assert_line -n 2 "-	P=? [ F<=1.5 b ]	error: column 10: type error: a step bound is a double, not an int"
    assert_line -n 3 "-	P>1.5 [ F b ]	error: column 3: a probability bound 1.5 outside [0, 1]"
    assert_line -n 4 "-	R{0}=? [ F b ]	error: column 3: reward structures are numbered from 1, not 0"
    assert_line -n 5 "-	P=? [ F<=x b ]	error: column 10: a step bound is not constant (it uses a state variable or label)"
}

@test "Storm's time operator T is an expected reward of one per step, and T stays a name where no =? or min/max follows" {
    printf '(x,T)\n0:(0,1)\n1:(1,7)\n' > "$BATS_TEST_TMPDIR/s.sta"
    run propcheck -p 'T=? [ F x=1 ]' -p 'Tmin=? [ F x=1 ]' -p 'T max=? [ F x=1 ]' -p 'Tmax<=3 [ F x=1 ]' \
        -p 'P=? [ F T<5 ]' -p 'T<5' --sta "$BATS_TEST_TMPDIR/s.sta"
    assert_success
    assert_line -n 0 "-	T=? [ F x=1 ]	R any =? reward=time F target=1"
    assert_line -n 1 "-	Tmin=? [ F x=1 ]	R min =? reward=time F target=1"
    assert_line -n 2 "-	T max=? [ F x=1 ]	R max =? reward=time F target=1"
    assert_line -n 3 "-	Tmax<=3 [ F x=1 ]	R max <=3 reward=time F target=1"
    assert_line -n 4 "-	P=? [ F T<5 ]	P any =? F target=1"
    assert_line -n 5 "-	T<5	state target=1"
    run propcheck -p 'T{"r"}=? [ F x=1 ]' --sta "$BATS_TEST_TMPDIR/s.sta"
    assert_failure
}

@test "forms the fields cannot hold are parsed and marked unsupported, saying what" {
    run propcheck --parse-only -p 'R{"r"}max=? [ S ]' -p 'S=? [ b ]' -p 'LRA min=? [ b ]' -p 'P=? [ F>=2 b ]' \
        -p 'P=? [ F[1,3] b ]' -p 'P=? [ b W x=1 ]' -p 'P=? [ F P>0.5 [ X b ] ]' -p 'P=? [ F G b ]' -p 'E [ F b ]' \
        -p 'P=? [ F b ] / 2' -p 'P=? [ F^{rew{"r"}<=1, steps<=3} b ]' -p 'filter(max, filter(min, x))' -p 'P=? [ b ]' \
        -p 'R=? [ G b ]'
    assert_success
    assert_line -n 0 "-	R{\"r\"}max=? [ S ]	unsupported: column 15: long-run average rewards (R [ S ], LRA) are not supported"
    assert_line -n 1 "-	S=? [ b ]	unsupported: column 1: steady-state and long-run average operators (S, LRA) are not supported"
    assert_line -n 2 "-	LRA min=? [ b ]	unsupported: column 1: steady-state and long-run average operators (S, LRA) are not supported"
    assert_line -n 3 "-	P=? [ F>=2 b ]	unsupported: column 8: lower step bounds (F>=k, F>k, F=k, F[a,b]) are not supported"
    assert_line -n 4 "-	P=? [ F[1,3] b ]	unsupported: column 8: lower step bounds (F>=k, F>k, F=k, F[a,b]) are not supported"
    assert_line -n 5 "-	P=? [ b W x=1 ]	unsupported: column 7: weak until (W) and release (R) are not supported"
    assert_line -n 6 "-	P=? [ F P>0.5 [ X b ] ]	unsupported: column 9: nested P/R operators (P, R, S or filter inside a state formula) are not supported"
    assert_line -n 7 "-	P=? [ F G b ]	unsupported: column 9: LTL formulas (a path operator inside a path) are not supported"
    assert_line -n 8 "-	E [ F b ]	unsupported: column 1: E [ ] and A [ ] (CTL's path quantifiers) are not supported"
    assert_line -n 9 "-	P=? [ F b ] / 2	unsupported: column 1: expressions of P, R or S operators (combined, or nested in a state formula) are not supported"
    assert_line -n 10 "-	P=? [ F^{rew{\"r\"}<=1, steps<=3} b ]	unsupported: column 7: several bounds on one operator (Storm's multi-dimensional bounds) are not supported"
    assert_line -n 11 "-	filter(max, filter(min, x))	unsupported: column 13: nested filters are not supported"
    assert_line -n 12 "-	P=? [ b ]	unsupported: column 7: P [ phi ] of a state formula phi (write F, U, G or X) and LTL formulas are not supported"
    assert_line -n 13 "-	R=? [ G b ]	unsupported: column 7: R [ ] of X, G, U, W or R paths (R takes F, C, I and S) are not supported"
}

@test "every QVBS properties file parses as written: the names and kinds of its index.json's properties, each supported" {
    local qvbs="${SHARED:-../shared}"
    [[ "$qvbs" == /* ]] || qvbs="$ROOT/$qvbs"
    qvbs="$qvbs/qvbs"
    [ -d "$qvbs" ] || skip "no QVBS families at $qvbs (SHARED=path/to/shared)"
    # index.json's property names and types: prob-* a P operator, exp-* an R operator,
    # prob-reach-reward-bounded a reward bound (written as one in firewire.false.props)
    python3 - "$qvbs" <<'PY'
import glob, json, os, subprocess, sys
files = sorted(glob.glob(os.path.join(sys.argv[1], '*', '*', '*.props')))
assert len(files) == 11, files
for f in files:
    out = subprocess.run(['propcheck', '--parse-only', '-P', f], check=True, capture_output=True, text=True).stdout
    idx = json.load(open(os.path.join(os.path.dirname(f), 'index.json')))
    want = {p['name']: p['type'] for p in idx['properties']}
    rows = [l.split('\t') for l in out.splitlines()]
    got = {r[0]: r[2] for r in rows}
    assert len(rows) == len(got) == len(want) and set(got) == set(want), (f, sorted(got), sorted(want))
    for name, form in got.items():
        assert form.split()[0] == {'prob': 'P', 'exp': 'R'}[want[name].split('-')[0]], (f, name, form, want[name])
        if want[name] == 'prob-reach-reward-bounded' and f.endswith('false.props'):
            assert 'rbound<={"time"}' in form, (f, name, form)
PY
}

@test "QVBS properties bind with QVBS's constants and count the states Python counts on valuations made up for them" {
    local qvbs="${SHARED:-../shared}"
    [[ "$qvbs" == /* ]] || qvbs="$ROOT/$qvbs"
    qvbs="$qvbs/qvbs"
    [ -d "$qvbs" ] || skip "no QVBS families at $qvbs (SHARED=path/to/shared)"
    python3 - "$qvbs" "$BATS_TEST_TMPDIR" <<'PY'
import json, os, random, subprocess, sys
qvbs, tmp = sys.argv[1], sys.argv[2]
random.seed(3)
B = 'bool'
# per properties file: its variables (ranges), labels, extra definitions (csma's formula from its model file),
# and per property the form as written and the Python of its target (and avoid)
spec = {
 'dtmc/brp/brp.props': ({'s': (0, 6), 'srep': (0, 3), 'recv': B}, [], '', {
    'p1': ('P any =? F', 's == 5', None),
    'p2': ('P any =? F', 's == 5 and srep == 2', None),
    'p4': ('P any =? F', 'srep != 0 and not recv', None)}),
 'dtmc/crowds/crowds.props': ({'observe0': (0, 3)}, [], '', {'positive': ('P any =? F', 'observe0 > 1', None)}),
 'dtmc/egl/egl.props': ({'phase': (0, 5)}, ['knowA', 'knowB'], '', {
    'messagesA': ('R any =? reward="messages_A_needs" F', 'phase == 4', None),
    'messagesB': ('R any =? reward="messages_B_needs" F', 'phase == 4', None),
    'unfairA': ('P any =? F', 'not knowA and knowB', None),
    'unfairB': ('P any =? F', 'not knowB and knowA', None)}),
 'dtmc/herman/herman.props': ({'x': (0, 1)}, ['stable'], '', {
    'steps': ('R any =? reward=first F filter=max', 'stable', None)}),
 'dtmc/leader_sync/leader_sync.props': ({'x': (0, 1)}, ['elected'], '', {
    'eventually_elected': ('P (min) >=1 F', 'elected', None),
    'time': ('R any =? reward="num_rounds" F', 'elected', None)}),
 'mdp/consensus/consensus.props': ({'x': (0, 1)}, ['finished', 'all_coins_equal_1', 'agree'], '', {
    'c1': ('P (min) >=1 F', 'finished', None),
    'c2': ('P min =? F', 'finished and all_coins_equal_1', None),
    'disagree': ('P max =? F', 'finished and not agree', None),
    'steps_max': ('R max =? reward="steps" F', 'finished', None),
    'steps_min': ('R min =? reward="steps" F', 'finished', None)}),
 'mdp/csma/csma.props': ({'s1': (0, 4), 's2': (0, 4), 'cd1': (0, 3), 'cd2': (0, 3)},
    ['collision_max_backoff', 'all_delivered'], 'csma.2-2.prism', {
    'all_before_max': ('P max =? U', 'all_delivered', 'not collision_max_backoff'),
    'all_before_min': ('P min =? U', 'all_delivered', 'not collision_max_backoff'),
    'some_before': ('P min =? F', 'min(cd1 if s1 == 4 else K + 1, cd2 if s2 == 4 else K + 1) < K', None),
    'time_max': ('R max =? reward="time" F', 'all_delivered', None),
    'time_min': ('R min =? reward="time" F', 'all_delivered', None)}),
 'mdp/firewire/firewire.false.props': ({'s1': (6, 9), 's2': (6, 9)}, ['done'], '', {
    'elected': ('P (min) >=1 F', 'done', None),
    'time_max': ('R max =? reward="time" F', 'done', None),
    'time_min': ('R min =? reward="time" F', 'done', None),
    'time_sending': ('R max =? reward="time_sending" F', 'done', None),
    'deadline': ('P min =? F rbound<=200{"time"}', '(s1 == 8 and s2 == 7) or (s1 == 7 and s2 == 8)', None)}),
 'mdp/firewire/firewire.true.props': ({'s1': (6, 9), 's2': (6, 9), 't': (195, 205)}, ['done'], '', {
    'elected': ('P (min) >=1 F', 'done', None),
    'time_max': ('R max =? reward="time" F', 'done', None),
    'time_min': ('R min =? reward="time" F', 'done', None),
    'time_sending': ('R max =? reward="time_sending" F', 'done', None),
    'deadline': ('P min =? F', '((s1 == 8 and s2 == 7) or (s1 == 7 and s2 == 8)) and t <= 200', None)}),
 'mdp/wlan/wlan.props': ({'s1': (10, 12), 's2': (10, 12), 'col': (0, 2)}, [], '', dict(
    [('collisions', ('P max =? F', 'col == 0', None)), ('sent', ('P (min) >=1 F', 's1 == 12 and s2 == 12', None))] +
    [(n, ('R %s =? reward="%s" F' % (d, r), 's1 == 12 and s2 == 12', None)) for n, d, r in
     [('cost_max', 'max', 'cost'), ('cost_min', 'min', 'cost'), ('num_collisions', 'max', 'collisions'),
      ('time_max', 'max', 'time'), ('time_min', 'min', 'time')]])),
 'mdp/zeroconf/zeroconf.props': ({'l': (0, 4), 'ip': (0, 2)}, [], '', {
    'correct_max': ('P max =? F', 'l == 4 and ip == 1', None),
    'correct_min': ('P min =? F', 'l == 4 and ip == 1', None)}),
}
checked = 0
for path, (variables, labels, model, props) in spec.items():
    d = os.path.join(qvbs, os.path.dirname(path))
    idx = json.load(open(os.path.join(d, 'index.json')))
    consts = {v['name']: v['value'] for v in idx['files'][0].get('open-parameter-values', [{}])[0].get('values', [])}
    text = open(os.path.join(qvbs, path)).read()
    if model:  # the model file's constant K and its formula, which its properties use
        lines = open(os.path.join(d, model)).read().splitlines()
        consts['K'] = int([l for l in lines if l.startswith('const int K')][0].split('=')[1].split(';')[0])
        text = '\n'.join(l for l in lines if l.startswith('formula min_backoff_after_success')) + '\n' + text
    n = 300
    rows = [{v: (random.random() < 0.5 if r == B else random.randint(*r)) for v, r in variables.items()} for _ in range(n)]
    for r in rows:
        for l in labels:
            r[l] = random.random() < 0.5
    rows[0]['init'] = True
    base = os.path.join(tmp, path.replace('/', '_'))
    with open(base + '.tra', 'w') as f:
        f.write('%d %d\n' % (n, n) + ''.join('%d %d 1\n' % (s, s) for s in range(n)))
    names = ['init', 'deadlock'] + labels
    with open(base + '.lab', 'w') as f:
        f.write(' '.join('%d="%s"' % (i, l) for i, l in enumerate(names)) + '\n')
        for s, r in enumerate(rows):
            ks = [str(i) for i, l in enumerate(names) if r.get(l)]
            if ks:
                f.write('%d: %s\n' % (s, ' '.join(ks)))
    with open(base + '.sta', 'w') as f:
        f.write('(%s)\n' % ','.join(variables))
        for s, r in enumerate(rows):
            f.write('%d:(%s)\n' % (s, ','.join(('true' if r[v] else 'false') if variables[v] == B else str(r[v]) for v in variables)))
    with open(base + '.props', 'w') as f:
        f.write(text)
    csr = subprocess.run(['prism2csr', '-l', base + '.lab', base + '.tra'], check=True, capture_output=True).stdout
    open(base + '.csr', 'wb').write(csr)
    cmd = ['propcheck', '-P', base + '.props', '--model', base + '.csr', '--sta', base + '.sta']
    if consts:
        cmd += ['--const', ','.join('%s=%s' % (k, str(v).lower()) for k, v in consts.items())]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    got = {l.split('\t')[0]: l.split('\t')[2] for l in out.splitlines() if not l.startswith('const ')}
    assert set(got) == set(props), (path, sorted(got), sorted(props))
    for name, (form, target, avoid) in props.items():
        env = lambda r: dict(r, K=consts.get('K'), min=min)
        want = form + ('' if avoid is None else ' avoid=%d' % sum(eval(avoid, {}, env(r)) for r in rows))
        want += ' target=%d' % sum(bool(eval(target, {}, env(r))) for r in rows)
        if 'filter=' in form:
            want += ' states=1'
        assert got[name] == want, (path, name, got[name], want)
        checked += 1
assert checked == 40, checked
PY
}

@test "nesting and size limits refuse deep or long input without exhausting the stack" {
    python3 -c "print('P=? [ F ' + '(' * 100000 + 'true' + ')' * 100000 + ' ]')" > "$BATS_TEST_TMPDIR/deep.props"
    run --separate-stderr propcheck -P "$BATS_TEST_TMPDIR/deep.props"
    assert_failure 1
    assert_equal "$stderr" "propcheck: $BATS_TEST_TMPDIR/deep.props: line 1, column 265: nested more than 256 deep"
    python3 -c "print('P=? [ F ' + 'true & ' * 5000 + 'true ]')" > "$BATS_TEST_TMPDIR/long.props"
    run --separate-stderr propcheck -P "$BATS_TEST_TMPDIR/long.props"
    assert_failure 1
    [[ "$stderr" == *"more than 4096 labels and operators" ]] || fail "$stderr"
    # formulas of formulas: each small, their expansion too large
    python3 -c "
print('formula f0 = x + x;')
for i in range(1, 40): print('formula f%d = f%d + f%d;' % (i, i - 1, i - 1))
print('P=? [ F f39 > 0 ]')" > "$BATS_TEST_TMPDIR/wide.props"
    printf '(x)\n0:(1)\n' > "$BATS_TEST_TMPDIR/s.sta"
    run propcheck -P "$BATS_TEST_TMPDIR/wide.props" --sta "$BATS_TEST_TMPDIR/s.sta"
    assert_success
    assert_output --partial "formulas expand to more than 65536 nodes or 4096 levels"
    # a chain of 6,000 constants: too deep to follow at once from its end, fine from its middle
    python3 -c "
print('const int c0 = 1;')
for i in range(1, 6000): print('const int c%d = c%d;' % (i, i - 1))
print('\"deep\": c5000 + 1;')
print('\"middle\": c3000 + 1;')" > "$BATS_TEST_TMPDIR/chain.props"
    run propcheck -P "$BATS_TEST_TMPDIR/chain.props"
    assert_success
    assert_line "deep	c5000 + 1	error: line 907, column 18: formulas and constants nested in one another more than 4096 levels deep"
    assert_line "middle	c3000 + 1	value value=int:2"
    # many operators in sequence and 200 levels of brackets are fine
    python3 -c "print('P=? [ F ' + 'x > 0 & ' * 1000 + '(' * 200 + 'true' + ')' * 200 + ' ]')" > "$BATS_TEST_TMPDIR/ok.props"
    run propcheck -P "$BATS_TEST_TMPDIR/ok.props" --sta "$BATS_TEST_TMPDIR/s.sta"
    assert_success
    assert_output --partial "P any =? F target=1"
}
