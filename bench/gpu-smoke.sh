#!/bin/bash
# A fast check of the GPU tools on the device, for leases too short for the
# whole GPU suite (tests/070, 090, 110 take several minutes): gpu-scc and
# gpu-mec in each engine and scheme against --cpu on the disjoint union of
# every shared model (plain and restructured), on the oracle's 100,000
# random MDPs against brute force, and compute-sanitizer memcheck on small
# models.  One line per check; exit 1 if any differs.
#   bench/gpu-smoke.sh     (SHARED as for the tests; needs build/test-bin)
set -uo pipefail
. "$(dirname "$0")/common.sh"
tb="$root/build/test-bin"
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
bad=0
check() { # what expected-file tool args...
    local what=$1 want=$2; shift 2
    if timeout 300 "$bin/$@" > "$w/got" 2> "$w/err" && cmp -s "$w/got" "$want"; then
        echo "ok $what: $*"
    else
        echo "DIFFERS $what: $* ($(head -c 300 "$w/err"))"
        bad=1
    fi
}
files=()
for f in "$models"/*.tra "$models"/*.tra.gz; do
    [ -e "$f" ] || continue
    b=${f##*/}; b=${b%.gz}; b=${b%.tra}
    "$bin/prism2csr" "$f" > "$w/$b.csr" && files+=("$w/$b.csr")
done
"$tb/csrcat" "${files[@]}" > "$w/all.csr"
"$bin/restructure" -u 7 "$w/all.csr" > "$w/all.r.csr"
"$bin/gpu-scc" --cpu "$w/all.csr" > "$w/all.sccs"
"$bin/gpu-mec" --cpu "$w/all.csr" > "$w/all.mecs"
"$tb/oracle" -n 100000 -s 3 -u "$w/u" > /dev/null
for c in "--engine lp" "--engine lp --no-peel" "--engine lp --blocks 2" "--engine lp --peel-schedule async" "--engine fb" "--engine fb --peel" "--bfbt -c 3"; do
    check "shared models" "$w/all.sccs" gpu-scc $c "$w/all.csr"
    check "shared models -u 7" "$w/all.sccs" gpu-scc $c "$w/all.r.csr"
    check "random MDPs" "$w/u.sccs" gpu-scc $c "$w/u.csr"
done
for c in "--scheme interleave" "--scheme interleave --blocks 2" "--scheme interleave --peel-schedule async" "--scheme rounds" "--engine fb" "--j-set --bfbt"; do
    check "shared models" "$w/all.mecs" gpu-mec $c "$w/all.csr"
    check "shared models -u 7" "$w/all.mecs" gpu-mec $c "$w/all.r.csr"
    check "random MDPs" "$w/u.mecs" gpu-mec $c "$w/u.csr"
done
if command -v compute-sanitizer > /dev/null; then
    for m in fmsd_fig1 coin2 leader3; do
        "$bin/prism2csr" "$models/$m.tra" > "$w/$m.csr"
        for t in "gpu-scc --engine lp" "gpu-scc --engine lp --peel-schedule async" "gpu-scc --engine fb --peel" "gpu-mec --scheme interleave" "gpu-mec --scheme rounds"; do
            if compute-sanitizer --tool memcheck --error-exitcode 9 "$bin/"$t "$w/$m.csr" > "$w/san" 2>&1; then
                echo "ok memcheck $m: $t"
            else
                echo "DIFFERS memcheck $m: $t: $(grep -m2 -E 'Invalid|ERROR' "$w/san")"
                bad=1
            fi
        done
    done
fi
exit $bad
