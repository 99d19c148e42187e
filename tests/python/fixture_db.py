# SPDX-License-Identifier: MIT
"""Databases for the tests of the scripts that read kbx databases: written by kbx-db-from-json
(tests/python/db_from_json.cpp, the store's own API) from a JSON description, read back through
scripts/kbxdb.py like the scripts read them. ctest names the tool and the module in the environment
(KBX_DB_FROM_JSON, KBX_PYTHON_MODULE_DIR)."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import kbxdb  # noqa: E402,F401


def write(path, runs):
    """runs: [{"device", "provenance", "evaluations": [{"task", "code", "method", "failure_class",
    "evidence", "stage_seconds", "timings": [...]}]}]; returns {code: code hash} of what was stored."""
    tool = os.environ.get("KBX_DB_FROM_JSON")
    if not tool:
        raise SystemExit("KBX_DB_FROM_JSON is not set: run this test through ctest")
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"runs": runs}, f)
    try:
        subprocess.run([tool, path, f.name], check=True)
    finally:
        os.unlink(f.name)
    return {e["code"]: e["code_hash"] for e in kbxdb.evaluations(path)}
