#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Breaks a good timeline in one way, so that perfetto_check.sh can see perfetto_schema.py
reject it (a validator that never fails checks nothing).

usage: perfetto_mutate.py MUTATION IN.json OUT.json
"""
import json
import sys
from decimal import Decimal


def thread(doc, name):
    """(pid, tid) of the first thread called name."""
    e = next(e for e in doc["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"
             and e["args"]["name"] == name)
    return e["pid"], e["tid"]


def drop_thread_name(doc):
    doc["traceEvents"] = [e for e in doc["traceEvents"]
                          if not (e["ph"] == "M" and e["name"] == "thread_name" and e["args"]["name"] == "measured")]


def flow_backwards(doc):
    f = next(e for e in doc["traceEvents"] if e["ph"] == "f" and e["cat"] == "message")
    s = next(e for e in doc["traceEvents"] if e["ph"] == "s" and e["id"] == f["id"])
    s["ts"], f["ts"] = f["ts"] + Decimal("0.001"), s["ts"]


def end_first(doc):
    """A critical path hop (its ends have equal times) whose end comes first in the file."""
    ev = doc["traceEvents"]
    i = next(i for i, e in enumerate(ev) if e["ph"] == "s" and e["cat"] == "critical_path")
    j = next(j for j, e in enumerate(ev) if e["ph"] == "f" and e["id"] == ev[i]["id"])
    ev.insert(i, ev.pop(j))


def unpaired_flow(doc):
    f = next(i for i, e in enumerate(doc["traceEvents"]) if e["ph"] == "f")
    del doc["traceEvents"][f]


def overlap(doc):
    """A child slice that ends after its parent (an MPI call inside a region)."""
    key = thread(doc, "predicted")
    xs = [e for e in doc["traceEvents"] if e["ph"] == "X" and (e["pid"], e["tid"]) == key]
    for p in xs:
        for c in xs:
            if c is not p and p["ts"] < c["ts"] and c["ts"] + c["dur"] <= p["ts"] + p["dur"] \
                    and c["ts"] + c["dur"] > p["ts"]:
                c["dur"] = p["ts"] + p["dur"] - c["ts"] + Decimal("0.010")
                return
    raise SystemExit("no nested slice to break")


def truncating_ts(doc):
    """A time written without the guard digit: 1.001 us imports as 1000 ns."""
    x = next(e for e in doc["traceEvents"] if e["ph"] == "X")
    x["ts"] = Decimal("1.001")


def path_gap(doc):
    key = thread(doc, "critical path")
    x = next(e for e in doc["traceEvents"] if e["ph"] == "X" and (e["pid"], e["tid"]) == key)
    x["dur"] -= Decimal("0.001")


def shared_tid(doc):
    """The measured thread of rank 1 reuses rank 0's tid."""
    tid0 = thread(doc, "measured")[1]
    for e in doc["traceEvents"]:
        if e["pid"] == 1 and e["tid"] == tid0 + 1:
            e["tid"] = tid0


MUTATIONS = {f.__name__.replace("_", "-"): f for f in
             (drop_thread_name, flow_backwards, end_first, unpaired_flow, overlap, truncating_ts, path_gap, shared_tid)}


class Enc(json.JSONEncoder):
    """Decimals as floats: repr gives back the same short decimal text for these values."""

    def default(self, o):
        if isinstance(o, Decimal):
            return float(o)
        return super().default(o)


def main(argv):
    if len(argv) != 4 or argv[1] not in MUTATIONS:
        print(__doc__.splitlines()[3], "with MUTATION one of", ", ".join(MUTATIONS), file=sys.stderr)
        return 2
    with open(argv[2], encoding="utf-8") as f:
        doc = json.load(f, parse_float=Decimal)
    MUTATIONS[argv[1]](doc)
    with open(argv[3], "w", encoding="utf-8") as f:
        json.dump(doc, f, cls=Enc, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
