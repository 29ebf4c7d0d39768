# Sourced by the bench scripts: where the project, the tools and the shared
# models are, and a scratch folder (bench/out, ignored by git).
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED:-$root/../shared}
case "$shared" in /*) ;; *) shared="$root/$shared" ;; esac
models="$shared/models"
bin="${TOOLS_BIN:-$root/build/bin}"
out="$root/bench/out"
mkdir -p "$out"
