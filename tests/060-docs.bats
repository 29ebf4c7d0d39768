#!/usr/bin/env bats
# Every tool has a man page with the netpbm sections, rendering cleanly,
# and documents every long option its -h lists.

load helper

@test "every tool has a man page with NAME, SYNOPSIS, DESCRIPTION, OPTIONS, EXIT STATUS and SEE ALSO" {
    for tool in "$ROOT"/build/bin/*; do
        name=${tool##*/}
        page="$ROOT/man/$name.1"
        [ -f "$page" ] || fail "$name: no man/$name.1"
        for section in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" "SEE ALSO"; do
            grep -q "^\.SH \"\?$section\"\?$" "$page" || fail "$name: no $section section"
        done
    done
}

@test "every man page renders without a groff warning" {
    command -v groff >/dev/null || skip "groff is not installed here (Debian: groff-base)"
    for page in "$ROOT"/man/*.1; do
        run groff -man -ww -z "$page"
        [ -z "$output" ] || fail "${page##*/}: groff warns: $output"
    done
}

@test "every option a tool's -h lists is in its man page" {
    for tool in "$ROOT"/build/bin/*; do
        name=${tool##*/}
        for opt in $("$tool" -h | grep -o -- '^ *-[a-z-]*' | tr -d ' '); do
            grep -q -- "$(printf '%s' "$opt" | sed 's/-/\\\\-/g')" "$ROOT/man/$name.1" ||
                fail "$name: $opt is not in man/$name.1"
        done
    done
}
