#!/usr/bin/env python3
"""Writes the boilerplate fixture of tests/test_rank.c from a Kubernetes enhancements checkout.

tests/data/boiler/keps/<folder>/README.md: six real KEP READMEs cut to their title, Summary and two
sections of the Production Readiness Review questionnaire (Monitoring Requirements, Scalability),
each as its authors left it: the template's questions and instructions (HTML comments) beside the
authors' answers. tests/data/boiler/template.md: the same sections of the KEP template
(NNNN-kep-template/README.md), the reference for which lines are boilerplate. Nothing here comes
from hyrax.

  tools/gen_boiler_fixture.py ../shared/corpora/keps
"""
import pathlib
import re
import sys

KEPS = [   # proposals written on one version of the template, one of them about deleting
    "sig-cli/3895-kubectl-delete-interactivity",
    "sig-storage/3762-persistent-volume-last-phase-transition-time",
    "sig-node/5996-default-pod-sysctls",
    "sig-auth/4633-anonymous-auth-configurable-endpoints",
    "sig-autoscaling/4951-configurable-hpa-tolerance",
    "sig-apps/4443-configurable-pod-failure-policy-reasons",
]
SECTIONS = ("Summary", "Monitoring Requirements", "Scalability")


def cut(text):
    """The first H1 line, then each section of SECTIONS up to the next heading of its level or above."""
    lines = text.split("\n")
    out = [next(l for l in lines if l.startswith("# "))]
    i = 0
    while i < len(lines):
        m = re.match(r"^(#{2,6}) (.*?)\s*$", lines[i])
        if m and m.group(2) in SECTIONS:
            level = len(m.group(1))
            j = i + 1
            while j < len(lines):
                n = re.match(r"^(#{1,6}) ", lines[j])
                if n and len(n.group(1)) <= level:
                    break
                j += 1
            out += [""] + lines[i:j]
            i = j
        else:
            i += 1
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip() + "\n"


def main():
    corpus = pathlib.Path(sys.argv[1])
    dest = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "boiler"
    for k in KEPS:
        out = dest / "keps" / k / "README.md"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(cut((corpus / k / "README.md").read_text(encoding="utf-8")), encoding="utf-8")
    (dest / "template.md").write_text(cut((corpus / "NNNN-kep-template" / "README.md").read_text(encoding="utf-8")),
                                      encoding="utf-8")
    print(sum(f.stat().st_size for f in dest.rglob("*.md")), "bytes under", dest)


if __name__ == "__main__":
    main()
