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

@test "every shared model's counts agree with INDEX.tsv" {
    while IFS=$'\t' read -r name tier type states choices transitions rest; do
        [ "$name" = name ] && continue
        convert "$name"
        run csrinfo "$BATS_TEST_TMPDIR/csr/$name.csr"
        want="CSR 1.0 ${type^^}, $states states, $choices choices, $transitions transitions"
        [[ "${lines[0]}" == *"$want" ]] || fail "$name: '${lines[0]}' lacks '$want'"
    done < "$MODELS/INDEX.tsv"
}

# ---- one test per model (require_test_per_model checks the list is whole) ----

# model NAME: convert, validate, SCCs of gpu-scc --cpu against PRISM's, MECs
# of the pipeline prism2csr -l | gpu-mec --cpu against PRISM's (MDPs).
check_model() {
    local m=$1 mecs
    require_model "$m"
    convert "$m" || fail "prism2csr failed"
    csrinfo -q "$BATS_TEST_TMPDIR/csr/$m.csr" || fail "csrinfo found it invalid"
    gpu-scc --cpu "$BATS_TEST_TMPDIR/csr/$m.csr" > "$BATS_TEST_TMPDIR/$m.scc"
    run labelcmp -m 3 "$BATS_TEST_TMPDIR/$m.scc" "$(model_file "$m.sccs")"
    [ "$status" -eq 0 ] || fail "SCCs: $output"
    mecs=$(model_file "$m.mecs")
    [ -n "$mecs" ] || return 0
    prism2csr -l "$(model_file "$m.lab")" "$(model_file "$m.tra")" | gpu-mec --cpu > "$BATS_TEST_TMPDIR/$m.mec"
    run labelcmp -m 3 "$BATS_TEST_TMPDIR/$m.mec" "$mecs"
    [ "$status" -eq 0 ] || fail "MECs: $output"
}

@test "every model of INDEX.tsv has a test of its own in this file" {
    require_test_per_model "$BATS_TEST_FILENAME"
}

@test "fmsd_fig1: converts to a valid CSR file; gpu-scc --cpu and gpu-mec --cpu equal PRISM's SCCs and MECs" { check_model fmsd_fig1; }
@test "dice: converts to a valid CSR file; gpu-scc --cpu and gpu-mec --cpu equal PRISM's SCCs and MECs" { check_model dice; }
@test "brp: converts to a valid CSR file; gpu-scc --cpu and gpu-mec --cpu equal PRISM's SCCs and MECs" { check_model brp; }
@test "herman7: converts to a valid CSR file; gpu-scc --cpu and gpu-mec --cpu equal PRISM's SCCs and MECs" { check_model herman7; }
@test "coin2: converts to a valid CSR file; gpu-scc --cpu and gpu-mec --cpu equal PRISM's SCCs and MECs" { check_model coin2; }
@test "coin4: converts to a valid CSR file; gpu-scc --cpu and gpu-mec --cpu equal PRISM's SCCs and MECs" { check_model coin4; }
@test "leader3: converts to a valid CSR file; gpu-scc --cpu and gpu-mec --cpu equal PRISM's SCCs and MECs" { check_model leader3; }
@test "leader4: converts to a valid CSR file; gpu-scc --cpu and gpu-mec --cpu equal PRISM's SCCs and MECs" { check_model leader4; }
@test "csma2_2: converts to a valid CSR file; gpu-scc --cpu and gpu-mec --cpu equal PRISM's SCCs and MECs" { check_model csma2_2; }
@test "firewire_dl: converts to a valid CSR file; gpu-scc --cpu and gpu-mec --cpu equal PRISM's SCCs and MECs" { check_model firewire_dl; }
@test "zeroconf: converts to a valid CSR file; gpu-scc --cpu and gpu-mec --cpu equal PRISM's SCCs and MECs" { check_model zeroconf; }
@test "phil3: converts to a valid CSR file; gpu-scc --cpu and gpu-mec --cpu equal PRISM's SCCs and MECs" { check_model phil3; }
@test "mutual3: converts to a valid CSR file; gpu-scc --cpu and gpu-mec --cpu equal PRISM's SCCs and MECs" { check_model mutual3; }
@test "phil_lss3: converts to a valid CSR file; gpu-scc --cpu and gpu-mec --cpu equal PRISM's SCCs and MECs" { check_model phil_lss3; }
@test "dining_crypt3: converts to a valid CSR file; gpu-scc --cpu and gpu-mec --cpu equal PRISM's SCCs and MECs" { check_model dining_crypt3; }
@test "wlan1: converts to a valid CSR file; gpu-scc --cpu and gpu-mec --cpu equal PRISM's SCCs and MECs" { check_model wlan1; }
@test "leader6: converts to a valid CSR file; gpu-scc --cpu and gpu-mec --cpu equal PRISM's SCCs and MECs" { check_model leader6; }
@test "coin4_6: converts to a valid CSR file; gpu-scc --cpu and gpu-mec --cpu equal PRISM's SCCs and MECs" { check_model coin4_6; }
@test "wlan3: converts to a valid CSR file; gpu-scc --cpu and gpu-mec --cpu equal PRISM's SCCs and MECs" { check_model wlan3; }
@test "csma3_2: converts to a valid CSR file; gpu-scc --cpu and gpu-mec --cpu equal PRISM's SCCs and MECs" { check_model csma3_2; }
@test "mutual5: converts to a valid CSR file; gpu-scc --cpu and gpu-mec --cpu equal PRISM's SCCs and MECs" { check_model mutual5; }
@test "dining_crypt6: converts to a valid CSR file; gpu-scc --cpu and gpu-mec --cpu equal PRISM's SCCs and MECs" { check_model dining_crypt6; }
