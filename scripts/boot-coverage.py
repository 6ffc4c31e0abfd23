#!/usr/bin/python3
"""boot-coverage.py: how often the report's 95% percentile bootstrap interval of a median
(blocks resampled, as stats_boot_median_ci does) covers the true median at small numbers of
blocks, against the widest distribution-free interval [min, max]; the figures quoted in
docs/report-format.md ("Verdicts") for the rule that no verdict rests on a CI below 6
blocks at 95% (stats_ci_short).  NumPy only, never the harness's C code.

    /usr/bin/python3 scripts/boot-coverage.py [--sims N] [--resamples B] [--seed S] [n ...]

Per n (default 2 3 4 5 6 8 10 12 20): N runs (default 2000) of n standard normal log ratios
(true median 0), each with B resamples (default 2000); prints n, the bootstrap interval's
coverage and that of [min, max] (exactly 1 - 2^(1-n) in expectation)."""
import argparse

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sims", type=int, default=2000)
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("n", type=int, nargs="*", default=[2, 3, 4, 5, 6, 8, 10, 12, 20])
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    print("n  bootstrap  [min, max]  1 - 2^(1-n)")
    for n in a.n:
        boot = span = 0
        for _ in range(a.sims):
            x = rng.normal(0, 1, n)
            meds = np.median(x[rng.integers(0, n, (a.resamples, n))], axis=1)
            lo, hi = np.quantile(meds, [0.025, 0.975])
            boot += lo <= 0 <= hi
            span += x.min() <= 0 <= x.max()
        print("%-2d %9.4f  %10.4f  %11.4f" % (n, boot / a.sims, span / a.sims, 1 - 2.0 ** (1 - n)))


if __name__ == "__main__":
    main()
