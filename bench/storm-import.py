#!/usr/bin/env python3
"""Storm imports csrexport's UMB (issue 7): for every shared model, prism2csr's
CSR -> csrexport -f umb -> stormpy.build_model_from_umb; the counts must be the
CSR file's and Storm's value of every query of NAME.values.tsv (in the first
initial state) PRISM's within 1e-6 relative.  Needs stormpy (pip, or the wheels
that build-large uses); not part of make test.

usage: bench/storm-import.py [MODELS_DIR]   (prints one line per model, exit 1 on a mismatch)
"""
import csv, gzip, os, subprocess, sys, tempfile

import stormpy

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
models = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "..", "shared", "models")
bin_dir = os.path.join(root, "build", "bin")


def first(*names):
    return next((os.path.join(models, n) for n in names if os.path.exists(os.path.join(models, n))), None)


bad = 0
names = sorted({f.split(".tra")[0] for f in os.listdir(models) if ".tra" in f})
with tempfile.TemporaryDirectory() as tmp:
    for name in names:
        tra, lab = first(name + ".tra", name + ".tra.gz"), first(name + ".lab", name + ".lab.gz")
        csr, base = os.path.join(tmp, name + ".csr"), os.path.join(tmp, name)
        with open(csr, "wb") as out:
            subprocess.run([os.path.join(bin_dir, "prism2csr"), "-l", lab, tra], stdout=out, check=True)
        subprocess.run([os.path.join(bin_dir, "csrexport"), "-f", "umb", "-o", base, csr], check=True)
        info = subprocess.run([os.path.join(bin_dir, "csrinfo"), csr], capture_output=True, text=True).stdout
        want = info.splitlines()[0].split("CSR 1.")[1]
        model = stormpy.build_model_from_umb(base + ".umb")
        got = f"{model.nr_states} states, {model.nr_choices} choices, {model.nr_transitions} transitions"
        ok = got in want
        worst = 0.0
        values = os.path.join(models, name + ".values.tsv")
        for row in csv.DictReader(open(values), delimiter="\t") if os.path.exists(values) else []:
            prop = row["query"].rstrip(";")
            result = stormpy.model_checking(model, stormpy.parse_properties(prop)[0])
            value = result.get_value(sorted(model.initial_states)[0])
            ref = float(row["value"].split()[0])
            err = abs(value - ref) / max(abs(ref), 1e-12) if abs(value - ref) > 1e-12 else 0.0
            worst = max(worst, err)
        ok = ok and worst <= 1e-6
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} {name}: Storm read {got} (CSR: {want.split(', ', 1)[1]}); "
              f"worst relative difference to PRISM's values {worst:.1e}")
sys.exit(1 if bad else 0)
