#!/usr/bin/python3
"""field-pairs.py: one config field's effect, read from a CUDA run's exhaustive trials: per op
cell, every pair of template trials in one unit whose configs are the same but for FIELD (one
at value A, one at B), the time ratio B / A; a Markdown table on stdout.

    scripts/field-pairs.py RESULTS.h5 FIELD A B [TUNED_MODE]

Per cell: the pairs (over the units of TUNED_MODE, default "exhaustive"), the median, lowest
and highest ratio, the ratio of the best config at B to the best at A (each the fastest
correct trial with that value, the median over units) and the vendor's time over each best
(its throughput share: issue 49's targets).  Below: the geometric means over the cells.
Each trial is the median of its `trial_samples` samples, so a ratio within a few percent of
1 is inside a trial's noise; the paired comparison of chosen configs is an experiment's.
Read with h5py only; the results format of docs/results-format.md.
"""
import math
import statistics
import sys

import h5py


def s(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def main(path, field, a, b, tuned="exhaustive"):
    f = h5py.File(path, "r")
    cells, units, trials = f["cells"][:], f["units"][:], f["trials"][:]
    vend = f["space_vendors"][:]
    ok_units = {int(u["id"]) for u in units
                if s(u["mode"]) == tuned and not u["warm"] and s(u["status"]) == "ok"}
    if not ok_units:
        sys.exit("field-pairs: no ok cold '%s' unit in %s" % (tuned, path))
    first_vendor = {(int(v["unit"]), int(v["cell"])): s(v["config"])
                    for v in vend if int(v["candidate"]) == 0}
    at = {}  # cell -> {(unit, config without FIELD): {value: ns}}
    best_at = {}  # (cell, value) -> {unit: fastest ns at that value}
    vendor = {}
    for t in trials:
        u, c = int(t["unit"]), int(t["cell"])
        if u not in ok_units or s(t["status"]) != "ok" or not t["median_ns"] > 0:
            continue
        cfg = s(t["config"])
        if cfg == first_vendor.get((u, c)):
            vendor[(u, c)] = float(t["median_ns"])
        if cfg.startswith("vendor"):
            continue
        kv = dict(x.split("=", 1) for x in cfg.split(","))
        v = kv.pop(field, None)
        if v not in (a, b):
            continue
        ns = float(t["median_ns"])
        rest = ",".join("%s=%s" % x for x in sorted(kv.items()))
        at.setdefault(c, {}).setdefault((u, rest), {})[v] = ns
        per = best_at.setdefault((c, v), {})
        per[u] = min(per.get(u, ns), ns)
    print("| cell | pairs | %s=%s / %s=%s: median (lowest, highest) | best at %s / best at %s | "
          "vendor / best at %s | vendor / best at %s |" % (field, b, field, a, b, a, a, b))
    print("|---|---|---|---|---|---|")
    logs, shares = [], {a: [], b: []}
    for i, c in enumerate(cells):
        if s(c["kind"]) != "op":
            continue
        rs = [d[b] / d[a] for d in at.get(i, {}).values() if a in d and b in d]
        if not rs:
            continue
        best = {v: statistics.median(best_at[(i, v)].values()) for v in (a, b)}
        vs = [vendor[(u, i)] for u in ok_units if (u, i) in vendor]
        vt = statistics.median(vs) if vs else float("nan")
        for v in (a, b):
            shares[v].append(vt / best[v])
        logs.append(math.log(best[b] / best[a]))
        print("| `%s` | %d | %.3f (%.3f, %.3f) | %.3f | %.1f%% | %.1f%% |" % (
            s(c["name"]), len(rs), statistics.median(rs), min(rs), max(rs), best[b] / best[a],
            100 * vt / best[a], 100 * vt / best[b]))
    if not logs:
        sys.exit("field-pairs: no cell has a pair of configs at %s=%s and %s=%s" % (field, a, field, b))
    g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
    print()
    print("%d cells; geometric mean of best at %s=%s / best at %s=%s: %.3f; vendor / best "
          "(throughput share): %.1f%% at %s, %.1f%% at %s" % (
              len(logs), field, b, field, a, math.exp(sum(logs) / len(logs)),
              100 * g(shares[a]), a, 100 * g(shares[b]), b))


if __name__ == "__main__":
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    main(*sys.argv[1:])
