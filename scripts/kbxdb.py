# SPDX-License-Identifier: MIT
"""kbx databases for the scripts in bench/ and scripts/, read through the kbx Python module (the
core's store and read queries; python/README.md): no script holds SQL of its own, and a database of
another schema version, another program or a damaged file is refused by the store with its reason.

The module is the build's `kbx_python` target for the interpreter that runs the script: found on
sys.path, in $KBX_PYTHON_MODULE_DIR, or in build*/python of this checkout (a GPU machine: build it with
`scripts/gpu-run.sh --build-only --targets "kbx kbx-worker kbx_python"`)."""
import glob
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class ModuleMissing(SystemExit):
    """The kbx module is not built for this interpreter (uncaught, the script ends with the message)."""


class NotADatabase(Exception):
    """The file is missing or not a kbx database the store opens (the message says why)."""


def module():
    try:
        import kbx  # noqa: F401
        return sys.modules["kbx"]
    except ImportError:
        pass
    tag = f"kbx.cpython-{sys.version_info.major}{sys.version_info.minor}*"
    dirs = [os.environ.get("KBX_PYTHON_MODULE_DIR", "")] + [os.path.join(ROOT, b, "python") for b in ("build", "build-gpu")]
    dirs += sorted(glob.glob(os.path.join(ROOT, "build*", "python")))
    for d in dirs:
        if d and glob.glob(os.path.join(d, tag)):
            sys.path.insert(0, d)
            import kbx
            return kbx
    raise ModuleMissing(f"the kbx Python module for python {sys.version_info.major}.{sys.version_info.minor} was not found "
                     "(searched $KBX_PYTHON_MODULE_DIR and build*/python): build the target kbx_python "
                     "(cmake --build BUILD --target kbx_python; on a GPU machine scripts/gpu-run.sh --build-only "
                     "--targets \"kbx kbx-worker kbx_python\") or set KBX_PYTHON_MODULE_DIR")


def open_db(path):
    kbx = module()
    try:
        return kbx.open(path)
    except (FileNotFoundError, kbx.StoreError) as e:
        raise NotADatabase(f"{path}: {e}") from e


def evaluations(path, method=None):
    """Every evaluation of the database (optionally of one method), in id order, each as the module's
    `evaluation(id)`: task, method, round, verdict, failure_class, code_hash, evidence and
    stage_seconds (dicts), timings (shape, candidate_ms, baseline_ms, samples), cases, ..."""
    db = open_db(path)
    return [db.evaluation(e["id"]) for e in db.evaluations(method=method)]


def provenance(path):
    """The first run's provenance (devices, versions, host, slots, ...)."""
    runs = open_db(path).runs()
    return runs[0]["provenance"] if runs else {}
