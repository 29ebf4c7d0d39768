#!/bin/bash
# gpu-vi's methods side by side on the shared models (issue 15): for each
# query of each NAME.values.tsv, gpu-vi end to end with each set of options
# of VARIANTS (default: "--method pi;--method ii"), best of RUNS (default 3),
# with its iterations, the solver's seconds (--stats=json: policy iteration's
# and interval iteration's phases) and the products of policy iteration;
# every answer checked against PRISM's (relative 1e-6; "BAD" marks a miss).
#   bench/vi-methods.sh [NAME...]   default: every model with a .values.tsv
set -uo pipefail
. "$(dirname "$0")/common.sh"
runs=${RUNS:-3}
IFS=';' read -r -a variants <<< "${VARIANTS:---method pi;--method ii}"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
    for f in "$models"/*.values.tsv; do f=${f##*/}; names+=("${f%.values.tsv}"); done
fi
echo "device: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1); $(date -u +%F); commit ${COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}; runs $runs"
echo
printf '| model | query | maybe |'
for v in "${variants[@]}"; do printf ' %s e2e s | its | solve s | products |' "$v"; done
echo
printf '|---|---|---:|'
for v in "${variants[@]}"; do printf -- '---:|---:|---:|---:|'; done
echo
for name in "${names[@]}"; do
    csr="$out/$name.csr"
    tra="$models/$name.tra"; [ -f "$tra" ] || tra="$tra.gz"
    lab="$models/$name.lab"; [ -f "$lab" ] || lab="$lab.gz"
    "$bin/prism2csr" -l "$lab" "$tra" > "$csr" || { echo "$name: prism2csr failed" >&2; continue; }
    while IFS=$'\t' read -r prop query dir target avoid value rest; do
        [ "$prop" = prop ] && continue
        args=(-t "$target")
        [ "$avoid" = - ] || args+=(-a "$avoid")
        [ "$dir" = - ] || args+=(-m "$dir")
        cells=""
        maybe=-
        for variant in "${variants[@]}"; do
            read -r -a opts <<< "$variant"
            best=999999 cell="| FAIL | - | - | - |"
            for i in $(seq "$runs"); do
                t0=$(now)
                got=$(tool gpu-vi "${opts[@]}" "${args[@]}" --stats=json "$csr" 2> "$out/vm.json" | tr '\n' ' ') || continue
                t1=$(now)
                e=$(awk "BEGIN { print $t1 - $t0 }")
                awk "BEGIN { exit !($e < $best) }" || continue
                best=$e
                read -r maybe its pis gis mv < <(jget maybe iterations pi_s gpu_iterate_s pi.matvecs < "$out/vm.json")
                ok=$(awk -v got="$got" -v ref="$value" 'BEGIN { ng = split(got, g, " "); nr = split(ref, r, " ")
                    if (nr == 1) for (k = 2; k <= ng; k++) r[k] = r[1]
                    if (ng == 0 || (nr != 1 && nr != ng)) { print "BAD"; exit }
                    for (k = 1; k <= ng; k++) { d = g[k] - r[k]; if (d < 0) d = -d; a = r[k] < 0 ? -r[k] : r[k]
                        if (d > 1e-6 * a && d > 1e-12) { print "BAD"; exit } }
                    print "" }')
                solve=$(awk -v a="$pis" -v b="$gis" 'BEGIN { printf "%.4f", (a == "-" ? 0 : a) + (b == "-" ? 0 : b) }')
                cell=$(printf '| %.3f%s | %s | %s | %s |' "$e" "${ok:+ $ok}" "$its" "$solve" "$mv")
            done
            cells="$cells${cell#|}"
        done
        echo "| $name | $query | $maybe |$cells"
    done < "$models/$name.values.tsv"
done
