# Common set-up of the Bats suite: bats-support and bats-assert from
bats_require_minimum_version 1.5.0
# BATS_LIB_PATH (Debian: /usr/lib/bats), the tools from build/bin, the shared
# models from $SHARED/models (default ../shared beside the repository).
bats_load_library bats-support
bats_load_library bats-assert

ROOT="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
# make check-sanitize points these at the sanitizer build.
PATH="${TOOLS_BIN:-$ROOT/build/bin}:${TEST_TOOLS_BIN:-$ROOT/build/test-bin}:$PATH"
case "${SHARED:-../shared}" in
    /*) MODELS="${SHARED}/models" ;;
    *) MODELS="$ROOT/${SHARED:-../shared}/models" ;;
esac
DATA="$ROOT/tests/data"

# The shared models are part of the test set-up: missing them is a failure.
require_models() {
    [ -d "$MODELS" ] || fail "shared models not found at $MODELS (set SHARED=path/to/shared)"
}

# First existing of NAME.EXT and NAME.EXT.gz in the models folder.
model_file() {
    if [ -f "$MODELS/$1" ]; then echo "$MODELS/$1"; elif [ -f "$MODELS/$1.gz" ]; then echo "$MODELS/$1.gz"; fi
}

# Names of the shared models with a .tra (plain or gzip).
model_names() {
    local f b
    for f in "$MODELS"/*.tra "$MODELS"/*.tra.gz; do
        [ -e "$f" ] || continue
        b=${f##*/}; b=${b%.gz}; echo "${b%.tra}"
    done | sort -u
}

# A file in the test's temporary folder with the given content.
write_file() {
    printf '%b' "$2" > "$BATS_TEST_TMPDIR/$1"
    echo "$BATS_TEST_TMPDIR/$1"
}

# Runs a command with its memory limited to MB megabytes: ulimit -v on a
# normal build; under make check-sanitize (SANITIZED=1), where ASan reserves
# terabytes of shadow memory and cannot start under ulimit -v, ASan's own
# limit on a single allocation instead (an allocation past it returns NULL).
memory_limited() {
    local mb=$1; shift
    if [ -n "${SANITIZED:-}" ]; then
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}max_allocation_size_mb=$mb:allocator_may_return_null=1" "$@"
    else
        (ulimit -v $((mb * 1024)) && exec "$@")
    fi
}
