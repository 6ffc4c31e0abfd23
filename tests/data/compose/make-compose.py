#!/usr/bin/python3
"""make-compose.py: writes compose.csv, raw timings with planted composition effects, and
reference.json, every composition statistic re-derived from compose.csv with numpy and
SciPy (never from the C code), for tests/cli/compose.sh.  Deterministic (numpy
default_rng(20261121)); regenerate with:  cd tests/data/compose && /usr/bin/python3 make-compose.py

Three workloads, each with three op cells (count x time: conv2d 8 x ~1 ms, bias_relu 8 x
~20 us, maxpool 1 x ~50 us) and an e2e cell; modes base (the baseline), alpha, beta;
8 blocks, one sample per unit and cell (the unit median is the value).  A shared block
effect scales every cell of a block (it cancels in paired ratios); each op unit gets 0.3%
noise of its own.  The baseline's e2e time is its weighted op time / coverage; a mode's e2e
time is planted as (baseline e2e + sum count x (mode op - baseline op)) x interaction:
  compose   coverage 0.90; alpha: big wins on the small ops (unweighted geomean ~0.5),
            beta: 3% on the conv, losses on the small ops; interaction 1 for both.
            Unweighted, alpha ranks first; weighted by count x time beta does -> the
            rankings disagree, the explanation is weighting.
  interact  coverage 0.90; as compose, but alpha's e2e is 10% slower than its ops predict
            (interaction 1.10) -> does not compose, a real interaction.
  lowcov    coverage 0.30; alpha: 20% faster on every op, its e2e 8% slower than predicted;
            beta composes -> the explanation is low coverage.
Values are whole nanoseconds (so the import is exact).
"""
import csv
import json

import numpy as np
import scipy
from scipy import stats

SEED = 20261121
NBLOCKS = 8
OPS = [("conv2d:c=64", 8, 1.0e6), ("bias_relu:n=64", 8, 2.0e4), ("maxpool:k=3", 1, 5.0e4)]
EFFECT = {  # per mode: multiplier of each op cell
    "compose": {"alpha": [1.0, 0.40, 0.50], "beta": [0.97, 1.30, 1.20]},
    "interact": {"alpha": [1.0, 0.40, 0.50], "beta": [0.97, 1.30, 1.20]},
    "lowcov": {"alpha": [0.80, 0.80, 0.80], "beta": [0.99, 1.10, 1.05]},
}
COVERAGE = {"compose": 0.90, "interact": 0.90, "lowcov": 0.30}
INTERACTION = {"compose": {"alpha": 1.0, "beta": 1.0}, "interact": {"alpha": 1.10, "beta": 1.0},
               "lowcov": {"alpha": 1.08, "beta": 1.0}}
MODES = ["base", "alpha", "beta"]


def write_csv(path):
    rng = np.random.default_rng(SEED)
    rows = []
    for w in EFFECT:
        for b in range(NBLOCKS):
            drift = 1.0 + 0.02 * np.sin(b / 1.7)
            op = {}
            for m in MODES:
                for k, (name, count, t) in enumerate(OPS):
                    e = 1.0 if m == "base" else EFFECT[w][m][k]
                    op[(m, k)] = float(round(t * e * drift * np.exp(rng.normal(0, 0.003))))
            sb = sum(OPS[k][1] * op[("base", k)] for k in range(len(OPS)))
            eb = float(round(sb / COVERAGE[w] * np.exp(rng.normal(0, 0.003))))
            for m in MODES:
                for k, (name, count, t) in enumerate(OPS):
                    rows.append((w + "/" + name, m, b, op[(m, k)], count))
                if m == "base":
                    e2e = eb
                else:
                    sm = sum(OPS[k][1] * op[(m, k)] for k in range(len(OPS)))
                    e2e = float(round((eb + sm - sb) * INTERACTION[w][m]))
                rows.append((w + "/e2e", m, b, e2e, ""))
    with open(path, "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["cell", "mode", "block", "value", "unit", "count"])
        for cell, m, b, v, count in rows:
            out.writerow([cell, m, b, "%.0f" % v, "ns", count])


def derive(path):
    """Every composition statistic from the CSV alone (docs/report-format.md)."""
    med, count = {}, {}
    with open(path) as f:
        for r in csv.DictReader(f):
            med.setdefault((r["mode"], r["cell"], int(r["block"])), []).append(float(r["value"]))
            if r["count"]:
                count[r["cell"]] = int(r["count"])
    med = {k: float(np.median(v)) for k, v in med.items()}
    ref = {"numpy": np.__version__, "scipy": scipy.__version__, "composition": [], "tau": []}
    for w in EFFECT:
        ops = [w + "/" + name for name, _, _ in OPS]
        e2e = w + "/e2e"
        pts = {"base": (1.0, 1.0, 1.0)}
        for m in MODES[1:]:
            q = []
            for b in range(NBLOCKS):
                eb, em = med[("base", e2e, b)], med[(m, e2e, b)]
                sb = sum(count[c] * med[("base", c, b)] for c in ops)
                sm = sum(count[c] * med[(m, c, b)] for c in ops)
                pred = (eb + sm - sb) / eb
                q.append((pred, em / eb, em / eb / pred, sb / eb, sm / em))
            q = np.array(q)
            # the report's unweighted geomean: exp(mean over blocks and cells of the log
            # ratio), every block complete (stats_geomean_t)
            geo = float(np.exp(np.mean([np.log(med[(m, c, b)] / med[("base", c, b)])
                                        for b in range(NBLOCKS) for c in ops])))
            # the report's t test: geometric means over blocks (docs/report-format.md)
            est = np.exp(np.mean(np.log(q), axis=0))
            ref["composition"].append({
                "workload": w, "mode": m, "n": NBLOCKS, "geomean_unweighted": geo,
                "pred_ratio": est[0], "e2e_ratio": est[1], "interaction": est[2],
                "coverage": est[3], "coverage_mode": est[4],
                "planted_interaction": INTERACTION[w][m], "planted_coverage": COVERAGE[w]})
            pts[m] = (geo, est[1], est[0])
        geo = [pts[m][0] for m in MODES]
        meas = [pts[m][1] for m in MODES]
        pred = [pts[m][2] for m in MODES]
        t1 = stats.kendalltau(geo, meas)
        t2 = stats.kendalltau(pred, meas)
        ref["tau"].append({"workload": w, "kendall_tau": t1.statistic if hasattr(t1, "statistic") else t1[0],
                           "kendall_tau_pred": t2.statistic if hasattr(t2, "statistic") else t2[0]})
    return ref


def main():
    write_csv("compose.csv")
    ref = derive("compose.csv")
    want = {"compose": "weighting", "interact": "real interaction", "lowcov": "low coverage"}
    for t in ref["tau"]:
        t["explanation"] = want[t["workload"]]
    # the planted effects are what the data hold (a check of this script, not of the C code)
    for c in ref["composition"]:
        assert abs(c["interaction"] / c["planted_interaction"] - 1) < 1e-5, c
        assert abs(c["coverage"] / c["planted_coverage"] - 1) < 0.02, c
    assert ref["tau"][0]["kendall_tau"] < 0.5 and ref["tau"][0]["kendall_tau_pred"] == 1.0
    with open("reference.json", "w") as f:
        json.dump(ref, f, indent=1, sort_keys=True, default=float)
        f.write("\n")


if __name__ == "__main__":
    main()
