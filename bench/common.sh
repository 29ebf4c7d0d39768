# Sourced by the bench scripts: where the project, the tools and the shared
# models are, and a scratch folder (bench/out, ignored by git).
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED:-$root/../shared}
case "$shared" in /*) ;; *) shared="$root/$shared" ;; esac
models="$shared/models"
bin="${TOOLS_BIN:-$root/build/bin}"
out="$root/bench/out"
mkdir -p "$out"

# jget FIELD... < text: the fields of the last line of the input, a JSON
# object (--stats=json), space-separated; a.b names a nested field; "-" for
# a field the object lacks.
jget() {
    python3 -c 'import json, sys
j = json.loads(sys.stdin.read().strip().splitlines()[-1])
def get(k):
    v = j
    for p in k.split("."):
        if not isinstance(v, dict) or p not in v:
            return "-"
        v = v[p]
    return v
print(" ".join(str(get(k)) for k in sys.argv[1:]))' "$@"
}

# now: wall-clock seconds (for timing a command from the shell)
now() { date +%s.%N; }
# tool NAME ARGS...: a tool of $bin, bounded by TIMEOUT seconds (default 600):
# a hang is a failure, not a lost lease
tool() { timeout "${TIMEOUT:-600}" "$bin/$@"; }

# build_overlay OVERLAY: sets $old to a scratch copy of this tree (without
# .git and what .gitignore names) with the files of OVERLAY over it, built
# there (bench/ab.sh's "old" build; the caller removes $old).  Returns 1 if
# the build fails.
build_overlay() {
    local overlay pattern p excludes=(--exclude=./.git --exclude=./.models)
    overlay=$(cd "$1" && pwd) || return 1
    old=$(mktemp -d /tmp/ab-old.XXXXXX)
    while read -r pattern; do
        case "$pattern" in '' | '#'*) ;; /*) p=${pattern#/}; excludes+=("--exclude=./${p%/}") ;; *) excludes+=("--exclude=$pattern") ;; esac
    done < "$root/.gitignore"
    (cd "$root" && tar cf - "${excludes[@]}" .) | (cd "$old" && tar xf -)
    (cd "$overlay" && find . -type f -print0 | xargs -0 tar cf -) | (cd "$old" && tar xf -)
    if ! (cd "$old" && make -j"$(nproc)" SKIP_DEPS=1 all > build.log 2>&1); then
        echo "old build: FAILED ($old/build.log)" >&2
        return 1
    fi
    echo "old build: ok" >&2
}
