#!/usr/bin/env python3
"""Storm's model checking of reachability properties, timed: the baseline of bench/vi-large.sh.

usage: bench/storm-vi.py NAME.umb PROPERTY...

Loads the UMB archive into Storm (stormpy.build_model_from_umb), then for each
PRISM property (e.g. 'Pmin=? [ F "fin_c0" ]') times stormpy.model_checking
with the default environment made sound (force_soundness: Storm 2.0 then
solves MDPs topologically, SCC by SCC, with optimistic value iteration;
precision 1e-6 relative, as gpu-vi's default) and prints one JSON object per
property: the value in the first initial state, the load time and the
checking time in seconds.  Needs stormpy (pip, or the wheels
../shared/models/README.md names).
"""
import json, sys, time

import stormpy

path = sys.argv[1]
t0 = time.perf_counter()
model = stormpy.build_model_from_umb(path)
load_s = time.perf_counter() - t0
env = stormpy.Environment()
solver = env.solver()
solver.force_soundness = True
minmax = solver.min_max() if callable(solver.min_max) else solver.min_max
for text in sys.argv[2:]:
    prop = stormpy.parse_properties(text)[0]
    t1 = time.perf_counter()
    result = stormpy.model_checking(model, prop, environment=env)
    took = time.perf_counter() - t1
    init = model.initial_states[0]
    value = result.get_value(init)
    print(json.dumps({"model": path, "property": text, "method": str(minmax.method), "value": value,
                      "load_s": round(load_s, 3), "storm_s": round(took, 4)}), flush=True)
