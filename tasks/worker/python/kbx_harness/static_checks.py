# SPDX-License-Identifier: MIT
"""Checks on the candidate's source text, done before any of it runs.

Everything here reads the parsed program (ast), never its text: strings and comments never count as
evidence and never hide a call. The quantization contract's static half (issue 20):
  * forbidden APIs are matched against the dotted names the code uses, with import aliases and simple
    assignments resolved (`import torch as T; T._int_mm`, `from torch import _int_mm`, `mm = torch._int_mm`,
    `getattr(torch, "_int_mm")`);
  * dynamic attribute access that could reach any of them (getattr/setattr/hasattr with a name that is
    not a literal, `__dict__`, `vars()`, `globals()`, `__import__`, importlib, `sys.modules`, eval/exec/
    compile) is itself a violation on a quantization task;
  * the required evidence groups (rounding, int8, scale, ...) are looked for in identifiers and
    operators only.
The runtime half (which dtypes reached a launched Triton kernel) is recorded by candidate.py.

Also here, on every task and device: a @triton.jit body that references torch is not a Triton kernel
(the CPU interpreter would run it as Python; a GPU could not compile it)."""
from __future__ import annotations

import ast
import io
import tokenize

# Calls and names that fetch attributes or modules by a computed name.
DYNAMIC_CALLS = {"getattr", "setattr", "hasattr", "delattr", "vars", "globals", "locals", "eval", "exec", "compile",
                 "__import__", "attrgetter", "methodcaller", "import_module", "reload", "find_spec"}
ATTR_DYNAMIC_CALLS = {"getattr", "setattr", "hasattr", "delattr", "__import__", "attrgetter", "methodcaller",
                      "import_module", "reload", "find_spec", "eval", "exec"}
DYNAMIC_ATTRS = {"__dict__", "__getattribute__", "__getattr__", "__builtins__", "__import__", "__globals__",
                 "__code__", "__subclasses__", "__loader__", "__spec__", "modules", "_getframe", "f_globals",
                 "f_locals", "import_module"}
DYNAMIC_MODULES = {"importlib", "builtins", "operator", "inspect", "ctypes", "imp", "pydoc", "runpy", "sys"}
# Attribute names of DYNAMIC_ATTRS that are only dynamic on these roots (sys.modules, not nn.Module.modules).
_ROOTED_ATTRS = {"modules": {"sys"}, "_getframe": {"sys"}, "import_module": {"importlib"}}

TL_TYPE_NAMES = ("tl.", "triton.language.")


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


def _is_jit_decorator(d: ast.expr) -> bool:
    target = d.func if isinstance(d, ast.Call) else d
    text = ast.unparse(target)
    return text in ("triton.jit", "jit", "tl.jit") or text.endswith(".jit")


def _jit_functions(tree: ast.Module) -> list[ast.FunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and any(_is_jit_decorator(d) for d in n.decorator_list)]


def triton_kernels(tree: ast.Module) -> list[str]:
    """Functions decorated with triton.jit / @jit (directly or under autotune/heuristics)."""
    return [n.name for n in _jit_functions(tree)]


class Names:
    """What each local name stands for, as a dotted path rooted at a module (flow-insensitive: every
    binding a name ever gets counts). `import torch.nn.functional as F` -> F: torch.nn.functional;
    `from torch import _int_mm as m` -> m: torch._int_mm; `t = torch` -> t: torch;
    `def f(m=torch)` -> m: torch."""

    def __init__(self, tree: ast.Module):
        self.bind: dict[str, set[str]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self._add(a.asname, a.name)
                    else:
                        root = a.name.split(".")[0]
                        self._add(root, root)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for a in node.names:
                    if a.name != "*":
                        self._add(a.asname or a.name, f"{node.module}.{a.name}")
        # Assignments and defaults, twice so that chains of aliases settle (t = torch; u = t).
        for _ in range(3):
            for node in ast.walk(tree):
                if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for tgt in targets:
                        self._bind_target(tgt, node.value)
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    a = node.args
                    pos = a.posonlyargs + a.args
                    for arg, d in zip(pos[len(pos) - len(a.defaults):], a.defaults):
                        self._bind_value(arg.arg, d)
                    for arg, d in zip(a.kwonlyargs, a.kw_defaults):
                        if d is not None:
                            self._bind_value(arg.arg, d)
                elif isinstance(node, (ast.For, ast.comprehension)):
                    self._bind_target(node.target, node.iter, element=True)
                elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                    self._bind_target(node.optional_vars, node.context_expr)

    def _add(self, name: str, path: str):
        self.bind.setdefault(name, set()).add(path)

    def _bind_value(self, name: str, value: ast.expr):
        for p in self.resolve(value):
            self._add(name, p)

    def _bind_target(self, tgt, value, element=False):
        if isinstance(tgt, ast.Name):
            if element and isinstance(value, (ast.Tuple, ast.List, ast.Set)):
                for e in value.elts:
                    self._bind_value(tgt.id, e)
            elif not element:
                self._bind_value(tgt.id, value)
        elif isinstance(tgt, (ast.Tuple, ast.List)):
            if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(tgt.elts) and not element:
                for t, v in zip(tgt.elts, value.elts):
                    self._bind_target(t, v)

    def resolve(self, node: ast.expr) -> set[str]:
        """Dotted paths an expression may denote ({} when it is not a name/attribute chain)."""
        if isinstance(node, ast.Name):
            return set(self.bind.get(node.id, set())) | {node.id}
        if isinstance(node, ast.Attribute):
            return {f"{b}.{node.attr}" for b in self.resolve(node.value)}
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" \
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            return {f"{b}.{node.args[1].value}" for b in self.resolve(node.args[0])}
        if isinstance(node, (ast.Subscript, ast.Starred)):
            return self.resolve(node.value)
        if isinstance(node, (ast.Tuple, ast.List)):
            out = set()
            for e in node.elts:
                out |= self.resolve(e)
            return out
        return set()


def _parts(path: str) -> list[str]:
    return [p for p in path.split(".") if p]


def _contains(seq: list[str], sub: list[str]) -> bool:
    n = len(sub)
    return n > 0 and any(seq[i:i + n] == sub for i in range(len(seq) - n + 1))


def _banned_match(banned: str, path: str) -> bool:
    b, p = _parts(banned), _parts(path)
    if _contains(p, b):
        return True
    # torch.X / F.X: X anywhere under torch (torch.ops.aten._int_mm, torch.nn.functional.conv2d).
    if len(b) >= 2 and b[0] in ("torch", "F") and p and p[0] == "torch" and _contains(p[1:], b[1:]):
        return True
    # A private or single-word API is banned whatever it is reached through (x._int_mm).
    if (len(b) == 1 or b[-1].startswith("_")) and b[-1] in p:
        return True
    return False


def _identifiers(tree: ast.Module) -> tuple[set[str], set[str]]:
    """Identifiers the code uses (names, attributes, functions, arguments, keywords, imported names)
    and the operators it applies (">>", "<<"). Strings and comments are not part of either."""
    ids, ops = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            ids.add(node.id)
        elif isinstance(node, ast.Attribute):
            ids.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            ids.add(node.name)
        elif isinstance(node, ast.arg):
            ids.add(node.arg)
        elif isinstance(node, ast.keyword) and node.arg:
            ids.add(node.arg)
        elif isinstance(node, ast.alias):
            ids.update(_parts(node.name))
            if node.asname:
                ids.add(node.asname)
        elif isinstance(node, (ast.BinOp, ast.AugAssign)):
            if isinstance(node.op, ast.RShift):
                ops.add(">>")
            elif isinstance(node.op, ast.LShift):
                ops.add("<<")
    return ids, ops


def _dynamic_access(tree: ast.Module, names: Names):
    """(line, what) of the first dynamic attribute or module access, else None."""
    hits = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            fname = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
            if isinstance(node.func, ast.Attribute) and fname not in ATTR_DYNAMIC_CALLS:
                continue  # x.compile(), re.compile(): only builtins' names are dynamic as methods too
            if fname in ("getattr", "setattr", "hasattr", "delattr"):
                if len(node.args) < 2 or not (isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
                    hits.append((line, f"{fname}() with a computed attribute name"))
            elif fname in DYNAMIC_CALLS:
                hits.append((line, f"{fname}()"))
        elif isinstance(node, ast.Name) and node.id in DYNAMIC_CALLS - {"getattr", "setattr", "hasattr", "delattr"} \
                and isinstance(node.ctx, ast.Load):
            hits.append((line, node.id))
        elif isinstance(node, ast.Attribute) and node.attr in DYNAMIC_ATTRS:
            roots = _ROOTED_ATTRS.get(node.attr)
            if roots is None or any(_parts(p)[:1] and _parts(p)[0] in roots for p in names.resolve(node.value)):
                hits.append((line, f".{node.attr}"))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for m in mods:
                if _parts(m)[:1] and _parts(m)[0] in DYNAMIC_MODULES:
                    if isinstance(node, ast.ImportFrom) and _parts(m)[0] == "operator" and \
                            not any(a.name in DYNAMIC_CALLS for a in node.names):
                        continue
                    if _parts(m)[0] == "sys" and isinstance(node, ast.ImportFrom) and \
                            not any(a.name in DYNAMIC_ATTRS or a.name == "*" for a in node.names):
                        continue
                    if _parts(m)[0] == "sys" and isinstance(node, ast.Import):
                        continue  # import sys alone is fine; sys.modules / sys._getframe are caught above
                    hits.append((line, f"import of {m}"))
    hits.sort()
    return hits[0] if hits else None


def quant_contract(tree: ast.Module, quant_static: dict):
    """None when the code meets the task's static quantization contract, else (message, line)."""
    names = Names(tree)
    forbid = list(quant_static.get("forbid", []))
    for node in ast.walk(tree):
        paths: set[str] = set()
        if isinstance(node, (ast.Name, ast.Attribute)) or (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                                                           and node.func.id == "getattr"):
            paths = names.resolve(node)
        elif isinstance(node, ast.Import):
            paths = {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            paths = {node.module} | {f"{node.module}.{a.name}" for a in node.names}
        for p in paths:
            for banned in forbid:
                if _banned_match(banned, p):
                    return f"uses a high-level quantization API: {banned} (as {p})", getattr(node, "lineno", None)
    dyn = _dynamic_access(tree, names)
    if dyn:
        return (f"reaches attributes or modules by a computed name ({dyn[1]}), which the quantization contract "
                "cannot check"), dyn[0]
    ids, ops = _identifiers(tree)
    low = {i.lower() for i in ids}
    for group in quant_static.get("require_any", []):
        if not any((w in ops) if w in (">>", "<<") else any(w.lower() in i for i in low) for w in group):
            return "no evidence of " + " / ".join(group) + " in the code (names and operators; strings and comments do not count)", None
    return None


def _torch_names(tree: ast.Module, names: Names) -> set[str]:
    """Names that stand for torch or something inside it."""
    out = set()
    for name, paths in names.bind.items():
        if any(_parts(p)[:1] == ["torch"] for p in paths):
            out.add(name)
    return out


def torch_in_jit(tree: ast.Module):
    """(kernel, line, what) for the first reference to torch inside a @triton.jit body, else None.
    Also a call from a jit body to a plain (non-jit) function of the module that references torch."""
    # Module-level bindings only: a jit kernel sees globals, and its own parameters and locals shadow
    # them (a kernel's `dtype` parameter is not the wrapper's `dtype = torch.float16`).
    module_level = ast.Module(body=[s for s in tree.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                                ast.ClassDef))], type_ignores=[])
    tnames = _torch_names(module_level, Names(module_level))
    jit = _jit_functions(tree)
    jit_names = {f.name for f in jit}

    def local_names(f):
        a = f.args
        out = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
        out |= {x.arg for x in (a.vararg, a.kwarg) if x is not None}
        for n in ast.walk(f):
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                out.add(n.id)
        return out

    def torch_ref(f):
        shadow = local_names(f)
        for s in f.body:
            for n in ast.walk(s):
                if isinstance(n, ast.Name) and n.id in tnames and n.id not in shadow:
                    return n.lineno, n.id
        return None

    plain = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name not in jit_names}
    for f in jit:
        hit = torch_ref(f)
        if hit:
            return f.name, hit[0], hit[1]
        for n in ast.walk(ast.Module(body=f.body, type_ignores=[])):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in plain:
                inner = torch_ref(plain[n.func.id])
                if inner:
                    return f.name, n.lineno, f"{n.func.id}() -> {inner[1]}"
    return None


def check(src: str, entry: str, quant_static: dict | None, aliases=()) -> dict:
    """Returns {"ok": bool, "failure_class", "message", "line", "entry", "triton_kernels"}."""
    if not src.strip():
        return {"ok": False, "failure_class": "empty", "message": "no code"}
    try:
        tree = ast.parse(src, filename="candidate.py")
    except SyntaxError as e:
        return {"ok": False, "failure_class": "syntax_error", "message": f"{e.msg} (line {e.lineno})",
                "line": e.lineno}
    except (ValueError, MemoryError, RecursionError, OverflowError) as e:
        # e.g. a NUL byte ("source code string cannot contain null bytes"): Python cannot compile it.
        return {"ok": False, "failure_class": "syntax_error", "message": f"the source cannot be parsed: {type(e).__name__}: {e}"}
    try:
        return _check_tree(tree, entry, quant_static, aliases)
    except RecursionError:
        return {"ok": False, "failure_class": "syntax_error", "message": "the source is nested too deeply to be checked"}


def _check_tree(tree: ast.Module, entry: str, quant_static: dict | None, aliases) -> dict:
    names = top_level_names(tree)
    accepted = [entry, *aliases, "kernel_function"]
    chosen = next((n for n in accepted if n in names), None)
    if chosen is None:
        return {"ok": False, "failure_class": "no_entry_point",
                "message": "none of " + ", ".join(f"'{n}'" for n in accepted) + " is defined at top level"}
    kernels = triton_kernels(tree)
    res = {"ok": True, "entry": chosen, "triton_kernels": kernels}
    hit = torch_in_jit(tree)
    if hit:
        return {"ok": False, "failure_class": "not_triton_kernel", "entry": chosen, "triton_kernels": kernels,
                "message": f"the @triton.jit function '{hit[0]}' uses PyTorch ({hit[2]}): a Triton kernel cannot call torch",
                "line": hit[1]}
    if quant_static:
        bad = quant_contract(tree, quant_static)
        if bad:
            r = {"ok": False, "failure_class": "quant_contract_violated", "message": bad[0], "entry": chosen,
                 "triton_kernels": kernels}
            if bad[1]:
                r["line"] = bad[1]
            return r
    return res
