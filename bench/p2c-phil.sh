#!/bin/bash
# Where prism2csr's time goes on a big .tra (issue 14): -v parts per thread
# count, with and without the .lab, and the whole command's wall time and
# peak RSS; NAME.umb in $LARGE is exported to NAME.tra/.lab first.
#   bench/p2c-phil.sh NAME...
set -uo pipefail
. "$(dirname "$0")/common.sh"
large=${LARGE:-/tmp/large}
for name in "$@"; do
    while [ -f "$large/$name.building" ]; do sleep 2; done
    [ -f "$large/$name.tra" ] || "$bin/csrexport" -f tra -o "$large/$name" "$large/$name.csr" || continue
    cat "$large/$name.tra" "$large/$name.lab" > /dev/null
    ls -la "$large/$name.tra" "$large/$name.lab"
    for j in 16 15 8; do
        for lab in "-l $large/$name.lab" ""; do
            for i in 1 2; do
                t0=$(date +%s.%N)
                rss=$("$root/build/test-bin/peakrss" "$large/$name.p2c.csr" "$bin/prism2csr" -v -j$j $lab "$large/$name.tra" 2> "$large/v.txt")
                t1=$(date +%s.%N)
                echo "-j$j ${lab:+with .lab}: $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.3f", b-a}') s wall, peak $((rss / 1048576)) MiB; $(cat "$large/v.txt")"
            done
        done
    done
    rm -f "$large/$name.p2c.csr"
done
