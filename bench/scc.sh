#!/bin/bash
# SCC benchmark, after Table 1 of the CAV 2014 article: on each medium model,
# sequential Tarjan (gpu-scc --cpu) against gpu-scc in the article's
# configurations F_c,u (c local-cache iterations, input restructured with
# restructure -u u), F0,1-nh (no hybrid kernel) and BFBT, all with the
# article's trimming by sweeps, plus our default (trimming over queues) on
# plain and on -u 7 input.  Two times each, best of RUNS runs: the decomposition alone
# (--stats: Tarjan's time, or the GPU time from upload to download) and end
# to end (the whole command: reading the file, CUDA start-up, writing labels).
# Speedups are Tarjan's time over the configuration's, per kind of time.
#   bench/scc.sh                 the medium models of ../shared/models
#   bench/scc.sh a.csr b.csr     these CSR files (bench/scc-large.sh)
set -euo pipefail
. "$(dirname "$0")/common.sh"
runs=${RUNS:-3}
configs=("plain|0|" "F0,1|1|-c 0 --sweep-trim" "F0,7|7|-c 0 --sweep-trim" "F3,1|1|-c 3 --sweep-trim"
         "F3,7|7|-c 3 --sweep-trim" "F0,1-nh|1|-c 0 --nh --sweep-trim" "BFBT|7|--bfbt --sweep-trim" "queue F0,7|7|")

best() { sort -g | head -1; }

# time_of file args...: prints "decomposition end_to_end", best of $runs
time_of() {
    local file=$1; shift
    local d=() e=() i t0 t1 line
    for i in $(seq "$runs"); do
        t0=$(now)
        line=$("$bin/gpu-scc" "$@" --stats=json "$file" 2>&1 >/dev/null)
        t1=$(now)
        d+=("$(echo "$line" | jget gpu_s 2>/dev/null || echo "$line" | jget decompose_s)")
        e+=("$(awk "BEGIN { print $t1 - $t0 }")")
    done
    local db
    db=$(printf '%s\n' "${d[@]}" | best)
    echo "${db:--} $(printf '%s\n' "${e[@]}" | best)"
}

header="| model | states | transitions | SCCs | Tarjan s (e2e) |"
rule="|---|---:|---:|---:|---:|"
for c in "${configs[@]}"; do header+=" ${c%%|*} s (x) |"; rule+="---:|"; done
echo "$header"
echo "$rule"
model_list() {
    if [ $# -gt 0 ]; then
        for f in "$@"; do
            read -r states trans < <("$bin/csrinfo" "$f" | sed -n '1s/.*, \([0-9]*\) states, [0-9]* choices, \([0-9]*\) transitions/\1 \2/p')
            echo "$(basename "$f" .csr) $states $trans $f"
        done
    else
        awk -F'\t' '$2 == "medium" { print $1, $4, $6 }' "$models/INDEX.tsv" | while read -r name states trans; do
            tra="$models/$name.tra"; [ -f "$tra" ] || tra="$tra.gz"
            "$bin/prism2csr" "$tra" > "$out/$name.csr"
            echo "$name $states $trans $out/$name.csr"
        done
    fi
}

model_list "$@" | while read -r name states trans csr; do
    [ "$csr" = "$out/$name.csr" ] || cp "$csr" "$out/$name.csr"
    "$bin/restructure" -u 1 "$out/$name.csr" > "$out/$name.u1.csr"
    "$bin/restructure" -u 7 "$out/$name.csr" > "$out/$name.u7.csr"
    sccs=$("$bin/gpu-scc" --cpu "$out/$name.csr" | sort -u | wc -l)
    read -r td te <<< "$(time_of "$out/$name.csr" --cpu)"
    row="| $name | $states | $trans | $sccs | $td ($te) |"
    for c in "${configs[@]}"; do
        IFS='|' read -r label u opts <<< "$c"
        file="$out/$name.csr"; [ "$u" = 0 ] || file="$out/$name.u$u.csr"
        read -r gd ge <<< "$(time_of "$file" $opts)"
        if [ "$gd" = - ]; then row+=" failed |"; continue; fi
        row+=" $(awk "BEGIN { printf \"%.4f (%.1fx; e2e %.3f, %.2fx)\", $gd, $td / $gd, $ge, $te / $ge }") |"
    done
    echo "$row"
    rm -f "$out/$name.csr" "$out/$name.u1.csr" "$out/$name.u7.csr"
done
