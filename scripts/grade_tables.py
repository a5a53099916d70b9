#!/usr/bin/env python3
"""Dump what Python 3.11's str methods and re module say about every code
point (lowercase, \\w, \\d, \\s, re.I classes) to py311.json, for
scripts/grade_tables_diff.rs to compare with Rust and write
src/grade/tables.rs. Run with the Python that ran skill-benchmark."""
# Python 3.11 (Unicode 14) character facts the grader must reproduce.
import sys, json, unicodedata
assert sys.version_info[:2] == (3, 11), sys.version
from re import _casefix
out = {"unicode": unicodedata.unidata_version, "lower": {}, "w": [], "d": [], "s": [], "ci_class": {}}
import _sre
for cp in range(0x110000):
    if 0xD800 <= cp <= 0xDFFF:
        continue
    c = chr(cp)
    lo = c.lower()
    if lo != c:
        out["lower"][cp] = [ord(x) for x in lo]
    if c.isalnum() or c == "_":
        out["w"].append(cp)
    if c.isdecimal():
        out["d"].append(cp)
    if c.isspace():
        out["s"].append(cp)
# re.I equivalence: simple lowercase (sre unicode_tolower) plus _casefix extras
classes = {}
for cp in range(0x110000):
    if 0xD800 <= cp <= 0xDFFF:
        continue
    lo = _sre.unicode_tolower(cp)
    classes.setdefault(lo, set()).add(cp)
# a literal whose lower is lo matches any char whose lower is lo or one of fixes[lo]
ci = {}
for cp in range(0x110000):
    if 0xD800 <= cp <= 0xDFFF:
        continue
    lo = _sre.unicode_tolower(cp)
    members = set(classes.get(lo, {cp}))
    for e in _casefix._EXTRA_CASES.get(lo, ()):
        members |= classes.get(e, {e})
    if len(members) > 1:
        ci[cp] = sorted(members)
out["ci_class"] = ci
json.dump(out, open("py311.json", "w"))
print(out["unicode"], len(out["lower"]), len(out["w"]), len(out["d"]), len(out["s"]), len(ci))
