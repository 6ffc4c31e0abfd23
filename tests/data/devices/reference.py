#!/usr/bin/python3
"""reference.py: the report's device stratum re-derived from a results file with h5py,
numpy and SciPy alone (never from the C code), for tests/cli/devices.sh.  Prints JSON:

  {"devices": [{"device", "blocks", "aa": {copy: floor}, "drift": {mode: [n, rho, p]},
                "level": {cell: [n, median_ns, log_spread, log_se]}}],
   "split_blocks": n, "differ": [[cell, device_a, device_b, log_difference, two_se]]}

Definitions (docs/report-format.md, "devices"):
  a block's device: the one device its units (other than skipped ones) name; blocks whose
    units name two are split and belong to no device;
  unit median: the median of a cold ok unit's samples of a cell; its run position the
    unit's row in /units;
  A/A noise floor on device d: over the cells with at least MIN_PAIRS pairs on d (a floor
    from one or two between-process ratios is noise itself), the 95th percentile (numpy's
    default, Hyndman-Fan type 7) of |log median_b(copy_b / original_b)| over d's blocks, as exp - 1;
  drift of mode m on d: Spearman's rho (scipy.stats.spearmanr) of run position against the
    unit's level, exp(mean over cells of log(unit median / the mode's median over all
    blocks)), with the exact permutation p for n <= 10 (scipy.stats.permutation_test over
    every pairing), spearmanr's beyond; flagged when p < 0.05;
  the baseline's level on d: the median of log unit medians over d's blocks, the spread
    1.4826 x their median absolute deviation, se = spread / sqrt(n); two devices differ
    beyond the noise floor when |level_a - level_b| > 2 sqrt(se_a^2 + se_b^2) (n >= 2 each).

    /usr/bin/python3 reference.py devices.h5 > reference.json"""
import json
import sys

import h5py
import numpy as np
from scipy import stats


MIN_PAIRS = 3  # as the report's cell floors (docs/report-format.md, "A/A control")


def exact_spearman_p(x, y):
    """Two-sided permutation p of Spearman's rho over all n! orders of x against y."""
    yr = stats.rankdata(y)
    res = stats.permutation_test((np.array(x, dtype=float),),
                                 lambda a: np.corrcoef(stats.rankdata(a), yr)[0, 1],
                                 permutation_type="pairings", n_resamples=np.inf,
                                 alternative="two-sided")
    return float(res.pvalue)


def s(v):
    return v.decode() if isinstance(v, bytes) else v


def main(path):
    with h5py.File(path, "r") as f:
        units = f["units"][:]
        samples = f["samples"][:]
        cells = [s(c) for c in f["cells"]["name"]]
        exp = None
        for k in f["run"]["files"]:
            d = f["run"]["files"][k]
            if s(d.attrs["role"]) == "experiment":
                exp = s(d[()])
    modes, aa_of, baseline = [], {}, None
    for u in units:
        m = s(u["mode"])
        if m not in modes:
            modes.append(m)
    if exp:
        import tomllib
        e = tomllib.loads(exp)
        modes = [m["name"] for m in e["modes"]] + [m for m in modes if m not in
                                                   [x["name"] for x in e["modes"]]]
        aa_of = {m["name"]: m["aa_of"] for m in e["modes"] if "aa_of" in m}
        base = [m["name"] for m in e["modes"] if m.get("baseline")]
        baseline = base[0] if base else e["modes"][0]["name"]
    blocks = sorted({int(u["block"]) for u in units})
    devices, bdev = [], {}
    for u in units:
        d = s(u["device"])
        if not d or s(u["status"]) == "skipped":
            continue
        if d not in devices:
            devices.append(d)
        b = int(u["block"])
        bdev[b] = d if bdev.get(b, d) == d else None
    med, order = {}, {}
    for i, u in enumerate(units):
        if u["warm"] or s(u["status"]) != "ok":
            continue
        m, b = s(u["mode"]), int(u["block"])
        rows = samples[u["sample_first"]:u["sample_first"] + u["sample_count"]]
        order[m, b] = i
        for c in range(len(cells)):
            v = rows["ns"][rows["cell"] == c]
            if len(v):
                med[m, c, b] = float(np.median(v))
    overall = {(m, c): float(np.median([med[m, c, b] for b in blocks if (m, c, b) in med]))
               for m in modes for c in range(len(cells))
               if any((m, c, b) in med for b in blocks)}
    out = {"devices": [], "split_blocks": sum(1 for b in blocks if b in bdev and bdev[b] is None),
           "differ": []}
    levels = {}
    for d in devices:
        db = [b for b in blocks if bdev.get(b) == d]
        dv = {"device": d, "blocks": len(db), "aa": {}, "drift": {}, "level": {}}
        for m, of in aa_of.items():
            per_cell = []
            for c in range(len(cells)):
                r = [med[m, c, b] / med[of, c, b] for b in db if (m, c, b) in med and (of, c, b) in med]
                if len(r) >= MIN_PAIRS:
                    per_cell.append(abs(np.log(np.median(r))))
            dv["aa"][m] = float(np.expm1(np.quantile(per_cell, 0.95))) if per_cell else None
        for m in modes:
            x, y = [], []
            for b in db:
                lv = [np.log(med[m, c, b] / overall[m, c]) for c in range(len(cells)) if (m, c, b) in med]
                if (m, b) in order and lv:
                    x.append(order[m, b])
                    y.append(float(np.exp(np.mean(lv))))
            rho, p = (stats.spearmanr(x, y) if len(x) >= 3 else (float("nan"), float("nan")))
            if 3 <= len(x) <= 10 and not np.isnan(rho):
                p = exact_spearman_p(x, y)
            dv["drift"][m] = [len(x), None if np.isnan(rho) else float(rho),
                              None if np.isnan(p) else float(p)]
        for c in range(len(cells)):
            v = np.log([med[baseline, c, b] for b in db if (baseline, c, b) in med])
            if not len(v):
                continue
            lev = float(np.median(v))
            spread = 1.4826 * float(np.median(np.abs(v - lev)))
            se = spread / np.sqrt(len(v)) if len(v) > 1 else float("nan")
            levels[d, c] = (len(v), lev, se)
            dv["level"][cells[c]] = [len(v), float(np.exp(lev)), spread, None if np.isnan(se) else se]
        out["devices"].append(dv)
    for c in range(len(cells)):
        for i, a in enumerate(devices):
            for b in devices[i + 1:]:
                if (a, c) not in levels or (b, c) not in levels:
                    continue
                (na, la, sa), (nb, lb, sb) = levels[a, c], levels[b, c]
                if na < 2 or nb < 2:
                    continue
                diff, two_se = abs(la - lb), 2 * np.sqrt(sa * sa + sb * sb)
                if diff > two_se:
                    out["differ"].append([cells[c], a, b, diff, two_se])
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main(sys.argv[1])
