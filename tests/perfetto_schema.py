#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Validates a timeline written by rt_perfetto_write (retime ... --perfetto FILE.json).

usage: perfetto_schema.py FILE.json [--expect EXPECT.json]

Checks the Chrome trace-event format as the Perfetto UI and chrome://tracing read it, and the
layout of docs/perfetto.md:
  - a top-level object with a traceEvents array (and otherData); no arrays inside events (older
    Perfetto importers reject them);
  - every event has ph, name, pid, tid; X, s and f have ts; X has dur >= 0; M events name a
    process or thread, or their sort index;
  - every time is one Perfetto converts exactly: int(float(v) * 1000.0) (what its importer
    does) equals the exact value in ns (rounded down);
  - every pid has a process_name and the threads "predicted", "critical path" and "measured";
    every tid belongs to one pid and is no pid (Perfetto keys threads by tid alone);
  - the slices of each thread nest (no partial overlaps);
  - flow arrows: per (cat, name, id) one "s" and one "f" (with "bp": "e"), s.ts <= f.ts (and
    s before f in the file when equal: importers drop an end read before its start), both
    inside a slice of their own thread;
  - the critical path's slices tile [0, predicted end] (the path's length), one run after the
    other, and some predicted MPI slice is marked critical_path;
and with --expect, values test_perfetto derived without the writer: every rank's predicted and
measured end, the critical path's runs as rt_depgraph_critical_path lists them, the number of
messages, the closed-form duration of a region, and names that needed escaping, as read back.
Prints one line per problem and exits 1 if there is any.
"""
import json
import sys
from collections import defaultdict
from decimal import Decimal, ROUND_FLOOR

PHASES = {"X", "s", "f", "M"}
META = {"process_name", "thread_name", "process_sort_index", "thread_sort_index"}
TRACKS = ("predicted", "critical path", "measured")

problems = []


def bad(msg):
    problems.append(msg)


def exact_ns(v):
    """The value in ns, rounded down, exactly (from the decimal text)."""
    return int((v * 1000).to_integral_value(rounding=ROUND_FLOOR))


def is_num(v):
    return isinstance(v, (int, Decimal)) and not isinstance(v, bool)


def time_ns(e, key, where):
    v = e.get(key)
    if not is_num(v):
        bad(f"{where}: {key} missing or not a number: {v!r}")
        return None
    v = Decimal(v)
    if v < 0:
        bad(f"{where}: {key} < 0: {v}")
        return None
    ns = exact_ns(v)
    perfetto = int(float(v) * 1000.0)  # trace_processor's CoerceToTs for a JSON real
    if perfetto != ns:
        bad(f"{where}: {key} {v} would import as {perfetto} ns, not {ns} ns")
    return ns


def has_array(v):
    if isinstance(v, list):
        return True
    if isinstance(v, dict):
        return any(has_array(x) for x in v.values())
    return False


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--expect"):
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:  # strict UTF-8: invalid bytes fail here
        doc = json.load(f, parse_float=Decimal)
    expect = None
    if len(argv) == 4:
        with open(argv[3], encoding="utf-8") as f:
            expect = json.load(f)

    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        bad("top level: not an object with a traceEvents array")
        return report(argv[1])
    other = doc.get("otherData", {})
    if not isinstance(other, dict):
        bad("otherData is not an object")
        other = {}

    proc_name = {}
    thread_name = {}
    tid_pid = {}
    slices = defaultdict(list)  # (pid, tid) -> [(ts, end, event)]
    flows = defaultdict(list)   # (cat, name, id) -> [event]
    for i, e in enumerate(doc["traceEvents"]):
        where = f"event {i}"
        if not isinstance(e, dict):
            bad(f"{where}: not an object")
            continue
        ph = e.get("ph")
        if ph not in PHASES:
            bad(f"{where}: ph {ph!r} not one of {sorted(PHASES)}")
            continue
        where = f"event {i} ({ph} {e.get('name')!r})"
        if has_array(e):
            bad(f"{where}: holds an array")
        if not isinstance(e.get("name"), str) or not e["name"]:
            bad(f"{where}: name missing or empty")
        pid, tid = e.get("pid"), e.get("tid")
        if not (isinstance(pid, int) and pid >= 0 and isinstance(tid, int) and tid >= 0):
            bad(f"{where}: pid/tid missing or not a non-negative integer")
            continue
        if tid_pid.setdefault(tid, pid) != pid:
            bad(f"{where}: tid {tid} used by pids {tid_pid[tid]} and {pid}")
        if "args" in e and not isinstance(e["args"], dict):
            bad(f"{where}: args is not an object")
        if ph == "M":
            args = e.get("args", {})
            if e["name"] not in META:
                bad(f"{where}: unknown metadata")
            elif e["name"].endswith("_name"):
                if not isinstance(args.get("name"), str) or not args["name"]:
                    bad(f"{where}: args.name missing")
                elif e["name"] == "process_name":
                    proc_name[pid] = args["name"]
                else:
                    thread_name[(pid, tid)] = args["name"]
            elif not isinstance(args.get("sort_index"), int):
                bad(f"{where}: args.sort_index missing")
            continue
        ts = time_ns(e, "ts", where)
        if ts is None:
            continue
        if ph == "X":
            dur = time_ns(e, "dur", where)
            if dur is not None:
                slices[(pid, tid)].append((ts, ts + dur, e))
        else:
            if not is_num(e.get("id")):
                bad(f"{where}: flow without a numeric id")
                continue
            if ph == "f" and e.get("bp") != "e":
                bad(f'{where}: flow end without "bp": "e"')
            flows[(e.get("cat"), e["name"], e["id"])].append((ts, pid, tid, e, i))

    pids = set(tid_pid.values())
    for tid in tid_pid:
        if tid in pids:
            bad(f"tid {tid} is also a pid")
    track = {}  # (pid, tid) -> track name
    for pid in sorted(pids):
        if pid not in proc_name:
            bad(f"pid {pid}: no process_name")
        names = {n: k for k, n in thread_name.items() if k[0] == pid}
        for t in TRACKS:
            if t not in names:
                bad(f"pid {pid}: no thread named {t!r}")
        for n, k in names.items():
            track[k] = n
    for k in list(slices) + [(f[1], f[2]) for v in flows.values() for f in v]:
        if k not in thread_name:
            bad(f"pid {k[0]} tid {k[1]}: events on a thread without a thread_name")
            thread_name[k] = "?"

    # Slices nest: sorted by start (longest first), each lies inside the open parent or after it.
    for k, v in slices.items():
        v.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for b, e, ev in v:
            while stack and stack[-1] <= b:
                stack.pop()
            if stack and e > stack[-1]:
                bad(f"pid {k[0]} tid {k[1]}: slice {ev['name']!r} [{b}, {e}] ns overlaps its parent ending at {stack[-1]}")
            stack.append(e)

    def inside(pid, tid, ts):
        return any(b <= ts <= e for b, e, _ in slices.get((pid, tid), ()))

    pairs = defaultdict(int)  # (track, cat) -> arrows
    for key, v in flows.items():
        phs = sorted(f[3]["ph"] for f in v)
        if phs != ["f", "s"]:
            bad(f"flow {key}: phases {phs}, want one s and one f")
            continue
        s = next(f for f in v if f[3]["ph"] == "s")
        f = next(f for f in v if f[3]["ph"] == "f")
        if s[0] > f[0]:
            bad(f"flow {key}: starts at {s[0]} ns after it ends at {f[0]} ns")
        elif s[0] == f[0] and s[4] > f[4]:
            # both importers pair ends in time order, file order among equal times
            bad(f"flow {key}: ends at the time it starts but comes first in the file (importers drop it)")
        for p in (s, f):
            if not inside(p[1], p[2], p[0]):
                bad(f"flow {key}: {p[3]['ph']} at {p[0]} ns on pid {p[1]} is in no slice of its thread")
        ts, tf = track.get((s[1], s[2])), track.get((f[1], f[2]))
        if ts != tf:
            bad(f"flow {key}: goes from the {ts!r} thread to the {tf!r} thread")
        pairs[(ts, key[0])] += 1

    # The critical path tiles [0, end].
    runs = sorted((b, e, k[0]) for k, v in slices.items() if track.get(k) == "critical path" for b, e, _ in v)
    end = other.get("predicted_end_ns")
    if not runs and any(slices.values()):
        bad("no critical path slices")
    if runs:
        at = 0
        for b, e, pid in runs:
            if b != at:
                bad(f"critical path: run on pid {pid} begins at {b} ns, the path is at {at} ns")
            at = e
        if end is not None and at != end:
            bad(f"critical path: ends at {at} ns, the predicted run at {end} ns")
        total = sum(e - b for b, e, _ in runs)
        if total != other.get("critical_path_ns"):
            bad(f"critical path: slices sum to {total} ns, otherData says {other.get('critical_path_ns')}")
        if len(runs) != other.get("critical_path_runs"):
            bad(f"critical path: {len(runs)} slices, otherData says {other.get('critical_path_runs')}")
        marked = [ev for k, v in slices.items() if track.get(k) == "predicted" for _, _, ev in v
                  if ev.get("args", {}).get("critical_path") is True]
        if not marked:
            bad("no predicted slice is marked critical_path")
    pred_ends = {k[0]: max(e for _, e, _ in v) for k, v in slices.items() if track.get(k) == "predicted"}
    if end is not None and pred_ends and max(pred_ends.values()) > end:
        bad(f"a predicted slice ends after the predicted end {end} ns")

    if expect is not None:
        n = expect["ranks"]
        if sorted(pids) != list(range(n)):
            bad(f"pids {sorted(pids)[:5]}...: want 0..{n - 1}")
        for r in range(n):
            if proc_name.get(r) != f"rank {r}":
                bad(f"pid {r}: process_name {proc_name.get(r)!r}, want 'rank {r}'")
        meas_ends = {k[0]: max(e for _, e, _ in v) for k, v in slices.items() if track.get(k) == "measured"}
        for r in range(n):
            if pred_ends.get(r) != expect["rank_predicted_end_ns"][r]:
                bad(f"rank {r}: predicted slices end at {pred_ends.get(r)} ns, the replay at {expect['rank_predicted_end_ns'][r]} ns")
            if meas_ends.get(r) != expect["rank_measured_end_ns"][r]:
                bad(f"rank {r}: measured slices end at {meas_ends.get(r)} ns, the trace at {expect['rank_measured_end_ns'][r]} ns")
        if end != expect["predicted_end_ns"]:
            bad(f"otherData.predicted_end_ns {end}, the replay's end {expect['predicted_end_ns']}")
        want = [tuple(x) for x in expect["critical_path"]]
        got = [(pid, b, e) for b, e, pid in runs]
        if got != want:
            bad(f"critical path runs differ from rt_depgraph_critical_path's: {len(got)} vs {len(want)}; "
                f"first difference {next(((g, w) for g, w in zip(got, want) if g != w), None)}")
        m = expect["messages"]
        if pairs[("predicted", "message")] != m:
            bad(f"{pairs[('predicted', 'message')]} predicted message arrows, the trace has {m} messages")
        left_out = other.get("measured_arrows_left_out", 0)
        if pairs[("measured", "message")] + left_out != m:
            bad(f"{pairs[('measured', 'message')]} measured message arrows + {left_out} left out, want {m}")
        if "region" in expect:
            want_ns = expect["region_ns"]
            tol = max(1.0, want_ns * 1e-3)
            durs = [e - b for k, v in slices.items() if track.get(k) == "predicted"
                    for b, e, ev in v if ev["name"] == expect["region"]]
            if not durs:
                bad(f"no predicted {expect['region']!r} slices")
            for d in durs:
                if abs(d - want_ns) > tol:
                    bad(f"predicted {expect['region']!r} lasts {d} ns, the closed form {want_ns:.1f} ns")
                    break
        names = {ev["name"] for v in slices.values() for _, _, ev in v}
        for h in expect.get("names_hex", []):
            want_name = bytes.fromhex(h).decode("utf-8")
            if want_name not in names:
                bad(f"no slice named {want_name!r}")
    return report(argv[1], len(doc["traceEvents"]), sum(map(len, slices.values())), len(flows), len(runs))


def report(path, *counts):
    for p in problems[:50]:
        print(f"{path}: {p}")
    if len(problems) > 50:
        print(f"{path}: ... {len(problems) - 50} more")
    if problems:
        return 1
    print(f"{path}: ok ({counts[0]} events, {counts[1]} slices, {counts[2]} arrows, {counts[3]} critical path runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
