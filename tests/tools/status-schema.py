#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Validate "zswap-tuned status --json" outputs against docs/status-schema.json.

usage: status-schema.py SCHEMA FILE...

Each FILE holds what one run printed: exactly one JSON object and a
newline. The schema lets schema 1 grow keys (consumers ignore what they do
not know); here every object with "properties" is made closed first, so a
key the daemon prints but the schema does not document fails the test.
Exit 0 valid, 1 not, 77 when python3-jsonschema is not installed.
"""
import copy
import json
import sys

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed (apt-get install python3-jsonschema)")
    sys.exit(77)


def closed(node):
    if isinstance(node, dict):
        node = {k: closed(v) for k, v in node.items()}
        if "properties" in node and node.get("type") == "object":
            node["additionalProperties"] = False
        return node
    if isinstance(node, list):
        return [closed(v) for v in node]
    return node


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    strict = closed(copy.deepcopy(schema))
    rc = 0
    for path in sys.argv[2:]:
        with open(path, "rb") as f:
            raw = f.read()
        try:
            text = raw.decode("utf-8")  # strict: invalid UTF-8 fails here
            if not text.endswith("\n") or text.count("\n") != 1:
                raise ValueError("not one line ending in a newline")
            doc = json.loads(text)
        except ValueError as e:
            print(f"{path}: not one line of JSON in UTF-8: {e}: {raw[:200]!r}")
            rc = 1
            continue
        # the branch this object claims, for errors that name the key
        branch = {k: v for k, v in strict.items() if k != "oneOf"}
        branch["allOf"] = [strict["oneOf"][0 if isinstance(doc, dict) and doc.get("running") is True else 1]]
        errors = sorted(cls(branch).iter_errors(doc), key=lambda e: list(e.path))
        for e in errors:
            print(f"{path}: {'/'.join(map(str, e.path)) or '(top)'}: {e.message}")
        if errors:
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
