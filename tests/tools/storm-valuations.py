#!/usr/bin/env python3
"""Storm 2.0's state valuations, the reference of tests/127-valuations.bats
(tests/data/valuations).  Run once, by hand, where stormpy is installed (pip
install stormpy==2.0.0); the tests only read what it writes, never run Storm.

usage: tests/tools/storm-valuations.py [MODELS [QVBS]]
       (defaults ../shared/models and ../shared/qvbs beside the repository)

Writes into tests/data/valuations:
  NAME.sta.gz          for PRISM 4.10's MODELS/NAME.umb (coin2, dice, brp):
                       Storm's reading of its valuations (build_model_from_umb)
  NAME.storm.umb       a model Storm built from PRISM source with its state
                       valuations and exported (export_to_umb): consensus.2
                       (K=2), egl (N=2, L=1), neg.prism (a bool, negative and
                       offset ranges)
  NAME.storm.sta.gz    Storm's valuations of that model, state by state
  neg.storm.drn        Storm's DRN of neg.prism (export_to_drn: "//[...]" lines)
  longap.storm.umb     longap.prism built with the labels of longap.props, as
                       QVBS csma.3-2 with csma.props: Storm names the AP of
                       "min_backoff_after_success<K" after the expression's
                       text, hex-escaped, an ID of 231 bytes (csma.3-2's own
                       archive is 215 kB); with valuations
  longap.storm.sta.gz  Storm's valuations of it
  longap.storm.ap      that label's name (Storm's) and its states, one line each

Every .sta is in PRISM's syntax (prism -exportstates): "(x,y,z)", then
"s:(v1,v2,v3)" per state, the variables in the order of the archive's
index.json, values from Storm's API (get_int64_value, get_boolean_value),
never from this project's code.
"""
import gzip, json, os, sys, tarfile

import stormpy
import stormpy.io

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "..", "data", "valuations")
shared = os.path.join(here, "..", "..", "..", "shared")
models = sys.argv[1] if len(sys.argv) > 1 else os.path.join(shared, "models")
qvbs = sys.argv[2] if len(sys.argv) > 2 else os.path.join(shared, "qvbs")


def storm_sta(model, umb_path, sta_path):
    """Storm's valuations of model, in the variable order of umb_path's index.json."""
    index = json.load(tarfile.open(umb_path).extractfile("index.json"))
    order = [v["name"] for v in index["valuations"]["states"]["classes"][0]["variables"] if "name" in v]
    vals = model.state_valuations
    by_name = {v.name: v for v in vals.get_all_variables()}
    lines = ["(" + ",".join(order) + ")"]
    for s in range(model.nr_states):
        items = []
        for name in order:
            var = by_name[name]
            if var.has_boolean_type():
                items.append("true" if vals.get_boolean_value(s, var) else "false")
            else:
                items.append(str(vals.get_int64_value(s, var)))
        lines.append("%d:(%s)" % (s, ",".join(items)))
    with gzip.GzipFile(sta_path, "wb", mtime=0) as f:
        f.write(("\n".join(lines) + "\n").encode())


def build(source, constants, props=None):
    prog = stormpy.parse_prism_program(source)
    if constants:
        prog = stormpy.instantiate_constants(prog, constants)[0]
    if props:
        properties = stormpy.parse_properties(props, prog)  # a file name
        opts = stormpy.BuilderOptions([p.get_raw_formula() for p in properties])  # the labels of their expressions
    else:
        opts = stormpy.BuilderOptions()
    opts.set_build_state_valuations()
    opts.set_build_all_labels()
    return stormpy.build_model(prog, options=opts)


for name in ["coin2", "dice", "brp"]:
    umb = os.path.join(models, name + ".umb")
    storm_sta(stormpy.build_model_from_umb(umb), umb, os.path.join(out, name + ".sta.gz"))
    print(name, "from PRISM's UMB")

for name, source, constants in [
    ("consensus2", os.path.join(qvbs, "mdp/consensus/consensus.2.prism"), "K=2"),
    ("egl", os.path.join(qvbs, "dtmc/egl/egl.prism"), "N=2,L=1"),
    ("neg", os.path.join(out, "neg.prism"), ""),
]:
    model = build(source, constants)
    umb = os.path.join(out, name + ".storm.umb")
    stormpy.io.export_to_umb(model, umb)
    storm_sta(model, umb, os.path.join(out, name + ".storm.sta.gz"))
    if name == "neg":
        stormpy.io.export_to_drn(model, os.path.join(out, name + ".storm.drn"))
    print(name, model.nr_states, "states")

longap = build(os.path.join(out, "longap.prism"), "", os.path.join(out, "longap.props"))
umb = os.path.join(out, "longap.storm.umb")
stormpy.io.export_to_umb(longap, umb)
storm_sta(longap, umb, os.path.join(out, "longap.storm.sta.gz"))
with open(os.path.join(out, "longap.storm.ap"), "w") as f:
    for label in sorted(longap.labeling.get_labels()):
        if label.startswith("("):
            f.write(label + "\n" + " ".join(str(s) for s in sorted(longap.labeling.get_states(label))) + "\n")
print("longap", longap.nr_states, "states")
