#!/usr/bin/python3
"""tests/bench/seq-levels.py: the false-positive rates of the deciding t tests at one look and
of the sequential design's looks, by Monte Carlo on planted null data (a benchmark, `make
bench-seq-levels`, not part of `make check`; its numbers are in docs/BENCHMARKS.md).

A design looks after n_1 < ... < n_K blocks and rejects "no difference" at the first look
whose two-sided p is below that look's level.  Levels: the exact group-sequential boundaries
of stats_seq_level (here from make-reference.py's seq_levels_grid, which tests/unit/test-stats
holds equal to the C code), or the union bound's increments alpha_k the harness used until
2026-11-29.  Tests: Student's paired t and the 20%-trimmed t (Tukey-McLaughlin, h - 1 df;
Student's below 5 blocks), each look with its own degrees of freedom, as the harness does.
First each test at one look (alpha 0.05), then the designs, then Student's t at levels
calibrated on simulated paths of the t statistics themselves (the harness's levels since
2026-11-29, stats_seq_levels_t; here by the same definition on numpy's paths, the first
look's level its increment, checked on fresh paths).
Data: per block the log ratio of two processes, d = e_mode - e_base, with e ~ normal(0, 1%)
("normal"), or each process slow by 30% with probability 1/5 ("mixture", the harness's
planted mixture of tests/bench/sim-verdicts.py).  Prints markdown; R replications each.

    /usr/bin/python3 tests/bench/seq-levels.py [--reps 200000] [--seed 20261129]"""
import argparse
import importlib.util
import math
import os

import numpy as np
from scipy import stats

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "mr", os.path.join(HERE, "..", "data", "stats", "make-reference.py"))
mr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mr)


def trimmed_p(d, trim=0.2):
    """Two-sided p of the trimmed t test of each row of d against 0."""
    n = d.shape[1]
    g = int(math.floor(trim * n)) if n >= 5 else 0
    h = n - 2 * g
    s = np.sort(d, axis=1)
    tm = s[:, g:n - g].mean(axis=1)
    w = s.copy()
    if g:
        w[:, :g] = s[:, [g]]
        w[:, n - g:] = s[:, [n - g - 1]]
    sw2 = w.var(axis=1, ddof=1)
    se = np.sqrt((n - 1) * sw2 / (h * (h - 1)))
    t = tm / se
    return 2 * stats.t.sf(np.abs(t), h - 1)


def student_p(d):
    n = d.shape[1]
    t = d.mean(axis=1) / (d.std(axis=1, ddof=1) / math.sqrt(n))
    return 2 * stats.t.sf(np.abs(t), n - 1)


def data(model, reps, n, rng):
    e = rng.normal(0, 0.01, size=(2, reps, n))
    if model == "mixture":
        e += np.log(1.3) * (rng.random(size=(2, reps, n)) < 0.2)
    return e[0] - e[1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=200000)
    ap.add_argument("--seed", type=int, default=20261129)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    print("| blocks (one look) | data | Student's t: false positives | trimmed t: false "
          "positives |")
    print("|---|---|---|---|")
    for n in (4, 5, 6, 7, 8, 10, 15, 20, 30):
        for model in ("normal", "mixture"):
            d = data(model, a.reps, n, rng)
            cells = []
            for fn in (student_p, trimmed_p):
                h = fn(d) < 0.05
                lo, hi = stats.binomtest(int(h.sum()), a.reps).proportion_ci(method="exact")
                cells.append("%.2f%% [%.2f, %.2f]" % (100 * h.mean(), 100 * lo, 100 * hi))
            print("| %d | %s | %s | %s |" % (n, model, cells[0], cells[1]))
    print()
    designs = [(list(range(5, 8)), 7), (list(range(5, 9)), 8), (list(range(5, 13)), 12),
               (list(range(3, 9)), 8), (list(range(3, 21)), 20)]
    print("| looks | data | test | union bound: false positives | exact boundaries: false "
          "positives | exact: last look's level |")
    print("|---|---|---|---|---|---|")
    for looks, n_max in designs:
        exact = mr.seq_levels_grid(0.05, looks, n_max, False)
        union, prev = [], 0
        for n in looks:
            union.append(mr.spend(0.05, n / n_max, False) - mr.spend(0.05, prev / n_max, False))
            prev = n
        for model in ("normal", "mixture"):
            d = data(model, a.reps, n_max, rng)
            for name, fn in (("Student's t", student_p), ("trimmed t", trimmed_p)):
                hit_u = np.zeros(a.reps, dtype=bool)
                hit_e = np.zeros(a.reps, dtype=bool)
                for k, n in enumerate(looks):
                    p = fn(d[:, :n])
                    hit_u |= p < union[k]
                    hit_e |= p < exact[k]
                cell = lambda h: "%.2f%% [%.2f, %.2f]" % (
                    100 * h.mean(), *(100 * x for x in stats.binomtest(
                        int(h.sum()), a.reps).proportion_ci(method="exact")))
                print("| %d..%d of %d | %s | %s | %s | %s | %.4f |" % (
                    looks[0], looks[-1], n_max, model, name, cell(hit_u), cell(hit_e),
                    exact[-1]))
    # levels calibrated for Student's t statistics themselves (stats_seq_levels_t).  Under
    # normality the t sequence's joint law has no unknown parameter, so paths simulated with
    # one seed fix each look's level: the largest lambda_k with at most alpha_k of the paths
    # rejecting first at look k.  Checked on fresh paths.
    print()
    print("| looks | data | Student's t at calibrated levels: false positives | calibrated "
          "levels | exact boundaries' levels |")
    print("|---|---|---|---|---|")
    cal = np.random.default_rng(a.seed + 1)
    for looks, n_max in designs:
        lam = calibrate(student_p, looks, n_max, a.reps, cal)
        exact = mr.seq_levels_grid(0.05, looks, n_max, False)
        for model in ("normal", "mixture"):
            d = data(model, a.reps, n_max, rng)
            hit = np.zeros(a.reps, dtype=bool)
            for k, n in enumerate(looks):
                hit |= student_p(d[:, :n]) < lam[k]
            lo, hi = stats.binomtest(int(hit.sum()), a.reps).proportion_ci(method="exact")
            print("| %d..%d of %d | %s | %.2f%% [%.2f, %.2f] | %s | %s |" % (
                looks[0], looks[-1], n_max, model, 100 * hit.mean(), 100 * lo, 100 * hi,
                ", ".join("%.4f" % x for x in lam[:3]) + (", ..." if len(lam) > 3 else ""),
                ", ".join("%.4f" % x for x in exact[:3]) + (", ..." if len(exact) > 3 else "")))


def calibrate(fn, looks, n_max, reps, rng):
    """Each look's level: among the normal paths no earlier look rejected, the p-value below
    which alpha_k of all paths fall (Pocock spending, alpha 0.05); the first look's is
    alpha_1 itself, as in stats_seq_levels_t."""
    d = data("normal", reps, n_max, rng)
    alive = np.ones(reps, dtype=bool)
    lam, prev = [], 0
    for n in looks:
        inc = mr.spend(0.05, n / n_max, False) - mr.spend(0.05, prev / n_max, False)
        prev = n
        p = fn(d[:, :n])
        q = np.sort(p[alive])
        k = int(math.floor(inc * reps))
        lk = float(q[k - 1]) if k >= 1 else 0.0
        if not lam:
            lk = inc
        lam.append(lk)
        alive &= ~(p <= lk)
    return lam


if __name__ == "__main__":
    main()
