#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Python tools read and write kbx databases through the kbx module (scripts/kbxdb.py), never with
SQL of their own: no script of bench/ or scripts/ uses Python's sqlite3 (bench/report_scale.py grows
copies of the demo with the module's grow_copy; third-party code leaves a database through
`kbx strip-code`). The C++ side's rule is tests/core/sql_placement_test.cpp."""
import os
import re
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
USE = re.compile(r"^\s*(import sqlite3|from sqlite3 import)|\bsqlite3\.connect\(", re.M)


def users(root):
    out = []
    for folder in ("bench", "scripts"):
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            if "results" in os.path.relpath(dirpath, root).split(os.sep):
                continue
            for f in files:
                if f.endswith(".py"):
                    p = os.path.join(dirpath, f)
                    with open(p, encoding="utf-8") as fh:
                        if USE.search(fh.read()):
                            out.append(os.path.relpath(p, root).replace(os.sep, "/"))
    return sorted(out)


class SqlPlacement(unittest.TestCase):
    def test_the_pattern_sees_a_use(self):
        self.assertTrue(USE.search("import json\nimport sqlite3\n"))
        self.assertTrue(USE.search("con = sqlite3.connect(path)"))
        self.assertFalse(USE.search("# reads through kbxdb, not sqlite3\n"))

    def test_no_script_uses_sqlite3(self):
        self.assertEqual(users(ROOT), [], "read and write these through scripts/kbxdb.py (the kbx module)")


if __name__ == "__main__":
    unittest.main()
