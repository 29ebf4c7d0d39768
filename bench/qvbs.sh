#!/bin/bash
# The QVBS check on the lent GPU machine (issue 42): ../shared/tools/qvbs-check
# --as-written on the MDP and DTMC families, Storm's side (build with state
# valuations, export UMB) for both families at once in the background, then
# the project's (prism2csr + one gpu-vi run per instance) on the GPU.
# Carry .stormpy (../shared/tools/slim-stormpy) and .qvbs (a copy of
# ../shared/qvbs/mdp, dtmc and ../shared/tools/qvbs-check):
#   mkdir -p .qvbs && cp -r ../shared/qvbs/mdp ../shared/qvbs/dtmc ../shared/tools/qvbs-check .qvbs/
#   bash bench/on-device.sh run bash bench/qvbs.sh start     # Storm's side in the background (setsid)
#   bash bench/on-device.sh run bash bench/qvbs.sh finish    # waits for it, then ours; tables to $OUT
# (two calls of one warm machine; `all` does both in one).  QVBS_VISIBLE: the
# runs of ours, e.g. "0 all" (one GPU visible, then every GPU).  QVBS_ARGS: more
# qvbs-check options (default: the two largest instances of 2e4 to 1.2e7
# states of each family, as issue 42 asks); QVBS_DIR: where the runs go.
set -uo pipefail
cd "$(dirname "$0")/.."
dir=${QVBS_DIR:-/tmp/qvbs}
args=(--min-states 2e4 --max-states 1.2e7 --per-family 2 --as-written ${QVBS_ARGS:-})
if [ ! -d /tmp/site/stormpy ] && [ -f .stormpy/stormpy.tar.xz ]; then
    mkdir -p /tmp/site && xz -dc .stormpy/stormpy.tar.xz | tar xf - -C /tmp/site
fi
export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
start() {
    mkdir -p "$dir"
    for fam in mdp dtmc; do
        setsid nohup python3 .qvbs/qvbs-check ".qvbs/$fam" build/bin "$dir/$fam" "${args[@]}" --phase storm \
            > "$dir/$fam.storm.log" 2>&1 < /dev/null &
        echo $! > "$dir/$fam.pid"
    done
    echo "qvbs: Storm's side started ($dir)"
}
finish() {
    for fam in mdp dtmc; do
        while kill -0 "$(cat "$dir/$fam.pid")" 2> /dev/null; do sleep 2; done
        tail -3 "$dir/$fam.storm.log"
    done
    # QVBS_VISIBLE: the runs of ours, each with CUDA_VISIBLE_DEVICES as named ("all": unset)
    for vis in ${QVBS_VISIBLE:-all}; do
        for fam in mdp dtmc; do
            log="$dir/$fam.ours-$vis.log"
            if [ "$vis" = all ]; then
                (unset CUDA_VISIBLE_DEVICES; python3 .qvbs/qvbs-check ".qvbs/$fam" build/bin "$dir/$fam" "${args[@]}" \
                    --phase ours > "$log" 2>&1)
            else
                CUDA_VISIBLE_DEVICES=$vis python3 .qvbs/qvbs-check ".qvbs/$fam" build/bin "$dir/$fam" "${args[@]}" \
                    --phase ours > "$log" 2>&1
            fi
            echo "== $fam, CUDA_VISIBLE_DEVICES=$vis"
            grep -v '^{' "$log"
            [ -n "${OUT:-}" ] && cp "$log" "$OUT/qvbs-$fam-$vis.log"
        done
    done
}
case "${1:-all}" in
start) start ;;
finish) finish ;;
all) start && finish ;;
*) echo "usage: bench/qvbs.sh start|finish|all" >&2; exit 2 ;;
esac
