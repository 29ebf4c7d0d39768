#!/bin/bash
# End to end (issue 14): what a user waits for, from PRISM's export or a UMB
# archive to MEC labels, each step and the whole pipeline, in one run on one
# machine, with Storm 2.0's UMB import and MEC decomposition beside it.
#
#   bench/e2e.sh [MODEL...]     default: leader8 phil7 wlan6_2500 leader7 coin6_4
#
# Models: NAME.csr and NAME.umb in $LARGE (default /tmp/large), as bench/large.sh
# makes them (build-large --umb, then prism2csr; large.sh --prepare builds
# them); NAME.tra and NAME.lab are written there by csrexport when missing
# (build-large numbers states in Storm's order, so the text is PRISM's format
# of the same model, not PRISM's numbering).  Per model, best of RUNS
# (default 2), files in the page cache (each file is read once first):
#   prism2csr    .tra/.lab -> CSR file, with THREADS threads (default "1 4 N"),
#                seconds and MB/s of text; the CSR files of all thread counts
#                must be byte-identical
#   restructure  -u 7, CSR file -> CSR file
#   gpu-mec      CSR file -> labels file, end to end, with the parts of
#                --stats=json (read, waiting for the CUDA context, upload +
#                decomposition + download, write)
#   files        prism2csr -j N to a file, then gpu-mec from it (the sum)
#   pipe         prism2csr -l NAME.lab NAME.tra | gpu-mec
#   pipe -u 7    prism2csr | restructure -u 7 | gpu-mec (the article's pipeline)
#   umb          prism2csr NAME.umb | gpu-mec
#   Storm        stormpy.build_model_from_umb(NAME.umb) and
#                stormpy.analysis.get_maximal_end_components (bench/storm-mec.py),
#                from $OUT/large.jsonl of a bench/large.sh run of the same call
#                when it has them, else run here when stormpy imports (STORM=0
#                skips it)
# Peak RSS (MiB) of prism2csr and gpu-mec, from wait4 (bench/peak-rss.py).
# Every labels file must equal the CPU reference's (gpu-mec --cpu, or
# bench/out/NAME.mecs of a bench/large.sh run of the same call).  Prints a
# Markdown table; one JSON line per model in $OUT/e2e.jsonl.
set -uo pipefail
. "$(dirname "$0")/common.sh"
runs=${RUNS:-2}
large=${LARGE:-/tmp/large}
threads=${THREADS:-"1 4 $(nproc)"}
jmax=$(echo "$threads" | awk '{ print $NF }')
jsonl=${OUT:-$out}/e2e.jsonl
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(leader8 phil7 wlan6_2500 leader7 coin6_4)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/e2e.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
: > "$jsonl"

# best CMD: the best wall time in seconds of RUNS runs of the shell command CMD
# (an empty answer when a run fails)
best() {
    local b="" i t0 t1
    for i in $(seq "$runs"); do
        t0=$(now)
        bash -o pipefail -c "$1" || return 1
        t1=$(now)
        b=$(awk -v b="$b" -v t="$(awk "BEGIN { print $t1 - $t0 }")" 'BEGIN { print (b == "" || t < b) ? t : b }')
    done
    echo "$b"
}
mib() { awk "BEGIN { printf \"%.0f\", $(stat -c %s "$1") / 1048576 }"; }
# r3 X...: each number with 3 decimals ("-" and empty words kept)
r3() { for x in "$@"; do case $x in -|'') printf '%s ' "${x:--}" ;; *) awk -v x="$x" 'BEGIN { printf "%.3f ", x }' ;; esac; done | sed 's/ $//'; }
same() { cmp -s "$1" "$2" && echo ok || echo WRONG; }

lscpu | grep -E 'Model name|^CPU\(s\)' >&2
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >&2 || true
echo "commit ${COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}, $(date -u +%Y-%m-%d), runs $runs" >&2
storm_ok=0
[ "${STORM:-1}" = 1 ] && python3 -c 'import stormpy' 2>/dev/null && storm_ok=1

head="| model | .tra+.lab MB |"
rule="|---|---:|"
for j in $threads; do head+=" prism2csr -j $j s (MB/s) |"; rule+="---:|"; done
head+=" restructure -u 7 s | gpu-mec from CSR: e2e s (read / CUDA wait / GPU / write) | files s | pipe s | pipe -u 7 s | from UMB s | Storm import + MEC s | Storm / ours (UMB) | peak RSS MiB (prism2csr, gpu-mec) | labels |"
rule+="---:|---|---:|---:|---:|---:|---|---:|---|---|"
rows=()
for name in "${names[@]}"; do
    while [ -f "$large/$name.building" ]; do sleep 2; done
    csr=$large/$name.csr umb=$large/$name.umb tra=$large/$name.tra lab=$large/$name.lab
    [ -f "$csr" ] || { echo "$name: no $csr (bench/large.sh --prepare $name)" >&2; continue; }
    if [ ! -f "$tra" ] || [ ! -f "$lab" ]; then
        tool csrexport -f tra -o "$large/$name" "$csr" || { echo "$name: csrexport failed" >&2; continue; }
    fi
    cat "$tra" "$lab" "$csr" > /dev/null
    [ -f "$umb" ] && cat "$umb" > /dev/null
    ref=$out/$name.mecs
    [ -s "$ref" ] || tool gpu-mec --cpu "$csr" > "$ref" || { echo "$name: gpu-mec --cpu failed" >&2; continue; }
    text_mb=$(awk "BEGIN { printf \"%.0f\", ($(stat -c %s "$tra") + $(stat -c %s "$lab")) / 1e6 }")
    row="| $name | $text_mb |"
    labels=ok
    declare -A parse=()
    for j in $threads; do
        s=$(best "taskset -c 0-$((j - 1)) '$bin/prism2csr' -j $j -l '$lab' '$tra' > '$tmp/$j.csr'")
        parse[$j]=$s
        row+=" $(r3 "${s:-}") ($(awk "BEGIN { printf \"%.0f\", $text_mb / ${s:-1e9} }")) |"
        [ "$(same "$tmp/$j.csr" "$tmp/$(echo "$threads" | awk '{ print $1 }').csr")" = ok ] || labels="CSR differs at -j $j"
    done
    restr=$(best "'$bin/restructure' -u 7 '$csr' > '$tmp/u7.csr'")
    # gpu-mec from the file, with its parts
    best_e2e="" parts=""
    for i in $(seq "$runs"); do
        t0=$(now)
        js=$(tool gpu-mec --stats=json "$tmp/$jmax.csr" 2>&1 > "$tmp/file.labels")
        t1=$(now)
        e=$(awk "BEGIN { print $t1 - $t0 }")
        [ "$(same "$tmp/file.labels" "$ref")" = ok ] || labels="gpu-mec labels differ"
        if [ -z "$best_e2e" ] || awk "BEGIN { exit !($e < $best_e2e) }"; then
            best_e2e=$e
            parts=$(echo "$js" | jget read_s device_wait_s gpu_s write_s)
            last_json=$js
        fi
    done
    files=$(awk "BEGIN { print ${parse[$jmax]:-0} + $best_e2e }")
    pipe=$(best "'$bin/prism2csr' -l '$lab' '$tra' | '$bin/gpu-mec' > '$tmp/pipe.labels'")
    [ "$(same "$tmp/pipe.labels" "$ref")" = ok ] || labels="pipe labels differ"
    pipe7=$(best "'$bin/prism2csr' -l '$lab' '$tra' | '$bin/restructure' -u 7 | '$bin/gpu-mec' > '$tmp/pipe7.labels'")
    [ "$(same "$tmp/pipe7.labels" "$ref")" = ok ] || labels="pipe -u 7 labels differ"
    fromumb=- storm=- ratio=- load=- smec=-
    if [ -f "$umb" ]; then
        fromumb=$(best "'$bin/prism2csr' '$umb' | '$bin/gpu-mec' > '$tmp/umb.labels'")
        [ "$(same "$tmp/umb.labels" "$ref")" = ok ] || labels="UMB labels differ"
        # Storm's figures from a bench/large.sh run of the same call, if any
        sj=$(grep -h "\"model\": \"$name\"" "${OUT:-$out}/large.jsonl" 2>/dev/null | grep storm_mec_s | tail -1)
        if [ -z "$sj" ] && [ $storm_ok = 1 ]; then
            sj=$(python3 "$root/bench/storm-mec.py" "$umb" 2>/dev/null | tail -1)
        fi
        if [ -n "$sj" ]; then
            read -r load smec < <(echo "$sj" | jget load_s storm_mec_s)
            storm="$load + $smec"
            ratio=$(awk "BEGIN { printf \"%.1f\", ($load + $smec) / $fromumb }")
        fi
    fi
    rss_p=$(python3 "$root/bench/peak-rss.py" "$tmp/rss.csr" "$bin/prism2csr" -l "$lab" "$tra" 2>/dev/null | tail -1)
    rss_g=$(python3 "$root/bench/peak-rss.py" "$tmp/rss.labels" "$bin/gpu-mec" "$tmp/$jmax.csr" 2>/dev/null | tail -1)
    read -r rd wt gp wr <<< "$parts"
    [ "$storm" = - ] || storm="$(r3 "$load") + $(r3 "$smec")"
    row+=" $(r3 "$restr") | $(r3 "$best_e2e") ($(r3 "$rd") / $(r3 "$wt") / $(r3 "$gp") / $(r3 "$wr")) | $(r3 "$files") | $(r3 "$pipe") | $(r3 "$pipe7") | $(r3 "$fromumb") | $storm | $ratio | $rss_p, $rss_g | $labels |"
    echo "$row" >&2
    rows+=("$row")
    python3 -c 'import json, sys
j = json.loads(sys.argv[1].strip().splitlines()[-1])
keys = ["model", "text_mb", "parse_s", "restructure_s", "gpu_mec_e2e_s", "files_s", "pipe_s", "pipe_u7_s",
        "umb_pipe_s", "storm_load_s", "storm_mec_s", "rss_prism2csr_mib", "rss_gpu_mec_mib", "labels"]
vals = sys.argv[2:]
out = dict(zip(keys, vals))
out["parse_s"] = dict(x.split("=") for x in out["parse_s"].split(","))
out["gpu_mec_stats"] = j
print(json.dumps(out))' "$last_json" "$name" "$text_mb" "$(for j in $threads; do printf '%s=%s,' "$j" "${parse[$j]}"; done | sed 's/,$//')" \
        "$restr" "$best_e2e" "$files" "$pipe" "$pipe7" "$fromumb" "$load" "$smec" "$rss_p" "$rss_g" "$labels" >> "$jsonl"
    unset parse
done
echo "$head"
echo "$rule"
printf '%s\n' "${rows[@]}"
