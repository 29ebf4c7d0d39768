#!/bin/bash
# UMB vs text read speed of prism2csr (issue 7): the same model read from its
# .tra (+ .lab; plain text and gzip) and from UMB archives (PRISM's or Storm's
# export, and csrexport's), whole conversion to CSR (read, check, write to
# /dev/null), wall seconds, best of RUNS runs on one core.  Prints a Markdown table.
#   bench/umb.sh [NAME.umb ...]   large models' UMB files (e.g. build-large --umb);
#                                 their .tra is written by csrexport (PRISM's format)
set -eu
. "$(dirname "$0")/common.sh"
runs=${RUNS:-3}
TIMEFORMAT=%R
best_of() { # command... -> best wall seconds
    local best="" s
    for i in $(seq "$runs"); do
        s=$( { time taskset -c 0 "$@" > /dev/null 2>/dev/null; } 2>&1 )
        if [ -z "$best" ] || awk "BEGIN { exit !($s < $best) }"; then best=$s; fi
    done
    echo "$best"
}
row() { # model transitions input file seconds base_seconds
    local mb
    mb=$(du -k "$4" | awk '{ printf "%.1f", $1 / 1024 }')
    echo "| $1 | $2 | $3 | $mb | $5 | $(awk "BEGIN { printf \"%.2f\", $6 / $5 }") |"
}
echo "| model | transitions | input | MiB on disk | best s | speed-up over plain .tra |"
echo "|---|---:|---|---:|---:|---:|"
one_model() { # name tra lab umb-files...
    local name=$1 tra=$2 lab=$3; shift 3
    local trans base s
    trans=$("$bin/prism2csr" "$1" | "$bin/csrinfo" | sed -n 's/.* \([0-9]*\) transitions$/\1/p')
    base=$(best_of "$bin/prism2csr" -l "$lab" "$tra")
    row "$name" "$trans" ".tra + .lab (text)" "$tra" "$base" "$base"
    gzip -1 -c "$tra" > "$out/$name.tra.gz"
    s=$(best_of "$bin/prism2csr" -l "$lab" "$out/$name.tra.gz")
    row "$name" "$trans" ".tra.gz + .lab (gzip -1)" "$out/$name.tra.gz" "$s" "$base"
    for u in "$@"; do
        s=$(best_of "$bin/prism2csr" "$u")
        row "$name" "$trans" "${u##*/} ($(tar -xOf "$u" index.json 2>/dev/null | sed -n 's/.*"tool": "\([^"]*\)".*/\1/p' | head -1))" "$u" "$s" "$base"
        s=$(best_of sh -c "\"$bin/prism2csr\" < \"$u\"")
        row "$name" "$trans" "${u##*/} on stdin (zlib)" "$u" "$s" "$base"
    done
    # the first archive uncompressed: what the format costs without inflate
    zcat "$1" > "$out/$name.tar"
    s=$(best_of "$bin/prism2csr" "$out/$name.tar")
    row "$name" "$trans" "${1##*/}, uncompressed (zcat)" "$out/$name.tar" "$s" "$base"
    rm -f "$out/$name.tra.gz" "$out/$name.tar"
}
# leader6: PRISM's own .tra and .umb.
zcat -f "$(ls "$models"/leader6.tra* | head -1)" > "$out/leader6.tra"
"$bin/prism2csr" "$models/leader6.umb" | "$bin/csrexport" -f umb > "$out/leader6.ours.umb"
one_model leader6 "$out/leader6.tra" "$models/leader6.lab" "$models/leader6.umb" "$out/leader6.ours.umb"
rm -f "$out/leader6.tra" "$out/leader6.ours.umb"
for u in "$@"; do
    name=${u##*/}; name=${name%.umb}
    "$bin/prism2csr" "$u" > "$out/$name.csr"
    "$bin/csrexport" -o "$out/$name" "$out/$name.csr"
    "$bin/csrexport" -f umb "$out/$name.csr" > "$out/$name.ours.umb"
    one_model "$name" "$out/$name.tra" "$out/$name.lab" "$u" "$out/$name.ours.umb"
    rm -f "$out/$name.csr" "$out/$name.tra" "$out/$name.lab" "$out/$name.ours.umb"
done
