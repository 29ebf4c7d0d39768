#!/usr/bin/env python3
"""vi-crossover: where gpu-vi's CPU path answers before the GPU's (issue 43).

  python3 bench/vi-crossover.py [--bin build/bin] [--models ../shared/models] [--runs 3] [--max-transitions N]

1. Start-up on a tiny model (dice, 20 transitions), best and median of --runs x 3 runs, end to end from the
   CSR file: gpu-vi as it starts by default (the model below --cpu-below: the CPU, no CUDA), --cpu,
   --cpu-below 0 (the GPU; only the device used visible to CUDA, gpu_select_device), and --cpu-below 0 with
   CUDA_VISIBLE_DEVICES naming every GPU of the host (what a run cost before: the driver initialises all).
2. Every shared model with PRISM's values (INDEX.tsv, NAME.values.tsv), smallest first: each query end to end
   on the CPU (--cpu) and on the GPU (--cpu-below 0), best of --runs; a markdown table by transitions.
"""
import argparse, os, statistics, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("--bin", default="build/bin")
ap.add_argument("--models", default=os.path.join(os.environ.get("SHARED", "../shared"), "models"))
ap.add_argument("--runs", type=int, default=3)
ap.add_argument("--max-transitions", type=float, default=3e6)
a = ap.parse_args()
gpu_vi = os.path.join(a.bin, "gpu-vi")
tmp = tempfile.mkdtemp()


def csr_of(name):
    out = os.path.join(tmp, name + ".csr")
    tra = os.path.join(a.models, name + ".tra")
    if not os.path.exists(tra):
        tra += ".gz"
    with open(out, "wb") as f:
        subprocess.run([os.path.join(a.bin, "prism2csr"), "-l", os.path.join(a.models, name + ".lab"), tra],
                       stdout=f, check=True)
    return out


def wall(cmd, env=None):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    t = time.perf_counter() - t0
    if r.returncode:
        sys.exit(f"{' '.join(cmd)}: {r.stderr.decode()[-300:]}")
    return t


def gpus():
    try:
        r = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
    except FileNotFoundError:
        return []
    return [l for l in r.stdout.splitlines() if l.startswith("GPU ")] if r.returncode == 0 else []


# 1. start-up
dice = csr_of("dice")
q = ["-t", "six"]
every = dict(os.environ, CUDA_VISIBLE_DEVICES=",".join(str(i) for i in range(len(gpus()))))
print(f"## start-up on dice (20 transitions), {len(gpus())} GPUs here, {a.runs * 3} runs each\n")
print("\n".join(gpus()) + "\n")
print("| run | best s | median s |\n|---|---:|---:|")
for label, cmd, env in [("gpu-vi (default: the CPU below --cpu-below)", [gpu_vi] + q + [dice], None),
                        ("gpu-vi --cpu", [gpu_vi, "--cpu"] + q + [dice], None),
                        ("gpu-vi --cpu-below 0 (the GPU, one visible)", [gpu_vi, "--cpu-below", "0"] + q + [dice], None),
                        ("gpu-vi --cpu-below 0, CUDA_VISIBLE_DEVICES = every GPU",
                         [gpu_vi, "--cpu-below", "0"] + q + [dice], every),
                        ("/bin/true (a process)", ["/bin/true"], None)]:
    if "cpu-below 0" in " ".join(cmd) and not gpus():
        continue
    ts = [wall(cmd, env) for _ in range(a.runs * 3)]
    print(f"| {label} | {min(ts):.3f} | {statistics.median(ts):.3f} |")

# 2. the crossover
rows = []
with open(os.path.join(a.models, "INDEX.tsv")) as f:
    head = f.readline().rstrip("\n").split("\t")
    for line in f:
        r = dict(zip(head, line.rstrip("\n").split("\t")))
        if os.path.exists(os.path.join(a.models, r["name"] + ".values.tsv")) and float(r["transitions"]) <= a.max_transitions:
            rows.append(r)
rows.sort(key=lambda r: int(r["transitions"]))
print(f"\n## each query end to end, best of {a.runs}\n")
print("| model | transitions | query | CPU s | GPU s | CPU / GPU |\n|---|---:|---|---:|---:|---:|")
for r in rows:
    csr = csr_of(r["name"])
    with open(os.path.join(a.models, r["name"] + ".values.tsv")) as f:
        vh = f.readline().rstrip("\n").split("\t")
        for line in f:
            v = dict(zip(vh, line.rstrip("\n").split("\t")))
            args = ["-t", v["target"]] + (["-a", v["avoid"]] if v["avoid"] != "-" else []) + \
                   (["-m", v["dir"]] if v["dir"] != "-" else [])
            cpu = min(wall([gpu_vi, "--cpu"] + args + [csr]) for _ in range(a.runs))
            gpu = min(wall([gpu_vi, "--cpu-below", "0"] + args + [csr]) for _ in range(a.runs)) if gpus() else float("nan")
            print(f"| {r['name']} | {r['transitions']} | {v['query']} | {cpu:.3f} | {gpu:.3f} | {cpu / gpu:.2f} |",
                  flush=True)
