#!/usr/bin/env python3
"""The DRN files of tests/data/drn, written by Storm 2.0 (stormpy 2.0.0):
each shared model's UMB archive read by Storm (stormpy.build_model_from_umb)
and exported by Storm's DRN exporter (stormpy.io.export_to_drn).  NAME.drn
comes from PRISM's NAME.umb (rewards, state valuations, PRISM's action
names), NAME.storm.drn from Storm's own NAME.storm.umb (no valuations, no
action names: Storm writes each choice's index).  Kept in the repository
(the tests need no Storm); rerun to regenerate:

    pip install stormpy==2.0.0
    tests/data/drn/make-drn.py [MODELS_DIR]     (default ../shared/models)
"""
import os, sys

import stormpy
import stormpy.io

here = os.path.dirname(os.path.abspath(__file__))
models = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "..", "..", "shared", "models")
for umb in ["fmsd_fig1.storm", "coin2", "coin2.storm", "dice", "brp", "leader3", "csma2_2.storm"]:
    model = stormpy.build_model_from_umb(os.path.join(models, umb + ".umb"))
    stormpy.io.export_to_drn(model, os.path.join(here, umb + ".drn"))
    print(umb, model.nr_states, model.nr_choices, model.nr_transitions)
