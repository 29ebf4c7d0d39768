#!/bin/bash
# The SCC table of bench/scc.sh on paper-scale models built on the device:
#   bash bench/on-device.sh run bench/scc-large.sh leader7 wlan6_2500
# Needs, carried with the call (README, "On the device machine"): .whl (the
# stormpy wheels of ../shared/models/README.md) and .large (a copy of
# build-large, large.tsv and src/ from ../shared/models).
set -uo pipefail
. "$(dirname "$0")/common.sh"
python3 -m pip install -q --no-index --no-deps --target /tmp/site "$root"/.whl/*.whl || exit 1
export PYTHONPATH=/tmp/site
work=/tmp/large
mkdir -p "$work"
files=()
for name in "$@"; do
    python3 "$root/.large/build-large" -j "$(nproc)" -o "$work" "$name" || { echo "$name: build failed" >&2; continue; }
    "$bin/prism2csr" -v -l "$work/$name.lab" "$work/$name.tra" > "$work/$name.csr" || continue
    rm -f "$work/$name.tra"
    files+=("$work/$name.csr")
done
[ ${#files[@]} -gt 0 ] && RUNS=${RUNS:-2} "$root/bench/scc.sh" "${files[@]}"
