#!/bin/bash
# Paper-scale benchmark of the SCC engines and MEC schemes (issue 13), in one
# run on one machine: Tarjan (gpu-scc --cpu), the basic MEC algorithm
# (gpu-mec --cpu), Storm's MEC decomposition (bench/storm-mec.py), and every
# engine: the decomposition with the graph resident on the GPU (resident_s of
# --stats=json), with the upload and the way back (gpu_s), and the whole
# command end to end (read, CUDA start-up, decomposition, write); best of RUNS.
# Every label file is compared with the CPU reference's.
#
#   bench/large.sh [MODEL...]            default: coin6_4 leader7 leader8 phil7 wlan6_2500
#   bench/large.sh --prepare [MODEL...]  only start the builds, in the background, and return
#
# Models are NAME.csr in $LARGE (default /tmp/large); a missing one is made
# from NAME.csr.xz there, else built with build-large --umb (Storm; needs
# .large/ = ../shared/models/build-large, large.tsv and src/, and stormpy on
# PYTHONPATH), all builds at once in the background, then converted by
# prism2csr (--prepare starts them early, so that other work overlaps them; a
# later run waits for them).  STORM=1 times Storm's MEC decomposition of
# NAME.umb.  RUNS (default 3).  CONFIGS=default: only the default engine and
# scheme and their nearest rivals (lp, lp --no-peel; rounds, interleave).
# ECL=DIR: also ECL-SCC (Alabandi et al., SC'23; DIR holds its ECL-SCC_10.cu
# and ECLgraph.h, fetched by the user: never part of this tree), built here
# with -O3 for this device, on each model's state graph (build/bench/csr2egr),
# its "compute time" (edge list, propagation, no upload) best of RUNS, and
# its SCC count checked against Tarjan's.  Results: a markdown table on
# stdout, one JSON line per measurement in $OUT/large.jsonl (or
# bench/out/large.jsonl).
set -uo pipefail
. "$(dirname "$0")/common.sh"
runs=${RUNS:-3}
large=${LARGE:-/tmp/large}
jsonl=${OUT:-$out}/large.jsonl
prepare=0
if [ "${1:-}" = --prepare ]; then
    prepare=1
    shift
fi
mkdir -p "$large"
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(coin6_4 leader7 leader8 phil7 wlan6_2500)

# ---- the models: from .xz, or built in the background ---------------------
for name in "${names[@]}"; do
    [ -f "$large/$name.csr" ] || [ -f "$large/$name.building" ] && continue
    if [ -f "$large/$name.csr.xz" ]; then
        xz -dc "$large/$name.csr.xz" > "$large/$name.csr"
    else
        touch "$large/$name.building"
        # WAIT_FOR: a file that appears once the tools are built (--prepare before make)
        setsid nohup bash -c "python3 '$root/.large/build-large' --umb -o '$large' '$name' 2>> '$large/build.log' &&
            ${WAIT_FOR:+until [ -f '$WAIT_FOR' ]; do sleep 1; done;}
            '$bin/prism2csr' '$large/$name.umb' > '$large/$name.csr.part' 2>> '$large/build.log' &&
            mv '$large/$name.csr.part' '$large/$name.csr';
            rm -f '$large/$name.building'" > /dev/null 2>&1 &
    fi
done
[ $prepare = 1 ] && exit 0
: > "$jsonl"

# record JSON [KEY=VALUE...]: the JSON line with the keys added, to $jsonl
record() {
    python3 -c 'import json, sys
j = json.loads(sys.argv[1].strip().splitlines()[-1])
for kv in sys.argv[2:]:
    k, v = kv.split("=", 1)
    j[k] = v
print(json.dumps(j))' "$@" >> "$jsonl"
}

# ---- measurements --------------------------------------------------------------
# best TOOL ARGS... -- FILE: RUNS runs of TOOL --stats=json; prints
# "resident gpu e2e status" (the best of each; status 0 when every run's
# labels equal $ref)
best_of() {
    local tool=$1 file=$2 ref=$3; shift 3
    local r=() g=() e=() ok=0 i t0 t1 j
    for i in $(seq "$runs"); do
        t0=$(now)
        j=$(tool "$tool" "$@" --stats=json "$file" 2>&1 > "$out/gpu.labels")
        t1=$(now)
        cmp -s "$out/gpu.labels" "$ref" || ok=1
        r+=("$(echo "$j" | jget decompose_s)")
        g+=("$(echo "$j" | jget gpu_s)")
        e+=("$(awk "BEGIN { print $t1 - $t0 }")")
        record "$j" "model=$name" "args=$*" "e2e_s=${e[-1]}" "labels_equal=$([ "$ok" = 0 ] && echo yes || echo no)"
    done
    echo "$(printf '%s\n' "${r[@]}" | sort -g | head -1) $(printf '%s\n' "${g[@]}" | sort -g | head -1) $(printf '%s\n' "${e[@]}" | sort -g | head -1) $ok"
}

scc_configs=("lp|--engine lp" "lp async peel|--engine lp --peel-schedule async" "lp no peel|--engine lp --no-peel" "fb|--engine fb" "fb peel|--engine fb --peel")
mec_configs=("interleave|--scheme interleave" "interleave async|--scheme interleave --peel-schedule async" "rounds lp|--scheme rounds --engine lp" "rounds fb|--engine fb")
if [ "${CONFIGS:-all}" = default ]; then # the defaults and their nearest rivals only
    scc_configs=("lp|--engine lp" "lp no peel|--engine lp --no-peel")
    mec_configs=("rounds lp|--scheme rounds --engine lp" "interleave|--scheme interleave")
fi
lscpu | grep -E 'Model name|^CPU\(s\)' >&2
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >&2 || true
echo "commit ${COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}, $(date -u +%Y-%m-%d), runs $runs" >&2

ecl=
if [ -n "${ECL:-}" ]; then # ECL-SCC for this device; CUDA 13 has no clock rates in cudaDeviceProp
    ecl="$out/ecl-scc"
    sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
        "$ECL/ECL-SCC_10.cu" > "$out/ecl-scc.cu" && cp "$ECL/ECLgraph.h" "$out/" &&
        nvcc -O3 -arch="${ECL_ARCH:-sm_90}" "$out/ecl-scc.cu" -o "$ecl" || { echo "ECL-SCC: build failed" >&2; ecl=; }
fi

header="| model | states | transitions | Tarjan s |"
rule="|---|---:|---:|---:|"
[ -n "$ecl" ] && { header+=" ECL-SCC s |"; rule+="---:|"; }
for c in "${scc_configs[@]}"; do header+=" ${c%%|*} resident s (x Tarjan) / with upload s / e2e s |"; rule+="---|"; done
header+=" basic MEC s | Storm MEC s |"
rule+="---:|---:|"
for c in "${mec_configs[@]}"; do header+=" ${c%%|*} resident s (x Storm) / with upload s / e2e s |"; rule+="---|"; done
scc_rows=()
for name in "${names[@]}"; do
    while [ -f "$large/$name.building" ]; do sleep 2; done
    csr="$large/$name.csr"
    [ -f "$csr" ] || { echo "$name: no $csr (build failed? $large/build.log)" >&2; continue; }
    j=$(tool gpu-scc --cpu --stats=json "$csr" 2>&1 > "$out/$name.sccs")
    record "$j" "model=$name"
    read -r states trans tarjan tsccs < <(echo "$j" | jget states transitions decompose_s sccs)
    j=$(tool gpu-mec --cpu --stats=json "$csr" 2>&1 > "$out/$name.mecs")
    record "$j" "model=$name"
    basic=$(echo "$j" | jget decompose_s)
    row="| $name | $states | $trans | $tarjan |"
    if [ -n "$ecl" ]; then
        [ -f "$large/$name.egr" ] || "$root/build/bench/csr2egr" "$csr" "$large/$name.egr"
        best=- sccs=-
        for i in $(seq "$runs"); do
            r=$(timeout "${TIMEOUT:-600}" "$ecl" "$large/$name.egr" 2>&1)
            t=$(echo "$r" | sed -n 's/^compute time: \([0-9.]*\) s$/\1/p')
            sccs=$(echo "$r" | sed -n 's/^number of SCCs: \([0-9]*\)$/\1/p')
            [ -n "$t" ] && { [ "$best" = - ] || awk "BEGIN { exit !($t < $best) }"; } && best=$t
        done
        echo "{\"tool\":\"ecl-scc\",\"model\":\"$name\",\"compute_s\":\"$best\",\"sccs\":\"$sccs\"}" >> "$jsonl"
        row+=" $best$([ "$sccs" = "$tsccs" ] || echo " (SCCs $sccs, Tarjan $tsccs)") |"
    fi
    for c in "${scc_configs[@]}"; do
        read -r res gpu e2e bad < <(best_of gpu-scc "$csr" "$out/$name.sccs" ${c#*|})
        row+=" $res ($(awk "BEGIN { printf \"%.1f\", $tarjan / $res }")x) / $gpu / $e2e$([ "$bad" = 0 ] || echo ' WRONG') |"
    done
    storm=-
    if [ "${STORM:-0}" = 1 ] && [ -f "$large/$name.umb" ]; then
        s=$(python3 "$root/bench/storm-mec.py" "$large/$name.umb" 2>/dev/null | tail -1)
        [ -n "$s" ] && { record "$s" "model=$name"; storm=$(echo "$s" | jget storm_mec_s); }
    fi
    row+=" $basic | $storm |"
    for c in "${mec_configs[@]}"; do
        read -r res gpu e2e bad < <(best_of gpu-mec "$csr" "$out/$name.mecs" ${c#*|})
        x=-
        [ "$storm" != - ] && x=$(awk "BEGIN { printf \"%.0f\", $storm / $res }")
        row+=" $res (${x}x) / $gpu / $e2e$([ "$bad" = 0 ] || echo ' WRONG') |"
    done
    scc_rows+=("$row")
    echo "$row" >&2
done
echo "$header"
echo "$rule"
printf '%s\n' "${scc_rows[@]}"
