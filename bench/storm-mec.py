#!/usr/bin/env python3
"""Storm's MEC decomposition of a model, timed: the baseline of bench/large.sh.

usage: bench/storm-mec.py NAME.umb [RUNS]

Loads the UMB archive into Storm (stormpy.build_model_from_umb, as Storm 2.0
imports it), then times stormpy.analysis.get_maximal_end_components (Storm's
MaximalEndComponentDecomposition, sequential) RUNS times (default 1) and
prints one JSON object: the model's counts, the MEC count, the load time and
the best decomposition time in seconds.  Needs
stormpy (pip, or the wheels ../shared/models/README.md names).
"""
import json, sys, time

import stormpy
import stormpy.analysis

path = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 1
t0 = time.perf_counter()
model = stormpy.build_model_from_umb(path)
load_s = time.perf_counter() - t0
best = None
for _ in range(runs):
    t1 = time.perf_counter()
    mecs = stormpy.analysis.get_maximal_end_components(model)
    took = time.perf_counter() - t1
    best = took if best is None else min(best, took)
count = mecs.size  # the decomposition's number of MECs (pybind: size, no len())
print(json.dumps({"model": path, "states": model.nr_states, "choices": model.nr_choices,
                  "transitions": model.nr_transitions, "mecs": count,
                  "load_s": round(load_s, 3), "storm_mec_s": round(best, 4)}))
