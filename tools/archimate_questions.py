#!/usr/bin/env python3
"""archimate_questions.py: checks that every element question of tests/data/archimate_queries.txt
and tests/data/archimate_heldout.txt is fair, by reading the model's XML (ElementTree), not hyrax:
the expected element exists with the expected type, and it is the only element of that type that
the line's relationships fit. A relationship clause is `Type[accessType] "name" -> Other` (the
element is the source, Other the target) or `<- Other` (the other way); accessType and name are
optional; clauses are separated by ';'. Names compare with white space runs as one space.

    tools/archimate_questions.py [MODEL.xml] [QUESTIONS.txt ...]

Prints each question with the elements of its type that fit (its answer alone when fair, also
how many elements of any type fit) and exits 1 when a question is not fair.
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
XSI = "{http://www.w3.org/2001/XMLSchema-instance}type"
CLAUSE = re.compile(r'^(\w+)(?:\[(\w+)\])?(?:\s+"([^"]*)")?\s*(->|<-)\s*(.+)$')


def words(s):
    return " ".join((s or "").split())


def local(tag):
    return tag.rsplit("}", 1)[-1]


def read_model(path):
    root = ET.parse(path).getroot()
    elements, rels = {}, []
    for e in root.iter():
        if local(e.tag) not in ("element", "relationship"):
            continue
        name = next((words(c.text) for c in e if local(c.tag) == "name"), "")
        if local(e.tag) == "element":
            elements[e.get("identifier")] = (name, e.get(XSI))
        else:
            rels.append((e.get(XSI), e.get("accessType"), name, e.get("source"), e.get("target")))
    return elements, rels


def fits(eid, clause, elements, rels):
    m = CLAUSE.match(clause.strip())
    if not m:
        sys.exit(f"not a relationship clause: {clause!r}")
    rtype, access, rname, arrow, other = m.groups()
    for t, a, n, s, d in rels:
        if t != rtype or (access and a != access) or (rname is not None and n != rname):
            continue
        mine, theirs = (s, d) if arrow == "->" else (d, s)
        if mine == eid and theirs in elements and elements[theirs][0] == words(other):
            return True
    return False


def main():
    args = sys.argv[1:]
    model = args.pop(0) if args and args[0].endswith(".xml") else os.path.join(ROOT, "tests/data/archimate/archisurance.xml")
    files = args or [os.path.join(ROOT, "tests/data", f) for f in ("archimate_queries.txt", "archimate_heldout.txt")]
    elements, rels = read_model(model)
    unfair = 0
    for f in files:
        for line in open(f):
            if line.startswith("#") or not line.strip():
                continue
            q, name, etype, evidence = [x.strip() for x in line.split("|")]
            clauses = [c for c in evidence.split(";") if c.strip()]
            fit = [i for i in elements if all(fits(i, c, elements, rels) for c in clauses)]
            typed = [elements[i][0] for i in fit if elements[i][1] == etype]
            ok = typed == [words(name)]
            unfair += not ok
            print(f"{'fair' if ok else 'NOT FAIR'}: {q} -> {typed} (of any type: {len(fit)})")
    return 1 if unfair else 0


if __name__ == "__main__":
    sys.exit(main())
