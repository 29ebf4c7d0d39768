#!/bin/bash
# What a GPU run costs besides its work, on this host (issues 43, 44): the
# parts of CUDA's start (build/bench/cuda_start: the driver over one device
# and over every device, the contexts one after the other and at once, peer
# access) and whole commands of gpu-scc, gpu-scc -g and gpu-vi on a tiny
# model; then, for each MODEL, gpu-scc and gpu-mec on one GPU and over -g P
# (PARTS, default "1 <every GPU>").  With an OVERLAY, this tree ("new") and
# OVERLAY's build ("old", as bench/ab.sh) alternate.  MODELS_ONLY=1: the
# models' rows only.  RUNS (default 3); each row gives the whole command's
# seconds and the resident decompose_s, min-max, the last run's counts and
# phase times (--stats=json), and whether the labels equal one GPU's (old's
# one GPU for old).
#   bench/start.sh [OVERLAY] [MODEL...]
# Models: NAME.csr in $LARGE (default /tmp/large; one that bench/large.sh
# --prepare is building is waited for) or paths.
set -uo pipefail
. "$(dirname "$0")/common.sh"
runs=${RUNS:-3}
large=${LARGE:-/tmp/large}
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
parts=${PARTS:-1 $gpus}
every=$(seq -s, 0 $((gpus - 1)))
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
echo "commit $commit, $(date -u +%Y-%m-%d), $gpus GPUs, runs $runs" >&2
range() { printf '%s\n' "$@" | sort -g | sed -n '1p;$p' | paste -sd- -; }

overlay=
if [ $# -gt 0 ] && [ -d "$1" ] && [ ! -f "$1" ]; then
    overlay=$1
    shift
    build_overlay "$overlay" || exit 1
fi
builds=(new)
[ -n "$overlay" ] && builds=(new old)
bin_of() { if [ "$1" = old ]; then echo "$old/build/bin"; else echo "$root/build/bin"; fi; }

if [ "${MODELS_ONLY:-0}" = 0 ]; then
echo "| CUDA's start | visible | runs: seconds of each part |"
echo "|---|---|---|"
for vis in 0 "$every"; do
    for mode in serial parallel; do
        lines=()
        for i in $(seq "$runs"); do
            t0=$(now)
            o=$(CUDA_VISIBLE_DEVICES=$vis "$root/build/bench/cuda_start" $mode peer | tr '\n' ';')
            t1=$(now)
            lines+=("$o whole $(awk "BEGIN { printf \"%.3f\", $t1 - $t0 }")")
        done
        echo "| $mode | $vis | $(printf '%s / ' "${lines[@]}") |"
    done
done

# a tiny model: the start alone
printf '0="init" 1="goal"\n0: 0\n1: 1\n' > "$out/tiny.lab"
printf '2 2\n0 1 1\n1 1 1\n' > "$out/tiny.tra"
"$root/build/bin/prism2csr" -l "$out/tiny.lab" "$out/tiny.tra" > "$out/tiny.csr"
echo
echo "| tiny model (2 states) | build | whole command s, min-max |"
echo "|---|---|---|"
for cmd in "gpu-scc" "gpu-scc -g $gpus" "gpu-vi --cpu-below 0 -t goal -m max"; do
    declare -A w=()
    for i in $(seq "$runs"); do
        for b in "${builds[@]}"; do
            t0=$(now)
            # shellcheck disable=SC2086
            timeout 120 "$(bin_of $b)/"$cmd "$out/tiny.csr" > /dev/null 2>&1
            t1=$(now)
            w[$b]="${w[$b]:-} $(awk "BEGIN { printf \"%.3f\", $t1 - $t0 }")"
        done
    done
    for b in "${builds[@]}"; do
        # shellcheck disable=SC2086
        echo "| $cmd | $b | $(range ${w[$b]}) |"
    done
    unset w
done
fi

[ $# -gt 0 ] || exit 0
echo
echo "| model | command | build | whole s | resident s |" \
    "phases/rounds/passes/trim_s/propagate_s/partition_s/upload_s (last run) | labels |"
echo "|---|---|---|---:|---:|---|---|"
for m in "$@"; do
    csr=$m
    while [ -f "$large/$m.building" ]; do sleep 2; done # bench/large.sh --prepare's build
    [ -f "$csr" ] || csr="$large/$m.csr"
    [ -f "$csr" ] || { echo "| $m | missing | | | | |"; continue; }
    for t in gpu-scc gpu-mec; do
        for b in "${builds[@]}"; do
            "$(bin_of $b)/$t" "$csr" > "$out/$b.one.labels" 2> /dev/null
        done
        for g in one $parts; do
            args=()
            [ "$g" = one ] || args=(-g "$g")
            declare -A w=() r=() k=() ok=()
            for i in $(seq "$runs"); do
                for b in "${builds[@]}"; do
                    t0=$(now)
                    j=$(timeout 600 "$(bin_of $b)/$t" "${args[@]}" --stats=json "$csr" 2>&1 > "$out/$b.labels")
                    t1=$(now)
                    w[$b]="${w[$b]:-} $(awk "BEGIN { printf \"%.3f\", $t1 - $t0 }")"
                    r[$b]="${r[$b]:-} $(echo "$j" | jget decompose_s)"
                    k[$b]=$(echo "$j" | jget phases rounds passes trim_s propagate_s partition_s upload_s |
                        tr ' ' /)
                    cmp -s "$out/$b.labels" "$out/$b.one.labels" || ok[$b]=DIFFER
                done
            done
            for b in "${builds[@]}"; do
                # shellcheck disable=SC2086
                echo "| $m | $t ${args[*]} | $b | $(range ${w[$b]}) | $(range ${r[$b]}) | ${k[$b]:-} |" \
                    "${ok[$b]:-same} |"
            done
            unset w r k ok
        done
    done
done
[ -n "$overlay" ] && rm -rf "$old"
exit 0
