#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Every row of Open MPI's decision tables in docs/collectives.md against the rule set the replay
runs (issue #44, item 4): for each row, its first and last communicator size (and 4096 and 10000
for the open-ended band) and its first and last message size S (S - 1 below an open bound, S and
2 S above one), the algorithm the docs name must be the one rt_coll_plan_choose picks. The docs
and replay/src/coll/rules_openmpi.c are two transcriptions of coll_tuned_decision_fixed.c: an
edit of either that moves a threshold or an algorithm fails here. The fallbacks the docs list
(fewer elements of 8 B than P or pof2) are applied to the docs' answer.

usage: coll_rules_doc.py QUERY_PROGRAM DOCS_MD
"""
import re
import subprocess
import sys

query, doc = sys.argv[1], sys.argv[2]
text = open(doc, encoding="utf-8").read()
start = text.index("**allreduce** (S = the vector; Open MPI")
ops = {"allreduce": ("allreduce", 0), "alltoall": ("alltoall", 0), "bcast": ("bcast", 0), "reduce": ("reduce", 0),
       "allgather": ("allgather", 0), "allgatherv": ("allgather", 1), "gather": ("gather", 0),
       "scatter": ("scatter", 0), "reduce_scatter": ("allreduce", 1), "barrier": ("barrier", 0),
       "alltoallv": ("alltoall", 1)}


def pof2(p):
    q = 1
    while q * 2 <= p:
        q *= 2
    return q


def ranks(cell):
    cell = cell.strip()
    m = re.fullmatch(r"(\d+) <= P <= (\d+)", cell)
    if m:
        return int(m.group(1)), int(m.group(2))
    m = re.fullmatch(r"P = (\d+)", cell)
    if m:
        return int(m.group(1)), int(m.group(1))
    m = re.fullmatch(r"P >= (\d+)", cell)
    if m:
        return int(m.group(1)), None
    raise ValueError("ranks cell %r" % cell)


def sizes(cell):
    cell = cell.strip()
    if cell in ("", "any", "-"):
        return 0, None
    m = re.fullmatch(r"S < (\d+)", cell)
    if m:
        return 0, int(m.group(1))
    m = re.fullmatch(r"(\d+) <= S < (\d+)", cell)
    if m:
        return int(m.group(1)), int(m.group(2))
    m = re.fullmatch(r"S >= (\d+)", cell)
    if m:
        return int(m.group(1)), None
    raise ValueError("size cell %r" % cell)


cases = []  # (what, op, vector, P, S, total, want)
skipped = []
for sec in re.finditer(r"^\*\*(\w+)\*\* \(([^)]*)\)\n\n((?:\|.*\n)+)", text[start:], re.M):
    name, table = sec.group(1), sec.group(3)
    if name not in ops:
        continue
    op, vector = ops[name]
    band = None
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2:  # a table without an S column
            cells = [cells[0], "", cells[1]]
        if cells[0]:
            band = ranks(cells[0])
        try:
            lo, hi = sizes(cells[1])
        except ValueError:  # a band the docs summarise in words (reduce_scatter from 64 ranks on)
            skipped.append("%s: %s" % (name, line.strip()))
            continue
        algo = cells[2].split()[0]
        plo, phi = band
        Ps = {plo, phi} if phi else {plo, max(plo, 4096), max(plo, 10000)}
        Ss = {lo, hi - 1} if hi is not None else {lo, 2 * max(lo, 1)}
        for P in sorted(Ps):
            for S in sorted(Ss):
                want = algo
                n = S // 8  # the fallbacks inside Open MPI's algorithms (docs: "Fallbacks")
                if name == "bcast" and algo in ("scatter-recdbl", "scatter-ring") and n < P:
                    want = "linear"
                if name == "reduce" and algo == "rabenseifner" and n < pof2(P):
                    want = "linear"
                if name == "allreduce" and algo in ("ring", "segmented-ring") and n < P:
                    want = "recdbl"
                if name == "allreduce" and algo == "rabenseifner" and n < pof2(P):
                    want = "linear"
                total = S * P
                cases.append(("%s P=%d S=%d (row: %s)" % (name, P, S, line.strip()), op, vector, P, S, total, want))

if len(cases) < 500:
    print("FAIL: only %d cases read from %s: the tables' format changed?" % (len(cases), doc))
    sys.exit(1)
inp = "".join("openmpi %s %d %d %d %d\n" % (op, v, P, S, tot) for _, op, v, P, S, tot, _ in cases)
out = subprocess.run([query], input=inp, capture_output=True, text=True, check=True).stdout.split()
bad = [(c[0], c[6], got) for c, got in zip(cases, out) if got != c[6]]
for what, want, got in bad[:20]:
    print("FAIL %s: the docs say %s, the replay picks %s" % (what, want, got))
print("%d of %d row ends agree (%d tables)" % (len(cases) - len(bad), len(cases), len({c[0].split()[0] for c in cases})))
for row in skipped:
    print("not checked (no sizes in the docs): %s" % row)
sys.exit(1 if bad else 0)
