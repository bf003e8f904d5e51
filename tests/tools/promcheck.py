#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check a Prometheus text exposition file (format 0.0.4) the way the node
exporter's textfile collector reads it: every sample belongs to a metric
with HELP and TYPE lines before it, names and labels are well-formed,
label values escaped, values numbers, counters end in _total, no series
twice. Exits 1 with FILE:LINE: reason on the first problem."""
import re
import sys

NAME = re.compile(r'[a-zA-Z_:][a-zA-Z0-9_:]*$')
SAMPLE = re.compile(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? ([^ ]+)( -?[0-9]+)?$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)')


def fail(path, n, why):
    print(f"{path}:{n}: {why}")
    sys.exit(1)


def check(path):
    types, helps, seen = {}, set(), set()
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines[-1] != "":
        fail(path, len(lines), "the last line does not end in a newline")
    for n, line in enumerate(lines[:-1], 1):
        if line.startswith("# HELP "):
            name = line.split(" ", 3)[2]
            if not NAME.match(name) or name in helps:
                fail(path, n, f"bad or repeated HELP for {name}")
            helps.add(name)
        elif line.startswith("# TYPE "):
            parts = line.split(" ")
            if len(parts) != 4 or parts[3] not in ("counter", "gauge", "untyped", "summary", "histogram"):
                fail(path, n, "bad TYPE line")
            if parts[2] in types:
                fail(path, n, f"TYPE of {parts[2]} given twice")
            types[parts[2]] = parts[3]
        elif line.startswith("#") or not line:
            continue
        else:
            m = SAMPLE.match(line)
            if not m:
                fail(path, n, "not a sample line")
            name, labels, value = m.group(1), m.group(3) or "", m.group(4)
            if name not in types or name not in helps:
                fail(path, n, f"{name} has no HELP/TYPE before it")
            if types[name] == "counter" and not name.endswith("_total"):
                fail(path, n, f"counter {name} does not end in _total")
            pos, keys = 0, []
            while pos < len(labels):
                lm = LABEL.match(labels, pos)
                if not lm:
                    fail(path, n, f"bad labels: {labels}")
                keys.append(lm.group(1))
                pos = lm.end()
            if len(set(keys)) != len(keys):
                fail(path, n, "a label given twice")
            try:
                float(value)
            except ValueError:
                fail(path, n, f"value {value} is not a number")
            series = (name, labels)
            if series in seen:
                fail(path, n, f"{name}{{{labels}}} twice")
            seen.add(series)
    if not seen:
        fail(path, 0, "no samples")


for p in sys.argv[1:]:
    check(p)
