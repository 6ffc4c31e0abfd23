#!/usr/bin/python3
"""tests/bench/sim-verdicts.py: a simulation study of the harness's verdicts on planted data
with a known truth, through the real CLI (a benchmark: `make bench-verdicts`, not part of
`make check`).  Prints markdown tables; writes every number to the JSON file --out.

    /usr/bin/python3 tests/bench/sim-verdicts.py --quick --out /tmp/sim-quick.json
    nohup /usr/bin/python3 tests/bench/sim-verdicts.py --out /tmp/sim-verdicts.json \
        > /tmp/sim-verdicts.log 2>&1 &

Deterministic given --seed (the planted data, the harness's seeds, the replications): the
verdicts and every rate are the same on every run; only the timings differ.

Fixed-N part.  Per configuration (process noise x true effect x N blocks) one CSV in the
import format (docs/import-format.md) holds R replications as R workloads of one cell each
("r00042/sim"), modes `base` (the baseline) and `mode`, N blocks, S samples per unit.  The
import format cannot declare an A/A copy (no `aa_of`), so there is none: each cell's noise
floor comes from the baseline's spread (sqrt 2 x the sd of its log unit medians,
stats_noise_floor).  A unit's level is

    level x effect(mode) x process x block,

process ~ lognormal(sigma) for sigma in {0, 1%, 5%}, or "mixture": lognormal(1%) times 1.3
for one process in five (slow for its whole life, on every mode, the baseline included);
block ~ lognormal(block_sigma, 1% by default), shared by the block's units; each sample is
the unit's level times lognormal(0.05%) within-unit noise.  Effects: 1.0 (null), 0.95, 0.90.
Then `harness import` and `harness report -f json --family workload` (each replication a
family of one, so its verdict is that of a single comparison; the default test, Student's
paired t), the same with `--test trimmed-t` (the 20%-trimmed t) and, for N = 6 and 10,
`--test signed-rank`; and `harness verify --hypotheses` with one (non-primary,
raw p) hypothesis per replication, "mode is faster by 3% or more" (prediction faster,
min_effect 0.03): the fixed-N design's decision on the sequential part's hypothesis.

Sequential part.  tests/bench/sim-verdicts.toml (modes base, aa = A/A copy of base, mode;
repeats 3) with the command unit tests/bench/planted_worker.py and the primary hypothesis
tests/bench/sim-verdicts-hyp.toml (the same "faster by 3%"), one copy per replication with
its own seed and options, run with `harness run --until-decided 20`: per configuration (1%
process noise or the mixture x null, 5%, 10%) how often the hypothesis was decided wrongly,
the blocks it took, how often it reached 20 blocks undecided, and the fixed N (from the
fixed-N part's hypothesis decisions, interpolated) with the same rate of right decisions.

Rates carry 95% Clopper-Pearson intervals."""
import argparse
import concurrent.futures as cf
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
from scipy import stats

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))

# process noise: name -> (lognormal sigma, share of slow processes, their slowdown)
NOISES = {
    "sigma0": (0.0, 0.0, 1.0),
    "sigma1": (0.01, 0.0, 1.0),
    "sigma5": (0.05, 0.0, 1.0),
    "mixture": (0.01, 0.2, 1.3),
}
NOISE_TEXT = {
    "sigma0": "0 (0.05% within-unit only)",
    "sigma1": "lognormal 1%",
    "sigma5": "lognormal 5%",
    "mixture": "1% + 1 in 5 slow by 30%",
}
EFFECTS = [1.0, 0.95, 0.90]
NS_MAIN = [3, 6, 10, 20]
NS_HYP = [3, 4, 6, 8, 10, 14, 20]   # finer, for the noises of the sequential part
SEQ_NOISES = ["sigma1", "mixture"]
RANK_NS = [6, 10]
LEVEL_NS = 100000.0
WITHIN = 0.0005
SAMPLES = 5
MIN_EFFECT = 0.03
SEQ_MAX = 20


def cp(k, n, conf=0.95):
    """Clopper-Pearson interval of k successes in n."""
    if n == 0:
        return [None, None]
    a = 1 - conf
    lo = 0.0 if k == 0 else float(stats.beta.ppf(a / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(stats.beta.ppf(1 - a / 2, k + 1, n - k))
    return [lo, hi]


def rate(k, n):
    return {"k": int(k), "n": int(n), "rate": (k / n) if n else None, "ci": cp(k, n)}


def sub_seed(*parts):
    """A 63-bit integer seed from the parts (SHA-256): stable across runs and platforms."""
    h = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(h[:8], "little") >> 1


class Harness:
    """The CLI, with HARNESS_KERNEL_DIR set; every call checked."""

    def __init__(self, path):
        self.path = path
        self.env = dict(os.environ, HARNESS_KERNEL_DIR=os.path.join(TOP, "kernels"),
                        LC_ALL="C", TZ="UTC")

    def __call__(self, *args, ok=(0,), cwd=None):
        p = subprocess.run([self.path] + [str(a) for a in args], env=self.env, cwd=cwd,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode not in ok:
            raise RuntimeError("harness %s: exit %d\n%s" % (" ".join(map(str, args)),
                                                            p.returncode, p.stderr[-4000:]))
        return p


# ---- fixed N ---------------------------------------------------------------------------

def write_csv(path, seed, noise, effect, n, reps, block_sigma):
    """R replications x n blocks x (base, mode) x SAMPLES samples, as an import CSV."""
    sigma, share, slow = NOISES[noise]
    rng = np.random.default_rng(seed)
    blk = np.exp(rng.normal(0.0, block_sigma, (reps, n, 1)))
    proc = np.exp(rng.normal(0.0, sigma, (reps, n, 2))) if sigma > 0 else np.ones((reps, n, 2))
    proc = proc * np.where(rng.random((reps, n, 2)) < share, slow, 1.0)
    eff = np.array([1.0, effect])
    level = LEVEL_NS * eff[None, None, :] * proc * blk
    samp = level[..., None] * np.exp(rng.normal(0.0, WITHIN, (reps, n, 2, SAMPLES)))
    lines = ["cell,mode,block,unit,value,baseline"]
    names = ("base,%d,ns,%.1f,true", "mode,%d,ns,%.1f,false")
    for r in range(reps):
        cell = "r%05d/sim," % r
        for b in range(n):
            for m in range(2):
                fmt = cell + names[m]
                for s in range(SAMPLES):
                    lines.append(fmt % (b, samp[r, b, m, s]))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def hyp_file(path, reps):
    """One hypothesis per replication (not primary: raw p, no adjustment across them)."""
    with open(path, "w") as f:
        f.write("schema = 1\ndescription = \"bench: one hypothesis per replication\"\n")
        for r in range(reps):
            f.write('\n[[hypotheses]]\nid = "r%05d"\nclaim = "mode is faster by 3%% or more"\n'
                    'mode = "mode"\nbaseline = "base"\ncells = "r%05d/sim"\n'
                    'prediction = "faster"\nmin_effect = %g\n' % (r, r, MIN_EFFECT))


def summarize_cmp(cmps, effect):
    """Verdict counts, rates and coverage over the comparisons of mode against base."""
    n = len(cmps)
    cnt = {"FASTER": 0, "SLOWER": 0, "SAME": 0, "INCONCLUSIVE": 0}
    covered = with_ci = 0
    floors = []
    for c in cmps:
        cnt[c["verdict"]] += 1
        ci = c.get("ci")
        if ci and ci[0] is not None and ci[1] is not None:
            with_ci += 1
            covered += ci[0] <= effect <= ci[1]
        if c.get("noise_floor") is not None:
            floors.append(c["noise_floor"])
    out = {"n": n, "counts": cnt, "with_ci": with_ci,
           "coverage": rate(covered, with_ci),
           "floor_median": float(np.median(floors)) if floors else None,
           "floor_at_max": sum(1 for f in floors if f >= 0.05 - 1e-12),
           "floor_n": len(floors)}
    if effect == 1.0:
        out["false_positive"] = rate(cnt["FASTER"] + cnt["SLOWER"], n)
        out["same_null"] = rate(cnt["SAME"], n)
    else:
        out["power"] = rate(cnt["FASTER"], n)
        out["wrong_direction"] = rate(cnt["SLOWER"], n)
        out["same_when_different"] = rate(cnt["SAME"], n)
    out["inconclusive"] = rate(cnt["INCONCLUSIVE"], n)
    return out


def fixed_config(h, work, seed, noise, effect, n, reps, hyp_path, block_sigma, rank):
    name = "%s-e%.2f-n%02d-b%.3f" % (noise, effect, n, block_sigma)
    csv = os.path.join(work, name + ".csv")
    h5 = os.path.join(work, name + ".h5")
    t0 = time.monotonic()
    write_csv(csv, sub_seed(seed, "fixed", name), noise, effect, n, reps, block_sigma)
    t1 = time.monotonic()
    h("import", "--csv", csv, "-o", h5)
    rep = json.loads(h("report", "-f", "json", "--family", "workload", h5).stdout)
    t2 = time.monotonic()
    res = {"noise": noise, "effect": effect, "n_blocks": n, "reps": reps,
           "block_sigma": block_sigma, "seconds_csv": t1 - t0, "seconds_import_report": t2 - t1}
    cmps = [c for c in rep["comparisons"] if c["mode"] == "mode" and c["reference"] == "base"]
    if len(cmps) != reps:
        raise RuntimeError("%s: %d comparisons of mode against base, not %d" %
                           (name, len(cmps), reps))
    res["settings"] = {k: rep["settings"].get(k) for k in
                       ("test", "alpha", "conf", "multiplicity", "family", "margin_source")}
    res["default"] = summarize_cmp(cmps, effect)
    rs = json.loads(h("report", "-f", "json", "--family", "workload", "--test", "trimmed-t",
                      h5).stdout)
    res["trimmed"] = summarize_cmp([c for c in rs["comparisons"] if c["mode"] == "mode" and
                                    c["reference"] == "base"], effect)
    if rank:
        rr = json.loads(h("report", "-f", "json", "--family", "workload", "--test",
                          "signed-rank", h5).stdout)
        rc = [c for c in rr["comparisons"] if c["mode"] == "mode" and c["reference"] == "base"]
        res["signed_rank"] = summarize_cmp(rc, effect)
        res["signed_rank"]["test"] = rr["settings"].get("test")
    if hyp_path:
        t3 = time.monotonic()
        v = json.loads(h("verify", "--hypotheses", hyp_path, "-f", "json", h5,
                         ok=(0, 3)).stdout)
        cnt = {"CORROBORATED": 0, "FALSIFIED": 0, "INCONCLUSIVE": 0}
        for hy in v["hypotheses"]:
            cnt[hy["verdict"]] += 1
        right, wrong = ("FALSIFIED", "CORROBORATED") if effect == 1.0 else \
            ("CORROBORATED", "FALSIFIED")
        res["hypothesis"] = {"counts": cnt, "right": rate(cnt[right], reps),
                             "wrong": rate(cnt[wrong], reps),
                             "undecided": rate(cnt["INCONCLUSIVE"], reps),
                             "seconds_verify": time.monotonic() - t3}
    os.unlink(csv)
    os.unlink(h5)
    return res


# ---- sequential ------------------------------------------------------------------------

def seq_experiment(src, seed, opts):
    """The experiment's text with its seed and every mode's options replaced."""
    text, k = re.subn(r"(?m)^seed = \d+$", "seed = %d" % seed, src)
    if k != 1:
        raise RuntimeError("sim-verdicts.toml: expected one top-level 'seed = N' line")
    text, k = re.subn(r"(?m)^options = \{.*\}$", "options = " + opts, text)
    if k != 3:
        raise RuntimeError("sim-verdicts.toml: expected three 'options = {...}' lines")
    return text


def seq_rep(h, work, seed, noise, effect, k, block_sigma, keep):
    sigma, share, slow = NOISES[noise]
    name = "%s-e%.2f" % (noise, effect)
    d = os.path.join(work, "seq", name, "rep%03d" % k)
    os.makedirs(d)
    for f in ("planted_worker.py", "sim-verdicts-hyp.toml"):
        shutil.copy(os.path.join(HERE, f), d)
    with open(os.path.join(HERE, "sim-verdicts.toml")) as f:
        src = f.read()
    rseed = sub_seed(seed, "seq", name, k) % 2147483647
    opts = ("{ effect = { mode = %r }, sigma = %r, mix_share = %r, mix_slow = %r, "
            "block_sigma = %r, rep = %d }" % (effect, sigma, share, slow, block_sigma, k))
    with open(os.path.join(d, "sim-verdicts.toml"), "w") as f:
        f.write(seq_experiment(src, rseed, opts))
    h5 = os.path.join(d, "run.h5")
    t0 = time.monotonic()
    h("run", "-q", "--until-decided", SEQ_MAX, "-o", h5, os.path.join(d, "sim-verdicts.toml"),
      ok=(0,))
    wall = time.monotonic() - t0
    meta = {}
    for line in h("show", h5).stdout.splitlines():
        key, sep, val = line.partition(": ")
        if sep and key in ("sequential_looks", "sequential_stopped", "sequential_alpha",
                           "repeats", "status"):
            meta[key] = val
    looks = json.loads(meta["sequential_looks"])
    v = json.loads(h("verify", "-f", "json", h5, ok=(0, 3)).stdout)
    hy = [x for x in v["hypotheses"] if x["id"] == "mode-faster"][0]
    tgt = hy["targets"][0]
    rep = json.loads(h("report", "-f", "json", h5).stdout)
    aa = [c for q in rep["aa"] for c in q["comparisons"]]
    mc = [c for c in rep["comparisons"] if c["mode"] == "mode" and c["reference"] == "base"]
    out = {"rep": k, "seed": rseed, "verdict": hy["verdict"], "alpha": hy["alpha"],
           "blocks": looks[-1]["blocks"], "looks": len(looks),
           "stopped": meta["sequential_stopped"], "ratio": tgt.get("ratio"),
           "ci": tgt.get("ci"), "p": tgt.get("p"), "n": tgt.get("n"),
           "cell_verdict": mc[0]["verdict"] if mc else None,
           "aa_verdict": aa[0]["verdict"] if aa else None,
           "aa_noise_floor": aa[0].get("noise_floor") if aa else None,
           "unit_s": looks[-1].get("unit_s"), "wall_s": wall}
    if not keep:
        shutil.rmtree(d)
    return out


def seq_summary(effect, reps):
    n = len(reps)
    right, wrong = ("FALSIFIED", "CORROBORATED") if effect == 1.0 else \
        ("CORROBORATED", "FALSIFIED")
    cnt = {"CORROBORATED": 0, "FALSIFIED": 0, "INCONCLUSIVE": 0}
    for r in reps:
        cnt[r["verdict"]] += 1
    blocks = np.array([r["blocks"] for r in reps], dtype=float)
    dec = np.array([r["blocks"] for r in reps if r["verdict"] != "INCONCLUSIVE"], dtype=float)
    budget = sum(1 for r in reps if r["verdict"] == "INCONCLUSIVE")
    aa_fp = sum(1 for r in reps if r["aa_verdict"] in ("FASTER", "SLOWER"))
    return {"n": n, "counts": cnt, "right": rate(cnt[right], n), "wrong": rate(cnt[wrong], n),
            "undecided_at_budget": rate(budget, n),
            "stopped": {s: sum(1 for r in reps if r["stopped"] == s)
                        for s in sorted(set(r["stopped"] for r in reps))},
            "blocks_mean": float(blocks.mean()), "blocks_median": float(np.median(blocks)),
            "blocks_p90": float(np.percentile(blocks, 90)),
            "blocks_mean_decided": float(dec.mean()) if len(dec) else None,
            "blocks_median_decided": float(np.median(dec)) if len(dec) else None,
            "units_mean": float(3 * blocks.mean()),
            "aa_false_positive": rate(aa_fp, n),
            "wall_s_mean": float(np.mean([r["wall_s"] for r in reps])),
            "unit_s_mean": float(np.mean([r["unit_s"] for r in reps]))}


def same_power_n(curve, target):
    """The fixed N whose rate of right decisions reaches target: linear interpolation over
    the measured (N, rate) points; None when no N measured reaches it."""
    pts = sorted(curve)
    if not pts or not target:
        return None
    if pts[0][1] >= target:
        return {"n": float(pts[0][0]), "bound": "at or below"}
    for (n0, r0), (n1, r1) in zip(pts, pts[1:]):
        if r1 >= target > r0:
            return {"n": n0 + (n1 - n0) * (target - r0) / (r1 - r0), "bound": "interpolated"}
    return {"n": float(pts[-1][0]), "bound": "above"}


# ---- tables ----------------------------------------------------------------------------

def pct(x, d=1):
    return "-" if x is None else "%.*f%%" % (d, 100 * x)


def rci(r, d=1):
    if r["n"] == 0:
        return "-"
    return "%s [%s, %s]" % (pct(r["rate"], d), pct(r["ci"][0], d), pct(r["ci"][1], d))


def eff_text(e):
    return "null" if e == 1.0 else "%g%% faster" % round(100 * (1 - e))


def tables(res):
    out = []
    p = out.append
    fx = [r for r in res["fixed"] if r["n_blocks"] in NS_MAIN and
          r["block_sigma"] == res["params"]["block_sigma"]]
    key = lambda r: (list(NOISES).index(r["noise"]), r["n_blocks"])  # noqa: E731
    default = res["fixed"][0]["settings"]["test"] if res["fixed"] else "-"  # --no-fixed
    for test, label in (("default", "%s (the default)" % default),
                        ("trimmed", "--test trimmed-t, the 20%-trimmed t (contrast)"),
                        ("signed_rank", "--test signed-rank (contrast)")):
        rows = [r for r in fx if test in r]
        if not rows:
            continue
        p("\n### Fixed N, %s: null (true ratio 1.0)\n" % label)
        p("| process noise | N | R | FASTER or SLOWER (false positive) | SAME | INCONCLUSIVE "
          "| CI coverage of 1.0 | median floor | floors at 5% cap |")
        p("|---|---|---|---|---|---|---|---|---|")
        for r in sorted([r for r in rows if r["effect"] == 1.0], key=key):
            s = r[test]
            p("| %s | %d | %d | %s | %s | %s | %s (%d CIs) | %s | %d |" % (
                NOISE_TEXT[r["noise"]], r["n_blocks"], r["reps"], rci(s["false_positive"]),
                rci(s["same_null"]), pct(s["inconclusive"]["rate"]), rci(s["coverage"]),
                s["with_ci"], pct(s["floor_median"], 2), s["floor_at_max"]))
        p("\n### Fixed N, %s: planted effects\n" % label)
        p("| process noise | truth | N | R | power (FASTER) | SLOWER | SAME when different "
          "| INCONCLUSIVE | CI coverage of the truth | median floor |")
        p("|---|---|---|---|---|---|---|---|---|---|")
        for r in sorted([r for r in rows if r["effect"] != 1.0],
                        key=lambda r: (key(r)[0], -r["effect"], r["n_blocks"])):
            s = r[test]
            p("| %s | %s | %d | %d | %s | %s | %s | %s | %s (%d CIs) | %s |" % (
                NOISE_TEXT[r["noise"]], eff_text(r["effect"]), r["n_blocks"], r["reps"],
                rci(s["power"]), pct(s["wrong_direction"]["rate"]),
                rci(s["same_when_different"]), pct(s["inconclusive"]["rate"]),
                rci(s["coverage"]), s["with_ci"], pct(s["floor_median"], 2)))
    bx = [r for r in res["fixed"] if r["block_sigma"] != res["params"]["block_sigma"] or
          (r["noise"] == "sigma1" and r["n_blocks"] == 10 and r["effect"] in (1.0, 0.95))]
    if len({r["block_sigma"] for r in bx}) > 1:
        p("\n### Fixed N, the default test: the block effect's size (lognormal 1% process "
          "noise, N = 10)\n")
        p("| block sigma | truth | R | FASTER | SLOWER | SAME | INCONCLUSIVE | median floor |")
        p("|---|---|---|---|---|---|---|---|")
        for r in sorted(bx, key=lambda r: (r["block_sigma"], -r["effect"])):
            s = r["default"]
            c = s["counts"]
            p("| %s | %s | %d | %s | %s | %s | %s | %s |" % (
                pct(r["block_sigma"], 0), eff_text(r["effect"]), r["reps"],
                pct(c["FASTER"] / s["n"]), pct(c["SLOWER"] / s["n"]), pct(c["SAME"] / s["n"]),
                pct(c["INCONCLUSIVE"] / s["n"]), pct(s["floor_median"], 2)))
    hx = [r for r in res["fixed"] if "hypothesis" in r and
          r["block_sigma"] == res["params"]["block_sigma"]]
    if hx:
        p("\n### Fixed N: the hypothesis \"mode faster by >= 3%\" (prediction faster, "
          "min_effect 0.03, alpha 0.05, one look)\n")
        p("| process noise | truth | N | R | right | wrong | undecided |")
        p("|---|---|---|---|---|---|---|")
        for r in sorted(hx, key=lambda r: (key(r)[0], -r["effect"], r["n_blocks"])):
            s = r["hypothesis"]
            p("| %s | %s | %d | %d | %s | %s | %s |" % (
                NOISE_TEXT[r["noise"]], eff_text(r["effect"]), r["n_blocks"], r["reps"],
                rci(s["right"]), rci(s["wrong"]), pct(s["undecided"]["rate"])))
    if res.get("sequential"):
        p("\n### Sequential: `harness run --until-decided %d` from 3 blocks (Pocock spending), "
          "the primary hypothesis \"mode faster by >= 3%%\"\n" % SEQ_MAX)
        p("| process noise | truth | R | right | wrong | undecided at %d blocks | blocks mean "
          "| median | p90 | mean when decided | fixed N, same right rate | A/A FASTER/SLOWER "
          "| wall s per replication |" % SEQ_MAX)
        p("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for s in res["sequential"]:
            q = s["summary"]
            fn = s["fixed_same_power"]
            fns = "-" if fn is None else ("%.1f" % fn["n"] if fn["bound"] == "interpolated"
                                          else "%s %d" % ({"at or below": "<=", "above": ">"}
                                                          [fn["bound"]], fn["n"]))
            p("| %s | %s | %d | %s | %s | %s | %.2f | %.1f | %.1f | %s | %s | %s | %.1f |" % (
                NOISE_TEXT[s["noise"]], eff_text(s["effect"]), q["n"], rci(q["right"]),
                rci(q["wrong"]), rci(q["undecided_at_budget"]), q["blocks_mean"],
                q["blocks_median"], q["blocks_p90"],
                "-" if q["blocks_mean_decided"] is None else "%.2f" % q["blocks_mean_decided"],
                fns, rci(q["aa_false_positive"]), q["wall_s_mean"]))
    return "\n".join(out)


# ---- main ------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="the JSON file of every number")
    ap.add_argument("--seed", type=int, default=20261128)
    ap.add_argument("--quick", action="store_true", help="a smoke run: small R")
    ap.add_argument("--reps", type=int, help="fixed-N replications per configuration "
                    "(default 1000; --quick 40)")
    ap.add_argument("--seq-reps", type=int, help="sequential replications per configuration "
                    "(default 60; --quick 3)")
    ap.add_argument("--block-sigma", type=float, default=0.01)
    ap.add_argument("--seq-deadline", type=float, help="start no sequential replication "
                    "after this many seconds of the whole study; each configuration then keeps "
                    "its replications 0..k-1 that all finished (replications run in the order "
                    "rep 0 of every configuration, rep 1 of every configuration, ...), so the "
                    "numbers are those of --seq-reps k")
    ap.add_argument("--jobs", type=int, default=2, help="configurations at once")
    ap.add_argument("--harness", default=os.path.join(TOP, "harness", "harness"),
                    help="the harness binary (copied to the scratch folder first, so a "
                    "rebuild during the study changes nothing)")
    ap.add_argument("--no-fixed", action="store_true")
    ap.add_argument("--no-seq", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder")
    ap.add_argument("--tables-from", metavar="JSON", help="only print the tables of a "
                    "finished study's JSON (and write them into --out with its numbers)")
    a = ap.parse_args()
    if a.tables_from:
        with open(a.tables_from) as f:
            res = json.load(f)
        res["tables_md"] = tables(res)
        with open(a.out, "w") as f:
            json.dump(res, f, indent=1)
        print(res["tables_md"])
        return 0
    reps = a.reps or (20 if a.quick else 400)
    seq_reps = a.seq_reps or (1 if a.quick else 40)
    t_start = time.monotonic()
    work = tempfile.mkdtemp(prefix="sim-verdicts.")
    binpath = os.path.join(work, "harness")
    shutil.copy(a.harness, binpath)
    with open(binpath, "rb") as f:
        bin_sha = hashlib.sha256(f.read()).hexdigest()
    h = Harness(binpath)
    cpu = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    git = subprocess.run(["git", "-C", TOP, "rev-parse", "HEAD"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True).stdout.strip()
    res = {"format": "sim-verdicts", "version": 1,
           "machine": {"nproc": os.cpu_count(), "cpu_model": cpu, "host": platform.node(),
                       "python": platform.python_version(), "numpy": np.__version__,
                       "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
           "harness": {"source": os.path.abspath(a.harness), "sha256": bin_sha,
                       "version": h("--version").stdout.strip(), "git_head": git},
           "params": {"seed": a.seed, "quick": a.quick, "reps": reps, "seq_reps": seq_reps,
                      "block_sigma": a.block_sigma, "within_sigma": WITHIN,
                      "samples_per_unit": SAMPLES, "level_ns": LEVEL_NS,
                      "noises": {k: {"sigma": v[0], "slow_share": v[1], "slow_factor": v[2]}
                                 for k, v in NOISES.items()},
                      "effects": EFFECTS, "ns": NS_MAIN, "ns_hypothesis": NS_HYP,
                      "rank_ns": RANK_NS, "min_effect": MIN_EFFECT, "seq_max": SEQ_MAX},
           "fixed": [], "sequential": []}
    print("# sim-verdicts: %s, %d CPUs (%s), harness %s (%s), seed %d, R %d, sequential R %d"
          % (res["machine"]["date_utc"], os.cpu_count(), cpu, res["harness"]["version"],
             bin_sha[:12], a.seed, reps, seq_reps), flush=True)
    lock = threading.Lock()
    try:
        if not a.no_fixed:
            hyp = os.path.join(work, "hyp.toml")
            hyp_file(hyp, reps)
            jobs = []
            for noise in NOISES:
                ns = sorted(set(NS_MAIN) | (set(NS_HYP) if noise in SEQ_NOISES and
                                            not a.quick else set()))
                for effect in EFFECTS:
                    for n in ns:
                        jobs.append((noise, effect, n, a.block_sigma,
                                     hyp if noise in SEQ_NOISES or n in NS_MAIN else None,
                                     n in RANK_NS))
            for bs in (() if a.quick else (0.0, 0.03)):
                if bs != a.block_sigma:
                    for effect in (1.0, 0.95):
                        jobs.append(("sigma1", effect, 10, bs, None, False))
            t0 = time.monotonic()
            done = [0]

            def one(j):
                r = fixed_config(h, work, a.seed, j[0], j[1], j[2], reps, j[4], j[3], j[5])
                with lock:
                    done[0] += 1
                    print("fixed %d/%d: %s effect %.2f N %d block %.3f: t %s, %.1f s" % (
                        done[0], len(jobs), j[0], j[1], j[2], j[3], r["default"]["counts"],
                        r["seconds_csv"] + r["seconds_import_report"]), flush=True)
                return r
            with cf.ThreadPoolExecutor(a.jobs) as ex:
                res["fixed"] = list(ex.map(one, jobs))
            res["fixed_seconds"] = time.monotonic() - t0
        if not a.no_seq:
            t0 = time.monotonic()
            jobs = [(noise, effect, k) for k in range(seq_reps) for noise in SEQ_NOISES
                    for effect in EFFECTS]
            done = [0]

            def one_seq(j):
                if a.seq_deadline and time.monotonic() - t_start > a.seq_deadline:
                    return None
                r = seq_rep(h, work, a.seed, j[0], j[1], j[2], a.block_sigma, a.keep)
                with lock:
                    done[0] += 1
                    if done[0] % 10 == 0 or done[0] == len(jobs) or a.quick:
                        print("sequential %d/%d: %s effect %.2f rep %d: %s after %d blocks, "
                              "%.1f s (%.0f s so far)" % (
                                  done[0], len(jobs), j[0], j[1], j[2], r["verdict"],
                                  r["blocks"], r["wall_s"], time.monotonic() - t0), flush=True)
                return r
            with cf.ThreadPoolExecutor(a.jobs) as ex:
                allr = list(ex.map(one_seq, jobs))
            # every configuration keeps the replications 0..k-1 that finished for all
            kept = seq_reps
            for noise in SEQ_NOISES:
                for effect in EFFECTS:
                    rr = [r for r, j in zip(allr, jobs) if j[0] == noise and j[1] == effect]
                    kept = min(kept, next((i for i, r in enumerate(rr) if r is None), len(rr)))
            res["params"]["seq_reps_kept"] = kept
            res["sequential_dropped"] = sum(1 for r, j in zip(allr, jobs)
                                            if r is not None and j[2] >= kept)
            if kept < seq_reps:
                print("sequential: %d replications per configuration finished before the "
                      "deadline (of %d asked); %d later ones left out" % (
                          kept, seq_reps, res["sequential_dropped"]), flush=True)
            for noise in SEQ_NOISES:
                for effect in EFFECTS:
                    rr = [r for r, j in zip(allr, jobs) if j[0] == noise and j[1] == effect
                          and j[2] < kept]
                    if not rr:
                        continue
                    curve = [(f["n_blocks"], f["hypothesis"]["right"]["rate"])
                             for f in res["fixed"] if f["noise"] == noise and
                             f["effect"] == effect and "hypothesis" in f and
                             f["block_sigma"] == a.block_sigma]
                    q = seq_summary(effect, rr)
                    res["sequential"].append({
                        "noise": noise, "effect": effect, "summary": q,
                        "fixed_same_power": same_power_n(curve, q["right"]["rate"]),
                        "fixed_curve": curve, "replications": rr})
            res["sequential_seconds"] = time.monotonic() - t0
    finally:
        if a.keep:
            print("scratch kept: %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    res["seconds"] = time.monotonic() - t_start
    with open(a.out, "w") as f:  # the numbers first, whatever the tables do
        json.dump(res, f, indent=1)
    text = tables(res)
    res["tables_md"] = text
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)
    print(text)
    print("\ntotal %.0f s (fixed N %.0f s, sequential %.0f s); JSON: %s" % (
        res["seconds"], res.get("fixed_seconds", 0), res.get("sequential_seconds", 0), a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
