#!/usr/bin/env bats
# Peak resident memory of the tools within the bounds README.md documents
# ("Memory"), on a random MDP of 300,000 states: CSR = the CSR file's bytes
# (8 per state, 8 per choice, 12 per transition, plus labels), TEXT = the
# .tra's bytes, and 64 MiB for the program, its libraries and buffers.

load helper

setup() {
    [ -z "${SANITIZED:-}" ] || skip "sanitizers reserve shadow memory: bounds are for the normal build"
    T=$BATS_TEST_TMPDIR
    randmdp -n 300000 -c 3 -k 6 -e 0 -g 10 11 > "$T/m.csr"
    CSR=$(stat -c %s "$T/m.csr")
}

# within NAME FACTOR TEXT_BYTES COMMAND...: peakrss of COMMAND at most
# FACTOR x CSR + TEXT_BYTES + 64 MiB, and the command succeeds
within() {
    local name=$1 factor=$2 text=$3; shift 3
    run peakrss "$T/out" "$@"
    assert_success
    local bound
    bound=$(awk -v c="$CSR" -v f="$factor" -v t="$text" 'BEGIN { printf "%.0f", f * c + t + 64 * 1048576 }')
    [ "$output" -le "$bound" ] || fail "$name: peak RSS $output bytes, bound $bound ($factor x CSR $CSR + $text)"
}

@test "prism2csr stays within its documented peak memory: text + 2 x CSR in parallel, 1.2 x CSR from a pipe or gzip, 1.6 x CSR from UMB" {
    csrexport -o "$T/m" "$T/m.csr"
    csrexport -f umb -o "$T/u" "$T/m.csr"
    gzip -k "$T/m.tra"
    TEXT=$(stat -c %s "$T/m.tra")
    within "prism2csr, parallel" 2.0 "$TEXT" prism2csr -l "$T/m.lab" "$T/m.tra"
    cmp "$T/out" <(prism2csr -j 1 -l "$T/m.lab" "$T/m.tra")
    within "prism2csr -j 1" 1.2 0 prism2csr -j 1 -l "$T/m.lab" "$T/m.tra"
    within "prism2csr, gzip" 1.2 0 prism2csr -l "$T/m.lab" "$T/m.tra.gz"
    within "prism2csr, UMB" 1.6 0 prism2csr "$T/u.umb"
}

@test "csrinfo, csrexport, gpu-scc --cpu, gpu-mec --cpu and restructure stay within their documented peak memory" {
    within csrinfo 1.05 0 csrinfo "$T/m.csr"
    within csrexport 1.05 0 csrexport "$T/m.csr"
    within "gpu-scc --cpu" 1.4 $((8 * 300000)) gpu-scc --cpu "$T/m.csr"
    within "gpu-mec --cpu" 2.4 $((8 * 300000)) gpu-mec --cpu "$T/m.csr"
    restructure -u 7 "$T/m.csr" > "$T/r.csr"
    within restructure 1 $((2 * $(stat -c %s "$T/r.csr"))) restructure -u 7 "$T/m.csr"
}

@test "gpu-scc --cpu, gpu-mec --cpu and restructure stay within their documented peak memory on a sparse MDP too" {
    # 3M states, 1.5 choices and 2.25 transitions a state: the per-state arrays weigh more than on the dense one
    randmdp -n 3000000 -c 2 -k 2 -e 0 -g 10 11 > "$T/m.csr"
    CSR=$(stat -c %s "$T/m.csr")
    within "gpu-scc --cpu" 1.4 $((8 * 3000000)) gpu-scc --cpu "$T/m.csr"
    within "gpu-mec --cpu" 2.4 $((8 * 3000000)) gpu-mec --cpu "$T/m.csr"
    restructure -u 7 "$T/m.csr" > "$T/r.csr"
    within restructure 1 $((2 * $(stat -c %s "$T/r.csr"))) restructure -u 7 "$T/m.csr"
}

@test "GPU: gpu-scc and gpu-mec stay within 1.3 x CSR of host memory and 512 MiB for the CUDA driver" {
    nvidia-smi -L >/dev/null 2>&1 || skip "no GPU here"
    within gpu-scc 1.3 536870912 gpu-scc "$T/m.csr"
    within gpu-mec 1.3 536870912 gpu-mec "$T/m.csr"
}

@test "prism2csr streams a gzip'd UMB that inflates to far more than its file (300 MiB of zeros in a member it skips) in 64 MiB" {
    python3 - "$MODELS/coin2.umb" "$T/bomb.umb" <<'PY'
import gzip, io, sys, tarfile
class Zeros(io.RawIOBase):
    def __init__(self, n): self.left = n
    def readable(self): return True
    def readinto(self, b):
        k = min(len(b), self.left); b[:k] = bytes(k); self.left -= k; return k
src = tarfile.open(sys.argv[1], "r:*")
with gzip.open(sys.argv[2], "wb", compresslevel=9) as g, tarfile.open(fileobj=g, mode="w") as t:
    for m in src.getmembers():
        t.addfile(m, src.extractfile(m) if m.isfile() else None)
    junk = tarfile.TarInfo("junk/zeros.bin"); junk.size = 300 << 20
    t.addfile(junk, io.BufferedReader(Zeros(junk.size)))
PY
    [ "$(stat -c %s "$T/bomb.umb")" -lt $((2 << 20)) ] || fail "the archive is not a bomb"
    run peakrss "$T/out" prism2csr "$T/bomb.umb"
    assert_success
    [ "$output" -le $((64 << 20)) ] || fail "peak RSS $output bytes"
    cmp "$T/out" <(prism2csr "$MODELS/coin2.umb")
}
