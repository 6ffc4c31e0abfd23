#!/usr/bin/python3
"""make-reference.py: reference values for stats/rank.c, stats/ttest.c, stats/multi.c,
stats/corr.c and stats_median.

Writes tests/data/stats/*.csv next to this script (format in README.md).  Run with
Debian 12's /usr/bin/python3 (SciPy 1.10, NumPy 1.24, and python3-statsmodels 0.13):

    /usr/bin/python3 tests/data/stats/make-reference.py

The output is deterministic: every random input of the rank, correlation, median and Holm
files comes from one numpy.random.default_rng(20261121) drawn in a fixed order, those of
ttest, welch, bh and by from a second one, default_rng(20261128) (so that adding them left
the older files' bytes alone), and the numbers are written with repr() (the shortest string
that reads back as the same double).

Sources of the expected values, chosen to be independent of the C code:
  wilcoxon     scipy.stats.wilcoxon(method="exact") without ties or zeros and with <= 50
               differences; method="approx", correction=True beyond 50.  SciPy 1.10 has no
               exact method with ties or zeros (it switches to the normal approximation when
               there are zeros and silently uses the no-ties distribution when there are
               ties), so those cases are enumerated here in plain Python: every one of the
               2^m sign patterns of the non-zero differences, split into two halves whose
               pattern lists are built in full and then joined (brute_signed_rank).
  sign         scipy.stats.binomtest(k, m, 0.5), checked against min(1, 2 min tail) with
               exact fractions (equal for p = 1/2, the symmetric case).
  mannwhitney  scipy.stats.mannwhitneyu(x, y, alternative="two-sided", method="exact") when
               there are no ties and both sizes are <= 50, else method="asymptotic"
               (use_continuity=True).  Small exact cases are also checked by enumerating
               all C(N, nx) placements.
  hl_paired, hl_2   computed directly: the sorted Walsh averages / pairwise differences
               and statistics.median.
  median_ci    the pair (x_(k), x_(n+1-k)) with the largest k whose coverage
               1 - 2 scipy.stats.binom.cdf(k - 1, n, 0.5) is >= conf.
  holm         computed directly, checked against a case worked by hand and against
               statsmodels.stats.multitest.multipletests(method="holm") (equal to the last
               bit; a NaN, which counts in n, is a p of 1 there).
  bh, by       statsmodels.stats.multitest.multipletests(method="fdr_bh" / "fdr_by"),
               checked against a case worked by hand and the step-up computed directly
               (no NaN inputs: statsmodels has no NaN rule; test-stats checks it).
  ttest        scipy.stats.ttest_1samp(d, 0) and its confidence_interval(conf); sd and se
               from numpy.std(ddof=1).  No constant inputs (SciPy gives NaN there).
  welch        scipy.stats.ttest_ind(x, y, equal_var=False) for t and p; the
               Welch-Satterthwaite df computed here (SciPy 1.10 does not return it; its p is
               asserted equal to 2 t.sf(|t|, df)); the CI est -/+ t.ppf((1 + conf)/2, df) se.
               SciPy 1.10's t.ppf is good to about 2e-9 relative, so CI bounds (and p) are
               compared to 1e-6.
  spearman     rho: scipy.stats.spearmanr.  p: for n <= 10 the exact permutation p,
               scipy.stats.permutation_test(permutation_type="pairings",
               n_resamples=inf) of rho computed by rankdata and corrcoef (every pairing;
               two-sided: twice the smaller tail, as R's cor.test); beyond 10 spearmanr's
               t approximation.
  kendall      scipy.stats.kendalltau with the default method="auto", checked against the
               explicit method it chose.
  median       numpy.median.
  seqbounds    the exact group-sequential boundaries of stats_seq_level: each look's c_k
               by scipy.optimize.brentq over a recursion for the sub-density of Z_k on a
               3001-point grid (scipy.integrate.simpson, on the z scale where the C code
               works on the score scale); asserted equal to one-dimensional
               scipy.integrate.quad at the second look (1e-8) and to rectangle
               probabilities of scipy.stats.multivariate_normal.cdf (Genz, a randomized
               lattice rule good to about 1e-4 here) at every look; 10 digits.
"""

import itertools
import math
import os
import statistics
import warnings
from collections import Counter
from fractions import Fraction

import numpy as np
import scipy
import scipy.stats as st
from scipy import integrate, optimize
from scipy.stats import mstats
import statsmodels
from statsmodels.stats.multitest import multipletests

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261121)


# ---- output -------------------------------------------------------------------------

def num(v):
    """A float as the shortest string that reads back exactly (nan, inf as strtod reads them)."""
    v = float(v)
    if math.isnan(v):
        return "nan"
    return repr(v)


def lst(values):
    return ";".join(num(v) for v in values)


def write(name, header, rows, more_versions=""):
    """more_versions: "; statsmodels X" for a file whose values come from it too."""
    path = os.path.join(HERE, name + ".csv")
    with open(path, "w") as f:
        f.write("# %s.csv: made by make-reference.py (SciPy %s; NumPy %s%s); do not edit\n"
                % (name, scipy.__version__, np.__version__, more_versions))
        for line in header:
            f.write("# " + line + "\n")
        f.write("# name,params,x,y,expected\n")
        names = set()
        for case, params, x, y, expected in rows:
            assert case not in names and "," not in case, case
            names.add(case)
            f.write("%s,%s,%s,%s,%s\n" % (case, lst(params), lst(x), lst(y), lst(expected)))
    print("%-16s %3d cases" % (name + ".csv", len(rows)))


# ---- inputs -------------------------------------------------------------------------

def sample(n, loc=0.0, scale=1.0, digits=6, gen=None):
    """n high-entropy values, rounded so that they print short; never accidentally tied.
    gen: the generator to draw from (default rng)."""
    gen = rng if gen is None else gen
    while True:
        v = np.round(gen.normal(loc, scale, n), digits)
        if len(set(v.tolist())) == n and 0.0 not in v.tolist():
            return [float(a) for a in v]


def pick(n, pool, gen=None):
    """n values drawn from pool (ties on purpose)."""
    gen = rng if gen is None else gen
    return [float(pool[i]) for i in gen.integers(0, len(pool), n)]


def with_signs(mags):
    return [float(m) * (1 if s else -1) for m, s in zip(mags, rng.integers(0, 2, len(mags)))]


def midranks(a):
    """1-based mid-ranks in plain Python."""
    order = sorted(range(len(a)), key=lambda i: a[i])
    r = [0.0] * len(a)
    i = 0
    while i < len(a):
        j = i
        while j + 1 < len(a) and a[order[j + 1]] == a[order[i]]:
            j += 1
        for t in range(i, j + 1):
            r[order[t]] = (i + 1 + j + 1) / 2
        i = j + 1
    return r


def has_ties(a):
    return len(set(a)) != len(a)


# ---- wilcoxon -----------------------------------------------------------------------

def brute_signed_rank(d):
    """Exact two-sided signed-rank p by enumerating every sign pattern of the non-zero d.

    The 2^m patterns are the product of the patterns of two halves: each half's list of
    doubled W+ values (one entry per pattern, 2^(m/2) of them) is built in full, and the
    joint count of W+ <= w and >= w sums over every pair.  Exact integer arithmetic."""
    nz = [v for v in d if v != 0]
    m = len(nz)
    r2 = [int(round(2 * r)) for r in midranks([abs(v) for v in nz])]
    w2 = sum(r for r, v in zip(r2, nz) if v > 0)

    def patterns(ranks):
        sums = [0]
        for r in ranks:
            sums = sums + [s + r for s in sums]
        return Counter(sums)

    left, right = patterns(r2[: m // 2]), patterns(r2[m // 2:])
    below = above = 0
    for a, ca in left.items():
        for b, cb in right.items():
            if a + b <= w2:
                below += ca * cb
            if a + b >= w2:
                above += ca * cb
    assert sum(left.values()) * sum(right.values()) == 2 ** m
    p = min(Fraction(1), 2 * Fraction(min(below, above), 2 ** m))
    return m, w2 / 2, float(p)


def wilcoxon_ref(d):
    """(m, w_plus, p, exact) as stats_wilcoxon_signed_rank must give."""
    nz = [v for v in d if v != 0]
    m = len(nz)
    if m == 0:
        return 0, 0.0, 1.0, 1
    r = midranks([abs(v) for v in nz])
    w_plus = sum(a for a, v in zip(r, nz) if v > 0)
    if m <= 50:
        if not has_ties([abs(v) for v in nz]) and m == len(d):
            p = st.wilcoxon(d, method="exact").pvalue
            if m <= 24:
                assert abs(brute_signed_rank(d)[2] - p) <= 1e-12 * p
        else:
            bm, bw, p = brute_signed_rank(d)
            assert bm == m and bw == w_plus
        return m, w_plus, float(p), 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = st.wilcoxon(d, zero_method="wilcox", correction=True, method="approx")
    assert res.statistic == min(w_plus, m * (m + 1) / 2 - w_plus)
    return m, w_plus, float(res.pvalue), 0


def make_wilcoxon():
    mags = [0.731, 1.2875, 2.385, 3.0625, 4.419]
    cases = [
        ("n1", [2.385]),
        ("n1_negative", [-0.6172]),
        ("n2", [1.732, -0.418]),
        ("n2_same_sign", [0.913, 2.207]),
        ("n3", [0.913, 2.207, 1.461]),
        ("n5_all_positive", [0.5213, 1.0977, 2.4461, 0.3185, 1.7324]),
        ("n6_all_positive", [0.5213, 1.0977, 2.4461, 0.3185, 1.7324, 0.8861]),
        ("n6_all_negative", [-0.5213, -1.0977, -2.4461, -0.3185, -1.7324, -0.8861]),
        ("all_zero", [0.0, 0.0, 0.0, 0.0]),
        ("one_nonzero", [0.0, 0.0, -1.375, 0.0]),
        ("all_equal", [1.25] * 8),
        ("all_equal_magnitude", [1.25, -1.25, 1.25, 1.25, -1.25, 1.25, 1.25]),
        ("centre", [1.5, -1.5, 2.75, -2.75]),
        ("n12_random", sample(12, 0.3)),
        ("n20_random", sample(20, 0.25)),
        ("n30_random", sample(30, 0.2)),
        ("n50_random", sample(50, 0.15)),
        ("n12_zeros", [0.0, 0.0, 0.0] + sample(9, 0.4)),
        ("n15_ties", with_signs(pick(15, mags))),
        ("n20_ties_zeros", with_signs(pick(16, mags)) + [0.0] * 4),
        ("n40_ties", with_signs(pick(40, mags))),
        ("n56_zeros_m42", with_signs(pick(42, mags + [5.1093, 6.2507])) + [0.0] * 14),
        ("n60_random", sample(60, 0.3)),
        ("n200_random", sample(200, 0.1)),
        ("n51_random", sample(51, -0.25)),
        ("n120_ties_zeros", with_signs(pick(110, mags)) + [0.0] * 10),
    ]
    rows = []
    for name, d in cases:
        m, w, p, exact = wilcoxon_ref(d)
        rows.append((name, [], d, [], [m, w, p, exact]))
    write("wilcoxon", [
        "stats_wilcoxon_signed_rank(x): expected m;w_plus;p;exact",
        "exact=1: scipy method=exact or brute-force enumeration with ties/zeros (1e-9)",
        "exact=0: scipy method=approx correction=True zero_method=wilcox (1e-6)",
    ], rows)


# ---- sign ---------------------------------------------------------------------------

def sign_ref(d):
    m = sum(1 for v in d if v != 0)
    k = sum(1 for v in d if v > 0)
    if m == 0:
        return 1.0
    p = st.binomtest(k, m, 0.5).pvalue
    lo = min(k, m - k)
    tail = Fraction(sum(math.comb(m, i) for i in range(lo + 1)), 2 ** m)
    exact = float(min(Fraction(1), 2 * tail))
    assert abs(p - exact) <= 1e-12 * exact, (k, m, p, exact)
    return float(p)


def make_sign():
    cases = [
        ("n1", [2.385]),
        ("n2", [1.732, -0.418]),
        ("n3_all_positive", [0.913, 2.207, 1.461]),
        ("n6_all_positive", [0.5213, 1.0977, 2.4461, 0.3185, 1.7324, 0.8861]),
        ("all_zero", [0.0, 0.0, 0.0]),
        ("zeros", [0.0, -0.75, 0.0, 1.125, 2.5, 0.0, 3.875]),
        ("balanced", [1.1, -2.2, 3.3, -4.4, 5.5, -6.6]),
        ("n15_random", sample(15, 0.6)),
        ("n40_random", sample(40, 0.3)),
        ("n60_random", sample(60, 0.35)),
        ("n200_random", sample(200, 0.12)),
        ("n200_extreme", [abs(v) for v in sample(200, 1.0)]),
        ("n101_ties", with_signs(pick(101, [0.25, 1.5, 2.385]))),
    ]
    rows = [(name, [], d, [], [sign_ref(d)]) for name, d in cases]
    write("sign", ["stats_sign_test(x): expected p (scipy.stats.binomtest; 1e-9)"], rows)


# ---- mann-whitney -------------------------------------------------------------------

def brute_mwu(x, y):
    """Exact two-sided p by enumerating every placement of the x among the pooled values."""
    pooled = x + y
    n, nx = len(pooled), len(x)
    r = midranks(pooled)
    ux = sum(r[:nx]) - nx * (nx + 1) / 2
    u = max(ux, nx * len(y) - ux)
    # two-sided p = 2 P(U >= max(U_x, U_y)), as the distribution is symmetric
    tot = upper = 0
    for idx in itertools.combinations(range(n), nx):
        tot += 1
        upper += sum(r[i] for i in idx) - nx * (nx + 1) / 2 >= u
    return ux, min(1.0, 2 * upper / tot)


def mwu_ref(x, y):
    exact = not has_ties(x + y) and len(x) <= 50 and len(y) <= 50
    res = st.mannwhitneyu(x, y, alternative="two-sided", use_continuity=True,
                          method="exact" if exact else "asymptotic")
    if exact and len(x) + len(y) <= 14:
        bu, bp = brute_mwu(x, y)
        assert bu == res.statistic and abs(bp - res.pvalue) <= 1e-12 * bp
    return [float(res.statistic), float(res.pvalue), int(exact)]


def make_mwu():
    cases = [
        ("n1_1", [2.385], [1.094]),
        ("n1_2", [2.385], [1.094, 3.717]),
        ("n2_3", [0.513, 1.927], [2.231, 3.068, 2.749]),
        ("n3_3_separated", [1.17, 1.42, 1.33], [2.61, 2.88, 2.05]),
        ("n4_4_separated", [1.17, 1.42, 1.33, 1.09], [2.61, 2.88, 2.05, 2.39]),
        ("n5_5_separated", sample(5, 1.0, 0.1), sample(5, 2.0, 0.1)),
        ("n6_6_separated", sample(6, 2.0, 0.1), sample(6, 1.0, 0.1)),
        ("n6_7_random", sample(6, 0.0), sample(7, 0.5)),
        ("n8_12_random", sample(8, 0.0), sample(12, 0.8)),
        ("n20_30_random", sample(20, 0.0), sample(30, 0.4)),
        ("n50_3_random", sample(50, 0.0), sample(3, 1.0)),
        ("n50_50_random", sample(50, 0.0), sample(50, 0.3)),
        ("n3_3_all_equal", [1.625] * 3, [1.625] * 3),
        ("n4_5_all_equal", [2.385] * 4, [2.385] * 5),
        ("n5_6_ties", pick(5, [1.1, 1.35, 1.6, 2.05]), pick(6, [1.35, 1.6, 2.05, 2.3])),
        ("n12_15_ties", pick(12, [0.27, 0.61, 0.98, 1.44]), pick(15, [0.61, 0.98, 1.44, 1.87])),
        ("n51_10_random", sample(51, 0.0), sample(10, 0.5)),
        ("n60_70_random", sample(60, 0.0), sample(70, 0.2)),
        ("n200_180_ties", pick(200, np.round(np.linspace(1.05, 3.17, 23), 4)),
         pick(180, np.round(np.linspace(1.21, 3.41, 19), 4))),
    ]
    rows = [(name, [], x, y, mwu_ref(x, y)) for name, x, y in cases]
    write("mannwhitney", [
        "stats_mann_whitney(x y): expected u;p;exact (u = U of x)",
        "exact=1: scipy mannwhitneyu method=exact (1e-9); exact=0: method=asymptotic (1e-6)",
    ], rows)


# ---- hodges-lehmann -----------------------------------------------------------------

def hl_paired(d):
    w = sorted((d[i] + d[j]) / 2 for i in range(len(d)) for j in range(i, len(d)))
    return statistics.median(w)


def hl_2(x, y):
    return statistics.median(sorted(a - b for a in x for b in y))


def make_hl():
    paired = [
        ("n1", [2.385]),
        ("n2", [1.732, -0.418]),
        ("n3", [0.913, 2.207, 1.461]),
        ("zeros", [0.0, 0.0, -1.375, 0.0, 2.0625]),
        ("all_equal", [1.25] * 6),
        ("n7_ties", pick(7, [-0.35, 0.15, 0.6, 1.05])),
        ("n20_random", sample(20, 0.3)),
        ("n60_random", sample(60, -0.1, 0.5)),
    ]
    rows = [(name, [], d, [], [hl_paired(d)]) for name, d in paired]
    write("hl_paired", ["stats_hodges_lehmann_paired(x): expected estimate (1e-9)"], rows)
    two = [
        ("n1_1", [2.385], [1.094]),
        ("n2_3", [0.513, 1.927], [2.231, 3.068, 2.749]),
        ("n5_7_ties", pick(5, [1.1, 1.35, 1.6]), pick(7, [1.35, 1.6, 2.05])),
        ("all_equal", [1.625] * 3, [1.625] * 4),
        ("n30_40_random", sample(30, 0.0), sample(40, 0.4)),
    ]
    rows = [(name, [], x, y, [hl_2(x, y)]) for name, x, y in two]
    write("hl_2", ["stats_hodges_lehmann_2(x y): expected estimate (1e-9)"], rows)


# ---- median CI ----------------------------------------------------------------------

def median_ci_ref(x, conf):
    n = len(x)
    s = sorted(x)
    best, cov_best = 0, None
    for k in range(1, (n + 1) // 2 + 1):
        cov = 1 - 2 * st.binom.cdf(k - 1, n, 0.5)
        # no boundary case: the C code must reach the same decision with its own cdf
        assert abs(cov - conf) > 1e-9, (n, k, conf)
        if cov >= conf:
            best, cov_best = k, cov
        else:
            break
    short = best == 0
    if short:
        best, cov_best = 1, 1 - 2 * st.binom.cdf(0, n, 0.5)
    return [int(short), s[best - 1], s[n - best], float(cov_best)]


def make_median_ci():
    rows = []
    for n in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 20, 50, 100]:
        x = sample(n, 1.0, 0.05)
        rows.append(("n%d_conf95" % n, [0.95], x, [], median_ci_ref(x, 0.95)))
    for n, conf in [(9, 0.90), (15, 0.99), (30, 0.80), (25, 0.999)]:
        x = sample(n, 1.0, 0.05)
        rows.append(("n%d_conf%g" % (n, conf * 100), [conf], x, [], median_ci_ref(x, conf)))
    x = pick(11, [0.97, 1.01, 1.03, 1.08])
    rows.append(("n11_ties", [0.95], x, [], median_ci_ref(x, 0.95)))
    rows.append(("all_equal", [0.95], [1.0625] * 8, [], median_ci_ref([1.0625] * 8, 0.95)))
    write("median_ci", [
        "stats_median_ci_exact(x conf=params): expected ret;lo;hi;achieved (1e-9)",
        "ret=1 when even [min max] covers less than conf",
    ], rows)


# ---- holm ---------------------------------------------------------------------------

def holm(p):
    """R's p.adjust(p, "holm", n = length(p)): NaN stays NaN and counts in n.  (R's default
    n is evaluated after the NA are dropped, so there they do not count.)"""
    n = len(p)
    idx = sorted((i for i in range(n) if not math.isnan(p[i])), key=lambda i: p[i])
    adj = [math.nan] * n
    run = 0.0
    for j, i in enumerate(idx):
        run = max(run, min(1.0, (n - j) * p[i]))
        adj[i] = run
    return adj


def make_holm():
    # worked by hand: sorted 0.005 (x4 = 0.02), 0.01 (x3 = 0.03), 0.03 (x2 = 0.06),
    # 0.04 (x1 = 0.04, raised to 0.06 by monotonicity)
    hand = holm([0.01, 0.04, 0.03, 0.005])
    assert all(abs(a - b) < 1e-15 for a, b in zip(hand, [0.03, 0.06, 0.06, 0.02])), hand
    cases = [
        ("n1", [0.0317]),
        ("n2", [0.0213, 0.0481]),
        ("hand", [0.01, 0.04, 0.03, 0.005]),
        ("monotone", [0.0107, 0.0113, 0.0391, 0.2178]),
        ("ties", [0.0207, 0.0207, 0.0031, 0.0207]),
        ("capped", [0.4137, 0.8861, 0.0042, 0.6629, 0.2517]),
        ("with_nan", [0.0173, math.nan, 0.0418, 0.0009]),
        ("n12_random", [float(v) for v in np.round(rng.uniform(0, 0.2, 12), 6)]),
        ("n40_random", [float(v) for v in np.round(rng.beta(0.4, 3.0, 40), 7)]),
    ]
    rows = [(name, [], p, [], holm(p)) for name, p in cases]
    for name, _, p, _, adj in rows:
        # statsmodels knows no NaN: one counted in n is a p of 1 there (it sorts last and
        # changes no other adjusted p)
        sm = multipletests([1.0 if math.isnan(v) else v for v in p], method="holm")[1]
        for a, b in zip(adj, sm):
            assert math.isnan(a) or a == b, (name, adj, list(sm))
    write("holm", ["stats_holm(x): expected adj (one per input; 1e-9)"], rows)


# ---- correlations -------------------------------------------------------------------

SPEARMAN_EXACT_MAX = 10


def spearman_perm_p(x, y):
    """The exact two-sided permutation p of Spearman's rho: every one of the n! pairings."""
    def rho(a, b, axis):
        ra, rb = st.rankdata(a, axis=axis), st.rankdata(b, axis=axis)
        ra = ra - ra.mean(axis=axis, keepdims=True)
        rb = rb - rb.mean(axis=axis, keepdims=True)
        return (ra * rb).sum(axis=axis) / np.sqrt((ra * ra).sum(axis=axis) * (rb * rb).sum(axis=axis))
    # one sample, y fixed: SciPy permutes its order (n! pairings; with both samples it
    # would permute each, (n!)^2 with every pairing n! times)
    yv = np.array(y)
    res = st.permutation_test((np.array(x),),
                              lambda a, axis: rho(a, np.broadcast_to(yv, a.shape), axis),
                              permutation_type="pairings", vectorized=True,
                              n_resamples=np.inf, alternative="two-sided")
    assert len(res.null_distribution) == math.factorial(len(x)), len(res.null_distribution)
    return float(res.pvalue)


def spearman_ref(x, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = st.spearmanr(x, y)
    rho, p = float(res.statistic), float(res.pvalue)
    # Perfectly monotone data: rho is exactly +-1 and p exactly 0 (t is infinite).  NumPy's
    # corrcoef divides twice by a rounded square root and can give 0.9999999999999999,
    # and SciPy then a tiny p (6.6e-64 for n = 10, 1.4e-24 for n = 11); the C code gets the
    # exact values and they are what is recorded here.
    rx, ry = midranks(x), midranks(y)
    n = len(x)
    for sign, match in ((1.0, rx == ry), (-1.0, rx == [n + 1 - r for r in ry])):
        if match:
            assert abs(rho - sign) <= 4e-16 and p < 1e-20, (rho, p)
            rho, p = sign, 0.0
    if n <= SPEARMAN_EXACT_MAX and not math.isnan(rho):
        p = spearman_perm_p(x, y)
    return [rho, p]


def kendall_ref(x, y):
    n = len(x)
    tot = n * (n - 1) // 2
    xtie = sum(1 for i in range(n) for j in range(i + 1, n) if x[i] == x[j])
    ytie = sum(1 for i in range(n) for j in range(i + 1, n) if y[i] == y[j])
    dis = sum(1 for i in range(n) for j in range(i + 1, n)
              if (x[i] - x[j]) * (y[i] - y[j]) < 0)
    res = st.kendalltau(x, y)
    if xtie == tot or ytie == tot:
        assert math.isnan(res.statistic)
        return [math.nan, math.nan, 1]
    # SciPy 1.10's method="auto" rule, checked against the explicit method
    exact = xtie == 0 and ytie == 0 and (n <= 33 or min(dis, tot - dis) <= 1)
    check = st.kendalltau(x, y, method="exact" if exact else "asymptotic")
    assert check.pvalue == res.pvalue and check.statistic == res.statistic
    return [float(res.statistic), float(res.pvalue), int(exact)]


def noisy(x, slope, noise):
    return [float(v) for v in np.round(slope * np.asarray(x) + rng.normal(0, noise, len(x)), 6)]


def make_corr():
    x3 = [0.913, 2.207, 1.461]
    x10 = sample(10)
    x40 = sample(40)
    x60 = sample(60)
    x200 = sample(200)
    swapped = sorted(sample(40))
    y_swap = swapped[:]
    y_swap[17], y_swap[18] = y_swap[18], y_swap[17]
    tx = pick(30, [1.05, 1.4, 1.85, 2.3, 2.75])
    common = [
        ("n3", x3, [1.094, 3.717, 2.512]),
        ("n3_reversed", x3, [3.2, 1.1, 2.05]),
        ("n4", [0.61, 1.37, 2.22, 0.94], [1.81, 1.12, 2.93, 2.44]),
        ("n10_random", x10, noisy(x10, 0.7, 0.8)),
        ("n10_monotone", x10, [math.exp(v) for v in x10]),
        ("n10_antitone", x10, [-3 * v + 0.25 for v in x10]),
        ("n30_ties", tx, [round(v + float(rng.normal(0, 0.6)), 1) for v in tx]),
        ("n12_ties_x", pick(12, [0.5, 1.25, 2.0]), sample(12)),
        ("n33_random", sample(33), sample(33)),
        ("n34_random", sample(34), sample(34)),
        ("n40_random", x40, noisy(x40, 0.3, 1.0)),
        ("n40_one_swap", swapped, y_swap),
        ("n60_random", x60, noisy(x60, -0.2, 1.0)),
        ("n200_random", x200, noisy(x200, 0.1, 1.0)),
        ("n200_ties", pick(200, np.round(np.linspace(0.1, 2.3, 12), 3)),
         pick(200, np.round(np.linspace(1.7, 4.4, 9), 3))),
        ("constant_x", [1.375] * 6, sample(6)),
        ("constant_y", sample(5), [2.385] * 5),
    ]
    spearman_only = [  # fixed values: no draws, so the other files' inputs stay as they were
        ("n5_monotone", [1.0, 2.0, 3.0, 4.0, 5.0], [0.2, 0.3, 0.7, 0.9, 1.4]),
        ("n8_ties", [1.0, 2.0, 2.0, 3.0, 4.0, 4.0, 5.0, 6.0], [2.5, 1.5, 3.5, 3.5, 2.5, 6.0, 7.0, 5.5]),
        ("n9_random", [0.31, -1.2, 0.88, 2.05, -0.4, 1.1, 0.07, -0.93, 1.6],
         [0.12, -0.5, 1.9, 0.7, -1.4, 0.3, 0.95, -0.2, 1.15]),
        ("n11_monotone", [float(i) for i in range(11)], [float(i) ** 1.5 for i in range(11)]),
        ("n11_random", [0.31, -1.2, 0.88, 2.05, -0.4, 1.1, 0.07, -0.93, 1.6, 0.5, -0.1],
         [0.12, -0.5, 1.9, 0.7, -1.4, 0.3, 0.95, -0.2, 1.15, -0.8, 0.45]),
    ]
    rows = [(name, [], x, y, spearman_ref(x, y)) for name, x, y in common + spearman_only]
    write("spearman", [
        "stats_spearman(x y): expected rho;p (rho: scipy.stats.spearmanr, 1e-9; p: exact "
        "permutation p for n <= 10, scipy.stats.permutation_test, 1e-9; beyond, spearmanr, 1e-6)",
    ], rows)
    kendall_only = [
        ("n2", [1.732, 0.418], [0.913, 2.207]),
        ("n2_concordant", [0.418, 1.732], [0.913, 2.207]),
        ("n4_centre", [1.0, 2.0, 3.0, 4.0], [2.5, 4.5, 1.5, 3.5]),
        ("n200_sorted", sorted(x200), sorted(noisy(x200, 1.0, 0.1))),
        ("n170_sorted", sorted(x200[:170]), sorted(x60 + x40 + x200[:70])),
    ]
    rows = [(name, [], x, y, kendall_ref(x, y)) for name, x, y in common + kendall_only]
    write("kendall", [
        "stats_kendall(x y): expected tau;p;exact (scipy.stats.kendalltau method=auto)",
        "exact=1: exact p (1e-9); exact=0: asymptotic (1e-6); tau 1e-9",
    ], rows)


# ---- median -------------------------------------------------------------------------

def make_median():
    cases = [
        ("n1", [2.385]),
        ("n2", [1.732, -0.418]),
        ("n3", [0.913, 2.207, 1.461]),
        ("ties", [1.25, 0.75, 1.25, 3.5, 1.25, 0.75]),
        ("n20_random", sample(20, 5.0, 2.0)),
        ("n201_random", sample(201, 1e-3, 1e-4, 9)),
    ]
    rows = [(name, [], x, [], [float(np.median(x))]) for name, x in cases]
    write("median", ["stats_median(x): expected median (1e-9)"], rows)


# ---- where the variance lives (summary.c) -------------------------------------------

def median_se_ref(x):
    """stats_cell_medians_se for one cell: the median and its relative standard error,
    1.2533 (IQR / 1.349) / sqrt(n) / median with NumPy's linear (type 7) quartiles."""
    med = float(np.median(x))
    if len(x) < 4 or not med > 0:
        return [med, math.nan]
    q1, q3 = np.percentile(x, [25, 75])
    return [med, 1.2533 * ((q3 - q1) / 1.349) / math.sqrt(len(x)) / med]


def make_median_se():
    def ns(n, loc, rel):  # integer nanoseconds, as samples are recorded
        return [float(v) for v in np.round(rng.normal(loc, loc * rel, n))]
    cases = [
        ("n3_too_few", ns(3, 9000, 0.01)),
        ("n4", [9001.0, 9033.0, 8977.0, 9120.0]),
        ("ties_32ns", pick(100, [7648.0, 7680.0, 7712.0, 7744.0, 7776.0])),
        ("n300_1pct", ns(300, 7800, 0.01)),
        ("n100_0p1pct", ns(100, 97400, 0.001)),
        ("n25_wide", ns(25, 200000, 0.05)),
    ]
    rows = [(name, [], x, [], median_se_ref(x)) for name, x in cases]
    write("median_se", ["stats_cell_medians_se(x as one cell's samples, ns): median (1e-9); "
                        "relative standard error of the median (1e-9; nan when n < 4)"], rows)


def vc_ref(med, se):
    keep = [(m, e) for m, e in zip(med, se)
            if m > 0 and not math.isinf(m) and not math.isnan(e)]
    k = len(keep)
    if k < 2:
        return [k, math.nan, math.nan, math.nan, math.nan]
    logs = np.log([m for m, _ in keep])
    between = float(np.var(logs, ddof=1))
    within = float(np.mean([e * e for _, e in keep]))
    if not between > 0:
        return [k, between, within, math.nan, math.nan]
    process = max(0.0, between - within)
    return [k, between, within, process, process / between]


def make_vc():
    def units(n, loc, between_rel, se):
        med = [float(v) for v in np.round(loc * np.exp(rng.normal(0, between_rel, n)), 3)]
        return med, [se] * n
    rows = []
    for name, (med, se) in [
        ("one_unit", ([9000.0], [0.002])),
        ("two_equal", ([9000.0, 9000.0], [0.002, 0.003])),
        ("process_dominated", units(10, 9100, 0.02, 0.002)),
        ("sampling_dominated", units(10, 97400, 0.0005, 0.002)),
        ("between_below_within", ([1000.0, 1000.5, 999.8, 1000.2], [0.01] * 4)),
        ("nan_and_nonpositive_left_out",
         ([9000.0, math.nan, 9100.0, 0.0, 9300.0, -5.0, 8800.0],
          [0.002, 0.002, math.nan, 0.002, 0.003, 0.002, 0.001])),
        ("n20_mixed", (units(20, 205000, 0.007, 0.0)[0],
                       [float(v) for v in np.round(rng.uniform(0.0004, 0.0012, 20), 6)])),
    ]:
        rows.append((name, [], med, se, vc_ref(med, se)))
    write("vc", ["stats_variance_components(x = unit medians, y = their relative standard "
                 "errors): n; between; within; process; share (1e-9)"], rows)


# ---- t tests (ttest.c) --------------------------------------------------------------
# The new files draw from their own generator, so that the files above keep their bytes.
rng_t = np.random.default_rng(20261128)


def ttest_ref(d, conf):
    """stats_t_test: est; sd; se; t; df; p; lo; hi from scipy.stats.ttest_1samp(d, 0) and
    its confidence_interval(conf); sd and se from numpy.std(ddof=1)."""
    d = np.asarray(d)
    n = len(d)
    sd = float(np.std(d, ddof=1))
    assert sd > 0, d  # SciPy has no p without scatter (the C code's is documented)
    res = st.ttest_1samp(d, 0.0)
    ci = res.confidence_interval(conf)
    est = float(np.mean(d))
    lo, hi = float(ci.low), float(ci.high)
    assert res.df == n - 1
    # no bound within rounding of 0, where a relative tolerance would mean nothing
    assert min(abs(lo), abs(hi)) > 1e-6 * (hi - lo), (lo, hi)
    return [est, sd, sd / math.sqrt(n), float(res.statistic), float(res.df),
            float(res.pvalue), lo, hi]


def make_ttest():
    g = rng_t
    cases = [
        ("n2", 0.95, [0.0213, -0.0087]),
        ("n2_same_sign", 0.95, [0.0213, 0.0319]),
        ("n3", 0.95, [-0.0412, -0.0287, -0.0535]),
        ("n3_conf90", 0.9, [0.913, 2.207, 1.461]),
        ("n5_random", 0.95, sample(5, -0.03, 0.02, 6, g)),
        ("n8_random_conf99", 0.99, sample(8, 0.015, 0.01, 6, g)),
        ("n10_random", 0.95, sample(10, -0.0383, 0.0127, 6, g)),
        ("n10_null", 0.95, sample(10, 0.0, 0.03, 6, g)),
        ("n12_conf80", 0.8, sample(12, 0.004, 0.01, 6, g)),
        ("n20_random", 0.95, sample(20, 0.02, 0.05, 6, g)),
        ("n20_strong", 0.95, sample(20, -0.0513, 0.001, 7, g)),
        ("n30_conf999", 0.999, sample(30, 0.01, 0.02, 6, g)),
        ("n50_conf50", 0.5, sample(50, -0.002, 0.01, 6, g)),
        ("n200_random", 0.95, sample(200, 0.001, 0.02, 6, g)),
        ("n7_ties", 0.95, pick(7, [-0.0125, 0.0031, 0.0208, 0.0347], g)),
        ("n16_ties", 0.9, pick(16, [-0.02, -0.005, 0.01, 0.025], g)),
        ("n40_ties_zeros", 0.95, pick(32, [-0.0161, 0.0094, 0.0273], g) + [0.0] * 8),
        ("n4_two_values", 0.95, [1.25, -0.75, 1.25, 1.25]),
        ("n6_large_scale", 0.95, sample(6, 2385.0, 104.7, 3, g)),
    ]
    rows = [(name, [conf], d, [], ttest_ref(d, conf)) for name, conf, d in cases]
    write("ttest", [
        "stats_t_test(x conf=params): expected est;sd;se;t;df;p;lo;hi",
        "scipy.stats.ttest_1samp(x 0) and .confidence_interval(conf); numpy.std(ddof=1)",
        "est sd se t df: 1e-9; p lo hi: 1e-6 (t distribution: GSL against SciPy)",
    ], rows)


def welch_ref(x, y, conf):
    """stats_welch_test: est; sd (pooled); se; t; df; p; lo; hi.  t and p from
    scipy.stats.ttest_ind(equal_var=False); df Welch-Satterthwaite (SciPy 1.10 does not
    return it; its p is checked against this df); the CI est -/+ t.ppf((1 + conf) / 2, df) se."""
    x, y = np.asarray(x), np.asarray(y)
    nx, ny = len(x), len(y)
    sx2, sy2 = float(np.var(x, ddof=1)), float(np.var(y, ddof=1))
    vx, vy = sx2 / nx, sy2 / ny
    assert vx + vy > 0
    df = (vx + vy) ** 2 / (vx * vx / (nx - 1) + vy * vy / (ny - 1))
    se = math.sqrt(vx + vy)
    est = float(np.mean(x) - np.mean(y))
    with warnings.catch_warnings():
        # a constant sample: SciPy warns of precision loss in its variance, which is 0
        warnings.simplefilter("ignore", RuntimeWarning)
        res = st.ttest_ind(x, y, equal_var=False)
    assert abs(float(res.statistic) - est / se) <= 1e-12 * abs(est / se)
    p = float(res.pvalue)
    assert abs(2 * st.t.sf(abs(est / se), df) - p) <= 1e-12 * p, (p, df)
    q = float(st.t.ppf((1 + conf) / 2, df))
    lo, hi = est - q * se, est + q * se
    assert min(abs(lo), abs(hi)) > 1e-6 * (hi - lo), (lo, hi)
    sd = math.sqrt(((nx - 1) * sx2 + (ny - 1) * sy2) / (nx + ny - 2))
    return [est, sd, se, float(res.statistic), df, p, lo, hi]


def make_welch():
    g = rng_t
    cases = [
        ("n2_2", 0.95, [0.4132, 0.4871], [0.5213, 0.5022]),
        ("n2_5", 0.95, [0.4132, 0.4871], [0.5213, 0.5022, 0.4917, 0.5386, 0.5101]),
        ("n3_3", 0.95, [0.4912, 0.4691, 0.5139], [0.5312, 0.5507, 0.5247]),
        ("n5_8_unequal", 0.95, sample(5, 0.0, 0.05, 6, g), sample(8, 0.04, 0.01, 6, g)),
        ("n8_11_conf90", 0.9, sample(8, 0.49, 0.015, 6, g), sample(11, 0.54, 0.015, 6, g)),
        ("n10_10_null", 0.95, sample(10, 0.0, 0.03, 6, g), sample(10, 0.0, 0.03, 6, g)),
        ("n20_7_conf99", 0.99, sample(20, 1.2, 0.2, 6, g), sample(7, 1.0, 0.6, 6, g)),
        ("n6_6_ties", 0.95, pick(6, [0.5, 0.52, 0.55], g), pick(6, [0.52, 0.55, 0.58], g)),
        ("n15_12_ties", 0.8, pick(15, [-0.02, 0.0, 0.01, 0.03], g),
         pick(12, [0.01, 0.03, 0.05], g)),
        ("n50_60_conf999", 0.999, sample(50, 0.0, 1.0, 6, g), sample(60, 0.7, 2.5, 6, g)),
        ("n200_150", 0.95, sample(200, 7.3, 0.4, 6, g), sample(150, 7.21, 0.5, 6, g)),
        ("n4_30_one_constant", 0.95, [2.385] * 4, sample(30, 2.3, 0.1, 6, g)),
    ]
    rows = [(name, [conf], x, y, welch_ref(x, y, conf)) for name, conf, x, y in cases]
    write("welch", [
        "stats_welch_test(x y conf=params): expected est;sd;se;t;df;p;lo;hi (est = mean x - "
        "mean y; sd pooled)",
        "t p: scipy.stats.ttest_ind(x y equal_var=False); df: Welch-Satterthwaite; "
        "lo hi: est -/+ scipy.stats.t.ppf((1 + conf)/2 df) se",
        "est sd se t df: 1e-9; p lo hi: 1e-6 (t distribution: GSL against SciPy)",
    ], rows)


# ---- false-discovery rates (multi.c) ------------------------------------------------

def step_up(p, c):
    """Plain Python BH (c = 1) / BY (c = sum 1/k): min(1, min_{j >= i} c n p_(j) / j)."""
    n = len(p)
    idx = sorted(range(n), key=lambda i: p[i])
    adj = [0.0] * n
    run = 1.0
    for j in range(n - 1, -1, -1):
        run = min(run, c * n * p[idx[j]] / (j + 1))
        adj[idx[j]] = run
    return adj


def make_fdr():
    g = rng_t
    cases = [
        ("n1", [0.0317]),
        ("n2", [0.0213, 0.0481]),
        ("hand", [0.01, 0.04, 0.03, 0.005]),
        ("monotone", [0.0107, 0.0113, 0.0391, 0.2178]),
        ("step_up_pulls_down", [0.0091, 0.0412, 0.0436, 0.0447, 0.0458]),
        ("ties", [0.0207, 0.0207, 0.0031, 0.0207]),
        ("capped", [0.4137, 0.8861, 0.0042, 0.6629, 0.2517]),
        ("zero_and_one", [0.0, 1.0, 0.0213, 0.3358]),
        ("all_ones", [1.0, 1.0, 1.0]),
        ("n12_random", [float(v) for v in np.round(g.uniform(0, 0.2, 12), 6)]),
        ("n40_random", [float(v) for v in np.round(g.beta(0.4, 3.0, 40), 7)]),
        ("n196_random", [float(v) for v in np.round(g.beta(0.3, 2.0, 196), 8)]),
    ]
    # worked by hand: sorted 0.005 (x4/1 = 0.02), 0.01 (x4/2 = 0.02), 0.03 (x4/3 = 0.04),
    # 0.04 (x4/4 = 0.04); BY multiplies by 1 + 1/2 + 1/3 + 1/4 = 25/12
    want = [0.02, 0.04, 0.04, 0.02]
    bh_hand = multipletests(cases[2][1], method="fdr_bh")[1]
    by_hand = multipletests(cases[2][1], method="fdr_by")[1]
    assert all(abs(a - b) < 1e-15 for a, b in zip(bh_hand, want)), bh_hand
    assert all(abs(a - b * 25 / 12) < 1e-15 for a, b in zip(by_hand, want)), by_hand
    for method, name in (("fdr_bh", "bh"), ("fdr_by", "by")):
        rows = []
        for case, p in cases:
            adj = [float(v) for v in multipletests(p, method=method)[1]]
            c = 1.0 if name == "bh" else sum(1.0 / k for k in range(1, len(p) + 1))
            direct = step_up(p, c)
            assert all(abs(a - min(1.0, b)) <= 1e-13 * max(a, 1e-300)
                       for a, b in zip(adj, direct)), (case, adj, direct)
            rows.append((case, [], p, [], adj))
        write(name, [
            "stats_%s(x): expected adj (one per input; 1e-9)" % name,
            "statsmodels.stats.multitest.multipletests(x method=%s), checked against the "
            "step-up computed directly" % method,
        ], rows, "; statsmodels %s" % statsmodels.__version__)


# ---- trimmed t tests (ttest.c) -------------------------------------------------------
# Their own generator again, so that every file above keeps its bytes.
rng_tr = np.random.default_rng(20261129)


def trimmed_ref(d, trim, conf):
    """stats_trimmed_t_test: est; sd; se; t; df; p; lo; hi.  est = scipy.stats.trim_mean,
    sd = the standard deviation of scipy.stats.mstats.winsorize's sample, se = Tukey and
    McLaughlin's sqrt((n - 1) sd^2 / (h (h - 1))) with h = n - 2g kept, g = floor(trim n),
    df = h - 1; t = est / se; p and the CI from scipy.stats.t.  Where nothing is cut the
    result must be scipy.stats.ttest_1samp's, which is checked."""
    d = np.asarray(d, dtype=float)
    n = len(d)
    g = int(math.floor(trim * n))
    h = n - 2 * g
    est = float(st.trim_mean(d, trim))
    # scipy's winsorize cuts int(trim n) from each end, as the C code: the same g
    sd = float(np.std(np.asarray(mstats.winsorize(d, limits=(trim, trim))), ddof=1))
    se = math.sqrt((n - 1) * sd * sd / (h * (h - 1)))
    df = h - 1
    t = est / se
    p = float(2 * st.t.sf(abs(t), df))
    if g == 0:
        res = st.ttest_1samp(d, 0.0)
        assert abs(float(res.statistic) - t) <= 1e-10 * abs(t), (res, t)
        assert abs(float(res.pvalue) - p) <= 1e-10, (res, p)
    q = float(st.t.ppf((1 + conf) / 2, df))
    lo, hi = est - q * se, est + q * se
    assert min(abs(lo), abs(hi)) > 1e-6 * (hi - lo), (lo, hi)
    return [est, sd, se, t, float(df), p, lo, hi]


def make_trimmed():
    g = rng_tr
    slow = lambda n, k: sample(n - k, 0.003, 0.004, 6, g) + sample(k, -0.25, 0.02, 6, g)
    cases = [
        ("n5_trim20", 0.2, 0.95, sample(5, -0.03, 0.02, 6, g)),
        ("n6_one_slow_block", 0.2, 0.95, slow(6, 1)),
        ("n8_two_slow_blocks", 0.2, 0.95, slow(8, 2)),
        ("n10_trim20_conf99", 0.2, 0.99, sample(10, 0.015, 0.01, 6, g)),
        ("n10_trim10", 0.1, 0.95, sample(10, -0.0383, 0.0127, 6, g)),
        ("n12_trim25", 0.25, 0.9, sample(12, 0.004, 0.01, 6, g)),
        ("n20_trim20", 0.2, 0.95, sample(20, 0.02, 0.05, 6, g)),
        ("n20_heavy", 0.2, 0.95, slow(20, 4)),
        ("n40_trim20_conf999", 0.2, 0.999, sample(40, 0.01, 0.02, 6, g)),
        ("n7_ties", 0.2, 0.95, pick(7, [-0.0125, 0.0031, 0.0208, 0.0347], g)),
        ("n4_no_cut", 0.2, 0.95, [0.0213, -0.0087, 0.0319, 0.0114]),
        ("n9_trim0", 0.0, 0.95, sample(9, 0.01, 0.02, 6, g)),
    ]
    rows = [(name, [trim, conf], d, [], trimmed_ref(d, trim, conf))
            for name, trim, conf, d in cases]
    write("trimmed", [
        "stats_trimmed_t_test(x trim=params[0] conf=params[1]): expected est;sd;se;t;df;p;lo;hi",
        "scipy.stats.trim_mean, scipy.stats.mstats.winsorize; se Tukey-McLaughlin "
        "sqrt((n-1) sw^2 / (h (h-1))), df h - 1, h = n - 2 floor(trim n) (ttest_1samp where "
        "g = 0); p lo hi from scipy.stats.t",
        "est sd se t df: 1e-9; p lo hi: 1e-6 (t distribution: GSL against SciPy)",
    ], rows)


def yuen_ref(x, y, trim, conf):
    """stats_yuen_test: est; sd (pooled winsorized); se; t; df; p; lo; hi.  t and p from
    scipy.stats.ttest_ind(x, y, equal_var=False, trim=trim) (Yuen's test); est the
    difference of scipy.stats.trim_mean; se and df from the winsorized variances."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    nx, ny = len(x), len(y)
    hx, hy = nx - 2 * int(math.floor(trim * nx)), ny - 2 * int(math.floor(trim * ny))
    wx = float(np.var(np.asarray(mstats.winsorize(x, limits=(trim, trim))), ddof=1))
    wy = float(np.var(np.asarray(mstats.winsorize(y, limits=(trim, trim))), ddof=1))
    dx, dy = (nx - 1) * wx / (hx * (hx - 1)), (ny - 1) * wy / (hy * (hy - 1))
    se = math.sqrt(dx + dy)
    df = (dx + dy) ** 2 / (dx * dx / (hx - 1) + dy * dy / (hy - 1))
    est = float(st.trim_mean(x, trim) - st.trim_mean(y, trim))
    res = st.ttest_ind(x, y, equal_var=False, trim=trim)
    assert abs(float(res.statistic) - est / se) <= 1e-10 * abs(est / se), (res, est / se)
    p = float(res.pvalue)
    q = float(st.t.ppf((1 + conf) / 2, df))
    lo, hi = est - q * se, est + q * se
    sd = math.sqrt(((nx - 1) * wx + (ny - 1) * wy) / (nx + ny - 2))
    return [est, sd, se, float(res.statistic), df, p, lo, hi]


def make_yuen():
    g = rng_tr
    cases = [
        ("n5_8", 0.2, 0.95, sample(5, 0.0, 0.05, 6, g), sample(8, 0.04, 0.01, 6, g)),
        ("n10_10_null", 0.2, 0.95, sample(10, 0.0, 0.03, 6, g), sample(10, 0.0, 0.03, 6, g)),
        ("n12_9_conf90", 0.2, 0.9, sample(12, 0.49, 0.015, 6, g), sample(9, 0.54, 0.015, 6, g)),
        ("n20_15_trim10", 0.1, 0.95, sample(20, 1.2, 0.2, 6, g), sample(15, 1.0, 0.6, 6, g)),
        ("n30_40_conf99", 0.2, 0.99, sample(30, 7.3, 0.4, 6, g), sample(40, 7.21, 0.5, 6, g)),
        ("n8_8_slow", 0.2, 0.95, sample(6, 0.0, 0.01, 6, g) + [0.31, 0.27],
         sample(8, -0.05, 0.01, 6, g)),
    ]
    rows = [(name, [trim, conf], x, y, yuen_ref(x, y, trim, conf))
            for name, trim, conf, x, y in cases]
    write("yuen", [
        "stats_yuen_test(x y trim=params[0] conf=params[1]): expected est;sd;se;t;df;p;lo;hi "
        "(est = trimmed mean x - trimmed mean y)",
        "t p: scipy.stats.ttest_ind(x y equal_var=False trim=trim); se df from the "
        "winsorized variances (scipy.stats.mstats.winsorize); lo hi from scipy.stats.t",
        "est sd se t df: 1e-9; p lo hi: 1e-6 (t distribution: GSL against SciPy)",
    ], rows)


# ---- group-sequential boundaries (decide.c) -----------------------------------------

def spend(alpha, t, obf):
    """The alpha-spending functions of stats.h: Pocock-type alpha ln(1 + (e - 1) t),
    O'Brien-Fleming-type 2 - 2 Phi(z_{1-alpha/2} / sqrt(t))."""
    if t <= 0:
        return 0.0
    if t >= 1:
        return alpha
    if obf:
        return 2 - 2 * st.norm.cdf(st.norm.ppf(1 - alpha / 2) / math.sqrt(t))
    return alpha * math.log1p((math.e - 1) * t)


def seq_inside(c, looks):
    """P(|Z_j| < c_j for every look j) when corr(Z_i, Z_j) = sqrt(n_i / n_j), i <= j:
    scipy.stats.multivariate_normal.cdf (Genz's algorithm) over the rectangle."""
    k = len(c)
    if k == 1:
        return 1 - 2 * st.norm.sf(c[0])
    n = np.asarray(looks, dtype=float)
    cov = np.sqrt(np.minimum.outer(n, n) / np.maximum.outer(n, n))
    c = np.asarray(c, dtype=float)
    return float(st.multivariate_normal.cdf(c, mean=np.zeros(k), cov=cov, lower_limit=-c,
                                            abseps=1e-8, releps=0, maxpts=1000000 * k))


def seq_levels_genz(alpha, looks, n_max, obf):
    """Each look's level 2 (1 - Phi(c_k)), c_k solving (scipy.optimize.brentq)
    P(no earlier crossing) - P(no crossing up to k) = the alpha look k spends, with Genz's
    rectangle probabilities: good to about 1e-4 relative at the fourth look."""
    cs, out, prev = [], [], 0
    for k, n in enumerate(looks):
        a = spend(alpha, n / n_max, obf) - spend(alpha, prev / n_max, obf)
        prev = n
        if k == 0:
            c = float(st.norm.isf(a / 2))
        else:
            before = seq_inside(cs, looks[:k])
            c = optimize.brentq(lambda c: before - seq_inside(cs + [c], looks[:k + 1]) - a,
                                0.05, 40, xtol=1e-12)
        cs.append(c)
        out.append(2 * float(st.norm.sf(c)))
    return out


def seq_levels_grid(alpha, looks, n_max, obf, m=3001):
    """The same levels by recursion on the z scale: Z_k given Z_{k-1} = z is normal with mean
    r z, sd sqrt(1 - r^2), r = sqrt(n_{k-1} / n_k); the sub-density of Z_k on (-c_k, c_k)
    (paths that crossed no earlier boundary) on m points, integrals by
    scipy.integrate.simpson, the exit probability by scipy.stats.norm.sf, c_k by brentq."""
    out, prev = [], 0
    z = f = None
    for k, n in enumerate(looks):
        a = spend(alpha, n / n_max, obf) - spend(alpha, prev / n_max, obf)
        if k == 0:
            c = float(st.norm.isf(a / 2))
        else:
            r = math.sqrt(prev / n)
            s = math.sqrt(1 - r * r)
            exit_p = lambda c: float(integrate.simpson(
                f * (st.norm.sf((c - r * z) / s) + st.norm.sf((c + r * z) / s)), x=z))
            c = optimize.brentq(lambda c: exit_p(c) - a, 0.05, 40, xtol=1e-14)
        prev = n
        out.append(2 * float(st.norm.sf(c)))
        y = np.linspace(-c, c, m)
        if k == 0:
            f = st.norm.pdf(y)
        else:
            f = integrate.simpson(f[None, :] * st.norm.pdf((y[:, None] - r * z[None, :]) / s) / s,
                                  x=z, axis=1)
        z = y
    return out


def seq_two_looks_quad(alpha, n1, n2, n_max, obf):
    """The second look's level by one-dimensional quadrature (scipy.integrate.quad): the exit
    probability int_{-c1}^{c1} phi(z) [Q((c2 - r z) / s) + Phi((-c2 - r z) / s)] dz,
    r = sqrt(n1 / n2), s = sqrt(1 - r^2)."""
    a1 = spend(alpha, n1 / n_max, obf)
    a2 = spend(alpha, n2 / n_max, obf) - a1
    c1 = float(st.norm.isf(a1 / 2))
    r = math.sqrt(n1 / n2)
    s = math.sqrt(1 - r * r)

    def exit_p(c2):
        g = lambda z: st.norm.pdf(z) * (st.norm.sf((c2 - r * z) / s) +
                                        st.norm.cdf((-c2 - r * z) / s))
        return integrate.quad(g, -c1, c1, epsabs=1e-14, epsrel=1e-12)[0]
    return 2 * float(st.norm.sf(optimize.brentq(lambda c: exit_p(c) - a2, 0.05, 40,
                                                xtol=1e-13)))


def seq_levels_t_sim(alpha, looks, n_max, obf, reps, seed, paths_c):
    """The levels of stats_seq_levels_t, by the same definition on a separate simulation
    (numpy's PCG64 from seed, reps paths, not GSL's): the first look's level is its
    increment; look k's threshold on |t| the midpoint of the m-th and (m + 1)-th largest
    |t| among paths no earlier look rejected, m = floor(alpha_k reps), its level
    2 t.sf(c, n_k - 1).  Also each level's standard error in a simulation of paths_c paths
    (the C code's): the threshold's sqrt(a (1 - a) / paths_c) / g(c), g the density of
    |t| over the paths still going on at c (counted in a window of +-2%), carried to the
    level by its derivative 2 t.pdf(c, n_k - 1)."""
    gen = np.random.default_rng(seed)
    s = np.zeros(reps)
    ss = np.zeros(reps)
    alive = np.ones(reps, dtype=bool)
    levels, ses, prev, k = [], [], 0, 0
    for n in range(1, looks[-1] + 1):
        x = gen.standard_normal(reps)
        s += x
        ss += x * x
        if n != looks[k]:
            continue
        a = spend(alpha, n / n_max, obf) - spend(alpha, prev / n_max, obf)
        prev = n
        df = n - 1
        mean = s / n
        t = np.abs(mean) / np.sqrt((ss - mean * s) / df / n)
        if k == 0:
            c = float(st.t.isf(a / 2, df))
            levels.append(a)
            ses.append(0.0)
        else:
            m = int(math.floor(a * reps + 1e-9))
            v = np.sort(t[alive])[::-1]
            c = float((v[m - 1] + v[m]) / 2)
            lv = 2 * float(st.t.sf(c, df))
            g = np.count_nonzero(alive & (t > 0.98 * c) & (t < 1.02 * c)) / (reps * 0.04 * c)
            se_c = math.sqrt(a * (1 - a) / paths_c) / g
            levels.append(lv)
            ses.append(2 * float(st.t.pdf(c, df)) * se_c)
        alive &= ~(t > c)
        k += 1
    return levels, ses


def make_seqbounds_t():
    """Reference levels of stats_seq_levels_t: 4,000,000 paths here against the C code's
    400,000 (STATS_SEQ_T_PATHS); the tolerance of each level (y) is 5 standard errors of the
    C code's estimate (seq_levels_t_sim), relative; asserted that Student's t at these
    levels rejects a true null in alpha (what the looks spend) of fresh normal paths, within
    the binomial 99% CI."""
    cases = [
        ("pocock_5to7_of_7", 0.05, 0, 7, [5, 6, 7]),
        ("pocock_5to8_of_8", 0.05, 0, 8, [5, 6, 7, 8]),  # experiments/resnet.toml, CPU
        ("pocock_5to12_of_12", 0.05, 0, 12, list(range(5, 13))),
        ("pocock_3to6_of_6", 0.05, 0, 6, [3, 4, 5, 6]),  # tests/cli/sequential.sh
        ("pocock_3to20_of_20", 0.05, 0, 20, list(range(3, 21))),
        ("obf_4_8_12_16", 0.05, 1, 16, [4, 8, 12, 16]),
        ("pocock_a01_3_4_of_20", 0.01, 0, 20, [3, 4]),
    ]
    reps, paths_c = 4000000, 400000
    rows = []
    check = np.random.default_rng(20261130)
    for i, (name, alpha, obf, n_max, looks) in enumerate(cases):
        lv, se = seq_levels_t_sim(alpha, looks, n_max, bool(obf), reps, 20261129 + i, paths_c)
        # fresh paths: the false-positive rate of Student's t at these levels
        fresh, hit = 1000000, None
        d = check.standard_normal((looks[-1], fresh))
        cs, s2 = np.cumsum(d, axis=0), np.cumsum(d * d, axis=0)
        hit = np.zeros(fresh, dtype=bool)
        for n, l in zip(looks, lv):
            mean = cs[n - 1] / n
            t = np.abs(mean) / np.sqrt((s2[n - 1] - mean * cs[n - 1]) / (n - 1) / n)
            hit |= 2 * st.t.sf(t, n - 1) < l
        lo, hi = st.binomtest(int(hit.sum()), fresh).proportion_ci(0.99, method="exact")
        spent = spend(alpha, looks[-1] / n_max, bool(obf))
        assert lo <= spent <= hi, (name, hit.mean(), lo, hi)
        tol = [max(5 * e / l, 1e-6) for e, l in zip(se, lv)]
        rows.append((name, [alpha, obf, n_max], looks, [float("%.3g" % x) for x in tol],
                     [float("%.10g" % v) for v in lv]))
    write("seqbounds-t", [
        "stats_seq_levels_t(alpha=params[0] spending=params[1] (0 pocock 1 obrien-fleming) "
        "n_max=params[2] looks=x): expected the level of each look, within the relative "
        "tolerance y of each",
        "simulated here with numpy's PCG64, 4,000,000 paths (the C code draws its 400,000 "
        "with GSL's MT19937): the same definition, not the same numbers; y = 5 standard "
        "errors of the C code's estimate, relative; the first look's level is exact (1e-6)",
        "asserted: Student's t at these levels rejects a true null in the alpha the looks "
        "spend of 1,000,000 "
        "fresh normal paths (inside the exact binomial 99% CI)",
    ], rows)


def make_seqbounds():
    cases = [
        ("pocock_first_look_only", 0.05, 0, 20, [3]),
        ("pocock_5_7_of_10", 0.05, 0, 10, [5, 7]),
        ("pocock_a01_3_4_of_20", 0.01, 0, 20, [3, 4]),
        ("obf_2_3_5_of_5", 0.05, 1, 5, [2, 3, 5]),
        ("pocock_5to7_of_7", 0.05, 0, 7, [5, 6, 7]),
        ("obf_4_8_12_16", 0.05, 1, 16, [4, 8, 12, 16]),
        ("pocock_5to8_of_8", 0.05, 0, 8, [5, 6, 7, 8]),
        ("pocock_3to6_of_6", 0.05, 0, 6, [3, 4, 5, 6]),  # tests/cli/sequential.sh
    ]
    rows = []
    for name, alpha, obf, n_max, looks in cases:
        lv = seq_levels_grid(alpha, looks, n_max, bool(obf))
        if len(looks) >= 2:
            q = seq_two_looks_quad(alpha, looks[0], looks[1], n_max, bool(obf))
            assert abs(q - lv[1]) <= 1e-8 * q, (name, q, lv[1])
        g = seq_levels_genz(alpha, looks, n_max, bool(obf))
        assert all(abs(x - y) <= 1e-4 * y for x, y in zip(g, lv)), (name, g, lv)
        rows.append((name, [alpha, obf, n_max], looks, [], [float("%.10g" % v) for v in lv]))
    write("seqbounds", [
        "stats_seq_level(alpha=params[0] spending=params[1] (0 pocock 1 obrien-fleming) "
        "n_max=params[2] looks=x): expected the level of each look k (looks x[0..k])",
        "exact boundaries by recursion on a 3001-point grid (scipy.integrate.simpson, "
        "scipy.optimize.brentq); asserted equal to scipy.integrate.quad at the second look "
        "(1e-8) and to scipy.stats.multivariate_normal.cdf's rectangle probabilities (Genz; "
        "1e-4) at every look",
        "levels: 1e-6 relative",
    ], rows)


def main():
    make_wilcoxon()
    make_sign()
    make_mwu()
    make_hl()
    make_median_ci()
    make_holm()
    make_corr()
    make_median()
    make_median_se()
    make_vc()
    make_ttest()
    make_welch()
    make_fdr()
    make_trimmed()
    make_yuen()
    make_seqbounds()
    make_seqbounds_t()


if __name__ == "__main__":
    main()
