#!/usr/bin/env python3
"""The small QVBS instances of tests/108-qvbs.bats (tests/data/qvbs), made once
by hand where stormpy 2.0 is installed (pip install stormpy==2.0.0); the tests
only read what it writes and never run Storm.

usage: tests/tools/qvbs-data.py [QVBS]   (default ../shared/qvbs beside the repository)

For each instance below (the smallest of each family of ../shared/qvbs that
QVBS gives reference values for, one more where a family's properties differ
between instances, and wlan.2, the smallest instance on which optimistic
value iteration's guesses never verified for R{"collisions"}max: no answer
after minutes; wlan.0 and wlan.1 end), Storm builds
the PRISM program with all reward models, all labels and its state
valuations and exports it as UMB:
  INSTANCE.umb          Storm's archive (gzip'd tar; the tests convert it with prism2csr)
  FAMILY.props          the family's properties file as QVBS ships it (CC-BY 4.0, the
                        Quantitative Verification Benchmark Set; README.md there)
  values.tsv            one row per (instance, property): instance, the constants
                        (PRISM's -const syntax, '-' for none), the property's name,
                        QVBS's reference value (true/false for a qualitative one,
                        Infinity), and Storm's own answer from the same UMB
                        (sound, relative 1e-6, in the first initial state: not the
                        filter's value of herman's steps; '-' where stormpy answers
                        none, as for qualitative ones), each from QVBS's index.json
                        or stormpy, never from this project.
  bounded.tsv           reward-bounded reachability, cumulative and instantaneous
                        rewards and Storm's time operator (T: expected steps) on these
                        instances: instance, constants, the property (PRISM's syntax
                        with Storm's F{"r"}<=k or QVBS's F^{rew{"r"}<=k}, bounds above
                        and below; C<=k, I=k; Tmin=? [ F ... ]), Storm's value in the
                        first initial state (sound, relative 1e-6).
"""
import json, os, re, shutil, sys

import stormpy
import stormpy.io

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "..", "data", "qvbs")
qvbs = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "..", "shared", "qvbs")

# (family folder, program, constants as in QVBS's index.json)
INSTANCES = [
    ("dtmc/brp", "brp.prism", {"N": 16, "MAX": 2}),
    ("dtmc/crowds", "crowds.prism", {"TotalRuns": 3, "CrowdSize": 5}),
    ("dtmc/herman", "herman.5.prism", {}),
    ("dtmc/leader_sync", "leader_sync.3-2.prism", {}),
    ("mdp/consensus", "consensus.2.prism", {"K": 2}),
    ("mdp/csma", "csma.2-2.prism", {}),
    ("mdp/firewire", "firewire.false.prism", {"delay": 3, "deadline": 200}),
    ("mdp/wlan", "wlan.0.prism", {"COL": 0}),
    ("mdp/wlan", "wlan.2.prism", {"COL": 0}),
    ("mdp/zeroconf", "zeroconf.prism", {"N": 20, "K": 2, "reset": True}),
]


def const_text(consts):
    return ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in consts.items()) or "-"


def ref_text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, dict):
        return repr(float(v["approx"]))
    if v in ("Infinity", "infinity"):
        return "Infinity"
    return repr(float(v))


os.makedirs(out, exist_ok=True)
rows = []
for folder, program, consts in INSTANCES:
    fam = os.path.join(qvbs, folder)
    index = json.load(open(os.path.join(fam, "index.json")))
    entry = next(f for f in index["files"] if program in f.get("original-file", []))
    props_file = next(f for f in entry["original-file"] if f.endswith(".props"))
    ov = next(o for o in entry["open-parameter-values"]
              if {v["name"]: v["value"] for v in o.get("values", [])} == consts)
    results = {r["property"]: r["value"] for r in ov.get("results", [])}
    prog = stormpy.parse_prism_program(os.path.join(fam, program))
    undefined = {c.name for c in prog.constants if not c.defined}
    mine = ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in consts.items() if k in undefined)
    if mine:
        prog = stormpy.instantiate_constants(prog, mine)[0]
    ptext = open(os.path.join(fam, props_file)).read()
    for k, v in consts.items():  # constants the properties file declares
        if k not in undefined:
            ptext = re.sub(rf"const\s+(int|double|bool)\s+{k}\s*;", rf"const \1 {k} = {v};", ptext)
    props = [p for p in stormpy.parse_properties(ptext, prog) if p.get_name() in results]
    opts = stormpy.BuilderOptions([p.get_raw_formula() for p in props])
    opts.set_build_all_reward_models()
    opts.set_build_all_labels()
    opts.set_build_state_valuations()
    model = stormpy.build_model(prog, options=opts)
    inst = os.path.splitext(program)[0] + ("." + const_text(consts).replace(",", ".").replace("=", "") if consts else "")
    umb = os.path.join(out, inst + ".umb")
    stormpy.io.export_to_umb(model, umb)
    shutil.copyfile(os.path.join(fam, props_file), os.path.join(out, props_file))
    env = stormpy.Environment()
    env.solver().force_soundness = True
    for p in props:
        try:
            r = stormpy.model_checking(model, p, only_initial_states=True, environment=env)
            v = r.get_value(model.initial_states[0])
            storm = ("true" if v else "false") if isinstance(v, bool) else repr(float(v))
        except Exception:
            storm = "-"
        rows.append((inst, const_text(consts), p.get_name(), ref_text(results[p.get_name()]), storm, props_file))
    print(inst, model.nr_states, "states", os.path.getsize(umb), "bytes")
# reward-bounded reachability, C<=k, I=k and T: (instance index in INSTANCES, property) for Storm
REWARD_BOUNDS = [
    (4, 'Pmin=? [ F{"steps"}<=20 "finished" ]'),
    (4, 'Pmax=? [ F{"steps"}<=50 "finished" ]'),
    (4, 'Pmin=? [ F{"steps"}<=100 "finished" ]'),
    (4, 'Pmax=? [ F{"steps"}>=60 "finished" ]'),
    (4, 'Pmin=? [ F{"steps"}>=30 "finished"&"all_coins_equal_1" ]'),
    (5, 'Pmin=? [ F{"time"}<=70 "all_delivered" ]'),
    (5, 'Pmax=? [ F^{rew{"time"}<=68} "all_delivered" ]'),
    (5, 'Pmax=? [ !"collision_max_backoff" U{"time"}<=80 "all_delivered" ]'),
    (6, 'Pmin=? [ F^{rew{"time"}<=170} ((s1=8) & (s2=7)) | ((s1=7) & (s2=8)) ]'),
    (6, 'Pmax=? [ F^{rew{"time"}<=150} ((s1=8) & (s2=7)) | ((s1=7) & (s2=8)) ]'),
    (6, 'Pmin=? [ F^{rew{"time"}>=190} ((s1=8) & (s2=7)) | ((s1=7) & (s2=8)) ]'),
    (7, 'Pmax=? [ F{"time"}<=1400 s1=12 & s2=12 ]'),
    (7, 'Pmin=? [ F{"time"}<=2500 s1=12 & s2=12 ]'),
    (7, 'Pmin=? [ F{"collisions"}<=0 s1=12 & s2=12 ]'),
    (7, 'Pmax=? [ F{"collisions"}>=2 s1=12 & s2=12 ]'),
    (7, 'Pmin=? [ F{"cost"}>8000 s1=12 & s2=12 ]'),
    (3, 'P=? [ F{"num_rounds"}<=1 "elected" ]'),
    (3, 'P=? [ F{"num_rounds"}>=2 "elected" ]'),
    (3, 'P=? [ F{"num_rounds"}<3 "elected" ]'),
    (4, 'R{"steps"}max=? [ C<=40 ]'),
    (4, 'R{"steps"}min=? [ C<=40 ]'),
    (7, 'R{"time"}max=? [ C<=100 ]'),
    (7, 'R{"collisions"}max=? [ C<=500 ]'),
    (4, 'R{"steps"}min=? [ I=100 ]'),
    (3, 'R{"num_rounds"}=? [ C<=2 ]'),
    (4, 'Tmin=? [ F "finished" ]'),
    (4, 'Tmax=? [ F "finished" ]'),
    (3, 'T=? [ F "elected" ]'),
    (7, 'Tmax=? [ F s1=12 & s2=12 ]'),
    (7, 'Tmin=? [ F s1=12 & s2=12 ]'),
]
bound_rows = []
for i, text in REWARD_BOUNDS:
    folder, program, consts = INSTANCES[i]
    prog = stormpy.parse_prism_program(os.path.join(qvbs, folder, program))
    undefined = {c.name for c in prog.constants if not c.defined}
    mine = ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in consts.items() if k in undefined)
    if mine:
        prog = stormpy.instantiate_constants(prog, mine)[0]
    prop = stormpy.parse_properties(text, prog)[0]
    opts = stormpy.BuilderOptions([prop.get_raw_formula()])
    opts.set_build_all_reward_models()
    model = stormpy.build_model(prog, options=opts)
    env = stormpy.Environment()
    env.solver().force_soundness = True
    r = stormpy.model_checking(model, prop, only_initial_states=True, environment=env)
    inst = os.path.splitext(program)[0] + ("." + const_text(consts).replace(",", ".").replace("=", "") if consts else "")
    bound_rows.append((inst, const_text(consts), text, repr(float(r.get_value(model.initial_states[0])))))
    print(inst, text, bound_rows[-1][3])
with open(os.path.join(out, "bounded.tsv"), "w") as f:
    f.write("instance\tconstants\tproperty\tstorm\n")
    for r in bound_rows:
        f.write("\t".join(r) + "\n")
with open(os.path.join(out, "values.tsv"), "w") as f:
    f.write("instance\tconstants\tproperty\tqvbs\tstorm\tprops\n")
    for r in rows:
        f.write("\t".join(r) + "\n")
