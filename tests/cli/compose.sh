#!/bin/sh
# tests/cli/compose.sh: per-op versus end to end on imported data with planted effects
# (tests/data/compose/compose.csv, made by make-compose.py): perfect composition
# (interaction 1), a planted interaction (e2e 10% slower than the ops predict) and low
# coverage (op cells 30% of the forward), each coming out as planted; every point estimate
# equal to the one numpy and SciPy derived from the CSV (reference.json); the 'count'
# column recorded; the md, CSV, HTML and hypothesis outputs; the figure.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py, scipy, numpy' 2>/dev/null || skip "h5py, numpy and scipy for /usr/bin/python3 are needed"
export PYTHONPATH="$top_srcdir/tests/cli"
CSV="$DATA/compose/compose.csv"
REF="$DATA/compose/reference.json"

expect_status 0 h import --csv "$CSV" -o c.h5 && pass "import the planted data"
$PY - c.h5 <<'PYEOF' && pass "/cells/count from the 'count' column" || fail "counts"
import sys, h5py
from h5util import table
cells = {c["name"]: c["count"] for c in table(h5py.File(sys.argv[1], "r"), "cells")}
want = {"conv2d:c=64": 8, "bias_relu:n=64": 8, "maxpool:k=3": 1, "e2e": 1}
for name, n in cells.items():
    assert n == want[name.split("/", 1)[1]], (name, n)
assert len(cells) == 12, cells
PYEOF

expect_status 0 h report -f json c.h5 && cp "$SCRATCH/out" r.json && pass "report --format json" ||
	fail "report --format json"
$PY - r.json "$REF" <<'PYEOF' || fail "composition numbers"
import json, math, sys
from h5util import Checker
c = Checker("compose")
rep, ref = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
comp = {(x["workload"], x["mode"]): x for x in rep["composition"]}
c.check(len(comp) == 6, "3 workloads x 2 modes composed (%d)" % len(comp))
for want in ref["composition"]:
    key = (want["workload"], want["mode"])
    got = comp[key]
    c.check(got["ok"] and got["n"] == want["n"], "%s/%s: %d blocks" % (key + (got["n"],)))
    for k in ("pred_ratio", "e2e_ratio", "interaction", "coverage", "coverage_mode", "geomean_unweighted"):
        c.check(math.isclose(got[k], want[k], rel_tol=1e-9), "%s/%s: %s %.9g = numpy's %.9g" % (key + (k, got[k], want[k])))
    for k, ci in (("pred_ratio", "pred_ci"), ("e2e_ratio", "e2e_ci"), ("interaction", "interaction_ci"), ("coverage", "coverage_ci")):
        lo, hi = got[ci]
        c.check(lo <= got[k] <= hi, "%s/%s: %s inside its CI [%.6g, %.6g]" % (key + (k, lo, hi)))
    # as planted
    pi = want["planted_interaction"]
    c.check(abs(got["interaction"] - pi) < 1e-5 and got["interaction_ci"][0] - 1e-5 <= pi <= got["interaction_ci"][1] + 1e-5,
            "%s/%s: interaction %.6f as planted (%.2f)" % (key + (got["interaction"], pi)))
    c.check(abs(got["coverage"] - want["planted_coverage"]) < 0.01, "%s/%s: coverage %.3f as planted" % (key + (got["coverage"],)))
    verdict = "composes" if pi == 1.0 else "does not compose"
    c.check(got["verdict"] == verdict, "%s/%s: %s" % (key + (got["verdict"],)))
tau = {t["workload"]: t for t in rep["op_vs_e2e"]}
for want in ref["tau"]:
    got = tau[want["workload"]]
    c.check(math.isclose(got["kendall_tau"], want["kendall_tau"], abs_tol=1e-12), "%s: unweighted tau %.3f = SciPy's" % (want["workload"], got["kendall_tau"]))
    c.check(math.isclose(got["kendall_tau_pred"], want["kendall_tau_pred"], abs_tol=1e-12), "%s: predicted tau %.3f = SciPy's" % (want["workload"], got["kendall_tau_pred"]))
    c.check(got["explanation"] == want["explanation"], "%s: explained by %s (planted: %s)" % (want["workload"], got["explanation"], want["explanation"]))
    c.check(any(("in '%s'" % want["workload"]) in w and ("the data support '%s'" % want["explanation"]) in w for w in rep["warnings"]),
            "%s: the warning names %s" % (want["workload"], want["explanation"]))
c.check(rep["settings"]["coverage_min"] == 0.5, "coverage_min recorded")
c.exit()
PYEOF

# the same numbers under another seed's bootstrap: point estimates do not move
expect_status 0 h report -f json --seed 7 c.h5 && $PY - "$SCRATCH/out" r.json <<'PYEOF' && pass "point estimates do not depend on the seed" || fail "seed"
import json, sys
a, b = (json.load(open(p))["composition"] for p in sys.argv[1:3])
assert [x["interaction"] for x in a] == [x["interaction"] for x in b]
PYEOF

expect_status 0 h report c.h5 && cp "$SCRATCH/out" r.md
expect_grep '^## Per-op versus end to end' r.md &&
expect_grep '^\| interact \| alpha \| 8 \| 3 \| 0\.58[0-9]+ \| 0\.98[0-9]+ \[.*\] \| 1\.08[0-9]+ \[.*\] \| 1\.1000 \[1\.1000, 1\.1000\] \| \*\*does not compose\*\* \| 89\.[0-9]% ' r.md &&
expect_grep '^\| compose \| 3 \| -0\.333 \| 1 \| 1\.000 \| 0\.333 \| weighting \|' r.md &&
expect_grep '^- lowcov \(low coverage\): ' r.md && pass "markdown: composition table, rankings, explanations"

expect_status 0 h report -f csv c.h5 && $PY - "$SCRATCH/out" r.json <<'PYEOF' && pass "csv: composition columns on the e2e rows" || fail "csv"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
comp = {(x["workload"], x["mode"]): x for x in json.load(open(sys.argv[2]))["composition"]}
n = 0
for r in rows:
    if r["kind"] == "e2e":
        x = comp[(r["workload"], r["mode"])]
        assert abs(float(r["interaction"]) - x["interaction"]) < 1e-8 * x["interaction"], r
        assert r["composition"] == x["verdict"], r
        n += 1
    else:
        assert r["pred_ratio"] == "" and r["composition"] == "", r
assert n == 6, n
PYEOF

expect_status 0 h report -f html c.h5 && cp "$SCRATCH/out" r.html
expect_grep 'id="composition"' r.html && expect_grep 'does not compose' r.html && pass "html: composition section"

# hypotheses on the composition: each decided as planted
expect_status 0 h verify -f json --hypotheses "$DATA/compose/compose.toml" c.h5 &&
$PY - "$SCRATCH/out" <<'PYEOF' && pass "composition hypotheses decided as planted" || fail "composition hypotheses"
import json, sys
v = {h["id"]: h for h in json.load(open(sys.argv[1]))["hypotheses"]}
for k in ("alpha-composes", "alpha-interacts", "lowcov-coverage", "weighted-ranking-agrees", "beta-predicted-faster"):
    assert v[k]["verdict"] == "CORROBORATED", (k, v[k]["verdict"], v[k]["deciding"])
t = v["alpha-interacts"]["targets"][0]
assert t["kind"] == "composition" and abs(t["interaction"] - 1.1) < 1e-5, t
PYEOF
printf 'schema = 1\n[[hypotheses]]\nid = "x"\nclaim = "x"\nmode = "alpha"\naggregate = "composition"\ncriteria = [ { id = "a", statistic = "tau", op = ">", value = 0 } ]\ncorroborate = "a"\nfalsify = "a"\n' >bad.toml
expect_status 2 h verify --hypotheses bad.toml c.h5 &&
expect_grep "^harness: 'bad.toml':7:[0-9]+: unknown statistic 'tau' for aggregate 'composition' \(statistics: pred_ratio, " "$SCRATCH/err" &&
pass "an unknown composition statistic names file:line:col"

# two e2e cells (the CUDA backend's stream and graph forwards): op cells are compared with
# the graph forward, the one whose shape says launch=graph (tests/data/compose/graph.csv)
expect_status 0 h import --csv "$DATA/compose/graph.csv" -o g.h5 &&
expect_status 0 h report -f json g.h5 && cp "$SCRATCH/out" g.json
$PY - g.h5 g.json <<'PYEOF' && pass "two e2e cells: the op cells compose with the graph forward" || fail "graph forward"
import json, sys, h5py
from h5util import table
shape = {c["name"]: c["shape"] for c in table(h5py.File(sys.argv[1], "r"), "cells")}
assert shape["w/e2e:launch=graph"] == "launch=graph" and shape["w/e2e"] == "", shape
r = json.load(open(sys.argv[2]))
comp = r["composition"][0]
assert comp["e2e_cell"] == "w/e2e:launch=graph", comp
assert abs(comp["interaction"] - 1) < 0.01 and comp["verdict"] == "composes", comp
graph = [x for x in r["comparisons"] if x["cell"] == "w/e2e:launch=graph" and x["mode"] == "fast"][0]
agg = [a for a in r["aggregates"] if a["scope"] == "w" and a["mode"] == "fast"][0]
assert agg["e2e_ratio"] == graph["ratio"] and abs(agg["e2e_ratio"] - 0.8) < 0.01, (agg, graph)
PYEOF

# a hypothesis whose scope holds the stream forward says so: the host-bound cell, its ratio
# to the graph forward (computed here from the CSV), and none where only the graph cell is
printf 'schema = 1\n[[hypotheses]]\nid = "both"\nclaim = "x"\nmode = "fast"\nscope = "e2e"\naggregate = "geomean"\nprediction = "not-faster"\nmin_effect = 0.03\n[[hypotheses]]\nid = "graph"\nclaim = "x"\nmode = "fast"\ncells = ["w/e2e:launch=graph"]\nprediction = "not-faster"\nmin_effect = 0.03\n' >hb.toml
expect_status 0 h verify -f json --hypotheses hb.toml g.h5 && cp "$SCRATCH/out" hb.json &&
expect_status 0 h verify --hypotheses hb.toml g.h5 &&
expect_grep "^\| both .*; host-bound: 'w/e2e' [0-9.]+x 'w/e2e:launch=graph' \(launched op by op" "$SCRATCH/out" &&
$PY - "$DATA/compose/graph.csv" hb.json <<'PYEOF' && pass "a hypothesis on the stream forward names it host-bound, with its ratio to the graph forward" || fail "host-bound hypothesis"
import csv, json, statistics, sys
from collections import defaultdict
v = defaultdict(list)
for row in csv.DictReader(open(sys.argv[1])):
    if row["mode"] == "base":
        v[(row["cell"], int(row["block"]))].append(float(row["value"]))
blocks = sorted({b for _, b in v})
ratio = statistics.median(statistics.median(v[("w/e2e", b)]) / statistics.median(v[("w/e2e:launch=graph", b)])
                          for b in blocks)
hs = {h["id"]: h for h in json.load(open(sys.argv[2]))["hypotheses"]}
hb = hs["both"]["host_bound"]
assert len(hb) == 1 and hb[0]["cell"] == "w/e2e" and hb[0]["graph"] == "w/e2e:launch=graph", hb
assert abs(hb[0]["ratio"] - ratio) < 1e-9 * ratio and ratio > 1.25, (hb, ratio)
assert hs["graph"]["host_bound"] == [] and "host-bound" not in hs["graph"]["deciding"], hs["graph"]
PYEOF

# the figure: measured against predicted, with the identity line
if command -v gnuplot >/dev/null 2>&1; then
	expect_status 0 h plot -f svg -o figs c.h5 && [ -s figs/composition.svg ] &&
	grep -q "identity: measured = predicted" figs/composition.svg && pass "plot: composition.svg with the identity line" || fail "composition figure"
fi
finish
