# SPDX-License-Identifier: MIT
"""Tests of the kbx Python module (python/kbx_module.cpp).

Run by ctest (python.kbx_module) with the interpreter the module was built for:
    test_kbx_module.py --module-dir DIR --fixture-tool EXE --seed-fixtures DIR --tasks-dir DIR --version V
The database is written by the store's own API (make_fixture_db.cpp); its content and the values
expected below are listed at the top of that file.
"""
import argparse
import json
import math
import os
import pathlib
import pydoc
import sqlite3
import subprocess
import sys
import tempfile
import unittest

ARGS = None
kbx = None
CPU = "CPU (Triton interpreter)"
H200 = "NVIDIA H200"


def wilson_reference(k, n, z=1.959963984540054):
    """Wilson score interval written out independently of core/analysis."""
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return centre - half, centre + half


def bernoulli_null_deviance(k, n):
    p = k / n
    return -2 * (k * math.log(p) + (n - k) * math.log(1 - p))


class Statistics(unittest.TestCase):
    def test_wilson_bounds(self):
        lo, hi = kbx.wilson(5, 10)
        self.assertAlmostEqual(lo, 0.2366, places=4)
        self.assertAlmostEqual(hi, 0.7634, places=4)
        for k, n in [(5, 10), (0, 7), (30, 176), (176, 176)]:
            ref = wilson_reference(k, n)
            got = kbx.wilson(k, n)
            self.assertAlmostEqual(got[0], ref[0], places=12)
            self.assertAlmostEqual(got[1], ref[1], places=12)
        self.assertEqual(kbx.wilson(0, 0), (0.0, 1.0))
        with self.assertRaises(ValueError):
            kbx.wilson(11, 10)
        with self.assertRaises(ValueError):
            kbx.wilson(-1, 10)

    def test_geomean_ci(self):
        r = kbx.geomean_ci([1.0, 2.0, 4.0], seed=7)
        self.assertAlmostEqual(r["estimate"], 2.0, places=12)
        self.assertEqual(r["n"], 3)
        self.assertLessEqual(r["lo"], r["estimate"])
        self.assertGreaterEqual(r["hi"], r["estimate"])
        self.assertGreaterEqual(r["lo"], 1.0)
        self.assertLessEqual(r["hi"], 4.0)
        self.assertLess(r["lo"], r["hi"])
        self.assertEqual(r, kbx.geomean_ci([1.0, 2.0, 4.0], seed=7))  # deterministic for a seed
        same = kbx.geomean_ci([3.0, 3.0, 3.0])
        self.assertAlmostEqual(same["lo"], 3.0, places=12)
        self.assertAlmostEqual(same["hi"], 3.0, places=12)
        # A wider level gives a wider interval from the same resamples.
        narrow = kbx.geomean_ci([0.5, 1.0, 1.5, 2.0, 8.0], level=0.5, seed=1)
        wide = kbx.geomean_ci([0.5, 1.0, 1.5, 2.0, 8.0], level=0.99, seed=1)
        self.assertLess(wide["lo"], narrow["lo"])
        self.assertGreater(wide["hi"], narrow["hi"])
        for bad in ([], [1.0, 0.0], [1.0, -2.0], [float("nan")]):
            with self.assertRaises(ValueError, msg=bad):
                kbx.geomean_ci(bad)
        with self.assertRaises(TypeError):
            kbx.geomean_ci(["fast"])
        with self.assertRaises(ValueError):
            kbx.geomean_ci([1.0], level=1.5)

    def test_speedup_stats(self):
        st = kbx.speedup_stats([4.0, 0.5], baseline_ms=[4.0, 1.0], candidate_ms=[1.0, 2.0])
        self.assertEqual(st["n"], 2)
        self.assertAlmostEqual(st["geomean"], math.sqrt(2.0), places=12)
        self.assertAlmostEqual(st["mean"], 2.25, places=12)
        self.assertAlmostEqual(st["median"], 2.25, places=12)
        self.assertAlmostEqual(st["sum_ratio"], 5.0 / 3.0, places=12)
        self.assertEqual((st["slower"], st["slower_fraction"]), (1, 0.5))
        # geomean_ci with its default seed is the bootstrap of kbx report's method summary.
        ci = kbx.geomean_ci([4.0, 0.5])
        self.assertEqual((ci["lo"], ci["hi"]), (st["geomean_lo"], st["geomean_hi"]))
        one = kbx.geomean_ci([2.5])
        self.assertEqual((one["estimate"], one["lo"], one["hi"]), (2.5, 2.5, 2.5))
        self.assertIsNone(kbx.speedup_stats([])["geomean"])
        with self.assertRaises(ValueError):
            kbx.speedup_stats([1.0], baseline_ms=[1.0])

    def test_deviance_paper_table1(self):
        # The 704 (task, method) outcomes implied by the paper's Table 1.
        counts = {"AutoTriton": 30, "GEAK": 54, "KernelAgent": 19, "Claude": 40}
        rows = []
        for method, correct in counts.items():
            rows += [{"method": method, "exe_ok": i < correct} for i in range(176)]
        a = kbx.deviance_analysis(rows, factors=["method"])
        self.assertEqual(a["n"], 704)
        self.assertEqual(a["successes"], 143)
        self.assertAlmostEqual(a["null_deviance"], bernoulli_null_deviance(143, 704), places=6)
        self.assertAlmostEqual(a["null_deviance"], 710.62, delta=0.005)
        m = a["alone"][0]
        self.assertEqual(m["factor"], "method")
        self.assertEqual(m["levels"], 4)
        self.assertEqual(m["df"], 3)
        self.assertAlmostEqual(m["deviance"], 686.86, delta=0.005)
        self.assertAlmostEqual(m["chi2"], 23.8, delta=0.05)
        self.assertAlmostEqual(m["share"], 0.0334, delta=0.0001)
        self.assertLess(m["p"], 1e-4)
        self.assertAlmostEqual(m["p"], kbx.chi2_sf(m["chi2"], 3), places=12)
        # The same data as a dict of columns.
        cols = {"method": [r["method"] for r in rows], "exe_ok": [int(r["exe_ok"]) for r in rows]}
        b = kbx.deviance_analysis(cols, factors=["method"])
        self.assertAlmostEqual(b["alone"][0]["chi2"], m["chi2"], places=9)
        with self.assertRaises(KeyError):
            kbx.deviance_analysis(rows, factors=["category"])
        with self.assertRaises(ValueError):
            kbx.deviance_analysis({"method": ["a", "b"], "exe_ok": [1]}, factors=["method"])

    def test_fast_p_and_grid(self):
        r = kbx.fast_p([4.0, 0.5, None], grid=[0.1, 1.0, 5.0])
        self.assertEqual(r["n"], 3)
        self.assertEqual(r["p"], [0.1, 1.0, 5.0])
        for got, want in zip(r["fraction"], [2 / 3, 1 / 3, 0.0]):
            self.assertAlmostEqual(got, want, places=12)
        r4 = kbx.fast_p([4.0, 0.5, None], n=4, grid=[0.1, 1.0, 5.0])
        self.assertEqual(r4["fraction"], [0.5, 0.25, 0.0])
        with self.assertRaises(ValueError):
            kbx.fast_p([4.0, 0.5], n=1)
        with self.assertRaises(ValueError):
            kbx.fast_p([-1.0])
        g = kbx.log_grid()
        self.assertEqual(len(g), 41)
        self.assertAlmostEqual(g[0], 0.1, places=12)
        self.assertAlmostEqual(g[20], 1.0, places=12)
        self.assertAlmostEqual(g[40], 10.0, places=9)

    def test_perf_statistics(self):
        self.assertAlmostEqual(kbx.quantile([1, 2, 3, 4], 0.5), 2.5)
        s = kbx.summarize([1.0, 2.0, 3.0, 4.0, 100.0])
        self.assertEqual(s["n"], 5)
        self.assertEqual(s["median"], 3.0)
        self.assertEqual(s["max"], 100.0)
        b = kbx.box_stats([1.0, 2.0, 3.0, 4.0, 100.0])
        self.assertEqual(b["outliers"], [100.0])
        self.assertEqual(b["median"], 3.0)
        ci = kbx.speedup_ci([1.0, 1.1, 0.9, 1.0], [2.0, 2.2, 1.8, 2.0], seed=3)
        self.assertAlmostEqual(ci["estimate"], 2.0, places=12)
        self.assertLessEqual(ci["lo"], 2.0)
        self.assertGreaterEqual(ci["hi"], 2.0)
        g = kbx.geomean_speedup_ci([[1.0, 1.0], [1.0]], [[2.0, 2.0], [8.0]])
        self.assertAlmostEqual(g["estimate"], 4.0, places=12)
        self.assertAlmostEqual(kbx.sum_time_ratio([1.0, 3.0], [2.0, 6.0]), 2.0)
        roof = kbx.roofline(1.0, 1e9, 0.0, 1000.0, 100.0)
        self.assertAlmostEqual(roof["gbs"], 1000.0)
        self.assertAlmostEqual(roof["bandwidth_util"], 1.0)
        with self.assertRaises(ValueError):
            kbx.quantile([], 0.5)

    def test_taxonomy_and_transition_kinds(self):
        classes = kbx.failure_classes()
        self.assertEqual(len(classes), 17)
        self.assertEqual(classes[0]["id"], "empty")
        self.assertEqual({c["stage"] for c in classes}, {"call", "exe"})
        kinds = kbx.transition_kinds({"call_ok": True, "exe_ok": False}, {"call_ok": True, "exe_ok": True})
        self.assertIn("exe_fail_to_pass", kinds)
        self.assertEqual(kbx.transition_kinds({"call_ok": True}, {"call_ok": True}), [])

    def test_catalogue(self):
        tasks = kbx.catalogue(ARGS.tasks_dir)
        with open(os.path.join(ARGS.tasks_dir, "index.json")) as f:
            index = json.load(f)
        entries = index["tasks"] if isinstance(index, dict) else index
        self.assertEqual(len(tasks), len(entries))
        sig = next(t for t in tasks if t["id"] == "Activation/sigmoid")
        self.assertEqual(sig["category"], "Activation")
        self.assertTrue(os.path.isfile(sig["file"]))
        with self.assertRaises(FileNotFoundError):
            kbx.catalogue(tempfile.gettempdir() + "/kbx-no-such-tasks-dir")


class Documentation(unittest.TestCase):
    def test_help_is_useful(self):
        text = pydoc.render_doc(kbx, renderer=pydoc.plaintext)
        for needle in ("kbx.open", "pandas.DataFrame", "evaluations", "wilson", "deviance_analysis", "StoreError",
                       "geomean_ci", "fast_p"):
            self.assertIn(needle, text)
        self.assertEqual(kbx.__version__, ARGS.version)
        self.assertGreaterEqual(kbx.SCHEMA_VERSION, 3)

    def test_everything_has_a_docstring(self):
        public = [n for n in dir(kbx) if not n.startswith("_")]
        for name in public:
            obj = getattr(kbx, name)
            if callable(obj):
                self.assertTrue((obj.__doc__ or "").strip(), name)
        for name in dir(kbx.Database):
            if name.startswith("_"):
                continue
            self.assertTrue((getattr(kbx.Database, name).__doc__ or "").strip(), "Database." + name)


class OpenErrors(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="kbx-py-")
        self.dir = pathlib.Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def test_missing_file_is_not_created(self):
        path = self.dir / "absent.sqlite"
        with self.assertRaises(FileNotFoundError) as cm:
            kbx.open(path)
        self.assertIn(str(path), str(cm.exception))
        self.assertFalse(path.exists())

    def test_directory(self):
        with self.assertRaises(IsADirectoryError):
            kbx.open(str(self.dir))

    def test_corrupt_file(self):
        path = self.dir / "corrupt.sqlite"
        path.write_bytes(b"this is not an SQLite database, just text " * 200)
        with self.assertRaises(kbx.StoreError) as cm:
            kbx.open(str(path))
        self.assertIn("not a database", str(cm.exception))
        self.assertIsInstance(cm.exception, RuntimeError)

    def test_foreign_sqlite_file(self):
        path = self.dir / "other.sqlite"
        con = sqlite3.connect(path)
        con.execute("CREATE TABLE t(x)")
        con.commit()
        con.close()
        with self.assertRaises(kbx.StoreError) as cm:
            kbx.open(str(path))
        self.assertIn("not a kbx database", str(cm.exception))

    def test_newer_schema(self):
        path = self.dir / "newer.sqlite"
        con = sqlite3.connect(path)
        con.execute("CREATE TABLE t(x)")
        con.execute("PRAGMA user_version=99")
        con.commit()
        con.close()
        with self.assertRaises(kbx.StoreError) as cm:
            kbx.open(str(path))
        self.assertIn("schema version 99", str(cm.exception))
        self.assertIn("newer", str(cm.exception))


class DatabaseQueries(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="kbx-py-db-")
        cls.path = os.path.join(cls.tmp.name, "fixture.sqlite")
        subprocess.run([ARGS.fixture_tool, cls.path, ARGS.seed_fixtures, ARGS.tasks_dir], check=True,
                       stdout=subprocess.DEVNULL)
        cls.db = kbx.open(cls.path)

    @classmethod
    def tearDownClass(cls):
        cls.db.close()
        cls.tmp.cleanup()

    def own(self, rows):
        return [r for r in rows if not r["imported"]]

    def test_properties(self):
        self.assertEqual(self.db.path, self.path)
        self.assertEqual(self.db.schema_version, kbx.SCHEMA_VERSION)
        self.assertFalse(self.db.closed)
        self.assertIn("evaluations", repr(self.db))
        with kbx.open(pathlib.Path(self.path)) as again:  # os.PathLike too
            self.assertEqual(len(again.evaluations()), len(self.db.evaluations()))

    def test_grow_copy(self):
        base = len(self.db.evaluations())
        grown = os.path.join(self.tmp.name, "grown.sqlite")
        before = pathlib.Path(self.path).read_bytes()
        out = kbx.grow_copy(self.path, grown, 3 * base, shape="rounds")
        self.assertEqual(pathlib.Path(self.path).read_bytes(), before, "the source is never written")
        self.assertEqual(out, {"evaluations": 3 * base, "timings": out["timings"], "copies": 2})
        with kbx.open(grown) as g:
            evs = g.evaluations()
            self.assertEqual(len(evs), 3 * base)
            self.assertEqual(sorted({r["round"] for r in evs} - {r["round"] for r in self.db.evaluations()}),
                             sorted({r["round"] + k * 1000 for r in self.db.evaluations() for k in (1, 2)}))
        out = kbx.grow_copy(pathlib.Path(self.path), grown, 2 * base, gpus=["GPU A", "GPU B"], rounds=1)
        self.assertEqual(out["evaluations"], 2 * base)
        with self.assertRaises(ValueError):
            kbx.grow_copy(self.path, grown, 10, shape="sideways")
        with self.assertRaises(ValueError):
            kbx.grow_copy(self.path, grown, 10, gpus=[])
        notdb = os.path.join(self.tmp.name, "notdb.sqlite")
        pathlib.Path(notdb).write_text("not a database\n")
        os.remove(grown)
        with self.assertRaises(kbx.StoreError):
            kbx.grow_copy(notdb, grown, 10)
        self.assertFalse(os.path.exists(grown))

    def test_evaluations(self):
        evs = self.db.evaluations()
        own = self.own(evs)
        self.assertEqual(len(own), 9)
        self.assertEqual([r["id"] for r in own], list(range(1, 10)))
        keys = {"id", "task", "category", "method", "round", "device", "gpu", "verdict", "stage", "call_ok", "exe_ok",
                "failure_class", "manual_class", "speedup", "run_id", "submission_id", "protocol", "ext_cases",
                "ext_passed", "ext_failure_class", "correct_incl_extended"}
        self.assertTrue(keys <= set(own[0]))
        # stored without tiers (the fixture's evaluations): no protocol, no extended figures
        self.assertIsNone(own[0]["protocol"])
        self.assertIsNone(own[0]["correct_incl_extended"])
        e1, e2, e3 = own[0], own[1], own[2]
        self.assertEqual((e1["task"], e1["category"], e1["method"], e1["round"]), ("Activation/sigmoid", "Activation", "alpha", 0))
        self.assertEqual((e1["device"], e1["gpu"], e1["verdict"], e1["stage"]), ("cpu", CPU, "pass", "pass"))
        self.assertIs(e1["call_ok"], True)
        self.assertIsNone(e1["failure_class"])
        self.assertEqual((e2["stage"], e2["failure_class"], e2["call_ok"]), ("call", "syntax_error", False))
        self.assertEqual((e3["stage"], e3["failure_class"], e3["exe_ok"]), ("exe", "value_mismatch", False))
        by_id = {r["id"]: r for r in own}
        self.assertEqual(by_id[5]["gpu"], H200)
        self.assertAlmostEqual(by_id[6]["speedup"], 4.0, places=12)
        self.assertEqual(by_id[6]["timed_shapes"], 2)
        self.assertAlmostEqual(by_id[7]["speedup"], 0.5, places=12)
        self.assertIsNone(by_id[1]["speedup"])  # correct but not timed
        self.assertEqual((by_id[8]["failure_class"], by_id[8]["manual_class"], by_id[8]["manual_note"]),
                         ("value_mismatch", "dtype_mismatch", "fixture label"))
        self.assertEqual(by_id[9]["failure_class"], "runtime_error")
        # latest: E4 is superseded by E9 (the same submission evaluated again).
        latest = self.own(self.db.evaluations(latest=True))
        self.assertEqual([r["id"] for r in latest], [1, 2, 3, 5, 6, 7, 8, 9])
        # filters
        self.assertEqual([r["id"] for r in self.db.evaluations(method="alpha", gpu=H200)], [5, 6, 7])
        self.assertEqual([r["id"] for r in self.db.evaluations(method=["beta"], round=1)], [8])
        self.assertEqual([r["id"] for r in self.db.evaluations(task="Math/softmax", category="Math")], [2, 4, 7, 9])
        self.assertEqual(self.db.evaluations(method="nobody"), [])
        with self.assertRaises(TypeError):
            self.db.evaluations(round="one")
        # imported corpus evaluations: GPU and method from the import options
        imported = [r for r in evs if r["imported"]]
        self.assertTrue(imported)
        self.assertEqual({(r["device"], r["gpu"], r["method"]) for r in imported}, {("imported", "h800", "seedm")})

    def test_columns_form(self):
        cols = self.db.evaluations(columns=True)
        lengths = {len(v) for v in cols.values()}
        self.assertEqual(len(lengths), 1)
        self.assertEqual(lengths.pop(), len(self.db.evaluations()))
        empty = self.db.evaluations(method="nobody", columns=True)
        self.assertIn("speedup", empty)
        self.assertEqual(empty["speedup"], [])

    def test_evaluation_detail(self):
        d = self.db.evaluation(6)
        self.assertEqual(d["code"], "def sigmoid(x): return 1")
        self.assertEqual(d["evidence"]["fixture"], True)
        self.assertIn("perf", d["evidence"])
        self.assertEqual(d["stage_seconds"], {"candidate": 0.5})
        self.assertEqual(len(d["cases"]), 1)
        self.assertEqual(d["cases"][0]["name"], "edge_zero")
        self.assertEqual([t["shape"] for t in d["timings"]], ["small", "large"])
        self.assertEqual(d["timings"][1]["samples"], {"n": 7})
        self.assertAlmostEqual(d["speedup"], 4.0)
        with self.assertRaises(KeyError):
            self.db.evaluation(100000)

    def test_timings(self):
        everything = self.db.timings()
        t = [r for r in everything if r["evaluation_id"] <= 9]
        self.assertEqual(len(t), 3)
        self.assertEqual([(r["evaluation_id"], r["shape"]) for r in t], [(6, "small"), (6, "large"), (7, "small")])
        self.assertEqual([r["speedup"] for r in t], [2.0, 8.0, 0.5])
        self.assertNotIn("samples", t[0])
        self.assertEqual(self.db.timings(evaluation_id=7, samples=True)[0]["samples"], {"n": 5})
        # Imported corpus records keep the seed's speedup as one timing row each.
        seed = [r for r in self.db.timings(samples=True) if r["evaluation_id"] > 9]
        self.assertEqual(len(seed), len(everything) - 3)
        self.assertTrue(seed)
        for r in seed:
            self.assertEqual(r["gpu"], "h800")
            self.assertAlmostEqual(r["speedup"], r["samples"]["speedup"], places=9)

    def test_runs_and_imports(self):
        runs = self.db.runs()
        own = [r for r in runs if r["device"] != "imported"]
        self.assertEqual([r["device"] for r in own], ["cpu", "cuda", "cpu"])
        self.assertEqual(own[1]["provenance"]["devices"][0]["name"], H200)
        self.assertEqual([r["evaluations"] for r in own], [4, 4, 1])
        self.assertEqual(own[0]["public_seeds"], [0, 1])
        imports = self.db.imports()
        self.assertEqual([i["format"] for i in imports], ["corpus", "golden-results"])
        self.assertTrue(all(len(i["sha256"]) == 64 for i in imports))
        self.assertIsInstance(imports[0]["files"], list)

    def test_golden_timings(self):
        a100 = pathlib.Path(ARGS.seed_fixtures) / "golden_results" / "a100"
        want = {}
        for f in sorted(a100.glob("*.json")):
            want[f.stem] = [row["ms"] for row in json.loads(f.read_text())]
        rows = self.db.golden_timings()
        self.assertEqual(len(rows), sum(len(v) for v in want.values()))
        self.assertEqual({r["gpu"] for r in rows}, {"a100"})
        for task, ms in want.items():
            got = [r["ms"] for r in self.db.golden_timings(task=task)]
            self.assertEqual(got, ms, task)
        relu = self.db.golden_timings(task="Activation/relu")
        self.assertTrue(relu)
        self.assertTrue(all(r["task_id"] == "Activation/relu" for r in relu))
        self.assertEqual(relu[0]["input_size"], [[4096]])
        self.assertEqual(self.db.golden_timings(gpu="h100"), [])

    def test_transitions(self):
        with open(pathlib.Path(ARGS.seed_fixtures) / "corpus.jsonl") as f:
            records = [json.loads(line) for line in f]
        tr = self.db.transitions()
        recorded = [t for t in tr if t["recorded_kind"] is not None]
        self.assertEqual(len(recorded), len(records))
        self.assertEqual(sorted(t["recorded_kind"] for t in recorded), sorted(r["kind"] for r in records))
        for t in recorded:
            self.assertTrue(t["agrees"], t)
            self.assertEqual(set(t["kind"].split(",")), set(t["recorded_kind"].split(",")))
            self.assertEqual((t["gpu"], t["method"]), ("h800", "seedm"))
        # Ours: H200, alpha, Activation/sigmoid round 0 (E5, wrong) -> round 1 (E6, correct).
        mine = [t for t in tr if t["recorded_kind"] is None and t["gpu"] == H200]
        sig = [t for t in mine if t["task"] == "Activation/sigmoid" and t["method"] == "alpha"]
        self.assertEqual(len(sig), 1)
        self.assertIn("exe_fail_to_pass", sig[0]["kinds"])
        self.assertEqual((sig[0]["from_round"], sig[0]["to_round"]), (0, 1))
        self.assertEqual((sig[0]["before_exe_ok"], sig[0]["after_exe_ok"]), (False, True))
        ra = self.db.round_analysis()
        self.assertEqual(ra["recorded"], len(records))
        self.assertEqual(ra["agree"], len(records))
        self.assertEqual(ra["disagreements"], [])
        h200 = [r for r in ra["rounds"] if r["gpu"] == H200 and r["method"] == "alpha"]
        self.assertEqual([(r["round"], r["n"], r["exe_ok"], r["timed"]) for r in h200], [(0, 1, 0, 0), (1, 2, 2, 2)])
        self.assertAlmostEqual(h200[1]["geomean_speedup"], math.sqrt(4.0 * 0.5), places=12)
        self.assertAlmostEqual(h200[1]["mean_speedup"], 2.25, places=12)

    def test_tasks_and_report(self):
        tasks = {t["task"]: t for t in self.db.tasks()}
        sig = tasks["Activation/sigmoid"]
        self.assertEqual((sig["category"], sig["n"], sig["call_ok"], sig["exe_ok"], sig["passed"], sig["evaluations"]),
                         ("Activation", 5, 5, 2, 2, 5))
        self.assertEqual(sig["methods"], ["alpha", "beta"])
        self.assertEqual(sig["gpus"], [CPU, H200])
        sm = tasks["Math/softmax"]
        self.assertEqual((sm["n"], sm["call_ok"], sm["exe_ok"], sm["evaluations"]), (3, 2, 1, 4))
        rep = self.db.report()
        cpu_alpha = [r for r in rep if r["gpu"] == CPU and r["method"] == "alpha"]
        self.assertEqual(sorted((r["category"], r["total"], r["call_ok"], r["exe_ok"]) for r in cpu_alpha),
                         [("Activation", 1, 1, 1), ("Math", 1, 0, 0)])

    def test_analysis(self):
        ch = self.db.choices()
        self.assertTrue({"alpha", "beta", "seedm"} <= set(ch["methods"]))
        self.assertTrue({CPU, H200, "h800"} <= set(ch["gpus"]))
        rows = self.db.rows(gpu=[CPU, H200])
        self.assertEqual([r["id"] for r in rows], [1, 2, 3, 5, 6, 7, 8, 9])
        ds = self.db.datasets(gpu=H200)
        self.assertEqual(ds["row_count"], 4)
        # alpha ran rounds 0 and 1 on the H200: one series per round, never pooled (issue 23)
        self.assertEqual([c["method"] for c in ds["compile"]], ["alpha · r0", "alpha · r1", "beta"])
        alpha0 = next(c for c in ds["compile"] if c["method"] == "alpha · r0")
        self.assertEqual((alpha0["call"]["k"], alpha0["call"]["n"], alpha0["exe"]["k"], alpha0["exe"]["n"]), (1, 1, 0, 1))
        alpha = next(c for c in ds["compile"] if c["method"] == "alpha · r1")
        self.assertEqual((alpha["call"]["k"], alpha["call"]["n"], alpha["exe"]["k"], alpha["exe"]["n"]), (2, 2, 2, 2))
        lo, hi = kbx.wilson(2, 2)
        self.assertAlmostEqual(alpha["exe"]["lo"], lo, places=12)
        self.assertAlmostEqual(alpha["exe"]["hi"], hi, places=12)
        sp = next(s for s in ds["speedup"] if s["method"] == "alpha · r1")
        self.assertEqual(sp["speedups"], [0.5, 4.0])
        self.assertEqual(sp["box"]["median"], 2.25)
        self.assertEqual(ds["taxonomy_by_method"]["groups"], ["alpha · r0", "alpha · r1", "beta"])
        self.assertIsNotNone(ds["taxonomy_by_method"]["reviewed"])  # E8 has a manual label
        self.assertEqual(ds["filters"]["gpu"], [H200])
        fp = self.db.fast_p(grid=[0.1, 1.0, 5.0], method="alpha", gpu=H200, round=1)
        self.assertEqual(len(fp), 1)
        self.assertEqual((fp[0]["method"], fp[0]["n"], fp[0]["fraction"]), ("alpha", 2, [1.0, 0.5, 0.0]))
        dev = self.db.deviance_analysis(gpu=CPU)
        self.assertEqual([(d["gpu"], d["round"]) for d in dev], [(CPU, 0)])
        self.assertEqual((dev[0]["n"], dev[0]["successes"]), (4, 1))  # E1, E2, E3, E9
        self.assertAlmostEqual(dev[0]["null_deviance"], bernoulli_null_deviance(1, 4), places=9)
        self.assertEqual(dev[0]["factors"], ["category", "method"])
        self.assertEqual([t["factor"] for t in dev[0]["alone"]], ["category", "method"])
        by_method = self.db.deviance_analysis(["method"], gpu=CPU)
        self.assertEqual(by_method[0]["factors"], ["method"])
        with self.assertRaises(ValueError):
            self.db.deviance_analysis(["colour"])
        # The module-level analysis takes the same rows.
        self.assertAlmostEqual(kbx.deviance_analysis(self.db.rows(gpu=CPU))["null_deviance"], dev[0]["null_deviance"], places=9)

    def test_report_tables(self):
        self.assertEqual(len(kbx.TABLES), 10)
        self.assertIn("utilisation", kbx.TABLES)
        self.assertIn("protocol", kbx.TABLES)  # issue 21: seed / contract / strict
        self.assertIn("method-summary", kbx.TABLES)
        rep = self.db.table("method-summary", gpu=H200)
        self.assertEqual(rep["provenance"]["database"], self.path)
        rows = rep["tables"][0]["rows"]
        alpha1 = next(r for r in rows if r["method"] == "alpha" and r["round"] == 1)
        self.assertEqual((alpha1["gpu"], alpha1["n"], alpha1["compile"], alpha1["correct"]), (H200, 2, 2, 2))
        self.assertAlmostEqual(alpha1["geomean_speedup"], math.sqrt(2.0), places=12)
        alpha0 = next(r for r in rows if r["method"] == "alpha" and r["round"] == 0)
        self.assertEqual((alpha0["n"], alpha0["correct"]), (1, 0))
        for name in kbx.TABLES:  # every table renders from this database in every format
            self.assertIsInstance(self.db.table(name), dict, name)
            for fmt in ("text", "csv", "latex"):
                self.assertIsInstance(self.db.table(name, format=fmt), str, (name, fmt))
        self.assertIn("Deviance analysis", self.db.table("deviance", format="text", gpu=CPU))
        with self.assertRaises(ValueError):
            self.db.table("no-such-table")
        with self.assertRaises(ValueError):
            self.db.table("deviance", format="xlsx")
        # Flat records (issue 23): one dict per row with its table's name, intervals as _lo/_hi columns.
        recs = self.db.table("method-summary", format="records", gpu=H200)
        self.assertEqual(len(recs), sum(len(t["rows"]) for t in rep["tables"]))
        a1 = next(r for r in recs if r["table"] == rep["tables"][0]["name"] and r["method"] == "alpha" and r["round"] == 1)
        self.assertEqual((a1["n"], a1["correct"]), (2, 2))
        self.assertTrue(all(not isinstance(v, (dict, list)) for r in recs for v in r.values()), recs[:1])
        lo_hi = [k for k in a1 if k.endswith("_lo")]
        self.assertTrue(lo_hi)
        for k in lo_hi:
            self.assertLessEqual(a1[k], a1[k[:-3] + "_hi"])
        # This database holds benchmark tasks only: the default task filter leaves nothing out.
        self.assertEqual(self.db.table("method-summary", format="records", gpu=H200, all_tasks=True), recs)

    def test_pandas(self):
        try:
            import pandas as pd
        except ImportError:
            self.skipTest("pandas is not installed for " + sys.executable)
        df = pd.DataFrame(self.db.evaluations())
        self.assertEqual(len(df), len(self.db.evaluations()))
        own = df[~df.imported]
        self.assertEqual(len(own), 9)
        self.assertEqual(own.groupby("method").size().to_dict(), {"alpha": 5, "beta": 4})
        self.assertAlmostEqual(own.speedup.dropna().prod(), 2.0)
        cols = pd.DataFrame(self.db.evaluations(columns=True))
        self.assertEqual(list(cols.columns), list(df.columns))
        timings = pd.DataFrame(self.db.timings())
        self.assertEqual(len(timings), len(self.db.timings()))
        self.assertEqual(timings[timings.evaluation_id == 6].speedup.tolist(), [2.0, 8.0])
        a = kbx.deviance_analysis(pd.DataFrame(self.db.rows(gpu=CPU)))
        self.assertEqual(a["n"], 4)

    def test_closed(self):
        db = kbx.open(self.path)
        with db:
            self.assertTrue(db.evaluations())
        self.assertTrue(db.closed)
        with self.assertRaises(kbx.StoreError):
            db.evaluations()
        self.assertIn("closed", repr(db))


class ReadOnlyDatabase(unittest.TestCase):
    """A database this user cannot write (the installed demo's situation: a 0644 file in a 0755
    directory of root's): kbx.open reads it read-only and changes nothing; one of an older schema is
    refused with a clear kbx.StoreError. Run in a child process as nobody when this test runs as
    root (root may write anything), else with the permissions taken away."""

    CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import kbx
out = {}
with kbx.open(sys.argv[2]) as db:
    out["read_only"] = db.read_only
    out["repr"] = repr(db)
    out["evaluations"] = len(db.evaluations())
    out["report"] = len(db.report())
    out["table"] = len(db.table("method-summary")["tables"])
    out["tasks"] = len(db.tasks())
try:
    kbx.open(sys.argv[3])
    out["older"] = None
except kbx.StoreError as e:
    out["older"] = str(e)
print(json.dumps(out))
"""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="kbx-py-ro-")
        self.root = os.geteuid() == 0
        top = pathlib.Path(self.tmp.name)
        self.share = top / "share"
        self.share.mkdir()
        self.db = self.share / "demo.sqlite"
        self.old = self.share / "old.sqlite"
        subprocess.run([ARGS.fixture_tool, str(self.db), ARGS.seed_fixtures, ARGS.tasks_dir], check=True,
                       stdout=subprocess.DEVNULL)
        self.old.write_bytes(self.db.read_bytes())
        con = sqlite3.connect(self.old)
        con.execute("DROP TABLE code_quality")
        con.execute("PRAGMA user_version=3")
        con.commit()
        con.close()
        for side in ("-wal", "-shm"):
            for f in (self.db, self.old):
                self.assertFalse(pathlib.Path(str(f) + side).exists())
        # As installed: files 0644, directories 0755 (root's); not root: 0444 and 0555, ours.
        for f in (self.db, self.old):
            os.chmod(f, 0o644 if self.root else 0o444)
        os.chmod(self.share, 0o755 if self.root else 0o555)
        os.chmod(top, 0o755)

    def tearDown(self):
        os.chmod(self.share, 0o755)
        self.tmp.cleanup()

    def snapshot(self, p):
        st = os.stat(p)
        return p.read_bytes(), st.st_mtime_ns

    def test_unwritable_database_opens_read_only(self):
        before = {f: self.snapshot(f) for f in (self.db, self.old)}
        kwargs = {"user": 65534, "group": 65534, "extra_groups": []} if self.root else {}
        try:
            r = subprocess.run([sys.executable, "-c", self.CHILD, ARGS.module_dir, str(self.db), str(self.old)],
                               capture_output=True, text=True, timeout=60, **kwargs)
        except PermissionError as e:
            self.skipTest(f"cannot run as nobody here: {e}")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = json.loads(r.stdout.strip().splitlines()[-1])
        self.assertTrue(out["read_only"], out)
        self.assertIn("read-only", out["repr"])
        with kbx.open(self.db) as db:  # the same numbers as a store that could write it
            self.assertEqual(out["evaluations"], len(db.evaluations()))
            self.assertEqual(out["report"], len(db.report()))
            self.assertEqual(out["tasks"], len(db.tasks()))
        self.assertGreater(out["evaluations"], 0)
        self.assertGreater(out["table"], 0)
        older = out["older"]
        self.assertIsNotNone(older, "an older schema the user cannot write was opened")
        self.assertIn("schema version 3, older", older)
        self.assertIn("cp " + str(self.old), older)
        for f in (self.db, self.old):
            self.assertEqual(self.snapshot(f), before[f], f"{f} changed")
            for side in ("-wal", "-shm", "-journal"):
                self.assertFalse(pathlib.Path(str(f) + side).exists(), str(f) + side)

    def test_writable_database_opens_read_write(self):
        if not self.root:
            os.chmod(self.share, 0o755)
            os.chmod(self.db, 0o644)
        with kbx.open(self.db) as db:
            self.assertFalse(db.read_only)
            self.assertNotIn("read-only", repr(db))


def main():
    global ARGS, kbx
    p = argparse.ArgumentParser()
    p.add_argument("--module-dir", required=True)
    p.add_argument("--fixture-tool", required=True)
    p.add_argument("--seed-fixtures", required=True)
    p.add_argument("--tasks-dir", required=True)
    p.add_argument("--version", required=True)
    ARGS, rest = p.parse_known_args()
    sys.path.insert(0, ARGS.module_dir)
    import kbx as module
    kbx = module
    print(f"kbx {kbx.__version__} from {kbx.__file__}; python {sys.version.split()[0]} ({sys.executable})")
    result = unittest.main(argv=[sys.argv[0]] + rest, exit=False, verbosity=2).result
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
