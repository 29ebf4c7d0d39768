#!/bin/bash
# MEC benchmark, after Table 2 of the CAV 2014 article: on each medium model,
# the basic sequential MEC algorithm (BM: gpu-mec --cpu) against gpu-mec (GM)
# on restructured input (-u 7, the pipeline's), on plain input, with the J
# sets, and in the article's best configuration (BFBT with trimming by
# sweeps), beside PRISM's own explicit MEC time (prism_mec_s of
# ../shared/models/INDEX.tsv, measured by PRISM on its machine).  Two times
# each, best of RUNS runs: the decomposition alone (--stats: BM's time, or the
# GPU time from upload to download) and end to end (the whole command).
# Speedups: BM over GM and PRISM over GM, decomposition times.
#   bench/mec.sh                 the medium models of ../shared/models
#   bench/mec.sh a.csr b.csr     these CSR files (no PRISM time)
set -euo pipefail
. "$(dirname "$0")/common.sh"
runs=${RUNS:-3}
configs=("GM u7|7|" "GM plain|0|" "GM u7 J|7|--j-set" "BFBT0,7|7|--bfbt --sweep-trim")

best() { sort -g | head -1; }

# time_of file args...: prints "decomposition end_to_end", best of $runs
time_of() {
    local file=$1; shift
    local d=() e=() i t0 t1 line
    for i in $(seq "$runs"); do
        t0=$(now)
        line=$("$bin/gpu-mec" "$@" --stats=json "$file" 2>&1 >/dev/null)
        t1=$(now)
        d+=("$(echo "$line" | jget gpu_s 2>/dev/null || echo "$line" | jget decompose_s)")
        e+=("$(awk "BEGIN { print $t1 - $t0 }")")
    done
    local db
    db=$(printf '%s\n' "${d[@]}" | best)
    echo "${db:--} $(printf '%s\n' "${e[@]}" | best)"
}

header="| model | states | transitions | MECs | rounds | PRISM s | BM s (e2e) |"
rule="|---|---:|---:|---:|---:|---:|---:|"
for c in "${configs[@]}"; do header+=" ${c%%|*} s (BM/GM, PRISM/GM) |"; rule+="---:|"; done
echo "$header"
echo "$rule"
model_list() {
    if [ $# -gt 0 ]; then
        for f in "$@"; do
            read -r states trans < <("$bin/csrinfo" "$f" | sed -n '1s/.*, \([0-9]*\) states, [0-9]* choices, \([0-9]*\) transitions/\1 \2/p')
            echo "$(basename "$f" .csr) $states $trans - $f"
        done
    else
        awk -F'\t' '$2 == "medium" && $3 == "mdp" { print $1, $4, $6, $11 }' "$models/INDEX.tsv" |
            while read -r name states trans prism; do
                tra="$models/$name.tra"; [ -f "$tra" ] || tra="$tra.gz"
                "$bin/prism2csr" "$tra" > "$out/$name.csr"
                echo "$name $states $trans $prism $out/$name.csr"
            done
    fi
}

model_list "$@" | while read -r name states trans prism csr; do
    [ "$csr" = "$out/$name.csr" ] || cp "$csr" "$out/$name.csr"
    "$bin/restructure" -u 7 "$out/$name.csr" > "$out/$name.u7.csr"
    read -r mecs rounds < <("$bin/gpu-mec" --cpu --stats=json "$out/$name.csr" 2>&1 >/dev/null | jget mecs rounds)
    read -r bd be <<< "$(time_of "$out/$name.csr" --cpu)"
    row="| $name | $states | $trans | $mecs | $rounds | $prism | $bd ($be) |"
    for c in "${configs[@]}"; do
        IFS='|' read -r label u opts <<< "$c"
        file="$out/$name.csr"; [ "$u" = 0 ] || file="$out/$name.u$u.csr"
        read -r gd ge <<< "$(time_of "$file" $opts)"
        if [ "$gd" = - ]; then row+=" failed |"; continue; fi
        row+=" $(awk -v p="$prism" "BEGIN { printf \"%.4f (%.1fx, %s; e2e %.3f)\", $gd, $bd / $gd, p == \"-\" ? \"-\" : sprintf(\"%.0fx\", p / $gd), $ge }") |"
    done
    echo "$row"
    rm -f "$out/$name.csr" "$out/$name.u7.csr"
done
