#!/usr/bin/env bats
# Every model of ../shared/models: conversion, validation, and the CPU
# references' SCCs and MECs against PRISM's own -exportsccs / -exportmecs.

load helper

setup() {
    require_models
    mkdir -p "$BATS_TEST_TMPDIR/csr"
}

convert() { # name -> $BATS_TEST_TMPDIR/csr/name.csr
    local lab
    lab=$(model_file "$1.lab")
    prism2csr -l "$lab" "$(model_file "$1.tra")" > "$BATS_TEST_TMPDIR/csr/$1.csr"
}

@test "every shared model converts to a valid CSR file" {
    local n=0
    for m in $(model_names); do
        convert "$m" || fail "$m: prism2csr failed"
        csrinfo -q "$BATS_TEST_TMPDIR/csr/$m.csr" || fail "$m: csrinfo found it invalid"
        n=$((n + 1))
    done
    [ "$n" -ge "$(at_least 22 16)" ] || fail "only $n models found"
}

@test "every shared model's counts agree with INDEX.tsv" {
    while IFS=$'\t' read -r name tier type states choices transitions rest; do
        [ "$name" = name ] && continue
        convert "$name"
        run csrinfo "$BATS_TEST_TMPDIR/csr/$name.csr"
        want="CSR 1.0 ${type^^}, $states states, $choices choices, $transitions transitions"
        [[ "${lines[0]}" == *"$want" ]] || fail "$name: '${lines[0]}' lacks '$want'"
    done < "$MODELS/INDEX.tsv"
}

@test "gpu-scc --cpu equals PRISM's SCCs on every shared model" {
    for m in $(model_names); do
        convert "$m"
        gpu-scc --cpu "$BATS_TEST_TMPDIR/csr/$m.csr" > "$BATS_TEST_TMPDIR/$m.scc"
        run labelcmp -m 3 "$BATS_TEST_TMPDIR/$m.scc" "$(model_file "$m.sccs")"
        [ "$status" -eq 0 ] || fail "$m: $output"
    done
}

@test "prism2csr -l m.lab m.tra | gpu-mec --cpu equals PRISM's MECs on every shared MDP" {
    local n=0
    for m in $(model_names); do
        mecs=$(model_file "$m.mecs")
        [ -n "$mecs" ] || continue
        prism2csr -l "$(model_file "$m.lab")" "$(model_file "$m.tra")" | gpu-mec --cpu > "$BATS_TEST_TMPDIR/$m.mec"
        run labelcmp -m 3 "$BATS_TEST_TMPDIR/$m.mec" "$mecs"
        [ "$status" -eq 0 ] || fail "$m: $output"
        n=$((n + 1))
    done
    [ "$n" -ge "$(at_least 18 13)" ] || fail "only $n MDPs with .mecs found"
}
