# SPDX-License-Identifier: MIT
"""Code quality of candidate kernels with radon (maintainability index, cyclomatic complexity, SLOC).

Called by kbx (core/quality.cpp) once per report for every submission without a cached row:

    python quality.py INPUT.json

INPUT.json: {"items": [{"id": <submission id>, "code": <cleaned candidate code>}, ...]}.
stdout: one JSON object {"tool_version": "radon X.Y.Z", "results": [{"id", "mi", "cc_mean",
"cc_max", "sloc", "error"}, ...]} in the order of the items. radon only parses the code (ast); it is
never executed. Exit status 3 with {"error": ...} on stdout when radon cannot be imported.
"""
import json
import sys


def measure(code, cc_visit, mi_visit, analyze):
    try:
        blocks = cc_visit(code)
        mi = mi_visit(code, True)  # multi=True: multi-line strings count as comments (radon's default)
        raw = analyze(code)
    except SyntaxError as e:
        return {"error": "does not parse: line %s: %s" % (e.lineno, e.msg)}
    except Exception as e:  # radon's own failures on odd input: one candidate, not the batch
        return {"error": "radon failed: %s: %s" % (type(e).__name__, e)}
    cc = [b.complexity for b in blocks]
    return {
        "mi": float(mi),
        "cc_mean": (sum(cc) / len(cc)) if cc else None,
        "cc_max": max(cc) if cc else None,
        "sloc": int(raw.sloc),
        "error": "" if cc else "no function or class blocks: no cyclomatic complexity",
    }


def main(argv):
    if len(argv) != 2:
        print(json.dumps({"error": "usage: quality.py INPUT.json"}))
        return 2
    try:
        import radon
        from radon.complexity import cc_visit
        from radon.metrics import mi_visit
        from radon.raw import analyze
    except ImportError as e:
        print(json.dumps({"error": "radon is not installed in %s (%s)" % (sys.executable, e)}))
        return 3
    with open(argv[1], encoding="utf-8") as f:
        items = json.load(f)["items"]
    results = []
    for item in items:
        r = measure(item["code"], cc_visit, mi_visit, analyze)
        r["id"] = item["id"]
        results.append(r)
    print(json.dumps({"tool_version": "radon " + radon.__version__, "results": results}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
