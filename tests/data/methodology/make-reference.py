#!/usr/bin/python3
"""Reference numbers of the autotuning_methodology package (AutoTuningAssociation) for one Kernel Tuner cache.

Usage:
    METHODOLOGY_REPO=GITDIR /usr/bin/python3 make-reference.py CACHE.json.gz [--t4 CACHE_T4.json.gz] [--trajectory TRAJ.json] [-o OUT.json]

What it computes, with the package's OWN code (imported from a `git archive` of the mirror):
  * cutoff points (objective value, function evaluations, time) at the start/end cutoff percentiles
        SearchspaceStatistics.cutoff_point_fevals_time            (searchspace_statistics.py)
  * the x axes: time_range = linspace(t_start, t_end, resolution), fevals_range = arange(f_start, f_end)
        as in report_experiments.get_aggregation_data
  * the calculated random-search baseline on both axes
        RandomSearchCalculatedBaseline.get_curve                  (baseline.py)
  * the score of a best-so-far trajectory (default: evaluating the cache in its stored order, truncated at
    the package's budget), through the package's runner.write_results -> StochasticOptimizationAlgorithm
    (curves.py) -> report_experiments.get_strategies_aggregated_performance -> mean / std as in
    report_experiments.get_strategy_scores.

Package code that is NOT importable here and is replaced (and said so in the output):
  * progressbar, yappi (only used while actually running Kernel Tuner) -> empty stub modules.
  * kernel_tuner is not needed: runs are built from the cache directly (the package would run Kernel Tuner in
    simulation mode; we feed the resulting T4-style evaluation dicts to the package's write_results instead).
  * ResultsDescription's on-disk .npz cache -> an in-memory stand-in object with the same attributes.
  * sklearn: used when installed (Debian: python3-sklearn). If missing, IsotonicRegression is replaced by a
    faithful PAVA + linear-interpolation reimplementation and the bagged (random) package score is skipped.

Default settings are those of the package's paper experiment file experiment_files/methodology_paper_evaluation.json
(cutoff_percentile 0.96, cutoff_percentile_start 0.5, resolution 1e3, cutoff_type "fevals", minimization true,
objective "time", all five time keys, confidence_level 0.95).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import types
import warnings
from pathlib import Path

import numpy as np

# a git directory (or clone) of https://github.com/AutoTuningAssociation/autotuning_methodology
MIRROR = Path(os.environ.get("METHODOLOGY_REPO", "autotuning_methodology/.git"))
HERE = Path(__file__).resolve().parent
_TMP = Path(tempfile.gettempdir()) / "methodology-pkg"  # the package extracted here
PKG_DIRS = {"main": _TMP / "main", "standardization": _TMP / "v120"}

T4_TIME_KEYS_V110 = ["compilation", "benchmark", "framework", "search_algorithm", "validation"]
KT_TIME_KEY_OF_T4 = {  # SearchspaceStatistics.T4_time_keys_to_kernel_tuner_time_keys_mapping (v1.1.0)
    "compilation": "compile_time",
    "benchmark": "benchmark_time",
    "framework": "framework_time",
    "search_algorithm": "strategy_time",
    "validation": "verification_time",
}
T4_TIME_KEYS_V120_ALL = ["compilation", "runtimes", "framework", "search_algorithm", "validation"]  # "all"

REIMPLEMENTED: list[str] = []


# ----------------------------------------------------------------------------------------------------------------
# loading the package
# ----------------------------------------------------------------------------------------------------------------
def git(*args) -> str:
    return subprocess.run(["git", "--git-dir", str(MIRROR), *args], check=True, capture_output=True, text=True).stdout


def ensure_package(ref: str) -> Path:
    dest = PKG_DIRS[ref]
    if not (dest / "src" / "autotuning_methodology").is_dir():
        dest.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(
            ["git", "--git-dir", str(MIRROR), "archive", ref, "src", "pyproject.toml"], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest / "src"


class _IsotonicRegressionFallback:
    """Stand-in for sklearn.isotonic.IsotonicRegression (only used when sklearn is missing).

    Same semantics as sklearn 1.2 for 1-D X with unit weights: duplicate X are merged (mean y, weight = count),
    pool-adjacent-violators, clip to [y_min, y_max], predict by linear interpolation, X clipped to the fitted range.
    """

    def __init__(self, *, y_min=None, y_max=None, increasing=True, out_of_bounds="nan"):
        self.y_min, self.y_max, self.increasing, self.out_of_bounds = y_min, y_max, increasing, out_of_bounds

    def fit(self, X, y):
        X = np.asarray(X, dtype=float).reshape(-1)
        y = np.asarray(y, dtype=float)
        order = np.lexsort((y, X))
        X, y = X[order], y[order]
        ux, inv, counts = np.unique(X, return_inverse=True, return_counts=True)
        uy = np.bincount(inv, weights=y) / counts
        w = counts.astype(float)
        sign = 1.0 if self.increasing else -1.0
        vals, wts, lens = [], [], []
        for v, ww in zip(sign * uy, w):
            vals.append(v), wts.append(ww), lens.append(1)
            while len(vals) > 1 and vals[-2] > vals[-1]:
                v2, w2, l2 = vals.pop(), wts.pop(), lens.pop()
                v1, w1, l1 = vals.pop(), wts.pop(), lens.pop()
                vals.append((v1 * w1 + v2 * w2) / (w1 + w2)), wts.append(w1 + w2), lens.append(l1 + l2)
        fitted = sign * np.repeat(vals, lens)
        lo = -np.inf if self.y_min is None else self.y_min
        hi = np.inf if self.y_max is None else self.y_max
        self.X_thresholds_, self.y_thresholds_ = ux, np.clip(fitted, lo, hi)
        return self

    def predict(self, T):
        T = np.asarray(T, dtype=float).reshape(-1)
        if self.out_of_bounds == "clip":
            T = np.clip(T, self.X_thresholds_[0], self.X_thresholds_[-1])
        return np.interp(T, self.X_thresholds_, self.y_thresholds_)


def _install_stubs(no_sklearn: bool):
    for name in ("progressbar", "yappi"):
        try:
            if name not in sys.modules:
                __import__(name)
        except ImportError:
            sys.modules[name] = types.ModuleType(name)
            REIMPLEMENTED.append(f"{name}: empty stub module (only used by runner.collect_results, never called)")
    have_sklearn = False
    if not no_sklearn:
        try:
            import sklearn.ensemble  # noqa: F401
            import sklearn.isotonic  # noqa: F401

            have_sklearn = True
        except ImportError:
            pass
    if not have_sklearn:
        for k in [k for k in sys.modules if k == "sklearn" or k.startswith("sklearn.")]:
            del sys.modules[k]
        sk = types.ModuleType("sklearn")
        iso = types.ModuleType("sklearn.isotonic")
        ens = types.ModuleType("sklearn.ensemble")
        iso.IsotonicRegression = _IsotonicRegressionFallback

        class BaggingRegressor:  # noqa: D101
            def __init__(self, *a, **k):
                raise NotImplementedError("sklearn not available: bagged package curve skipped")

        ens.BaggingRegressor = BaggingRegressor
        sk.isotonic, sk.ensemble = iso, ens
        sys.modules.update({"sklearn": sk, "sklearn.isotonic": iso, "sklearn.ensemble": ens})
        REIMPLEMENTED.append("sklearn.isotonic.IsotonicRegression: PAVA reimplementation (sklearn missing)")
    return have_sklearn


def load_package(ref: str, no_sklearn: bool = False) -> dict:
    """Import the package version `ref` ('main' = v1.1.0, 'standardization' = v1.2.0) from the mirror."""
    src = str(ensure_package(ref))
    for k in [k for k in sys.modules if k == "autotuning_methodology" or k.startswith("autotuning_methodology.")]:
        del sys.modules[k]
    for other in PKG_DIRS.values():
        while str(other / "src") in sys.path:
            sys.path.remove(str(other / "src"))
    sys.path.insert(0, src)
    have_sklearn = _install_stubs(no_sklearn)
    import importlib

    mods = {
        name: importlib.import_module(f"autotuning_methodology.{name}")
        for name in ("searchspace_statistics", "caching", "curves", "baseline", "runner", "report_experiments")
    }
    mods["have_sklearn"] = have_sklearn
    mods["src"] = src
    mods["commit"] = git("rev-parse", ref).strip()
    return mods


# ----------------------------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------------------------
def read_json_gz(path: Path) -> dict:
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return json.load(fh)


def fl(x):
    """JSON-friendly float (None for NaN/inf)."""
    if x is None:
        return None
    x = float(x)
    return x if np.isfinite(x) else None


def fl_list(a):
    return [fl(v) for v in np.asarray(a, dtype=float).tolist()]


class InMemoryResultsDescription:
    """Stand-in for caching.ResultsDescription without the .npz file (attributes for v1.1.0 and v1.2.0 Curves)."""

    def __init__(self, caching_mod, name, minimization, objective_time_keys, objective_performance_keys):
        self._caching = caching_mod
        self.strategy_name = self.group_name = name
        self.strategy_display_name = self.group_display_name = name
        self.kernel_name = self.application_name = "kernel"
        self.device_name = "device"
        self.stochastic = True
        self.minimization = minimization
        self.objective_time_keys = objective_time_keys
        self.objective_performance_keys = objective_performance_keys
        self.numpy_arrays_keys = [
            "fevals_results",
            "objective_time_results",
            "objective_performance_results",
            "objective_performance_best_results",
            "objective_performance_stds",
            "objective_time_results_per_key",
            "objective_performance_results_per_key",
        ]
        self.arrays = None

    def set_results(self, arrays: dict):
        self.arrays = arrays

    def has_results(self):
        return self.arrays is not None

    def get_results(self):
        return self._caching.Results([self.arrays[k] for k in self.numpy_arrays_keys])


def kt_cache_entry_to_t4_evaluation(entry: dict, time_keys: list[str], drop_live_times: bool) -> dict:
    """What Kernel Tuner (simulation mode) reports for one evaluation, in the T4 shape that runner.write_results reads.

    Times stay in milliseconds: v1.1.0 write_results divides by 1000 itself.
    """
    value = entry.get("time")
    valid = not isinstance(value, str)
    times = {}
    for t4key in time_keys:
        v = entry.get(KT_TIME_KEY_OF_T4[t4key], 0)
        if drop_live_times and t4key in ("framework", "search_algorithm"):
            v = 0.0
        times[t4key] = v
    return {
        "invalidity": "correct" if valid else "runtime",
        "times": times,
        "measurements": [{"name": "time", "value": value if valid else (value if isinstance(value, str) else "")}],
    }


def trajectory_to_t4_evaluations(pairs: list) -> list[dict]:
    """[[cumulative_time_s, value_or_null], ...] -> T4-shaped evaluations (time in ms, as one 'benchmark' key)."""
    evals, prev = [], 0.0
    for t, v in pairs:
        dt_ms = (float(t) - prev) * 1000.0
        prev = float(t)
        valid = v is not None and not (isinstance(v, float) and np.isnan(v))
        evals.append(
            {
                "invalidity": "correct" if valid else "runtime",
                "times": {"benchmark": dt_ms},
                "measurements": [{"name": "time", "value": float(v) if valid else "RuntimeFailedConfig"}],
            }
        )
    return evals


def step_curve(times_1run: np.ndarray, best_1run: np.ndarray, time_range: np.ndarray) -> np.ndarray:
    """Exact best-so-far at each time point (last completed evaluation with cumulative time <= t).

    Before the first valid evaluation: the first valid best (like IsotonicRegression's out_of_bounds='clip').
    After the last evaluation: the last best (like the package's 'real stopping point' hold).
    """
    mask = ~np.isnan(times_1run) & ~np.isnan(best_1run)
    t, b = times_1run[mask], best_1run[mask]
    idx = np.searchsorted(t, time_range, side="right") - 1
    idx = np.clip(idx, 0, len(t) - 1)
    return b[idx]


# ----------------------------------------------------------------------------------------------------------------
# the computation
# ----------------------------------------------------------------------------------------------------------------
def score_curve(m, stats, baseline, time_range, fevals_range, arrays_rd, confidence_level, seeds, have_sklearn):
    """Score of one strategy on one search space: the package's own pipeline + two deterministic variants."""
    curves_mod, report_mod = m["curves"], m["report_experiments"]
    curve = curves_mod.StochasticOptimizationAlgorithm(arrays_rd)
    dist = stats.objective_performances_total_sorted
    out = {}

    # (1) the package's own pipeline (bagged isotonic regression: random, seeded through np.random)
    if have_sklearn:
        per_seed, per_seed_err, first = [], [], None
        for seed in seeds:
            np.random.seed(seed)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                perf, lower, upper, stopfrac = report_mod.get_strategies_aggregated_performance(
                    [(baseline, [curve], stats, time_range, fevals_range)], confidence_level
                )
            std_curve = perf[0]
            per_seed.append(float(np.mean(std_curve)))
            per_seed_err.append(float(np.std(std_curve)))
            if first is None:
                first = (std_curve, stopfrac[0])
        out["package_bagged"] = {
            "what": "report_experiments.get_strategies_aggregated_performance (bagged isotonic regression), "
            "score = mean over time_range of (curve - baseline)/(optimum - baseline), error = std over time_range",
            "seeds": list(seeds),
            "score_seed0": per_seed[0],
            "score_seed0_rounded3": round(per_seed[0], 3),
            "error_seed0_rounded3": round(per_seed_err[0], 3),
            "score_mean_over_seeds": float(np.mean(per_seed)),
            "score_std_over_seeds": float(np.std(per_seed)),
            "score_min_over_seeds": float(np.min(per_seed)),
            "score_max_over_seeds": float(np.max(per_seed)),
            "real_stopping_point_fraction": float(first[1]),
            "standardised_curve_seed0_every_100th": fl_list(first[0][::100]),
        }

    # (2) deterministic: the package's non-bagged isotonic fit (computed by get_curve_over_time, then overwritten
    #     by the bagged prediction); hold after the real stopping point as the package does.
    times_1d, values_1d, stop_time, _, _ = curve._get_curve_over_time_values_in_range(time_range, return_1d=True)
    indices = curves_mod.get_indices_in_distribution(values_1d, dist)
    iso = curve.get_isotonic_curve(times_1d, indices, time_range, ymin=np.min(indices), ymax=np.max(indices))
    iso = np.clip(np.array(np.round(iso), dtype=int), 0, dist.shape[0] - 1)
    iso_curve = dist[iso]
    if stop_time < time_range[-1]:
        k = int(np.nonzero(time_range > stop_time)[0][0])
        iso_curve[k:] = iso_curve[k]
    std_iso = baseline.get_standardised_curve(time_range, iso_curve, "time")
    out["isotonic_no_bagging"] = {
        "what": "same as package but with the plain IsotonicRegression fit (curves.get_isotonic_curve) instead of "
        "BaggingRegressor; deterministic",
        "score": float(np.mean(std_iso)),
        "error_std_over_time": float(np.std(std_iso)),
        "real_stopping_point_time_s": fl(stop_time),
    }

    # (3) deterministic: exact step-function best-so-far (one run) / median over runs of the index (several runs)
    x_time, y_best = curve._x_time, curve._y
    per_run = np.array([step_curve(x_time[:, r], y_best[:, r], time_range) for r in range(x_time.shape[1])])
    if per_run.shape[0] == 1:
        step = per_run[0]
    else:
        idx = curves_mod.get_indices_in_distribution(per_run, dist)
        step = dist[np.array(np.round(np.nanmedian(idx, axis=0)), dtype=int)]
    std_step = baseline.get_standardised_curve(time_range, step, "time")
    out["step_function"] = {
        "what": "exact best-so-far at each time point (no regression); deterministic harness candidate",
        "score": float(np.mean(std_step)),
        "error_std_over_time": float(np.std(std_step)),
    }
    return out


def run_v110(args, m) -> dict:
    ss_mod, baseline_mod, runner_mod = m["searchspace_statistics"], m["baseline"], m["runner"]
    tmp = Path(tempfile.mkdtemp(prefix="atm_"))
    try:
        (tmp / "cachefiles" / "kernel").mkdir(parents=True)
        with gzip.open(args.cache, "rb") if str(args.cache).endswith(".gz") else open(args.cache, "rb") as src, open(
            tmp / "cachefiles" / "kernel" / "device.json", "wb"
        ) as dst:
            shutil.copyfileobj(src, dst)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            stats = ss_mod.SearchspaceStatistics(
                kernel_name="kernel",
                device_name="device",
                minimization=True,
                objective_time_keys=T4_TIME_KEYS_V110,
                objective_performance_keys=["time"],
                bruteforced_caches_path=tmp / "cachefiles",
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    res = {}
    res["searchspace"] = {
        "size": int(stats.size),
        "n_valid": int(stats.objective_performances_total_sorted.shape[0]),
        "n_invalid": int(stats.objective_performances_number_of_nan),
        "optimum": fl(stats.total_performance_absolute_optimum()),
        "median": fl(stats.total_performance_median()),
        "mean": fl(stats.total_performance_mean()),
        "objective_time_keys_used": stats.objective_time_keys,
        "total_time_median_s": fl(stats.total_time_median()),
        "total_time_mean_s": fl(stats.total_time_mean()),
        "time_per_feval_mean_per_feval_s": fl(stats.get_time_per_feval("mean_per_feval")),
        "n_time_values": int(stats.objective_times_total_sorted.shape[0]),
    }

    # cutoff points (SearchspaceStatistics.cutoff_point_fevals_time)
    def cp(p):
        v, f, t = stats.cutoff_point_fevals_time(p)
        return {"percentile": p, "objective_value": fl(v), "fevals": int(f), "time_s": fl(t)}

    start, end = cp(args.cutoff_percentile_start), cp(args.cutoff_percentile)
    res["cutoffs"] = {
        "start": start,
        "end": end,
        "other_percentiles": [cp(p) for p in (0.01, 0.5, 0.8, 0.9, 0.95, 0.96, 0.99, 1.0)],
    }
    # budget the package gives a strategy run (experiments.execute_experiment, cutoff_margin 1.1)
    budget_fevals = min(int(np.ceil(end["fevals"] * 1.1)), stats.size)
    budget_time = end["time_s"] * 1.1
    res["run_budget"] = {
        "cutoff_type": args.cutoff_type,
        "max_fevals": budget_fevals if args.cutoff_type == "fevals" else None,
        "time_limit_s": budget_time if args.cutoff_type == "time" else None,
    }

    # axes (report_experiments.get_aggregation_data)
    time_range = np.linspace(start=start["time_s"], stop=end["time_s"], num=int(args.resolution))
    fevals_range = np.arange(start=start["fevals"], stop=end["fevals"])

    # baseline (RandomSearchCalculatedBaseline, defaults include_nan=False, time_per_feval_operator="mean_per_feval")
    baseline = baseline_mod.RandomSearchCalculatedBaseline(stats)
    b_time = baseline.get_curve(time_range, "time")
    fevals_equiv = baseline.time_to_fevals(time_range)
    b_time_raw = baseline._get_random_curve(fevals_equiv, smoothing=False)
    b_fevals = baseline.get_curve(fevals_range, "fevals") if fevals_range.size else np.array([])
    pick = np.unique(np.round(np.linspace(0, time_range.size - 1, 11)).astype(int))
    res["time_axis"] = {
        "start_s": fl(time_range[0]),
        "end_s": fl(time_range[-1]),
        "num": int(time_range.size),
    }
    res["baseline_time_samples"] = [
        {"i": int(i), "t_s": fl(time_range[i]), "fevals": int(fevals_equiv[i]), "value": fl(b_time[i]),
         "value_unsmoothed": fl(b_time_raw[i])}
        for i in pick
    ]
    res["fevals_axis"] = {"start": int(start["fevals"]), "stop_exclusive": int(end["fevals"]), "num": int(fevals_range.size)}
    res["baseline_fevals_samples"] = [
        {"fevals": int(f), "value": fl(v)}
        for f, v in list(zip(fevals_range, b_fevals))[:: max(1, fevals_range.size // 10)]
    ]
    res["arrays"] = {
        "time_range_s": fl_list(time_range),
        "baseline_over_time": fl_list(b_time),
        "baseline_over_time_unsmoothed": fl_list(b_time_raw),
        "baseline_fevals_equivalent": [int(x) for x in fevals_equiv],
        "fevals_range": [int(x) for x in fevals_range],
        "baseline_over_fevals": fl_list(b_fevals),
    }

    # the trajectory
    if args.trajectory:
        traj = json.loads(Path(args.trajectory).read_text())
        runs = traj["runs"] if isinstance(traj, dict) else ([traj] if traj and not isinstance(traj[0][0], list) else traj)
        repeated = [trajectory_to_t4_evaluations(r) for r in runs]
        time_keys, desc = ["benchmark"], f"trajectory file {args.trajectory} ({len(runs)} run(s))"
    else:
        cache = read_json_gz(args.cache)["cache"]
        entries = list(cache.values())
        if args.cutoff_type == "fevals":
            entries = entries[:budget_fevals]
        else:
            cum, keep = 0.0, []
            for e in entries:
                if cum > budget_time:
                    break
                keep.append(e)
                cum += sum(e.get(KT_TIME_KEY_OF_T4[k], 0) for k in T4_TIME_KEYS_V110) / 1000
            entries = keep
        repeated = [[kt_cache_entry_to_t4_evaluation(e, T4_TIME_KEYS_V110, args.drop_live_times) for e in entries]]
        time_keys = T4_TIME_KEYS_V110
        desc = (
            f"configurations evaluated in the cache's stored order, truncated at the package's run budget "
            f"({args.cutoff_type}); per-evaluation time = sum of cache "
            + ("compile+benchmark+verification" if args.drop_live_times else "compile+benchmark+framework+strategy+verification")
            + " times"
        )
    rd = InMemoryResultsDescription(m["caching"], "trajectory", True, time_keys, ["time"])
    runner_mod.write_results(repeated, rd)  # the package's own bookkeeping (cumulative time, best-so-far)
    x_time, y_best = rd.arrays["objective_time_results"], rd.arrays["objective_performance_best_results"]
    improvements = []
    for i in range(x_time.shape[0]):
        if not np.isnan(y_best[i, 0]) and (i == 0 or np.isnan(y_best[i - 1, 0]) or y_best[i, 0] != y_best[i - 1, 0]):
            improvements.append([i + 1, fl(x_time[i, 0]), fl(y_best[i, 0])])
    res["trajectory"] = {
        "description": desc,
        "n_evaluations": int(x_time.shape[0]),
        "n_runs": int(x_time.shape[1]),
        "end_time_s_run0": fl(np.nanmax(x_time[:, 0])),
        "final_best_run0": fl(y_best[-1, 0]),
        "improvements_run0_[feval,time_s,best]": improvements,
    }
    seeds = list(range(args.seeds))
    try:
        res["score"] = score_curve(
            m, stats, baseline, time_range, fevals_range, rd, args.confidence_level, seeds, m["have_sklearn"]
        )
    except Exception as e:  # the package raises/asserts on some trajectories (see spec), report that
        res["score"] = {"error": f"{type(e).__name__}: {e}"}
    return res


def run_v120(args, m) -> dict:
    """Cutoffs/baseline/score with the v1.2.0 'standardization' branch on the T4 version of the cache."""
    ss_mod, baseline_mod, runner_mod = m["searchspace_statistics"], m["baseline"], m["runner"]
    tmp = Path(tempfile.mkdtemp(prefix="atm12_"))
    try:
        path = tmp / "full_search_space.json"
        with gzip.open(args.t4, "rb") as src, open(path, "wb") as dst:
            shutil.copyfileobj(src, dst)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            stats = ss_mod.SearchspaceStatistics(
                application_name="kernel",
                device_name="device",
                minimization=True,
                objective_time_keys=T4_TIME_KEYS_V120_ALL,
                objective_performance_keys=["time"],
                full_search_space_file_path=path,
            )
        t4 = json.loads(path.read_text())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out = {
        "package_ref": "standardization (v1.2.0)",
        "commit": m["commit"],
        "objective_time_keys": T4_TIME_KEYS_V120_ALL,
        "n_valid": int(stats.objective_performances_total_sorted.shape[0]),
        "optimum": fl(stats.total_performance_absolute_optimum()),
        "median": fl(stats.total_performance_median()),
        "total_time_median_s": fl(stats.total_time_median()),
        "time_per_feval_mean_per_feval_s": fl(stats.get_time_per_feval("mean_per_feval")),
        "settings": [],
    }
    timeunit = t4.get("metadata", {}).get("timeunit", "seconds")
    for p_start, p_end, label in ((0.01, 0.95, "v1.2.0 defaults (experiments_defaults.json)"),
                                   (args.cutoff_percentile_start, args.cutoff_percentile, "same percentiles as v1.1.0 run")):
        s = {"label": label, "cutoff_percentile_start": p_start, "cutoff_percentile": p_end}
        try:
            f0, f1, t0, t1 = stats.cutoff_point_fevals_time_start_end(p_start, p_end)
            s.update({"fevals_start": int(f0), "fevals_end": int(f1), "time_start_s": fl(t0), "time_end_s": fl(t1),
                      "value_start": fl(stats.cutoff_point(p_start)[0]), "value_end": fl(stats.cutoff_point(p_end)[0])})
            time_range = np.linspace(t0, t1, int(args.resolution))
            fevals_range = np.arange(f0, f1 + 1)
            baseline = baseline_mod.RandomSearchCalculatedBaseline(stats)
            b = baseline.get_curve(time_range, "time")
            pick = np.unique(np.round(np.linspace(0, time_range.size - 1, 11)).astype(int))
            s["baseline_time_samples"] = [{"i": int(i), "t_s": fl(time_range[i]), "value": fl(b[i])} for i in pick]
            # cache-order trajectory with the v1.2.0 budget: cutoff_type "time" by default there,
            # time_limit = cutoff_time * (1 + 0.1)
            budget_time = t1 * 1.1
            evals, cum = [], 0.0
            for r in t4["results"]:
                if cum > budget_time:
                    break
                times = {k: ss_mod.convert_from_time_unit(r["times"].get(k, 0), timeunit) for k in T4_TIME_KEYS_V120_ALL}
                if "runtimes" not in r["times"]:
                    times["runtimes"] = 0.0
                evals.append({"invalidity": r["invalidity"], "times": times, "measurements": r["measurements"]})
                cum += sum(sum(v) if isinstance(v, list) else v for v in times.values())
            rd = InMemoryResultsDescription(m["caching"], "trajectory", True, T4_TIME_KEYS_V120_ALL, ["time"])
            runner_mod.write_results([evals], rd)
            s["trajectory_n_evaluations"] = len(evals)
            try:
                s["score"] = score_curve(m, stats, baseline, time_range, fevals_range, rd, args.confidence_level,
                                         list(range(args.seeds)), m["have_sklearn"])
            except Exception as e:
                s["score"] = {"error": f"{type(e).__name__}: {e}"}
        except Exception as e:
            s["error"] = f"{type(e).__name__}: {e}"
        out["settings"].append(s)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cache", type=Path, help="Kernel Tuner cache file (.json or .json.gz)")
    ap.add_argument("--cutoff-percentile", type=float, default=0.96)
    ap.add_argument("--cutoff-percentile-start", type=float, default=0.5)
    ap.add_argument("--resolution", type=float, default=1e3)
    ap.add_argument("--cutoff-type", choices=["fevals", "time"], default="fevals",
                    help="run budget of the sample trajectory (package: max_fevals or time_limit, x1.1 margin)")
    ap.add_argument("--confidence-level", type=float, default=0.95)
    ap.add_argument("--trajectory", type=Path, help="JSON: [[cum_time_s, value|null], ...] or {'runs': [...]}")
    ap.add_argument("--drop-live-times", action="store_true",
                    help="sample trajectory: zero framework/strategy time (Kernel Tuner simulation mode measures "
                    "them live instead of reading the cache)")
    ap.add_argument("--seeds", type=int, default=10, help="number of np.random seeds for the bagged package score")
    ap.add_argument("--t4", type=Path, help="T4 version of the same cache: also compute v1.2.0 numbers")
    ap.add_argument("--no-sklearn", action="store_true", help="test the sklearn-less fallback")
    ap.add_argument("-o", "--output", type=Path)
    args = ap.parse_args(argv)

    m = load_package("main", args.no_sklearn)
    result = {
        "cache": str(args.cache),
        "package": {"ref": "main", "version": "1.1.0", "commit": m["commit"],
                    "note": "computationally identical to tag 1.0.0 (the paper release) for everything used here"},
        "settings": {
            "cutoff_percentile": args.cutoff_percentile,
            "cutoff_percentile_start": args.cutoff_percentile_start,
            "resolution": int(args.resolution),
            "cutoff_type": args.cutoff_type,
            "minimization": True,
            "objective_performance_keys": ["time"],
            "objective_time_keys": T4_TIME_KEYS_V110,
            "confidence_level": args.confidence_level,
            "baseline": "RandomSearchCalculatedBaseline(include_nan=False, time_per_feval_operator='mean_per_feval')",
            "sklearn_available": m["have_sklearn"],
        },
    }
    result.update(run_v110(args, m))
    if args.t4:
        m12 = load_package("standardization", args.no_sklearn)
        result["v1_2_0"] = run_v120(args, m12)
    result["reimplemented_or_stubbed"] = sorted(set(REIMPLEMENTED)) + [
        "ResultsDescription .npz storage: in-memory stand-in (InMemoryResultsDescription)",
        "Kernel Tuner run: replaced by feeding cache entries (T4-shaped) to runner.write_results",
        "variants 'isotonic_no_bagging' and 'step_function' are this script's deterministic alternatives",
    ]
    text = json.dumps(result, indent=1)
    if args.output:
        args.output.write_text(text)
    # short human summary on stdout
    c, b = result["cutoffs"], result["baseline_time_samples"]
    print(f"cache: {args.cache}")
    print(f"valid {result['searchspace']['n_valid']}/{result['searchspace']['size']}, optimum "
          f"{result['searchspace']['optimum']}, median {result['searchspace']['median']}, median time/eval "
          f"{result['searchspace']['total_time_median_s']:.6g} s, mean_per_feval {result['searchspace']['time_per_feval_mean_per_feval_s']:.6g} s")
    for k in ("start", "end"):
        print(f"cutoff {k}: p={c[k]['percentile']} value={c[k]['objective_value']:.6g} fevals={c[k]['fevals']} "
              f"time={c[k]['time_s']:.6g} s")
    print("baseline over time (t_s, fevals, value): " + ", ".join(
        f"({x['t_s']:.4g}, {x['fevals']}, {x['value']:.6g})" for x in b[:: max(1, len(b) // 5)]))
    print(f"trajectory: {result['trajectory']['description']}; {result['trajectory']['n_evaluations']} evals, "
          f"final best {result['trajectory']['final_best_run0']}")
    sc = result["score"]
    if "error" in sc:
        print("score: " + sc["error"])
    else:
        if "package_bagged" in sc:
            pb = sc["package_bagged"]
            print(f"score (package, bagged, seed 0): {pb['score_seed0']:.6f}  (rounded {pb['score_seed0_rounded3']} "
                  f"± {pb['error_seed0_rounded3']}); over {len(pb['seeds'])} seeds mean {pb['score_mean_over_seeds']:.6f} "
                  f"[{pb['score_min_over_seeds']:.6f}, {pb['score_max_over_seeds']:.6f}]")
        print(f"score (isotonic, no bagging): {sc['isotonic_no_bagging']['score']:.6f}; "
              f"score (step function): {sc['step_function']['score']:.6f}")
    if args.t4:
        for s in result["v1_2_0"]["settings"]:
            if "error" in s:
                print(f"v1.2.0 {s['label']}: {s['error']}")
                continue
            line = (f"v1.2.0 {s['label']}: fevals {s['fevals_start']}..{s['fevals_end']}, time "
                    f"{s['time_start_s']:.6g}..{s['time_end_s']:.6g} s")
            sc = s.get("score", {})
            if "package_bagged" in sc:
                line += f", score seed0 {sc['package_bagged']['score_seed0']:.6f}"
            if "step_function" in sc:
                line += f", step {sc['step_function']['score']:.6f}"
            if "error" in sc:
                line += f", score error: {sc['error']}"
            print(line)
    return result


if __name__ == "__main__":
    main()
