#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes resources/examples/submission.jsonl, the example the README's run command evaluates:
a handful of our own known-good fixtures plus a few known-bad variants, in the seed's JSONL format
({"predict": code, "file": "Category/stem.py"})."""
import json
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOOD = ["Activation/relu", "Activation/gelu", "Math/softmax", "MatrixMultiply/matmul", "Reduce/sum",
        "Fusion/fused_add_gelu", "Quantization/matmul_w8a8", "Random/rand"]
VARIANTS = ["not_triton_kernel", "value_mismatch", "input_mutated", "global_rng_warmup"]

with open(os.path.join(ROOT, "resources", "examples", "submission.jsonl"), "w") as out:
    for t in GOOD:
        code = open(os.path.join(ROOT, "tests", "fixtures", "good", t + ".py")).read()
        out.write(json.dumps({"predict": code, "file": t + ".py"}) + "\n")
    for v in VARIANTS:
        code = open(os.path.join(ROOT, "tests", "fixtures", "variants", v + ".py")).read()
        task = re.search(r"task=(\S+)", code.splitlines()[0]).group(1)
        out.write(json.dumps({"predict": code, "file": task + ".py"}) + "\n")
print("wrote resources/examples/submission.jsonl")
