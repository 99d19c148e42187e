# SPDX-License-Identifier: MIT
"""The Python half of kbx-worker: reference and candidate roles. Loaded by the embedded
interpreter of kbx-worker; never imported by candidate code. See docs/ARCHITECTURE.md."""
HARNESS_VERSION = 1
