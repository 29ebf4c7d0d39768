#!/bin/bash
# Build, test and benchmark on a lent GPU machine that reaches no package
# registry.  Prepared here (see bench/README.md):
#   .deb/     apt-get download bats bats-assert bats-support zlib1g-dev libbsd-dev libmd-dev libbsd0 libmd0
#             libarchive-dev libarchive13 libjansson-dev libjansson4 libdeflate-dev libdeflate0 libnettle8
#             libxml2 libacl1 liblz4-1 libzstd1 (and libicu72 where the machine lacks libxml2's ICU)
#   .shared/  a copy of ../shared/models (the models do not travel otherwise; of the *.umb
#             the GPU tests need only those of tests/data/storm-values.tsv's models: the
#             others can stay behind to save room)
#   .stormpy/ and .large/  for paper-scale models (bench/large.sh): the packed stormpy of
#             ../shared/tools/slim-stormpy, and build-large, large.tsv and src/ of ../shared/models
# and carried with the call:
#   bash bench/on-device.sh [--prepare-large "MODEL..."] test [bats files] | bench | all | run command...
# --prepare-large starts building those models (bench/large.sh --prepare) before the
# tools are built, in this environment, so that the builds overlap the rest.
set -uo pipefail
cd "$(dirname "$0")/.."
prefix=/tmp/debs
mkdir -p "$prefix"
for f in .deb/*.deb .deb-icu/*.deb; do [ -f "$f" ] && dpkg -x "$f" "$prefix"; done
# libbsd.so is a linker script naming absolute paths: point it into the prefix.
sed -i "s| /usr/lib/| $prefix/usr/lib/|g; s|(/usr/lib/|($prefix/usr/lib/|g" "$prefix/usr/lib/x86_64-linux-gnu/libbsd.so"
export PATH="$prefix/usr/bin:$PATH"
export BATS_LIB_PATH="$prefix/usr/lib/bats"
export CPATH="$prefix/usr/include${CPATH:+:$CPATH}"
export LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}"
export LD_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export SHARED="$PWD/.shared"
nvidia-smi -L || true
rm -f build/.built
if [ "${1:-}" = --prepare-large ]; then
    if [ -f .stormpy/stormpy.tar.xz ] && [ ! -d /tmp/site/stormpy ]; then
        mkdir -p /tmp/site && xz -dc .stormpy/stormpy.tar.xz | tar xf - -C /tmp/site
    fi
    export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
    WAIT_FOR="$PWD/build/.built" bash bench/large.sh --prepare $2
    shift 2
fi
# stormpy unpacked by an earlier call of this machine (--prepare-large) serves later calls too
case ":${PYTHONPATH:-}:" in *:/tmp/site:*) ;; *) [ -d /tmp/site/stormpy ] && export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}" ;; esac
make -j"$(nproc)" SKIP_DEPS=1 all test-tools || exit 1
touch build/.built
what=${1:-all}
shift || true
if [ "$what" = test ] || [ "$what" = all ]; then
    bats "${@:-tests/}" 2>&1 | tee "${OUT:-/tmp}/bats.log" | grep -v '^ok'
    echo "bats: $(grep -c '^ok' "${OUT:-/tmp}/bats.log") passed, $(grep -c '^not ok' "${OUT:-/tmp}/bats.log") failed"
fi
if [ "$what" = run ]; then
    "$@"
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
    lscpu | grep -E 'Model name|^CPU\(s\)'
    bench/prism2csr.sh | tee "${OUT:-/tmp}/prism2csr.md"
    bench/cpu-ref.sh | tee "${OUT:-/tmp}/cpu-ref.md"
fi
