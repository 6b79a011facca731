#!/usr/bin/env python3
"""Packs generated MMD models and babylon-mmd's evaluation of them into one fixture.

usage: pack.py DIR COUNT OUT.json

DIR holds case_N.pmx (the model), case_N.json (its static pose) and b_N.json (babylon-mmd's
output for that pose, from ../shared/oracle/babylon_oracle.mjs); see regenerate.sh. A case
babylon-mmd refused to load has no b_N.json and is left out.
"""
import json
import os
import sys

folder, count, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
cases = []
tool = None
for i in range(count):
    ref = os.path.join(folder, f"b_{i}.json")
    if not os.path.exists(ref):
        continue
    with open(ref) as f:
        b = json.load(f)
    tool = b["tool"]
    with open(os.path.join(folder, f"case_{i}.pmx"), "rb") as f:
        pmx = f.read().hex()
    with open(os.path.join(folder, f"case_{i}.json")) as f:
        pose = json.load(f)["bones"]
    modes = {}
    for mode, frames in b["modes"].items():
        modes[mode] = [bone["world_t_mmd"] + bone["world_q_mmd"] for bone in frames[0]["bones"]]
    cases.append({"case": i, "pmx": pmx, "pose": pose, "modes": modes})
with open(out, "w") as f:
    json.dump({"tool": tool, "cases": cases}, f, separators=(",", ":"))
print(f"{len(cases)} cases -> {out}")
