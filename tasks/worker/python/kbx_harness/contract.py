# SPDX-License-Identifier: MIT
"""The benchmark's contract per task, and which of our cases it covers (issue 21).

A task's *contract* is what the seed's own test section asks of the entry function: the argument
patterns of its calls (which parameters are passed, tensor dtypes and ranks, literal options such as
``approximate="tanh"``, the special inputs it uses: empty, 0-d, non-contiguous tensors). It is
derived from the seed's recorded calls (seed-test-calls.json) by ``scripts/contract_sync.py`` and
committed as ``tasks/contracts.json``: per task, the distinct abstract call patterns.

Every case a task draws is classified here, in the trusted reference process, into one of two tiers:

* ``contract``: its argument pattern is one the seed itself calls (harness-owned values: other
  seeds, standard and outlier distributions, odd sizes in the same ranks and dtypes) and no float
  input holds NaN or +-Inf (no seed test passes special values);
* ``extended``: anything else (other dtypes, ``out=`` or keywords the seed never passes, 0-d or
  empty tensors where the seed has none, ``None`` arguments, special values, non-contiguous views,
  other modes). Extended cases are kept and reported as their own tier; under the default protocol
  they never decide the verdict.

Patterns are matched per parameter after binding the call to the reference's signature, so a
parameter passed by position in one place and by keyword in another is the same parameter, and a
parameter passed with its default value counts as not passed.
"""
from __future__ import annotations

import json
import os

import torch

# Descriptors and matching (contract_patterns) and seed-call cases (seedcall), kept importable from here
# as before (scripts/contract_sync.py, the harness tests).
from .contract_patterns import (TENSOR_DTYPES, Contract, abstract_seed_arg, bind, describe,  # noqa: F401
                                match_call)
from .seedcall import (SEED_CASE_MAX_ELEMENTS, SEED_OUTLIER_P, SEED_OUTLIER_SCALE, _apply_seed_values,  # noqa: F401
                       _seed_op, _value, oracle_checker, seed_call_cases, seed_value_ops)


def contracts_path(task_file: str) -> str:
    """tasks/contracts.json beside the task tree (tasks/<Category>/<stem>.py)."""
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(task_file))), "contracts.json")


def load_contracts(path: str) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def for_task(task, task_id: str, contracts: dict) -> Contract:
    entry = (contracts.get("tasks") or {}).get(task_id)
    return Contract(task_id, entry, task.reference)


def recorder(fn, calls: list):
    """fn, recording the descriptors of every call's arguments (taken before the call) in `calls`."""
    def rec(*args, **kwargs):
        calls.append(([describe(a) for a in args], {k: describe(v) for k, v in kwargs.items()}))
        return fn(*args, **kwargs)
    return rec


def tier_of_case(con: "Contract", task, case, clone) -> tuple[str, str]:
    """The tier of one drawn case. A task with drive() is classified by the calls drive() makes to
    the entry, recorded while the reference runs on clones of the case's inputs."""
    if getattr(task, "drive", None) is None:
        return con.classify(case["args"], case["kwargs"])
    calls: list = []
    try:
        task.drive(recorder(task.reference, calls), clone(case["args"]), clone(case["kwargs"]))
    except Exception as e:  # noqa: BLE001 - the reference run proper reports its own failure
        return "extended", f"drive() failed while its calls were recorded: {type(e).__name__}"
    return con.classify_calls(calls)


# The seed's random inputs are standard normal draws, some with sparse outliers (p = 0.001, x10),
# often clamped or made positive by its tests. A floating input more than WIDE_FRACTION of whose
# finite values lie beyond WIDE_ABS is drawn wider than that: its case must say so (dist="wide":
# extended) or say that the seed draws such values too (dist="seed": log-probabilities, SPD matrices).
WIDE_ABS = 6.0
WIDE_FRACTION = 0.05


def wide_inputs(case) -> list[str]:
    """'name: share beyond |6|' for each floating input tensor of `case` drawn wider than the seed."""
    out = []

    def visit(label, v):
        if isinstance(v, torch.Tensor):
            if v.is_floating_point() and v.numel():
                x = v.detach().to(torch.float64)
                x = x[torch.isfinite(x)]
                if x.numel():
                    share = float((x.abs() > WIDE_ABS).to(torch.float64).mean())
                    if share > WIDE_FRACTION:
                        out.append(f"{label}: {share:.0%} beyond |{WIDE_ABS:g}|")
        elif isinstance(v, (list, tuple)):
            for i, e in enumerate(v):
                visit(f"{label}[{i}]", e)
        elif isinstance(v, dict):
            for k, e in v.items():
                visit(f"{label}.{k}", e)

    for i, a in enumerate(case["args"]):
        visit(f"args[{i}]", a)
    for k, a in case["kwargs"].items():
        visit(k, a)
    return out


# A task with fewer contract cases of its own than this per seed also gets the seed-call cases: a
# verdict resting on one or two cases would let wrong kernels through.
MIN_OWN_CONTRACT_CASES = 3


def assign_tiers(task, task_id: str, cases: list, seeds: list, device: str, contracts: dict, run_reference, clone):
    """Tiers of a task's drawn cases, and a note on where the contract came from. A task the
    contracts do not list (a user's own task), or whose seed calls were not recorded, has no seed
    contract: every case decides. A task none of whose own cases fits a seed pattern gets cases
    modelled on the seed's calls (appended to `cases`), and so does a task with fewer than
    MIN_OWN_CONTRACT_CASES contract cases per seed; if still nothing fits, every case decides."""
    if task_id not in (contracts.get("tasks") or {}):
        return [("contract", "") for _ in cases], "no seed contract for this task: every case decides"
    con = for_task(task, task_id, contracts)
    if not con.patterns:
        return [("contract", "") for _ in cases], "the seed's calls for this task were not recorded: every case decides"
    # Hand-written edge cases are drawn once, with values chosen to probe (tiny magnitudes, branch
    # points, ties): beyond the seed's standard and outlier draws, so extended whatever their pattern.
    # So is a random case its task marks dist="wide": values drawn over a wider range than the seed's
    # (scripts/contract_sync.py check finds unmarked ones: wide_inputs()).
    def own_tier(c):
        if c["name"].startswith("edge/"):
            return "extended", "a hand-written edge case (values beyond the seed's standard and outlier draws)"
        if c.get("dist") == "wide":
            return "extended", c.get("dist_why") or "values drawn over a wider range than the seed's standard and outlier draws"
        return tier_of_case(con, task, c, clone)
    tiers = [own_tier(c) for c in cases]
    added, dropped = 0, []
    if sum(t == "contract" for t, _ in tiers) < MIN_OWN_CONTRACT_CASES * max(1, len(seeds)):
        # (a drive() task whose drive() takes other arguments than the entry refuses these inputs:
        # the reference raises and the draw is dropped)
        extra, dropped = seed_call_cases(con, task, task_id, seeds, device, run_reference, clone, own_cases=list(cases))
        for c in extra:
            tier = tier_of_case(con, task, c, clone)
            if tier[0] == "contract":
                cases.append(c)
                tiers.append(tier)
                added += 1
    if not any(t == "contract" for t, _ in tiers):
        return [("contract", "") for _ in cases], "no case matches the seed's call patterns: every case decides"
    note = f"{len(con.patterns)} seed call patterns ({(con.entry or {}).get('seed_file', '')})"
    if added:
        note += f"; {added} cases modelled on the seed's calls"
    if dropped:
        note += f"; {len(dropped)} seed-call draws dropped ({dropped[0][1]})"
    return tiers, note
