#!/usr/bin/env bats
# State valuations (CSR 1.3): read from PRISM's and Storm's UMB, PRISM's .sta
# and Storm's DRN, written as .sta and UMB, kept by restructure, shown by
# csrinfo, refused when broken.  The references are Storm's own values
# (tests/data/valuations, made once by tests/tools/storm-valuations.py),
# hand-checked facts of tests/data/valuations/neg.prism, and each field read
# alone (tests/tools/valcheck, against the validator's word-at-a-time check).

load helper

setup() {
    require_models
    T="$BATS_TEST_TMPDIR"
    V="$DATA/valuations"
}

# The .sta csrexport writes for CSR file $1, without its "# States" line
# (a folder of its own: two may run at once in one diff).
sta_of() { # csr
    local d
    d=$(mktemp -d "$T/sta_of.XXXXXX") && csrexport -o "$d/x" "$1" && grep -v '^#' "$d/x.sta"
}

# A copy of a UMB archive, edited: unpacks SRC, runs the command in the
# folder, packs every file into DEST with gzip (index.json first).
umb_edit() { # src dest command
    local dir="$T/edit.$RANDOM"
    mkdir -p "$dir"
    tar -xzf "$1" -C "$dir"
    (cd "$dir" && eval "$3")
    (cd "$dir" && tar --format=pax -czf "$2" index.json $(find . -type f ! -name index.json | sort))
}

# Edit index.json in place with perl (JSON::PP; python starts ten times
# slower): the code sees the index as $j.
json_edit() { # perl-code
    perl -MJSON::PP -0777 -i -pe '$j = decode_json($_); '"$1"'; $_ = JSON::PP->new->canonical->encode($j)' index.json
}

# prism2csr must refuse $1 with exit 1, nothing on stdout, and stderr $2.
refused() { # input... message
    local msg=${*: -1}
    run --separate-stderr prism2csr "${@:1:$#-1}"
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" "$msg"
}

@test "prism2csr reads the valuations of PRISM's UMB archives as Storm reads them, state by state" {
    for m in coin2 dice brp; do
        prism2csr "$MODELS/$m.umb" > "$T/$m.csr" || fail "$m: prism2csr failed"
        diff <(sta_of "$T/$m.csr") <(zcat "$V/$m.sta.gz") > /dev/null || fail "$m: valuations differ from Storm's"
    done
}

@test "prism2csr reads the valuations of Storm's UMB archives as Storm's own API gives them, state by state" {
    # consensus.2: uint from 0; egl: uint with Storm's offset 1; neg: a bool, offsets -3 and 5
    for m in consensus2 egl neg longap; do
        prism2csr "$V/$m.storm.umb" > "$T/$m.csr" || fail "$m: prism2csr failed"
        diff <(sta_of "$T/$m.csr") <(zcat "$V/$m.storm.sta.gz") > /dev/null || fail "$m: valuations differ from Storm's"
    done
}

@test "prism2csr reads Storm's DRN valuations, a true bool written as an empty item, as Storm's values" {
    grep -q $'^//\\[\t& x=-3\t& y=5\\]$' "$V/neg.storm.drn" || fail "Storm's DRN no longer writes a true bool as an empty item"
    prism2csr "$V/neg.storm.drn" > "$T/n.csr"
    diff <(sta_of "$T/n.csr") <(zcat "$V/neg.storm.sta.gz")
    prism2csr "$DATA/drn/brp.drn" > "$T/b.csr"
    diff <(sta_of "$T/b.csr") <(zcat "$V/brp.sta.gz")
}

@test "prism2csr reads a DRN file whose valuations are partial or malformed without them and says why under -v" {
    # state 5's valuation line removed, then one value not an integer
    sed '/^state 5$/{n;d}' "$V/neg.storm.drn" > "$T/partial.drn"
    [ "$(grep -c '^//\[' "$T/partial.drn")" -eq 17 ] || fail "the edit did not remove one valuation"
    run --separate-stderr prism2csr -v "$T/partial.drn"
    assert_success
    [[ "$stderr" == *"skipped: 17 state valuations (line 44: a state without a valuation before it)"* ]] || fail "$stderr"
    prism2csr "$T/partial.drn" | csrinfo - | grep -q '^  variables:    none$' || fail "valuations kept"
    sed 's/y=7\]/y=7.5]/' "$V/neg.storm.drn" > "$T/real.drn"
    run --separate-stderr prism2csr -v "$T/real.drn"
    assert_success
    [[ "$stderr" == *'(line 15: a value that is not a 64-bit integer, of "y")'* ]] || fail "$stderr"
}

@test "a .sta goes through CSR and back to the same text, and gives the CSR file of the UMB archive" {
    for m in coin2 dice brp; do
        zcat "$V/$m.sta.gz" > "$T/$m.sta"
        prism2csr -l "$(model_file "$m.lab")" -s "$T/$m.sta" "$(model_file "$m.tra")" > "$T/t.csr" ||
            fail "$m: prism2csr -s failed"
        diff <(sta_of "$T/t.csr") "$T/$m.sta" > /dev/null || fail "$m: .sta differs after the round trip"
        prism2csr --no-rewards "$MODELS/$m.umb" | cmp -s - "$T/t.csr" || fail "$m: not the UMB archive's CSR file"
        prism2csr -l "$(model_file "$m.lab")" -s "$V/$m.sta.gz" "$(model_file "$m.tra")" | cmp -s - "$T/t.csr" ||
            fail "$m: gzip'd .sta differs"
    done
}

@test "UMB to CSR to UMB to CSR keeps the valuations of PRISM's and Storm's archives byte for byte" {
    for f in "$MODELS/brp.umb" "$MODELS/herman7.umb" "$V/neg.storm.umb" "$V/egl.storm.umb"; do
        prism2csr "$f" > "$T/1.csr"
        csrexport -f umb -o "$T/back" "$T/1.csr"
        prism2csr "$T/back.umb" > "$T/2.csr" || fail "${f##*/}: our UMB does not read back"
        cmp -s "$T/1.csr" "$T/2.csr" || fail "${f##*/}: CSR files differ"
    done
    # as PRISM's exporter writes them: the negative range as int, the others as uint
    prism2csr "$V/neg.storm.umb" | csrexport -f umb -o "$T/neg" -
    run perl -MJSON::PP -0777 -ne 'for (@{decode_json($_)->{valuations}{states}{classes}[0]{variables}}) {
        print exists $_->{padding} ? "padding $_->{padding}\n" : "$_->{name} $_->{type}{type} $_->{type}{size}\n" }' \
        <(tar -xzOf "$T/neg.umb" index.json)
    assert_output $'b bool 1\nx int 3\ny uint 3\npadding 1'
}

@test "csrinfo shows the variables with their ranges and the valuation of the initial state of neg.prism" {
    prism2csr "$V/neg.storm.umb" > "$T/n.csr"
    run csrinfo "$T/n.csr"
    assert_success
    assert_line --index 0 "$T/n.csr:	CSR 1.3 MDP, 18 states, 18 choices, 33 transitions"
    assert_line "  variables:    3: b bool, x [-3..2], y [5..7]"
    assert_line "  valuation:    state 0: b=false x=-3 y=7"
    # without valuations a file keeps its minor version
    run csrinfo "$(model_csr fmsd_fig1)"
    assert_line --partial "CSR 1.0 MDP"
    assert_line "  variables:    none"
}

@test "csrinfo shows the first four initial valuations in PRISM's numbering, also after restructure" {
    prism2csr "$MODELS/herman7.umb" > "$T/h.csr"
    restructure -u 3 "$T/h.csr" > "$T/r.csr"
    for f in "$T/h.csr" "$T/r.csr"; do
        run csrinfo "$f"
        assert_line "  valuation:    state 0: x1=0 x2=0 x3=0 x4=0 x5=0 x6=0 x7=0"
        assert_line "                state 3: x1=0 x2=0 x3=0 x4=0 x5=0 x6=1 x7=1"
        assert_line "                ... (124 more initial states)"
    done
}

@test "restructure keeps each state's valuation: csrexport gives the same .sta in PRISM's numbering" {
    for m in coin2 brp herman7; do
        prism2csr "$MODELS/$m.umb" > "$T/a.csr"
        restructure -u 7 "$T/a.csr" > "$T/r.csr"
        csrinfo -q "$T/r.csr" || fail "$m: restructured file invalid"
        diff <(sta_of "$T/a.csr") <(sta_of "$T/r.csr") > /dev/null || fail "$m: .sta differs after restructure"
        restructure -u 0 "$T/r.csr" | cmp -s - "$T/a.csr" || fail "$m: restructure -u 0 does not undo it"
        cat "$T/r.csr" | csrinfo -q - || fail "$m: not read from a pipe"
    done
}

@test "prism2csr reads Storm's archive whose atomic proposition has a 231-byte ID, named by the expression's text" {
    # longap.prism has csma.3-2's formula: Storm's ID of "min_backoff_after_success<K" is its text hex-escaped
    local label states
    label=$(sed -n 1p "$V/longap.storm.ap")
    states=$(sed -n 2p "$V/longap.storm.ap")
    [ "$label" = "((min((min(((s1 = 4) ? cd1 : (2 + 1)), ((s2 = 4) ? cd2 : (2 + 1)))), ((s3 = 4) ? cd3 : (2 + 1)))) < 2)" ] ||
        fail "Storm's label is now: $label"
    tar -tzf "$V/longap.storm.umb" | grep -q '^annotations/aps/0x280x28min0x28[a-z0-9_-]\{200,\}/states/values.bin$' ||
        fail "Storm no longer names the member after the hex-escaped expression"
    prism2csr "$V/longap.storm.umb" > "$T/c.csr"
    csrexport -o "$T/c" "$T/c.csr"
    # the label's states in the .lab (names hold spaces: quoted, as PRISM writes them)
    run perl -e 'my ($lab, $label) = @ARGV; open my $f, "<", $lab or die; my ($k, @s);
        while (<$f>) { next if /^#/; if (!defined $k) { my %i = reverse /(\d+)="([^"]*)"/g; $k = $i{$label}; next }
                       my ($st, $l) = /^(\d+): (.*)/; push @s, $st if grep { $_ == $k } split " ", $l }
        print "@s\n"' "$T/c.lab" "$label"
    assert_output "$states"
    csrexport -f umb "$T/c.csr" | prism2csr | cmp - "$T/c.csr"
    prism2csr -l "$T/c.lab" -s "$T/c.sta" "$T/c.tra" > "$T/t.csr"
    csrinfo "$T/t.csr" | grep -qF "\"$label\" ($(wc -w <<< "$states"))" || fail "the label does not survive .lab"
}

@test "prism2csr refuses annotation IDs that are a path, not a name" {
    umb_edit "$V/neg.storm.umb" "$T/dot.umb" 'sed -i "s/\"top\": {/\"..\": {/" index.json && mv annotations/aps/top annotations/aps/..'
    refused "$T/dot.umb" "prism2csr: $T/dot.umb: bad UMB index (index.json): annotations: ap \"..\": the ID must be 1 to 4096 bytes, without '/', and not \".\" or \"..\""
    umb_edit "$V/neg.storm.umb" "$T/slash.umb" 'sed -i "s/\"top\": {/\"t\/p\": {/" index.json'
    refused "$T/slash.umb" "prism2csr: $T/slash.umb: bad UMB index (index.json): annotations: ap \"t/p\": the ID must be 1 to 4096 bytes, without '/', and not \".\" or \"..\""
    long=$(printf 'a%.0s' $(seq 4097))
    umb_edit "$V/neg.storm.umb" "$T/long.umb" "sed -i 's/\"top\": {/\"$long\": {/' index.json"
    run --separate-stderr prism2csr "$T/long.umb"
    assert_failure 1
    [[ "$stderr" == *"annotations: ap \"aaaaaaaaaa"*"...\": the ID must be 1 to 4096 bytes"* ]] || fail "$stderr"
}

@test "prism2csr refuses a UMB variable of type double, naming it, and reads the model without valuations with --no-valuations" {
    umb_edit "$V/neg.storm.umb" "$T/d.umb" 'json_edit '\''$j->{valuations}{states}{classes}[0]{variables}[1]{type} = {type => "double", size => 64}'\'''
    refused "$T/d.umb" "prism2csr: $T/d.umb: unsupported model: valuations: states: variable \"x\" has type \"double\": the CSR format holds bool and integer variables (prism2csr --no-valuations reads the model without valuations)"
    prism2csr --no-valuations "$T/d.umb" > "$T/d.csr"
    prism2csr --no-valuations "$V/neg.storm.umb" | cmp - "$T/d.csr"
    csrinfo "$T/d.csr" | grep -q '^  variables:    none$'
}

@test "prism2csr refuses two valuation classes, an optional variable and a valuations.bin of the wrong length" {
    umb_edit "$V/neg.storm.umb" "$T/c.umb" 'json_edit '\''my $c = $j->{valuations}{states}{classes}; push @$c, $c->[0]'\'''
    refused "$T/c.umb" "prism2csr: $T/c.umb: unsupported model: valuations: 2 classes of state valuations (PRISM's importer reads one; prism2csr --no-valuations reads the model without them)"
    umb_edit "$V/neg.storm.umb" "$T/o.umb" 'json_edit '\''$j->{valuations}{states}{classes}[0]{variables}[2]{"is-optional"} = JSON::PP::true'\'''
    refused "$T/o.umb" "prism2csr: $T/o.umb: unsupported model: valuations: states: variable \"y\" is optional: every state must have a value"
    umb_edit "$V/neg.storm.umb" "$T/l.umb" 'truncate -s -1 valuations/states/valuations.bin'
    refused "$T/l.umb" "prism2csr: $T/l.umb: archive member length does not match the counts: valuations/states/valuations.bin: 17 bytes where the counts of index.json give 18"
}

@test "csrinfo refuses a valuation outside its variable's range behind valid checksums" {
    prism2csr "$V/neg.storm.umb" > "$T/n.csr"
    # state 0's row: b (bit 0) false, x (bits 1-3) -3 + 0, y (bits 4-5) 5 + 2; y's field 3 is past upper 7
    csrpatch -c "$T/n.csr" VALUATIONS+0 30 > "$T/bad.csr"
    run --separate-stderr csrinfo "$T/bad.csr"
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" "csrinfo: $T/bad.csr: state valuation outside its variable's range: VALUATIONS: state 0: variable \"y\" holds 3, above upper - lower = 2 (range [5, 7])"
    csrpatch -c "$T/n.csr" VALUATIONS+0 a0 > "$T/bad.csr"
    run --separate-stderr csrinfo "$T/bad.csr"
    assert_equal "$stderr" "csrinfo: $T/bad.csr: state valuation outside its variable's range: VALUATIONS: state 0: the bits after the last variable are not zero"
}

@test "the validator names the first state and variable above its range as each field read alone does, on 100,000 random layouts" {
    # fields within a word (checked a word at a time), at its end, across it and of 64 bits; one task and a task per CPU
    run valcheck -n 100000 -s 1
    assert_success
    assert_output --regexp '^valcheck: 100000 layouts \(seeds 1 to 100000\): [0-9]{5} refused at the first faulty field, [0-9]{5} passed, as each field read alone gives$'
    run env CSR_TEST_GRAIN=1 valcheck -n 10000 -s 100001
    assert_success
    assert_output --regexp '^valcheck: 10000 layouts .*: [0-9]{4} refused at the first faulty field, [0-9]{4} passed'
}

@test "csrinfo refuses wrong widths, offsets, types and ranges in VARIABLE_INFO behind valid checksums" {
    prism2csr "$V/neg.storm.umb" > "$T/n.csr"
    bad_info() { # patch... message
        csrpatch -c "$T/n.csr" "${@:1:$#-1}" > "$T/bad.csr"
        run --separate-stderr csrinfo "$T/bad.csr"
        assert_failure 1
        assert_equal "$stderr" "csrinfo: $T/bad.csr: ${*: -1}"
    }
    # variable v's entry at VARIABLE_INFO+32v: type +0, width +4, offset +8, lower +16, upper +24
    bad_info VARIABLE_INFO+36 02 'bad state variable: VARIABLE_INFO: variable "x": width 2, but the range [-3, 2] needs 3 bits'
    bad_info VARIABLE_INFO+36 41 'bad state variable: VARIABLE_INFO: variable 1 ("x"): width 65 (1 to 64)'
    bad_info VARIABLE_INFO+72 05 'bad state variable: VARIABLE_INFO: variable "y": offset 5, expected 4 (the sum of the widths before it)'
    bad_info VARIABLE_INFO+0 03 'bad state variable: VARIABLE_INFO: variable "b": type 3 (1 bool, 2 int)'
    bad_info VARIABLE_INFO+16 01 'bad state variable: VARIABLE_INFO: variable "b": range [1, 1] (a bool'"'"'s is [0, 1])'
    bad_info VARIABLE_NAMES+0 78 'bad string table: VARIABLE_NAMES: name "x" appears twice'
    # widths whose sum needs two words a row: VALUATIONS is then too short for them
    bad_info VARIABLE_INFO+36 3f VARIABLE_INFO+72 40 'section length does not match the counts: VALUATIONS: 144 bytes, expected 18 states x 2 words'
}

@test "csrinfo refuses a file cut inside VALUATIONS, mapped and through a pipe" {
    prism2csr "$V/neg.storm.umb" > "$T/n.csr"
    size=$(stat -c %s "$T/n.csr")
    head -c $((size - 70)) "$T/n.csr" > "$T/cut.csr"
    run --separate-stderr csrinfo "$T/cut.csr"
    assert_failure 1
    assert_equal "$stderr" "csrinfo: $T/cut.csr: byte 0: file is truncated: $((size - 70)) bytes, header says $size"
    run --separate-stderr bash -c "cat '$T/cut.csr' | csrinfo"
    assert_failure 1
    assert_equal "$stderr" "csrinfo: (stdin): byte $((size - 70)): file is truncated: input ends at byte $((size - 70))"
}

@test "prism2csr refuses a .sta with a state missing, twice or out of range, naming file and line, writing nothing" {
    tra=$(model_file fmsd_fig1.tra)
    sta=$(write_file a.sta '# States\n(a,b)\n0:(1,true)\n1:(2,false)\n')
    refused -s "$sta" "$tra" "prism2csr: $sta:4: counts do not match the header: 2 states listed, the model has 8: state 2 has no line"
    sta=$(write_file b.sta '(a,b)\n0:(1,true)\n2:(2,false)\n')
    refused -s "$sta" "$tra" "prism2csr: $sta:3: not ascending and contiguous: state 2 where state 1 comes (one line a state, in order)"
    sta=$(write_file c.sta '(a,b)\n0:(1,true)\n0:(2,false)\n')
    refused -s "$sta" "$tra" "prism2csr: $sta:3: not ascending and contiguous: state 0 where state 1 comes (one line a state, in order)"
    printf '(a)\n' > "$T/d.sta"
    for s in $(seq 0 8); do echo "$s:($s)"; done >> "$T/d.sta"
    refused -s "$T/d.sta" "$tra" "prism2csr: $T/d.sta:10: counts do not match the header: state 8, but the model has 8 states"
}

@test "prism2csr refuses a .sta value that is not an integer or a bool, or of the other kind, naming file and line" {
    tra=$(model_file fmsd_fig1.tra)
    sta=$(write_file a.sta '(a,b)\n0:(1,0.5)\n')
    refused -s "$sta" "$tra" "prism2csr: $sta:2: malformed number: state 0, variable \"b\": \"0.5\" is not an integer (64 bits) or true/false"
    sta=$(write_file b.sta '(a,b)\n0:(9223372036854775808,1)\n')
    refused -s "$sta" "$tra" "prism2csr: $sta:2: malformed number: state 0, variable \"a\": \"9223372036854775808\" is not an integer (64 bits) or true/false"
    sta=$(write_file c.sta '(a,b)\n0:(1,true)\n1:(1,2)\n')
    refused -s "$sta" "$tra" "prism2csr: $sta:3: syntax error: state 1, variable \"b\": an integer where state 0 has true/false"
    sta=$(write_file d.sta '(a,b)\n0:(1)\n')
    refused -s "$sta" "$tra" "prism2csr: $sta:2: counts do not match the header: state 0 has fewer values than the 2 variables of the header"
    sta=$(write_file e.sta '(a,b)\n0:(1,2,3)\n')
    refused -s "$sta" "$tra" "prism2csr: $sta:2: counts do not match the header: state 0 has more values than the 2 variables of the header"
    sta=$(write_file f.sta '(a,a)\n')
    refused -s "$sta" "$tra" "prism2csr: $sta:1: bad string table: variable \"a\" named twice"
    sta=$(write_file g.sta '0:(1,2)\n')
    refused -s "$sta" "$tra" "prism2csr: $sta:1: syntax error: expected the variable names \"(x,y,...)\""
}

@test "prism2csr reads a .sta with the extremes of 64 bits, negative values and spaces, which csrexport writes back" {
    sta=$(write_file a.sta '# States\n(a, b ,c)\n0:(-9223372036854775808,true,0)\n1:( 9223372036854775807 ,false,-1)\n2:(0,true,0)\n3:(0,true,0)\n4:(0,true,0)\n5:(0,true,0)\n6:(0,true,0)\n7:(0,true,-5)\n')
    prism2csr -s "$sta" "$(model_file fmsd_fig1.tra)" > "$T/x.csr"
    run csrinfo "$T/x.csr"
    assert_line "  variables:    3: a [-9223372036854775808..9223372036854775807], b bool, c [-5..0]"
    run sta_of "$T/x.csr"
    assert_line --index 0 "(a,b,c)"
    assert_line --index 1 "0:(-9223372036854775808,true,0)"
    assert_line --index 2 "1:(9223372036854775807,false,-1)"
    assert_line --index 8 "7:(0,true,-5)"
    run prism2csr -s "$sta" "$MODELS/coin2.umb"
    assert_failure 2
    assert_output --partial "-l, -s and -r are for a .tra"
}

@test "prism2csr decodes a UMB's state valuations into the same bytes with a task per CPU as with one" {
    local f n=0
    for f in "$DATA"/qvbs/*.umb; do
        prism2csr "$f" > "$BATS_TEST_TMPDIR/one.csr"
        # CSR_TEST_GRAIN=1: the states in ranges, one a CPU, even for a few states
        CSR_TEST_GRAIN=1 prism2csr "$f" > "$BATS_TEST_TMPDIR/many.csr"
        cmp "$BATS_TEST_TMPDIR/one.csr" "$BATS_TEST_TMPDIR/many.csr" || fail "$f"
        csrinfo "$BATS_TEST_TMPDIR/many.csr" | grep -q " VALUATIONS " && n=$((n + 1))
    done
    [ "$n" -ge 5 ] || fail "only $n UMB files with valuations"
}

@test "prism2csr decodes a UMB's state valuations by one load a field into the same bytes as field by field" {
    local f n=0
    for f in "$DATA"/qvbs/*.umb "$V"/*.umb "$MODELS"/*.umb; do
        prism2csr "$f" > "$T/load.csr" || fail "$f: prism2csr failed"
        # CSR_TEST_VALUATIONS_BY_FIELD: each field by row_value and csr_put_variable_value, as before the loads
        CSR_TEST_VALUATIONS_BY_FIELD=1 prism2csr "$f" > "$T/field.csr" || fail "$f: prism2csr failed"
        cmp "$T/load.csr" "$T/field.csr" || fail "$f"
        csrinfo "$T/load.csr" | grep -q " VALUATIONS " && n=$((n + 1))
    done
    [ "$n" -ge 15 ] || fail "only $n UMB files with valuations"
}

@test "prism2csr reads a UMB int variable in two's complement, by one load a field as field by field" {
    # neg's x (3 bits, a uint with offset -3: -3..2) made an int: its fields 0..5 are 0, 1, 2, 3, -4 and -3
    umb_edit "$V/neg.storm.umb" "$T/int.umb" \
        "json_edit '\$x = \$j->{valuations}{states}{classes}[0]{variables}[1]; \$x->{type}{type} = \"int\"; delete \$x->{\$_} for qw(offset lower upper)'"
    prism2csr "$T/int.umb" > "$T/load.csr"
    CSR_TEST_VALUATIONS_BY_FIELD=1 prism2csr "$T/int.umb" > "$T/field.csr"
    cmp "$T/load.csr" "$T/field.csr"
    run csrinfo "$T/load.csr"
    assert_line "  variables:    3: b bool, x [-4..3], y [5..7]"
    assert_line "  valuation:    state 0: b=false x=0 y=7"
}

@test "prism2csr refuses a UMB uint whose value passes 64 signed bits with its offset, naming its first state, by one load a field as field by field" {
    # neg's x (3 bits, offset -3: fields 0 to 5) at offset 2^63 - 5: field 5 (x = 2, first in state 12) is 2^63
    umb_edit "$V/neg.storm.umb" "$T/big.umb" "json_edit '\$j->{valuations}{states}{classes}[0]{variables}[1]{offset} = 9223372036854775803'"
    msg="prism2csr: $T/big.umb: index out of range: valuations/states/valuations.bin: state 12: variable \"x\" does not fit 64 signed bits"
    refused "$T/big.umb" "$msg"
    CSR_TEST_GRAIN=1 refused "$T/big.umb" "$msg"
    CSR_TEST_VALUATIONS_BY_FIELD=1 refused "$T/big.umb" "$msg"
    # y (offset 5: fields 0 to 2) too at offset 2^63 - 2: its field 2 (y = 7) passes in state 0, before x's state 12
    umb_edit "$T/big.umb" "$T/two.umb" "json_edit '\$j->{valuations}{states}{classes}[0]{variables}[2]{offset} = 9223372036854775806'"
    msg="prism2csr: $T/two.umb: index out of range: valuations/states/valuations.bin: state 0: variable \"y\" does not fit 64 signed bits"
    refused "$T/two.umb" "$msg"
    CSR_TEST_VALUATIONS_BY_FIELD=1 refused "$T/two.umb" "$msg"
    # one less: every value fits, x from 2^63 - 5 to 2^63 - 1
    umb_edit "$V/neg.storm.umb" "$T/fits.umb" "json_edit '\$j->{valuations}{states}{classes}[0]{variables}[1]{offset} = 9223372036854775802'"
    prism2csr "$T/fits.umb" > "$T/load.csr"
    CSR_TEST_VALUATIONS_BY_FIELD=1 prism2csr "$T/fits.umb" > "$T/field.csr"
    cmp "$T/load.csr" "$T/field.csr"
    run csrinfo "$T/load.csr"
    assert_line "  variables:    3: b bool, x [9223372036854775802..9223372036854775807], y [5..7]"
}

@test "valuations whose fields cross a 64-bit word go through UMB and back the same by one load a field as field by field" {
    # a: 60 bits, b: 10 (bits 60-69 of the CSR row: across its first word), c: 3, d: a bool; the last state's b
    # (read from a copy of its row) has bits in the second word too
    sta=$(write_file w.sta '# States\n(a,b,c,d)\n0:(1152921504606846975,1000,-5,true)\n1:(0,0,0,false)\n2:(7,999,-1,true)\n3:(576460752303423488,512,-3,false)\n4:(1,1,0,true)\n5:(2,3,-2,false)\n6:(3,5,-4,true)\n7:(4,1000,-5,false)\n')
    prism2csr -s "$sta" "$(model_file fmsd_fig1.tra)" > "$T/x.csr"
    run csrinfo "$T/x.csr"
    assert_line "  variables:    4: a [0..1152921504606846975], b [0..1000], c [-5..0], d bool"
    csrexport -f umb -o "$T/x" "$T/x.csr"
    prism2csr "$T/x.umb" > "$T/load.csr"
    CSR_TEST_VALUATIONS_BY_FIELD=1 prism2csr "$T/x.umb" > "$T/field.csr"
    cmp "$T/load.csr" "$T/field.csr"
    diff <(sta_of "$T/load.csr") <(sta_of "$T/x.csr")
}

