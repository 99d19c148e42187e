# SPDX-License-Identifier: MIT
"""Checks on the candidate's source text, done before any of it runs."""
from __future__ import annotations

import ast
import io
import tokenize


def code_without_comments(src: str) -> str:
    """The source with comments and docstring-like bare strings removed (names and code remain)."""
    out = []
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(src).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return src
    prev = None
    for t in toks:
        if t.type == tokenize.COMMENT:
            continue
        if t.type == tokenize.STRING and (prev is None or prev.type in (tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT)):
            prev = t
            continue  # a bare string statement (docstring)
        out.append(t.string)
        prev = t
    return " ".join(out)


def top_level_names(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            for tgt in node.targets:
                if isinstance(tgt, ast.Name):
                    names.add(tgt.id)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                names.add((a.asname or a.name).split(".")[0])
        elif isinstance(node, (ast.If, ast.Try)):
            sub = ast.Module(body=list(getattr(node, "body", [])) + list(getattr(node, "orelse", [])), type_ignores=[])
            names |= top_level_names(sub)
    return names


def triton_kernels(tree: ast.Module) -> list[str]:
    """Functions decorated with triton.jit / @jit (directly or under autotune/heuristics)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for d in node.decorator_list:
                target = d.func if isinstance(d, ast.Call) else d
                text = ast.unparse(target)
                if text in ("triton.jit", "jit", "tl.jit") or text.endswith(".jit"):
                    found.append(node.name)
                    break
    return found


def check(src: str, entry: str, quant_static: dict | None, aliases=()) -> dict:
    """Returns {"ok": bool, "failure_class", "message", "line", "entry", "triton_kernels"}."""
    if not src.strip():
        return {"ok": False, "failure_class": "empty", "message": "no code"}
    try:
        tree = ast.parse(src, filename="candidate.py")
    except SyntaxError as e:
        return {"ok": False, "failure_class": "syntax_error", "message": f"{e.msg} (line {e.lineno})",
                "line": e.lineno}
    names = top_level_names(tree)
    accepted = [entry, *aliases, "kernel_function"]
    chosen = next((n for n in accepted if n in names), None)
    if chosen is None:
        return {"ok": False, "failure_class": "no_entry_point",
                "message": "none of " + ", ".join(f"'{n}'" for n in accepted) + " is defined at top level"}
    kernels = triton_kernels(tree)
    res = {"ok": True, "entry": chosen, "triton_kernels": kernels}
    if quant_static:
        code = code_without_comments(src)
        for banned in quant_static.get("forbid", []):
            if banned in code:
                return {"ok": False, "failure_class": "quant_contract_violated",
                        "message": f"uses a high-level quantization API: {banned}", "entry": chosen}
        for group in quant_static.get("require_any", []):
            if not any(w in code for w in group):
                return {"ok": False, "failure_class": "quant_contract_violated",
                        "message": "no evidence of " + " / ".join(group) + " in the code", "entry": chosen}
    return res
