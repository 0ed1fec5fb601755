#!/usr/bin/env python3
"""gen_golden_yaml.py: golden metadata pairs for tests/test_meta.c, from the reference YAML parser
(PyYAML's safe_load) over the real KEP kep.yaml files copied into tests/data/kep_yaml/. Owns
tests/golden/kep_yaml.txt.

Each file's mapping is flattened the way src/text/yaml.h describes: nested keys joined with '.',
one pair per list item under the list's key (a list of mappings gives "list.key" pairs), items
that are lists and null values dropped. Scalars are written as the file spells them where PyYAML
would change them (the test files are chosen so it never does: no 0000, yes/no or 1.20). Output:
"FILE<TAB>KEY<TAB>VALUE" lines, in document order. Run: python3 tools/gen_golden_yaml.py
(in a venv with PyYAML)
"""
import datetime
import glob
import os

import yaml

HERE = os.path.dirname(__file__)
DATA = os.path.join(HERE, "..", "tests", "data", "kep_yaml")
OUT = os.path.join(HERE, "..", "tests", "golden", "kep_yaml.txt")


def flatten(prefix, value, out):
    if isinstance(value, dict):
        for k, v in value.items():
            flatten(f"{prefix}.{k}" if prefix else str(k), v, out)
    elif isinstance(value, list):
        for item in value:
            if not isinstance(item, list):
                flatten(prefix, item, out)
    elif value is None:
        return
    elif isinstance(value, bool):
        out.append((prefix, "true" if value else "false"))
    elif isinstance(value, (datetime.date, datetime.datetime)):
        out.append((prefix, value.isoformat()))
    else:
        out.append((prefix, str(value)))


def main():
    lines = []
    for path in sorted(glob.glob(os.path.join(DATA, "*.yaml"))):
        with open(path, encoding="utf-8") as f:
            pairs = []
            flatten("", yaml.safe_load(f), pairs)
        for k, v in pairs:
            assert "\t" not in v and "\n" not in v, (path, k)
            lines.append(f"{os.path.basename(path)}\t{k}\t{v}\n")
    with open(OUT, "w", encoding="utf-8") as f:
        f.writelines(lines)
    print(f"{len(lines)} pairs from {len(glob.glob(os.path.join(DATA, '*.yaml')))} files -> {OUT}")


if __name__ == "__main__":
    main()
