#!/usr/bin/env python3
"""Storm 2.0's values of the properties in tests/data/storm-values.props, the
reference of tests/105-properties.bats for what PRISM's files do not cover
(expected rewards, step-bounded reachability).

usage: tests/tools/storm-values.py [MODELS] > tests/data/storm-values.tsv

MODELS is ../shared/models (default).  For every line "MODEL<TAB>PROPERTY" of
tests/data/storm-values.props, loads MODELS/MODEL.umb (PRISM 4.10's export,
rewards included) with stormpy.build_model_from_umb and checks the property
with Storm's sound engine (force_soundness: interval / optimistic value
iteration) at relative precision 1e-10, four orders below the 1e-6 the tests
ask of gpu-vi; step-bounded properties are exact step counts.  Prints
"MODEL<TAB>PROPERTY<TAB>VALUES": the value of every initial state in
increasing state order (PRISM's numbering), space-separated, "inf" for an
infinite expected reward.  Run once, by hand, where stormpy is installed (pip
install stormpy); the tests only read its output, never run it.
"""
import os, sys

import stormpy

models = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../../shared/models")
here = os.path.dirname(os.path.abspath(__file__))
env = stormpy.Environment()
solver = env.solver()
solver.force_soundness = True
minmax = solver.min_max() if callable(solver.min_max) else solver.min_max
minmax.precision = stormpy.Rational(1e-10)
minmax.relative_termination_criterion = True
loaded = {}
print("# model\tproperty\tvalues (Storm %s, sound, relative 1e-10; tests/tools/storm-values.py)" %
      getattr(stormpy, "__version__", "2"))
for line in open(os.path.join(here, "../data/storm-values.props")):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    name, text = line.split("\t")
    if name not in loaded:
        loaded[name] = stormpy.build_model_from_umb(os.path.join(models, name + ".umb"))
    model = loaded[name]
    prop = stormpy.parse_properties(text)[0]
    result = stormpy.model_checking(model, prop, environment=env)
    values = [result.get_value(s) for s in sorted(model.initial_states)]
    print("%s\t%s\t%s" % (name, text, " ".join("inf" if v == float("inf") else repr(float(v)) for v in values)),
          flush=True)
