#!/bin/bash
# Several GPUs (issue 18): gpu-scc, gpu-mec and (with VI_QUERY) gpu-vi over -g P parts (gpu/multi.h)
# beside the one-GPU decomposition (the lp engine, resident), in one run on
# one machine.  The parts take the machine's GPUs in turn: with P GPUs or
# more, one part a GPU; with fewer, several parts share a GPU (the simulated
# mode), which measures what splitting costs, not what several GPUs gain.
# The exchange is --exchange's (auto: peer access where the GPUs map each
# other's memory, else NCCL where it loads, else copies).  Every label file
# is compared with the one-GPU labels.
#
#   bench/multigpu.sh [MODEL...]    default: leader8 phil7
#
# Models are NAME.csr in $LARGE (default /tmp/large; bench/large.sh --prepare
# builds them).  PARTS (default "1 2 4 8"), EXCHANGES (--exchange of each
# row, default "auto"; e.g. "peer copies nccl"), RUNS (default 2, best of).
# Columns: the parts, the devices they ran on, the exchange, the foreign
# states (copies of other parts' states, over all parts), the bytes exchanged,
# label propagation's phases and exchange rounds (MECs: and the MEC rounds and
# attractor rounds), the resident time (decompose_s: with the parts on their
# devices), the whole command, and whether the labels equal one GPU's.
# VI_QUERY (e.g. '-t fin_c0 -m min'): also gpu-vi's query over the parts
# beside one GPU's (its default sweep classes): iterations, the iteration's
# seconds (iterate_s: with the partition, upload and download), the whole
# command, whether every state's value (-o) has the bits of -g 1 and is
# within 2e-6 relative of one GPU's (labelcmp -n).
# Results: markdown tables on stdout, one JSON line a run in
# $OUT/multigpu.jsonl (or bench/out/multigpu.jsonl).
set -uo pipefail
. "$(dirname "$0")/common.sh"
runs=${RUNS:-2}
large=${LARGE:-/tmp/large}
jsonl=${OUT:-$out}/multigpu.jsonl
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(leader8 phil7)
: > "$jsonl"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >&2 || true
echo "commit ${COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}, $(date -u +%Y-%m-%d), $gpus GPUs, runs $runs" >&2

# run_best TOOL REF FIELDS -- ARGS...: RUNS runs of TOOL ARGS --stats=json on
# $csr; prints the best decompose_s, the best e2e seconds, the FIELDS of the
# last run's object and "same" or "DIFFER" (every run's labels against REF)
run_best() {
    local tool=$1 ref=$2 fields=$3; shift 4
    local r=() e=() ok=same i t0 t1 j
    for i in $(seq "$runs"); do
        t0=$(now)
        j=$(tool "$tool" "$@" --stats=json "$csr" 2>&1 > "$out/parts.labels")
        t1=$(now)
        cmp -s "$out/parts.labels" "$ref" || ok=DIFFER
        echo "$j" | tail -1 | python3 -c 'import json, sys; j = json.load(sys.stdin); j.update(model=sys.argv[1], args=sys.argv[2], e2e_s=float(sys.argv[3])); print(json.dumps(j))' "$name" "$tool $*" "$(awk "BEGIN { print $t1 - $t0 }")" >> "$jsonl"
        r+=("$(echo "$j" | jget decompose_s)")
        e+=("$(awk "BEGIN { print $t1 - $t0 }")")
    done
    echo "$(printf '%s\n' "${r[@]}" | sort -g | head -1) $(printf '%s\n' "${e[@]}" | sort -g | head -1) $(echo "$j" | jget $fields | sed 's/, /,/g') $ok"
}

# run_vi ARGS...: RUNS runs of gpu-vi $VI_QUERY ARGS --stats=json -o $out/vi.vec
# on $csr; prints the best iterate_s, the best e2e, iterations, foreign,
# exchanged_bytes, span_mecs (- for one GPU), "same"/"DIFFER" against
# $out/$name.vi1.vec (created by the first call with -g) and "within"/"OFF"
# against one GPU's $out/$name.one.vec
run_vi() {
    local r=() e=() ok=same near=within i t0 t1 j
    for i in $(seq "$runs"); do
        t0=$(now)
        # shellcheck disable=SC2086
        j=$(tool gpu-vi $VI_QUERY "$@" --stats=json -o "$out/vi.vec" "$csr" 2>&1 > /dev/null)
        t1=$(now)
        [ -f "$out/$name.vi1.vec" ] || cp "$out/vi.vec" "$out/$name.vi1.vec"
        cmp -s "$out/vi.vec" "$out/$name.vi1.vec" || ok=DIFFER
        "$bin/labelcmp" -n -t 2e-6 "$out/$name.one.vec" "$out/vi.vec" > /dev/null || near=OFF
        echo "$j" | tail -1 | python3 -c 'import json, sys; j = json.load(sys.stdin); j.update(model=sys.argv[1], args=sys.argv[2], e2e_s=float(sys.argv[3])); print(json.dumps(j))' "$name" "gpu-vi $VI_QUERY $*" "$(awk "BEGIN { print $t1 - $t0 }")" >> "$jsonl"
        r+=("$(echo "$j" | jget iterate_s)")
        e+=("$(awk "BEGIN { print $t1 - $t0 }")")
    done
    echo "$(printf '%s\n' "${r[@]}" | sort -g | head -1) $(printf '%s\n' "${e[@]}" | sort -g | head -1) $(echo "$j" | jget iterations foreign exchanged_bytes span_mecs | sed 's/, /,/g') $ok $near"
}

scc_rows=() mec_rows=() vi_rows=()
for name in "${names[@]}"; do
    while [ -f "$large/$name.building" ]; do sleep 2; done
    csr="$large/$name.csr"
    [ -f "$csr" ] || { echo "$name: no $csr (bench/large.sh --prepare $name)" >&2; continue; }
    tool gpu-scc --engine lp "$csr" > "$out/$name.one.sccs" || continue
    tool gpu-mec "$csr" > "$out/$name.one.mecs" || continue
    read -r res e2e states trans ok < <(run_best gpu-scc "$out/$name.one.sccs" "states transitions" -- --engine lp)
    scc_rows+=("| $name | $states | $trans | one GPU (lp) | - | - | - | - | - | $res | $e2e | $ok |")
    read -r res e2e rounds ok < <(run_best gpu-mec "$out/$name.one.mecs" "rounds" -- )
    mec_rows+=("| $name | one GPU (rounds, lp) | - | - | - | - | $rounds | $res | $e2e | $ok |")
    if [ -n "${VI_QUERY:-}" ]; then
        # shellcheck disable=SC2086
        tool gpu-vi $VI_QUERY -o "$out/$name.one.vec" "$csr" > /dev/null || continue
        read -r it e2e iters _ _ _ _ near < <(run_vi)
        rm -f "$out/$name.vi1.vec" # the first run over parts makes it
        vi_rows+=("| $name | one GPU | $iters | - | - | - | $it | $e2e | - | $near |")
        for p in ${PARTS:-1 2 4 8}; do
            read -r it e2e iters foreign bytes span ok near < <(run_vi -g "$p")
            vi_rows+=("| $name | $p | $iters | $foreign | $bytes | $span | $it | $e2e | $ok | $near |")
            echo "${vi_rows[-1]}" >&2
        done
    fi
    for p in ${PARTS:-1 2 4 8}; do
      for x in ${EXCHANGES:-auto}; do
        read -r res e2e devs ex foreign bytes phases rounds ok < <(run_best gpu-scc "$out/$name.one.sccs" "devices exchange foreign exchanged_bytes phases rounds" -- -g "$p" --exchange "$x")
        scc_rows+=("| $name | $states | $trans | $p | $devs | $ex | $foreign | $bytes | $phases / $rounds | $res | $e2e | $ok |")
        echo "${scc_rows[-1]}" >&2
        read -r res e2e devs ex foreign bytes phases rounds mrounds arounds ok < <(run_best gpu-mec "$out/$name.one.mecs" "devices exchange foreign exchanged_bytes phases lp_rounds rounds attractor_rounds" -- -g "$p" --exchange "$x")
        mec_rows+=("| $name | $p | $devs | $ex | $foreign | $bytes | $mrounds / $phases / $rounds / $arounds | $res | $e2e | $ok |")
        echo "${mec_rows[-1]}" >&2
      done
    done
done
echo "SCCs (gpu-scc; seconds):"
echo
echo "| model | states | transitions | parts | devices | exchange | foreign states | bytes exchanged | phases / rounds | resident s | e2e s | labels |"
echo "|---|---:|---:|---:|---|---|---:|---:|---|---:|---:|---|"
printf '%s\n' "${scc_rows[@]}"
echo
echo "MECs (gpu-mec; seconds; MEC rounds / lp phases / lp rounds / attractor rounds):"
echo
echo "| model | parts | devices | exchange | foreign states | bytes exchanged | rounds | resident s | e2e s | labels |"
echo "|---|---:|---|---|---:|---:|---|---:|---:|---|"
printf '%s\n' "${mec_rows[@]}"
if [ -n "${VI_QUERY:-}" ]; then
    echo
    echo "Value iteration (gpu-vi $VI_QUERY; seconds; values: bits of -g 1 / within 2e-6 of one GPU's):"
    echo
    echo "| model | parts | iterations | foreign states | bytes exchanged | spanning MECs | iterate s | e2e s | bits of -g 1 | values |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---|---|"
    printf '%s\n' "${vi_rows[@]}"
fi
