#!/bin/sh
# Parser throughput of prism2csr: MB/s of plain (decompressed) .tra text,
# parse time only (prism2csr -v), best of RUNS runs, with each thread count
# of THREADS (default "1 N", N the CPUs here), each run on that many CPUs
# (taskset -c 0-(j-1), prism2csr -j j).  Models: the medium ones of
# ../shared/models, or the .tra files given as arguments (paper-scale ones,
# made with build-large and csrexport).  Prints a Markdown table.
#   bench/prism2csr.sh [file.tra ...]
set -eu
. "$(dirname "$0")/common.sh"
runs=${RUNS:-5}
threads=${THREADS:-"1 $(nproc)"}
head="| model | transitions | .tra MB |"
rule="|---|---:|---:|"
for j in $threads; do head="$head $j thread(s): parse s (MB/s) |"; rule="$rule---:|"; done
echo "$head total s (parse, labels, write; $(echo "$threads" | awk '{ print $NF }') threads) |"
echo "$rule---:|"
list() {
    if [ $# -gt 0 ]; then
        for f in "$@"; do echo "$(basename "$f" .tra) - $f"; done
    else
        awk -F'\t' '$2 == "medium" { print $1, $6 }' "$models/INDEX.tsv"
    fi
}
list "$@" | while read -r name trans given; do
    tra="$out/$name.tra"
    lab=""
    if [ -n "${given:-}" ]; then
        tra=$given
    else
        if [ -f "$models/$name.tra.gz" ]; then zcat "$models/$name.tra.gz" > "$tra"; else cp "$models/$name.tra" "$tra"; fi
        lab="$models/$name.lab"; [ -f "$lab" ] || lab="$lab.gz"
    fi
    row=""
    for j in $threads; do
        best=""
        for i in $(seq "$runs"); do
            line=$(taskset -c "0-$((j - 1))" "$bin/prism2csr" -j "$j" -v ${lab:+-l "$lab"} "$tra" 2>&1 >/dev/null)
            mb=$(echo "$line" | sed -n 's/.*; \([0-9.]*\) MB of text parsed in \([0-9.]*\) s.*/\1/p')
            s=$(echo "$line" | sed -n 's/.*MB of text parsed in \([0-9.]*\) s.*/\1/p')
            rest=$(echo "$line" | sed -n 's/.*labels \([0-9.]*\) s; written in \([0-9.]*\) s.*/\1 \2/p')
            [ "$trans" != - ] || trans=$(echo "$line" | sed -n 's/.* \([0-9]*\) transitions;.*/\1/p')
            if [ -z "$best" ] || awk "BEGIN { exit !($s < $best) }"; then best=$s; bestrest=$rest; fi
        done
        row="$row $best ($(awk "BEGIN { printf \"%.0f\", $mb / $best }")) |"
    done
    total=$(echo "$best $bestrest" | awk '{ printf "%.3f", $1 + $2 + $3 }')
    echo "| $name | $trans | $mb |$row $total |"
    [ -n "${given:-}" ] || rm -f "$tra"
done
