#!/bin/bash
# A model larger than one GPU (issue 44): bench/ringmdp.c's MDP of known SCCs
# and MECs, generated on the device machine, decomposed by gpu-scc and
# gpu-mec on one GPU (where it fits, else the tool's out-of-memory error)
# and over 2 and 4 GPUs (-g P, one part a GPU), every
# label file compared with the construction's (cmp); with CPU_REF=1 also
# with Tarjan's and the basic MEC algorithm's (--cpu, the host's memory).
#
#   bench/multigpu-large.sh            RING: by default rings of 100 states (-k 100 -d 4), as many as
#                                      make gpu-scc's plan (about 223 bytes a state, measured: 66.9 GB
#                                      for 300M states) 1.15x the first GPU's memory: 441M states on an
#                                      H100 80GB, 777M on an H200 (about 5 transitions a state)
#
# PARTS (default "2 4"), EXCHANGES (default "auto"), DIR (default /tmp/ringmdp).
# Columns: the tool, the parts, the exchange, the resident seconds, the
# transitions a second (transitions / resident), the whole command, the
# device bytes planned (one GPU), and whether the labels equal the
# construction's.  JSON lines in $OUT/multigpu-large.jsonl.
set -uo pipefail
. "$(dirname "$0")/common.sh"
dir=${DIR:-/tmp/ringmdp}
mkdir -p "$dir"
jsonl=${OUT:-$out}/multigpu-large.jsonl
: > "$jsonl"
if [ -z "${RING:-}" ]; then
    mib=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits -i 0 2>/dev/null | head -1)
    [ -n "$mib" ] || { echo "no GPU: set RING" >&2; exit 1; }
    RING="-b $(awk -v m="$mib" 'BEGIN { printf "%d", m * 1048576 * 1.15 / 223 / 100 + 1 }') -k 100 -d 4"
fi
ring=$RING
echo "commit ${COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}, $(date -u +%Y-%m-%d), ringmdp $ring" >&2
t0=$(now)
# shellcheck disable=SC2086
"$root/build/bench/ringmdp" $ring -S "$dir/sccs" -M "$dir/mecs" 1 > "$dir/ring.csr" || exit 1
echo "generated in $(awk "BEGIN { print $(now) - $t0 }") s: $("$bin/csrinfo" "$dir/ring.csr" | head -1)" >&2
trans=$("$bin/csrinfo" "$dir/ring.csr" | head -1 | sed 's/.* \([0-9]*\) transitions.*/\1/')

# row TOOL EXPECTED ARGS...: one run; prints the row
row() {
    local t=$1 want=$2 j t1 t2 ok
    shift 2
    t1=$(now)
    j=$(tool "$t" "$@" --stats=json "$dir/ring.csr" 2>&1 > "$dir/labels")
    local rc=$?
    t2=$(now)
    ok=same
    cmp -s "$dir/labels" "$want" || ok=DIFFER
    [ $rc -eq 0 ] || ok="rc $rc: $(echo "$j" | grep -v '^{' | tail -1)"
    echo "$j" | grep '^{' | tail -1 | python3 -c 'import json, sys
s = sys.stdin.read().strip()
j = json.loads(s) if s else {}
j.update(args=sys.argv[1], e2e_s=float(sys.argv[2]))
print(json.dumps(j))' "$t $*" "$(awk "BEGIN { print $t2 - $t1 }")" >> "$jsonl"
    local res planned
    res=$(tail -1 "$jsonl" | jget decompose_s)
    planned=$(tail -1 "$jsonl" | jget device_bytes_planned)
    echo "| $t | $* | $res | $(awk -v t="$trans" -v r="$res" 'BEGIN { if (r + 0 > 0) printf "%.3g", t / r; else print "-" }') | $(awk "BEGIN { print $t2 - $t1 }") | $planned | $ok |"
}

echo "| tool | arguments | resident s | transitions/s | e2e s | device bytes planned | labels |"
echo "|---|---|---:|---:|---:|---:|---|"
row gpu-scc "$dir/sccs"
row gpu-mec "$dir/mecs"
for p in ${PARTS:-2 4}; do
    for x in ${EXCHANGES:-auto}; do
        row gpu-scc "$dir/sccs" -g "$p" --exchange "$x"
        row gpu-mec "$dir/mecs" -g "$p" --exchange "$x"
    done
done
if [ "${CPU_REF:-0}" = 1 ]; then
    row gpu-scc "$dir/sccs" --cpu
    row gpu-mec "$dir/mecs" --cpu
fi
