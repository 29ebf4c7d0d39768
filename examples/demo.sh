#!/bin/sh
# make demo: the pipeline on the example model, checked against PRISM.
#   prism2csr -l coin2.lab coin2.tra | gpu-mec > build/demo/coin2.labels
# (the fast pipeline: README.md, "Speed end to end", says why restructure -u 7 is left out)
# gpu-mec runs on the GPU where it can; where it cannot (no CUDA device or a
# CUDA failure: exit status 3, as every GPU tool) the CPU reference runs,
# with gpu-mec's message and a notice.
set -eu
bin=${1:-build/bin}
ex=examples
out=build/demo
mkdir -p "$out"
labels="$out/coin2.labels"

run_mec() {
    "$bin/prism2csr" -l "$ex/coin2.lab" "$ex/coin2.tra" | "$bin/gpu-mec" "$@" > "$labels"
}
if run_mec 2> "$out/gpu-mec.err"; then
    mode="GPU"
else
    status=$?
    if [ "$status" -ne 3 ]; then cat "$out/gpu-mec.err" >&2; exit "$status"; fi
    cat "$out/gpu-mec.err" >&2
    echo "demo: running gpu-mec --cpu (the CPU reference) instead" >&2
    run_mec --cpu
    mode="CPU reference"
fi
mecs=$(grep -v -- '^-$' "$labels" | sort -u | wc -l)
in_mecs=$(grep -vc -- '^-$' "$labels" || true)
echo "demo: coin2 (272 states): $mecs MECs holding $in_mecs states, by gpu-mec ($mode)"
echo "demo: labels written to $labels"
if "$bin/labelcmp" "$labels" "$ex/coin2.mecs"; then
    echo "demo: identical to PRISM's MECs ($ex/coin2.mecs)"
else
    echo "demo: differs from PRISM's MECs ($ex/coin2.mecs)" >&2
    exit 1
fi
