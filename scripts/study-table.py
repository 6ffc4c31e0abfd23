#!/usr/bin/python3
"""study-table.py: a study's tables for docs/BENCHMARKS.md, from the harness's own report,
verify and audit of one results file (their JSON; nothing recomputed here), as issue 12 asks
of the seed study: per model and mode the median e2e latency, the ratio to the baseline with
its 95% CI and verdict (with too few blocks for any distribution-free 95% CI, as in a
part-run, the exact CI and its coverage instead), the setup time and the spread across
units; per workload and mode the op-cell verdict counts and geometric mean; the Pareto
fronts of the e2e cells; the hypotheses' verdicts with the margin each was decided at; the
audit's findings; and, for a part-run, the progress.

    /usr/bin/python3 scripts/study-table.py [--harness PATH] [--repo DIR] RESULTS.h5

The harness is PATH, else $HARNESS, else `harness` on PATH.  --repo DIR goes to verify and
audit (a run from a bundle: its hypothesis files looked up in DIR's history).  A verdict on
a file that is not PRE-REGISTERED reads "(exploratory: STATUS)".  Markdown on stdout; exit 2 when
report or audit fails (its stderr is passed on); a file with no hypotheses gets none."""
import argparse
import json
import os
import subprocess
import sys


def run_json(harness, args, optional=False):
    """One harness command's JSON output (verify and audit exit 3 or 1 on findings); an
    optional one that fails gives None and its message on stderr."""
    p = subprocess.run([harness] + args, capture_output=True, text=True)
    if p.returncode not in (0, 1, 3) or not p.stdout.strip():
        sys.stderr.write(p.stderr)
        if optional:
            return None
        sys.exit(2)
    return json.loads(p.stdout)


def num(v, fmt):
    return "-" if v is None else fmt % v


def e2e_table(rep):
    base = rep["settings"]["baseline"]
    cmp = {(c["cell"], c["mode"]): c for c in rep["comparisons"]}
    out = ["| model | mode | median e2e (ms) | ratio to %s [%.0f%% CI] | verdict | setup (s) | "
           "spread | units |" % (base, 100 * rep["settings"]["conf"]), "|---|---|---|---|---|---|---|---|"]
    for cell in rep["cells"]:
        if cell["kind"] != "e2e":
            continue
        for m in cell["modes"]:
            u = m["unit_medians_ns"]
            c = cmp.get((cell["name"], m["mode"]))
            if m["mode"] == base:
                ratio, verdict = "baseline", "-"
            elif c and c.get("compared") and None in (c.get("ci") or [None]):
                # no CI from the deciding test (the t test on 1 block; the signed-rank test
                # below 6): the exact order-statistic one with its coverage, where there is one
                lo, hi = c.get("exact_ci") or [None, None]
                ratio = "%.4f (n = %d: no CI; exact %s%% CI [%s, %s])" % (
                    c["ratio"], c["n"], num(100 * c["exact_ci_coverage"]
                                            if c.get("exact_ci_coverage") is not None else None,
                                            "%.0f"), num(lo, "%.4f"), num(hi, "%.4f"))
                verdict = c["verdict"]
            elif c and c.get("compared"):
                ratio = "%.4f [%s, %s]" % (c["ratio"], num(c["ci"][0], "%.4f"),
                                           num(c["ci"][1], "%.4f"))
                verdict = c["verdict"]
            else:
                ratio, verdict = "not compared", "-"
            out.append("| %s | %s | %s | %s | %s | %s | %s | %d |" % (
                cell["workload"], m["mode"], num(u["median"] / 1e6 if u["n"] else None, "%.3f"),
                ratio, verdict, num(m["setup_s"]["median"] if m["setup_s"]["n"] else None, "%.1f"),
                num(m["spread"] * 100 if m["spread"] is not None else None, "%.1f%%"), u["n"]))
    return out


def op_table(rep):
    out = ["| scope | mode | op cells | geomean [95% CI] | FASTER | SLOWER | SAME | "
           "INCONCLUSIVE |", "|---|---|---|---|---|---|---|---|"]
    for a in rep["aggregates"]:
        if not a["op_cells"]:
            continue
        v = a["verdicts"]
        out.append("| %s | %s | %d | %s [%s, %s] | %d | %d | %d | %d |" % (
            a["scope"], a["mode"], a["op_cells"], num(a["geomean"], "%.4f"),
            num(a["ci"][0], "%.4f"), num(a["ci"][1], "%.4f"), v["FASTER"], v["SLOWER"],
            v["SAME"], v["INCONCLUSIVE"]))
    return out


def pareto_lines(rep):
    out = []
    for cell in rep["cells"]:
        if cell["kind"] == "e2e":
            front = [m["mode"] for m in cell["modes"] if m.get("pareto_front")]
            out.append("- %s: %s" % (cell["name"], ", ".join(front) if front else "-"))
    return out


def spread_rule(rep):
    """The claim "the baseline's spread across units is the smallest", which
    hypotheses/torch-resnet.toml pre-registers in its comments (the hypothesis format
    compares a mode with the baseline, not one with all): for each e2e cell, the baseline's
    spread (IQR / median of the unit medians) is at most that of every mode that is not an
    A/A copy.  FALSIFIED by any cell where some mode's spread is smaller; CORROBORATED when
    no cell has one and every spread exists; else INCONCLUSIVE.  Point estimates, as
    registered: no test."""
    base = rep["settings"]["baseline"]
    aa = {m["name"] for m in rep["modes"] if m.get("aa_of")}
    out, missing, falsified = [], [], False
    for cell in rep["cells"]:
        if cell["kind"] != "e2e":
            continue
        sp = {m["mode"]: m["spread"] for m in cell["modes"]}
        b = sp.get(base)
        rivals = [(mo, v) for mo, v in sp.items() if mo != base and mo not in aa]
        if b is None or any(v is None for _, v in rivals):
            missing.append(cell["name"])
            out.append("- %s: %s's spread %s; no spread for %s" % (
                cell["name"], base, num(b * 100 if b is not None else None, "%.1f%%"),
                ", ".join(mo for mo, v in rivals if v is None) or base))
            continue
        low = sorted((v, mo) for mo, v in rivals if v < b)
        falsified |= bool(low)
        out.append("- %s: %s's spread %.1f%%; %s" % (
            cell["name"], base, b * 100,
            "smaller: " + ", ".join("%s %.1f%%" % (mo, v * 100) for v, mo in low) if low
            else "every other mode's is at least as large"))
    verdict = ("FALSIFIED" if falsified else "INCONCLUSIVE" if missing or not out
               else "CORROBORATED")
    return ["%s's spread across units is the smallest (rule as pre-registered): %s" % (
        base, verdict), ""] + out


def hyp_table(ver):
    if ver is None:
        return ["(none: harness verify decided nothing on this file; its message is on stderr)"]
    # the margin beside the verdict: a SAME or a "within the margin" claim says no more than
    # its margin, and one taken from a between-process A/A floor can be 30% (torch-resnet)
    out = ["| hypothesis | primary | verdict | margin (min effect) | deciding numbers |",
           "|---|---|---|---|---|"]
    for h in ver.get("hypotheses", []):
        me = h.get("min_effect")
        margin = "-" if me is None else "+-%.2f%% (%s)" % (100 * me, h.get("min_effect_source", "?"))
        verdict = h["verdict"]
        if h.get("exploratory"):
            verdict += " (exploratory: %s)" % h.get("status", "?")
        out.append("| %s | %s | %s | %s | %s |" % (h["id"], "yes" if h.get("primary") else "no",
                                                   verdict, margin, h.get("deciding", "")))
    return out


def audit_table(aud):
    out = ["| check | status | finding |", "|---|---|---|"]
    for k in aud["checks"]:
        out.append("| %s | %s | %s |" % (k["title"], k["status"], k["summary"]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--harness", default=os.environ.get("HARNESS", "harness"))
    ap.add_argument("--repo", help="a git repository for verify and audit (--repo)")
    ap.add_argument("results")
    a = ap.parse_args()
    repo = ["--repo", a.repo] if a.repo else []
    rep = run_json(a.harness, ["report", "--format", "json", a.results])
    ver = run_json(a.harness, ["verify", "--format", "json"] + repo + [a.results], optional=True)
    aud = run_json(a.harness, ["audit", "--format", "json"] + repo + [a.results])
    run = rep["run"]
    st = rep["settings"]
    margin = ("margin +-%.2f%% (%s)" % (100 * st["margin"], st["margin_source"])
              if st.get("margin") is not None else "each cell against its noise floor")
    lines = ["%s: %d blocks, %d warm probes, %d samples; baseline %s, %s test, %s" % (
        run["experiment_name"], run["blocks"], run["warm_units"], run["samples"],
        st["baseline"], st.get("test", "signed-rank"), margin)]
    if run.get("repeats_extended"):
        lines.append("plan extended: " + run["repeats_extended"])
    p = rep.get("progress")
    if p:
        lines.append("progress: %d of %d units recorded, %d blocks complete; the rest about "
                     "%.1f hours of one slot" % (p["recorded"], p["planned"],
                                                 p["blocks_complete"], p["remaining_s"] / 3600))
    lines += ["", "End to end:", ""] + e2e_table(rep)
    lines += ["", "Op cells:", ""] + op_table(rep)
    lines += ["", "Pareto fronts (latency, spread, setup) of the e2e cells:", ""] + pareto_lines(rep)
    lines += ["", "Hypotheses:", ""] + hyp_table(ver)
    lines += [""] + spread_rule(rep)
    lines += ["", "Audit:", ""] + audit_table(aud)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
