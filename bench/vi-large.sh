#!/bin/bash
# Paper-scale value iteration against Storm (issue 15), in one run on one
# machine: for each model and query, Storm 2.0's sound model checking
# (bench/storm-vi.py: topological optimistic value iteration, 1e-6 relative)
# of NAME.umb, and gpu-vi from the CSR file end to end (read, CUDA start-up,
# Prob0/Prob1, MECs, compaction, upload, iterations, output), best of RUNS
# (default 3), with its phases from --stats=json.  gpu-vi's answer must be
# within 1e-6 relative of Storm's ("BAD" otherwise).
#
#   bench/vi-large.sh [MODEL...]   default: coin6_4 zeroconf_8 wlan5_100
#
# (.large prepared by bench/prepare-large.sh: zeroconf_8 is a row of
# bench/large-extra.tsv)
#
# VARIANTS="OPTIONS;OPTIONS..." runs gpu-vi once per set of options, each a
# row (the word "defaults": none), against the same Storm run (default: one
# row, gpu-vi's defaults).
#
# Models are built as bench/large.sh builds them (NAME.umb for Storm and
# NAME.csr in $LARGE, default /tmp/large; start them early with
# bench/large.sh --prepare NAME...).  One JSON line per measurement in
# $OUT/vi-large.jsonl (or bench/out/vi-large.jsonl).
set -uo pipefail
. "$(dirname "$0")/common.sh"
runs=${RUNS:-3}
large=${LARGE:-/tmp/large}
jsonl=${OUT:-$out}/vi-large.jsonl
names=("$@")
IFS=';' read -r -a variants <<< "${VARIANTS:-}"
[ ${#variants[@]} -gt 0 ] || variants=("")
[ ${#names[@]} -gt 0 ] || names=(coin6_4 zeroconf_8 wlan5_100)

# queries NAME: one "dir|target|avoid" per line (avoid - for F target)
queries() {
    case $1 in
    coin*) printf '%s\n' 'min|fin_c0|-' 'max|fin_c0|-' ;;
    csma*) printf '%s\n' 'min|all_delivered|collision_max_backoff' 'max|all_delivered|collision_max_backoff' ;;
    wlan*) printf '%s\n' 'max|bc2|-' ;; # bc2: the label of the shared wlan3's query, added to .large/large.tsv
    leader*) printf '%s\n' 'min|elected|-' ;;
    zeroconf*) printf '%s\n' 'min|ip_used|-' 'max|ip_used|-' ;;
    esac
}
property() { # dir target avoid -> PRISM's text
    if [ "$3" = - ]; then echo "P$1=? [ F \"$2\" ]"; else echo "P$1=? [ !\"$3\" U \"$2\" ]"; fi
}

"$root/bench/large.sh" --prepare "${names[@]}"
: > "$jsonl"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >&2 || true
echo "device: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1); $(date -u +%F); commit ${COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}; runs $runs"
echo
echo "| model | query | gpu-vi options | maybe | Storm s | Storm value | gpu-vi e2e s | x Storm | iterations | us/it | Prob0/1 s | MECs s | compact s | upload s | iterate s | gpu-vi value | check |"
echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
for name in "${names[@]}"; do
    while [ -f "$large/$name.building" ]; do sleep 2; done
    csr="$large/$name.csr"
    [ -f "$csr" ] || { echo "$name: no $csr (build failed? $large/build.log)" >&2; continue; }
    props=()
    while IFS='|' read -r dir target avoid; do props+=("$(property "$dir" "$target" "$avoid")"); done < <(queries "$name")
    storm_out=$(python3 "$root/bench/storm-vi.py" "$large/$name.umb" "${props[@]}" 2>&1)
    echo "$storm_out" | grep '^{' >> "$jsonl"
    q=0
    while IFS='|' read -r dir target avoid; do
        q=$((q + 1))
        sj=$(echo "$storm_out" | grep '^{' | sed -n "${q}p")
        read -r storm_s storm_v < <(echo "${sj:-{\}}" | jget storm_s value)
        for variant in "${variants[@]}"; do
            args=()
            [ "$variant" = defaults ] || read -r -a args <<< "$variant"
            args+=(-t "$target" -m "$dir")
            [ "$avoid" = - ] || args+=(-a "$avoid")
            best=999999 line=""
            for i in $(seq "$runs"); do
                t0=$(now)
                v=$(tool gpu-vi "${args[@]}" --stats=json "$csr" 2> "$out/vi.json" | head -1)
                t1=$(now)
                e=$(awk "BEGIN { print $t1 - $t0 }")
                j=$(tail -1 "$out/vi.json")
                echo "$j" | python3 -c 'import json,sys; j=json.loads(sys.stdin.read()); j.update(model=sys.argv[1], query=sys.argv[2], e2e_s=float(sys.argv[3]), value=sys.argv[4], options=sys.argv[5]); print(json.dumps(j))' "$name" "$(property "$dir" "$target" "$avoid")" "$e" "$v" "$variant" >> "$jsonl" 2>/dev/null
                if awk "BEGIN { exit !($e < $best) }"; then
                    best=$e
                    read -r maybe its p01 mecs cmp up it < <(echo "$j" | jget maybe iterations prob01_s mec_s compact_s upload_s gpu_iterate_s)
                    line="$maybe|$its|$p01|$mecs|$cmp|$up|$it|$v"
                fi
            done
            IFS='|' read -r maybe its p01 mecs cmp up it v <<< "$line"
            x=$(awk -v a="$storm_s" -v b="$best" 'BEGIN { if (a != "-" && b > 0) printf "%.1f", a / b; else print "-" }')
            usit=$(awk -v a="$it" -v n="$its" 'BEGIN { if (n > 0) printf "%.1f", 1e6 * a / n; else print "-" }')
            ok=$(awk -v a="$v" -v b="$storm_v" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; print (b != "-" && a != "" && (d <= 1e-6 * m || d < 1e-12)) ? "ok" : "BAD" }')
            echo "| $name | $(property "$dir" "$target" "$avoid") | ${variant:-defaults} | $maybe | $storm_s | $storm_v | $best | $x | $its | $usit | $p01 | $mecs | $cmp | $up | $it | $v | $ok |"
        done
    done < <(queries "$name")
done
