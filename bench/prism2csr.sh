#!/bin/sh
# Parser throughput of prism2csr on the medium models of ../shared/models:
# MB/s of plain (decompressed) .tra text, parse time only (prism2csr -v),
# best of RUNS runs on one core.  Prints a Markdown table.
set -eu
. "$(dirname "$0")/common.sh"
runs=${RUNS:-5}
echo "| model | transitions | .tra MB | best parse s | MB/s | total s (parse, labels, write) |"
echo "|---|---:|---:|---:|---:|---:|"
awk -F'\t' '$2 == "medium" { print $1, $6 }' "$models/INDEX.tsv" | while read -r name trans; do
    tra="$out/$name.tra"
    if [ -f "$models/$name.tra.gz" ]; then zcat "$models/$name.tra.gz" > "$tra"; else cp "$models/$name.tra" "$tra"; fi
    lab="$models/$name.lab"; [ -f "$lab" ] || lab="$lab.gz"
    best=""
    for i in $(seq "$runs"); do
        line=$(taskset -c 0 "$bin/prism2csr" -v -l "$lab" "$tra" 2>&1 >/dev/null)
        mb=$(echo "$line" | sed -n 's/.*; \([0-9.]*\) MB of text parsed in \([0-9.]*\) s.*/\1/p')
        s=$(echo "$line" | sed -n 's/.*MB of text parsed in \([0-9.]*\) s.*/\1/p')
        rest=$(echo "$line" | sed -n 's/.*labels \([0-9.]*\) s; written in \([0-9.]*\) s.*/\1 \2/p')
        if [ -z "$best" ] || awk "BEGIN { exit !($s < $best) }"; then best=$s; bestrest=$rest; fi
    done
    total=$(echo "$best $bestrest" | awk '{ printf "%.3f", $1 + $2 + $3 }')
    echo "| $name | $trans | $mb | $best | $(awk "BEGIN { printf \"%.0f\", $mb / $best }") | $total |"
    rm -f "$tra"
done
