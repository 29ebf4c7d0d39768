#!/bin/bash
# Accepting cycles at paper scale (issue 17), in one run on one machine: for
# each model and accepting label, nested DFS (gpu-acc --cpu, one core), the
# sequential OWCTY (--cpu --algo owcty) and the GPU's OWCTY and MAP, best of
# RUNS (default 3): the search alone (search_s of --stats=json; the GPU's
# without the upload) and end to end (the whole command: reading the CSR
# file, CUDA start-up, the lasso).  Every run must give nested DFS's verdict
# ("BAD" otherwise).
#
#   bench/acc.sh [MODEL...]   default: leader7 coin6_4 wlan6_2500
#
# Models are built as bench/large.sh builds them ($LARGE, default /tmp/large;
# start them early with bench/large.sh --prepare NAME...).  One JSON line per
# run in $OUT/acc.jsonl (or bench/out/acc.jsonl).
set -uo pipefail
. "$(dirname "$0")/common.sh"
runs=${RUNS:-3}
large=${LARGE:-/tmp/large}
jsonl=${OUT:-$out}/acc.jsonl
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(leader7 coin6_4 wlan6_2500)

# labels NAME: the accepting sets measured (one with a cycle, one without where the model has one)
labels() {
    case $1 in
    leader*) echo elected deadlock ;;
    coin*) echo finished fin_c0 ;;
    wlan*) echo bc2 deadlock ;;
    *) echo deadlock ;;
    esac
}

"$root/bench/large.sh" --prepare "${names[@]}"
: > "$jsonl"
echo "device: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1); $(date -u +%F); commit ${COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}; runs $runs"
echo
echo "| model | label | cycle | reachable | nested DFS s (e2e) | OWCTY CPU s | OWCTY GPU s (e2e) | rounds, levels | MAP GPU s (e2e) | rounds, passes | x nested DFS (OWCTY) | check |"
echo "|---|---|---|---:|---|---:|---|---|---|---|---:|---|"
for name in "${names[@]}"; do
    while [ -f "$large/$name.building" ]; do sleep 2; done
    csr="$large/$name.csr"
    [ -f "$csr" ] || { echo "$name: no $csr (build failed? $large/build.log)" >&2; continue; }
    for label in $(labels "$name"); do
        declare -A best_s best_e info verdict
        for cfg in ndfs cpu-owcty owcty map; do
            case $cfg in
            ndfs) args=(--cpu) ;;
            cpu-owcty) args=(--cpu --algo owcty) ;;
            owcty) args=(--algo owcty) ;;
            map) args=(--algo map) ;;
            esac
            best_s[$cfg]=999999 best_e[$cfg]=999999
            for i in $(seq "$runs"); do
                t0=$(now)
                tool gpu-acc "${args[@]}" --no-witness -a "$label" --stats=json "$csr" > "$out/acc.out" 2> "$out/acc.json"
                rc=$?
                t1=$(now)
                e=$(awk "BEGIN { print $t1 - $t0 }")
                j=$(grep '^{' "$out/acc.json" | tail -1)
                [ -n "$j" ] || { echo "$name $label $cfg: $(cat "$out/acc.json")" >&2; continue; }
                echo "$j" | python3 -c 'import json,sys; j=json.loads(sys.stdin.read()); j.update(model=sys.argv[1], label=sys.argv[2], config=sys.argv[3], e2e_s=float(sys.argv[4]), exit=int(sys.argv[5])); print(json.dumps(j))' "$name" "$label" "$cfg" "$e" "$rc" >> "$jsonl"
                read -r s reach rounds levels passes < <(echo "$j" | jget search_s reachable rounds levels passes)
                verdict[$cfg]=$rc
                if awk "BEGIN { exit !($s < ${best_s[$cfg]}) }"; then best_s[$cfg]=$s; info[$cfg]="$rounds|$levels|$passes|$reach"; fi
                if awk "BEGIN { exit !($e < ${best_e[$cfg]}) }"; then best_e[$cfg]=$e; fi
            done
        done
        IFS='|' read -r orounds olevels _ reach <<< "${info[owcty]:-|||}"
        IFS='|' read -r mrounds _ mpasses _ <<< "${info[map]:-|||}"
        ok=ok
        for cfg in cpu-owcty owcty map; do [ "${verdict[$cfg]:-x}" = "${verdict[ndfs]:-y}" ] || ok=BAD; done
        x=$(awk -v a="${best_s[ndfs]}" -v b="${best_s[owcty]}" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "-" }')
        for cfg in ndfs cpu-owcty owcty map; do
            best_s[$cfg]=$(awk -v v="${best_s[$cfg]}" 'BEGIN { printf "%.4g", v }')
            best_e[$cfg]=$(awk -v v="${best_e[$cfg]}" 'BEGIN { printf "%.3f", v }')
        done
        echo "| $name | $label | $([ "${verdict[ndfs]:-}" = 3 ] && echo yes || echo no) | $reach | ${best_s[ndfs]} (${best_e[ndfs]}) | ${best_s[cpu-owcty]} | ${best_s[owcty]} (${best_e[owcty]}) | $orounds, $olevels | ${best_s[map]} (${best_e[map]}) | $mrounds, $mpasses | $x | $ok |"
        unset best_s best_e info verdict
    done
done
