#!/bin/bash
# Prepare .large/ here, for bench/large.sh and bench/vi-large.sh on the device
# machine (carry it with the call): ../shared/models' build-large, its table
# large.tsv with the rows of bench/large-extra.tsv added (and the label bc2
# on the wlan rows), and the PRISM
# sources, the shared zeroconf.nm among them with its model type moved to the
# top (PRISM takes "mdp" anywhere among the declarations, Storm's parser only
# first).
#   bench/prepare-large.sh
set -euo pipefail
. "$(dirname "$0")/common.sh"
dest="$root/.large"
mkdir -p "$dest"
cp -r "$models/build-large" "$models/src" "$dest/"
# the wlan rows get the label of the shared wlan3's query, bc2, for bench/vi-large.sh
{ awk -F'\t' -v OFS='\t' '/^wlan/ { $4 = ($4 == "" ? "" : $4 ";") "bc2=bc1=2|bc2=2" } { print }' "$models/large.tsv"
  grep -v '^#' "$root/bench/large-extra.tsv"; } > "$dest/large.tsv"
{ echo mdp; grep -vx 'mdp' "$models/zeroconf.nm"; } > "$dest/src/zeroconf.nm"
echo "prepared $dest: $(grep -vc '^#' "$dest/large.tsv") models in large.tsv"
