#!/usr/bin/python3
"""aa-floor.py: the A/A noise floor of results files with a block-bootstrap CI, for
docs/BENCHMARKS.md (h5py and numpy only, never the harness's C code).

    /usr/bin/python3 scripts/aa-floor.py [--resamples N] [--seed S] RESULTS.h5...

Per file and A/A pair (a mode with aa_of in the recorded experiment): the noise floor as
harness report defines it (docs/report-format.md): over the cells, the 95th percentile
(type 7) of |log median over blocks of copy / original unit medians|, as exp(.) - 1; and a
95% percentile bootstrap CI that resamples whole blocks (the pairs), N times (default 2000)
from numpy's default_rng(S) (default 20261123).  Also the wall time of the run (first unit
start to last unit end) and the units' devices."""
import argparse
import datetime
import sys
import tomllib

import h5py
import numpy as np


def s(v):
    return v.decode() if isinstance(v, bytes) else v


def load(path):
    with h5py.File(path, "r") as f:
        units = f["units"][:]
        samples = f["samples"][:]
        ncells = len(f["cells"])
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
        for c in range(ncells):
            v = rows["ns"][rows["cell"] == c]
            if len(v):
                med[s(u["mode"]), c, int(u["block"])] = float(np.median(v))
    t = [datetime.datetime.fromisoformat(s(x).rstrip("Z")) for x in units["start_utc"]]
    e = [datetime.datetime.fromisoformat(s(x).rstrip("Z")) for x in units["end_utc"]]
    wall = (max(e) - min(t)).total_seconds()
    devices = sorted({s(d) for d in units["device"]})
    return exp, med, ncells, sorted({int(b) for b in units["block"]}), wall, devices


def floor(med, m, of, ncells, blocks):
    d = []
    for c in range(ncells):
        r = [med[m, c, b] / med[of, c, b] for b in blocks if (m, c, b) in med and (of, c, b) in med]
        if r:
            d.append(abs(np.log(np.median(r))))
    return float(np.expm1(np.quantile(d, 0.95))) if d else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=20261123)
    ap.add_argument("files", nargs="+")
    o = ap.parse_args()
    for path in o.files:
        exp, med, ncells, blocks, wall, devices = load(path)
        for mode in exp["modes"]:
            if "aa_of" not in mode:
                continue
            m, of = mode["name"], mode["aa_of"]
            est = floor(med, m, of, ncells, blocks)
            rng = np.random.default_rng(o.seed)
            boot = [floor(med, m, of, ncells, list(rng.choice(blocks, len(blocks))))
                    for _ in range(o.resamples)]
            lo, hi = np.quantile(boot, [0.025, 0.975])
            print("%s: %s vs %s: noise floor %.2f%% [%.2f%%, %.2f%%] (%d blocks, %d cells, "
                  "%d resamples); units' span %.1f s; devices %s"
                  % (path, m, of, 100 * est, 100 * lo, 100 * hi, len(blocks), ncells,
                     o.resamples, wall, ",".join(d or "(none)" for d in devices)))


if __name__ == "__main__":
    sys.exit(main())
