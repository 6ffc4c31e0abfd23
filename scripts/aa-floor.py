#!/usr/bin/python3
"""aa-floor.py: the A/A noise floor of results files with a block-bootstrap CI, for
docs/BENCHMARKS.md (h5py and numpy only, never the harness's C code).

    /usr/bin/python3 scripts/aa-floor.py [--resamples N] [--seed S] [--conf C] [--json]
        RESULTS.h5...

Per file and A/A pair (a mode with aa_of in the recorded experiment): the noise floor as
harness report defines it (docs/report-format.md): over the cells, the 95th percentile
(type 7) of |log median over blocks of copy / original unit medians|, as exp(.) - 1; and a
95% percentile bootstrap CI that resamples whole blocks (the pairs), N times (default 2000;
0: no CI) from numpy's default_rng(S) (default 20261123).  Then the same floor over the op
cells only and over the e2e cells only (the kind in /cells: "op", "e2e"; an "e2e-part" cell
is neither), as the report's A/A columns "op cells" and "e2e cells" (JSON noise_floor_op,
noise_floor_e2e).  With two to four e2e cells their p95 is close to the largest of them.
Last, the floor over the e2e cells that are not host-bound (the column "e2e cells not
host-bound", JSON noise_floor_e2e_not_host_bound): an e2e cell whose shape lacks
"launch=graph" is host-bound when its workload has an e2e cell whose shape has it (the first
such in /cells) and the median over blocks of the baseline's unit median of the one over the
other's is 1.25 or more (the baseline: the recorded experiment's mode with baseline = true,
else its first mode).

As the report, a cell counts only when its pairs (the blocks where both modes have a
positive unit median) could carry a CI at level C (default 0.95, the report's): the exact
sign / order-statistic CI of a median of n pairs reaches at most 1 - 2 / 2^n
(stats_ci_short in stats/decide.c), so at 0.95 a cell needs 6 pairs; a floor with no such
cell is NaN (the report's "-", null).  --conf 0 counts every cell with a pair, as the
report did until 2026-11-26 and as docs/BENCHMARKS.md's floors of 2026-11-25 were computed.

Also the wall time of the run (first unit start to last unit end) and the units' devices.
--json prints, instead, one JSON object a line per A/A pair (the floors at full precision,
null for NaN), for the tests (tests/cli/report.sh)."""
import argparse
import datetime
import json
import math
import sys
import tomllib

import h5py
import numpy as np


def s(v):
    return v.decode() if isinstance(v, bytes) else v


def exec_ns(rows):
    """One execution's time per sample, as the harness reads it (kernels/sample.h's
    sample_exec_ns): a sample of L > 1 launches (graph-timed op cells fill a sample with
    several) is its ns / L, rounded half away from zero; a file without launches (layout 1)
    has one a sample."""
    ns = rows["ns"].astype(np.float64)
    if "launches" not in rows.dtype.names:
        return ns
    n = rows["launches"].astype(np.float64)
    return np.where(n > 1, np.floor(ns / np.maximum(n, 1) + 0.5), ns)


def load(path):
    with h5py.File(path, "r") as f:
        units = f["units"][:]
        samples = f["samples"][:]
        kinds = [s(k) for k in f["cells"]["kind"]]
        shapes = [s(k) for k in f["cells"]["shape"]]
        workloads = [s(k) for k in f["cells"]["workload"]]
        exp = None
        for k in f["run"]["files"]:
            d = f["run"]["files"][k]
            if s(d.attrs["role"]) == "experiment":
                exp = tomllib.loads(s(d[()]))
    med = {}
    for u in units:
        if u["warm"] or s(u["status"]) != "ok":
            continue
        rows = samples[u["sample_first"]:u["sample_first"] + u["sample_count"]]
        ns = exec_ns(rows)
        for c in range(len(kinds)):
            v = ns[rows["cell"] == c]
            if len(v):
                med[s(u["mode"]), c, int(u["block"])] = float(np.median(v))
    t = [datetime.datetime.fromisoformat(s(x).rstrip("Z")) for x in units["start_utc"]]
    e = [datetime.datetime.fromisoformat(s(x).rstrip("Z")) for x in units["end_utc"]]
    wall = (max(e) - min(t)).total_seconds()
    devices = sorted({s(d) for d in units["device"]})
    cells = [{"kind": k, "shape": sh, "workload": w} for k, sh, w in zip(kinds, shapes, workloads)]
    return exp, med, cells, sorted({int(b) for b in units["block"]}), wall, devices


def host_bound(med, base, cells, c, blocks):
    """Whether e2e cell c is launched op by op and takes 1.25x or more its workload's graph
    forward under the baseline (median over blocks of the two unit medians' ratio)."""
    if cells[c]["kind"] != "e2e" or "launch=graph" in cells[c]["shape"]:
        return False
    for g, x in enumerate(cells):
        if (g == c or x["kind"] != "e2e" or x["workload"] != cells[c]["workload"]
                or "launch=graph" not in x["shape"]):
            continue
        r = [med[base, c, b] / med[base, g, b] for b in blocks
             if (base, c, b) in med and (base, g, b) in med and med[base, c, b] > 0
             and med[base, g, b] > 0]
        if r:
            return float(np.median(r)) >= 1.25
    return False


def ci_short(n, conf):
    """stats_ci_short(n, n, conf, paired): no exact CI of the median of n pairs reaches conf."""
    return not (1 - 2 / 2.0 ** n >= conf)


def floor(med, m, of, cells, blocks, conf):
    """The noise floor over the cells listed (indices into /cells)."""
    d = []
    for c in cells:
        r = [med[m, c, b] / med[of, c, b] for b in blocks
             if (m, c, b) in med and (of, c, b) in med and med[m, c, b] > 0 and med[of, c, b] > 0]
        if r and not ci_short(len(r), conf):
            d.append(abs(np.log(np.median(r))))
    return float(np.expm1(np.quantile(d, 0.95))) if d else float("nan")


def pct(x):
    return "-" if math.isnan(x) else "%.2f%%" % (100 * x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=20261123)
    ap.add_argument("--conf", type=float, default=0.95)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("files", nargs="+")
    o = ap.parse_args()
    for path in o.files:
        exp, med, cells, blocks, wall, devices = load(path)
        every = list(range(len(cells)))
        ops = [c for c in every if cells[c]["kind"] == "op"]
        e2e = [c for c in every if cells[c]["kind"] == "e2e"]
        base = next((m["name"] for m in exp["modes"] if m.get("baseline")), exp["modes"][0]["name"])
        e2e_nhb = [c for c in e2e if not host_bound(med, base, cells, c, blocks)]
        for mode in exp["modes"]:
            if "aa_of" not in mode:
                continue
            m, of = mode["name"], mode["aa_of"]
            est = floor(med, m, of, every, blocks, o.conf)
            est_op = floor(med, m, of, ops, blocks, o.conf)
            est_e2e = floor(med, m, of, e2e, blocks, o.conf)
            est_nhb = floor(med, m, of, e2e_nhb, blocks, o.conf)
            lo = hi = float("nan")
            if o.resamples > 0:
                rng = np.random.default_rng(o.seed)
                boot = [floor(med, m, of, every, list(rng.choice(blocks, len(blocks))), o.conf)
                        for _ in range(o.resamples)]
                lo, hi = (float(x) for x in np.quantile(boot, [0.025, 0.975]))
            if o.json:
                def j(x):
                    return None if math.isnan(x) else x
                print(json.dumps({"file": path, "mode": m, "copy_of": of, "noise_floor": j(est),
                                  "ci": [j(lo), j(hi)], "noise_floor_op": j(est_op),
                                  "noise_floor_e2e": j(est_e2e),
                                  "noise_floor_e2e_not_host_bound": j(est_nhb),
                                  "blocks": len(blocks), "cells": len(every),
                                  "op_cells": len(ops), "e2e_cells": len(e2e),
                                  "e2e_cells_not_host_bound": len(e2e_nhb)}))
                continue
            print("%s: %s vs %s: noise floor %s [%s, %s] (%d blocks, %d cells, %d resamples); "
                  "op cells %s (%d cells), e2e cells %s (%d cells), not host-bound %s (%d "
                  "cells); units' span %.1f s; devices %s"
                  % (path, m, of, pct(est), pct(lo), pct(hi), len(blocks), len(every),
                     o.resamples, pct(est_op), len(ops), pct(est_e2e), len(e2e), pct(est_nhb),
                     len(e2e_nhb), wall,
                     ",".join(d or "(none)" for d in devices)))


if __name__ == "__main__":
    sys.exit(main())
