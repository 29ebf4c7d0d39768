#!/usr/bin/env python3
"""Storm 2.0's Pmax=? [ G F "LABEL" ] on shared MDPs, as per-state classes: the
reference of gpu-acc --mdp (tests/150-gpu-acc.bats, tests/155-gpu-acc-gpu.bats).

usage: tests/tools/storm-buchi.py [MODELS] > tests/data/storm-buchi.tsv

For every "MODEL LABEL" pair below, loads MODELS/MODEL.umb (PRISM 4.10's
export; same numbering as the .tra) with stormpy.build_model_from_umb and
checks, for every state, Pmax=? [ G F "LABEL" ] and its complement
Pmin=? [ F G !"LABEL" ] = 1 - Pmax (Storm's LTL engine), and prints
"MODEL<TAB>LABEL<TAB>CLASSES": one character per state in state order, 0
where Pmax is 0, 1 where the complement is 0, + otherwise.
zeroconf is left out: 4,331 of its states have 1 - Pmax(G F "ip_used") of
about 9e-17 (gpu-vi's sound lower bound of Pmin(F N), N the states where
Pmax is 0, from which G F "ip_used" has probability 0), which Storm's doubles
give as Pmax = 1.0 and, computed as 1 - Pmax, as Pmin [ F G !"ip_used" ] = 0:
its "= 1" cannot be told from its numbers.  Run once, by hand,
where stormpy is installed (pip install stormpy); the tests only read its
output.
"""
import os, sys

import stormpy

models = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../../shared/models")
pairs = [("coin2", "agree"), ("coin4", "agree"), ("leader3", "elected"),
         ("csma2_2", "all_delivered"), ("wlan1", "bc1"), ("mutual3", "some_14"), ("phil3", "eat"),
         ("dining_crypt3", "odd"), ("coin2", "fin_disagree")]
print("# model\tlabel\tPmax(G F label) per state: 1, + (strictly between) or 0 (Storm %s; tests/tools/storm-buchi.py)" %
      getattr(stormpy, "__version__", "2"))
env = stormpy.Environment()
for name, label in pairs:
    model = stormpy.build_model_from_umb(os.path.join(models, name + ".umb"))
    props = stormpy.parse_properties('Pmax=? [ G F "%s" ]; Pmin=? [ F G !"%s" ]' % (label, label))
    pmax, miss = (stormpy.model_checking(model, p, environment=env, only_initial_states=False).get_value_vector()
                  for p in props)
    classes = "".join("0" if v == 0.0 else "1" if w == 0.0 else "+" for v, w in zip(pmax, miss))
    print("%s\t%s\t%s" % (name, label, classes), flush=True)
