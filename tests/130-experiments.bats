#!/usr/bin/env bats
# examples/experiments/Makefile: experiments driven by make, on two small models.

load helper

setup() {
    require_models
    M="$BATS_TEST_TMPDIR/models"
    mkdir -p "$M"
    cp "$MODELS"/coin2.* "$MODELS"/dice.* "$MODELS/INDEX.tsv" "$M/"
    BIN_DIR=$(dirname "$(command -v prism2csr)")
    X=(-s -C "$ROOT/examples/experiments" MODELS="$M" OUT="$BATS_TEST_TMPDIR/out" BIN="$BIN_DIR")
}

@test "the experiments Makefile converts, checks against PRISM, solves every query and collects the times of two models" {
    run make "${X[@]}" -j4
    assert_success
    run cat "$BATS_TEST_TMPDIR/out/coin2.check" "$BATS_TEST_TMPDIR/out/dice.check"
    assert_output $'coin2 ok\ndice ok'
    run cut -f1,4 "$BATS_TEST_TMPDIR/out/coin2.values"
    assert_output $'1\tok\n2\tok\n3\tok\n4\tok'
    run cut -f1-3 "$BATS_TEST_TMPDIR/out/results.tsv"
    assert_output $'name\tstates\ttransitions\ncoin2\t272\t492\ndice\t13\t20'
    if command -v gnuplot >/dev/null; then
        [ -s "$BATS_TEST_TMPDIR/out/results.svg" ] || fail "no plot"
    else # the set-up does not install it: said, not failed
        run make "${X[@]}" "$BATS_TEST_TMPDIR/out/results.svg"
        assert_success
        assert_output "results.svg: gnuplot is not installed (Debian: gnuplot-nox); no plot"
        grep -q 'does not install' "$ROOT/examples/README.md" || fail "examples/README.md does not say so"
    fi
}

@test "the experiments Makefile reruns only the chain of the model that changed" {
    make "${X[@]}" -j4 2>/dev/null
    touch "$M/coin2.tra"
    run make "${X[@]}" -n
    assert_success
    assert_output --partial "coin2.tra"
    refute_output --partial "dice.csr"
    refute_output --partial "dice.tra"
}

@test "the experiments Makefile stops on an answer that differs from PRISM's and keeps no half-written file" {
    printf 'SCC 1/1:\n0:(0)\n1:(1)\n' > "$M/dice.sccs"
    run make "${X[@]}" "$BATS_TEST_TMPDIR/out/dice.check"
    assert_failure
    assert_output --partial "dice: SCCs differ from PRISM's"
    [ ! -e "$BATS_TEST_TMPDIR/out/dice.check" ] || fail "dice.check written"
    [ ! -e "$BATS_TEST_TMPDIR/out/dice.check.tmp" ] || fail "dice.check.tmp left"
}

@test "the experiments Makefile takes a relative MODELS from where make was called, and names what a missing model lacks" {
    cd "$BATS_TEST_TMPDIR"
    run make -s -C "$ROOT/examples/experiments" MODELS=models NAMES=dice OUT="$BATS_TEST_TMPDIR/rel" BIN="$BIN_DIR"
    assert_success
    assert_equal "$(cat "$BATS_TEST_TMPDIR/rel/dice.check")" "dice ok"
    run make -s -C "$ROOT/examples/experiments" MODELS=no-such-dir NAMES=dice OUT="$BATS_TEST_TMPDIR/rel" BIN="$BIN_DIR"
    assert_failure
    assert_output --partial "MODELS=no-such-dir: no such directory"
    run make -s -C "$ROOT/examples/experiments" MODELS=models NAMES=nosuch OUT="$BATS_TEST_TMPDIR/rel" BIN="$BIN_DIR"
    assert_failure
    assert_output --partial "models/nosuch.tra or nosuch.lab (plain or .gz)"
    [[ "$output" != *usage:* ]] || fail "prism2csr's help: $output"
}
