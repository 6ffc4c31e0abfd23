# tests/cli/report.sh: `harness report` and `harness compare` on data with known effects
# (tests/data/report/synthetic.csv, made by make-synthetic.py), each number re-derived
# independently with numpy and SciPy from the CSV itself; on a real tiny run; the A/A
# noise floor's limits (tests/data/report/aa-floor.toml) and its op and e2e floors
# (tests/data/report/aa-kinds.toml, against scripts/aa-floor.py).
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py, scipy, numpy' 2>/dev/null || skip "h5py, numpy and scipy for /usr/bin/python3 are needed (Debian: python3-h5py python3-scipy)"
export PYTHONPATH="$top_srcdir/tests/cli"
SYN="$DATA/report/synthetic.csv"

expect_status 0 h import --csv "$SYN" -o syn.h5 && pass "import the synthetic raw timings"
# Student's paired t decides by default: its p is p_t, the one checked against SciPy's
# ttest_1samp below, on n - 1 degrees of freedom
expect_status 0 h report --baseline base --margin 0.02 -f json syn.h5 && pass "report --format json"
$PY - "$SCRATCH/out" <<'PYEOF' && pass "the default: Student's paired t" || fail "the default test"
import json, math, sys
from h5util import Checker
c = Checker("report")
for x in json.load(open(sys.argv[1]))["comparisons"]:
    c.check(x["test"] == "t", "%s %s: decided by Student's t" % (x["mode"], x["cell"]))
    c.check(x["df"] == x["n"] - 1, "%s %s: n - 1 degrees of freedom" % (x["mode"], x["cell"]))
    c.check(math.isclose(x["p"], x["p_t"], rel_tol=1e-12, abs_tol=1e-300), "%s %s: p is Student's" % (x["mode"], x["cell"]))
sys.exit(1 if c.fails else 0)
PYEOF
# the 20%-trimmed t test on request (--test trimmed-t), every number against SciPy
expect_status 0 h report --baseline base --margin 0.02 --test trimmed-t -f json syn.h5 && pass "report --test trimmed-t --format json"
cp "$SCRATCH/out" r.json
$PY - "$SYN" r.json <<'PYEOF' || fail "report numbers"
import csv, json, math, sys
import numpy as np
from scipy import stats
from scipy.stats import mstats
from h5util import Checker
c = Checker("report")
rows = list(csv.DictReader(open(sys.argv[1])))
rep = json.load(open(sys.argv[2]))
# unit medians straight from the CSV: one unit = (mode, block)
units = {}
for r in rows:
    units.setdefault((r["mode"], r["cell"], int(r["block"])), []).append(float(r["value"]))
med = {k: float(np.median(v)) for k, v in units.items()}
c.check(rep["format"] == "harness-report" and rep["version"] == 2, "report format and version")
c.check(rep["settings"]["baseline"] == "base" and rep["settings"]["margin"] == 0.02 and rep["settings"]["margin_source"] == "option", "baseline and margin as asked")
cmps = rep["comparisons"]
c.check(len(cmps) == 9, "3 modes x 3 cells compared against the baseline (%d)" % len(cmps))
want = {"fast": "FASTER", "same": "SAME", "noisy": "INCONCLUSIVE"}
ps = []
for x in cmps:
    mode, cell = x["mode"], x["cell"]
    blocks = sorted(b for (m, ce, b) in med if m == mode and ce == cell)
    ratio = np.array([med[(mode, cell, b)] / med[("base", cell, b)] for b in blocks])
    logr = np.log(ratio)
    c.check(x["verdict"] == want[mode], "%s %s: %s (wanted %s)" % (mode, cell, x["verdict"], want[mode]))
    c.check(x["n"] == 12, "%s %s: 12 pairs" % (mode, cell))
    # the 20%-trimmed t test decides: exp of SciPy's trimmed mean of the log ratios, the
    # Tukey-McLaughlin standard error from SciPy's winsorized sample; Student's t beside it
    c.check(x["test"] == "trimmed-t", "%s %s: decided by the trimmed t test" % (mode, cell))
    n = len(logr)
    h = n - 2 * int(math.floor(0.2 * n))
    est = float(stats.trim_mean(logr, 0.2))
    sw = float(np.std(np.asarray(mstats.winsorize(logr, limits=(0.2, 0.2))), ddof=1))
    se = math.sqrt((n - 1) * sw * sw / (h * (h - 1)))
    p = float(2 * stats.t.sf(abs(est / se), h - 1))
    q = float(stats.t.ppf(0.975, h - 1))
    c.check(math.isclose(x["ratio"], math.exp(est), rel_tol=1e-9), "%s %s: ratio %.6f = exp(trimmed mean log ratio)" % (mode, cell, x["ratio"]))
    c.check(math.isclose(x["median_ratio"], float(np.median(ratio)), rel_tol=1e-9), "%s %s: median ratio %.6f = numpy's" % (mode, cell, x["median_ratio"]))
    c.check(math.isclose(x["p"], p, rel_tol=1e-9, abs_tol=1e-300) and x["df"] == h - 1, "%s %s: trimmed t p %.6g = %.6g on %d df" % (mode, cell, x["p"], p, h - 1))
    c.check(math.isclose(x["ci"][0], math.exp(est - q * se), rel_tol=1e-9) and math.isclose(x["ci"][1], math.exp(est + q * se), rel_tol=1e-9), "%s %s: CI = exp(trimmed mean -/+ t se)" % (mode, cell))
    t = stats.ttest_1samp(logr, 0)
    c.check(math.isclose(x["p_t"], t.pvalue, rel_tol=1e-9, abs_tol=1e-300), "%s %s: Student's p %.6g = SciPy's %.6g" % (mode, cell, x["p_t"], t.pvalue))
    walsh = [(logr[i] + logr[j]) / 2 for i in range(len(logr)) for j in range(i, len(logr))]
    c.check(math.isclose(x["hl_ratio"], math.exp(float(np.median(walsh))), rel_tol=1e-9), "%s %s: Hodges-Lehmann = numpy's" % (mode, cell))
    p = stats.wilcoxon(logr, method="exact").pvalue
    c.check(x["p_signed_rank_exact"] and math.isclose(x["p_signed_rank"], p, rel_tol=1e-9), "%s %s: signed-rank p %.6g = SciPy's %.6g" % (mode, cell, x["p_signed_rank"], p))
    k = int((logr > 0).sum())
    ps_ = stats.binomtest(k, len(logr), 0.5).pvalue
    c.check(math.isclose(x["p_sign"], ps_, rel_tol=1e-9), "%s %s: sign-test p = SciPy's" % (mode, cell))
    lo, hi = x["ci"]
    c.check(lo <= x["ratio"] <= hi, "%s %s: the CI holds the estimate" % (mode, cell))
    c.check(x["family"] == "run" and x["family_size"] == 9, "%s %s: in the run's family of 9" % (mode, cell))
    ps.append((x["p"], x["p_adj"]))
# Benjamini-Hochberg across the run's 9: recompute (step-up from the largest)
raw = sorted(p for p, _ in ps)
n = len(raw)
adj, run = [0.0] * n, 1.0
for i in range(n - 1, -1, -1):
    run = min(run, n * raw[i] / (i + 1))
    adj[i] = min(1.0, run)
c.check(all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-300) for a, b in zip(sorted(h for _, h in ps), adj)), "BH-adjusted p values match a recomputation")
agg = {(a["scope"], a["mode"]): a for a in rep["aggregates"]}
c.check(agg[("net", "fast")]["verdicts"]["FASTER"] == 3 and agg[("all", "same")]["verdicts"]["SAME"] == 3, "aggregates count verdicts")
g = agg[("net", "fast")]
c.check(g["ci"][0] <= g["geomean"] <= g["ci"][1] and 0.75 < g["geomean"] < 0.85, "geomean of the fast mode ~0.80 (%.4f) inside its CI" % g["geomean"])
c.check(g["e2e_verdict"] == "FASTER", "the e2e cell's verdict is carried into the aggregate")
c.check(rep["aa"] == [], "no A/A control in imported data (no aa_of without an experiment)")
c.check(len(rep["drift"]) == 4 and len(rep["cells"]) == 3, "drift per mode, summaries per cell")
# unit SE and the variance decomposition, re-derived from the CSV's samples
def rel_se(v):
    q1, q3 = np.percentile(v, [25, 75])
    return 1.2533 * ((q3 - q1) / 1.349) / math.sqrt(len(v)) / float(np.median(v))
for cell in rep["cells"]:
    for x in cell["modes"]:
        us = [v for (m, ce, b), v in units.items() if m == x["mode"] and ce == cell["name"]]
        se = [rel_se(v) for v in us]
        logs = np.log([float(np.median(v)) for v in us])
        between = float(np.var(logs, ddof=1))
        within = float(np.mean(np.square(se)))
        share = max(0.0, between - within) / between
        vc = x["log_variance"]
        what = "%s %s" % (cell["name"], x["mode"])
        c.check(math.isclose(x["unit_rel_se"], float(np.median(se)), rel_tol=1e-9), what + ": unit SE = numpy's")
        c.check(vc["units"] == 12 and math.isclose(vc["between"], between, rel_tol=1e-9) and math.isclose(vc["within"], within, rel_tol=1e-9), what + ": between and within variance = numpy's")
        c.check(math.isclose(vc["process_share"], share, rel_tol=1e-9), what + ": process share %.4f = numpy's" % share)
        if x["mode"] == "noisy":
            c.check(vc["process_share"] > 0.99, what + ": the noisy mode's spread is between processes (%.4f)" % share)
c.exit()
PYEOF

# where the variance lives, on data built to say it: mode "procs" has tight samples around unit
# medians 5% apart (all between processes), mode "samp" has wide samples whose unit medians
# differ by 1 ns (all within units: the process share is 0)
$PY - > vc.csv <<'PYEOF'
print("cell,mode,block,value,unit")
for b in range(8):
    for i in range(40):
        print("x/op,procs,%d,%d,ns" % (b, 10000 + 500 * b + (i % 5)))
        print("x/op,samp,%d,%d,ns" % (b, 9000 + 50 * i + b))
PYEOF
expect_status 0 h import --csv vc.csv -o vc.h5 && pass "import the variance-components data"
expect_status 0 h report --baseline samp vc.h5 && pass "report on it"
expect_grep '^\| x/op \| procs \| 8 \| .* \| 100\.0% \|' "$SCRATCH/out"
expect_grep '^\| x/op \| samp \| 8 \| .* \| 0\.0% \|' "$SCRATCH/out"
expect_grep 'between processes' "$SCRATCH/out"
expect_status 0 h report --baseline samp -f html vc.h5 && pass "html report"
expect_grep '<th>between processes</th>' "$SCRATCH/out"

expect_status 0 h report --baseline base syn.h5 && pass "markdown report"
expect_grep '^## Verdicts against the baseline' "$SCRATCH/out"
expect_grep '\| net/e2e \| fast \| 12 \| .*\*\*FASTER\*\*' "$SCRATCH/out"
expect_grep 'or the declared margin: none;' "$SCRATCH/out"
expect_status 0 h report --baseline base -f csv syn.h5 && pass "csv report"
$PY -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 9, len(rows)
assert {r["verdict"] for r in rows if r["mode"] == "fast"} == {"FASTER"}
' "$SCRATCH/out" && pass "the CSV parses, 9 rows" || fail "csv report content"

# without blocks ('repeat' instead of 'block') nothing is paired: Mann-Whitney, SciPy's p
sed 's/^cell,mode,block,value,unit$/cell,mode,repeat,value,unit/' "$SYN" > unpaired.csv
expect_status 0 h import --csv unpaired.csv -o unpaired.h5
expect_status 0 h report --baseline base --margin 0.02 -f json unpaired.h5 &&
	$PY -c 'import json, sys; sys.exit(any(x["test"] != "t" or x["p"] != x["p_t"] for x in json.load(open(sys.argv[1]))["comparisons"] if "p" in x))' "$SCRATCH/out" &&
	pass "unpaired data: Welch's t decides by default"
expect_status 0 h report --baseline base --margin 0.02 --test trimmed-t -f json unpaired.h5 && pass "report on unpaired data (--test trimmed-t)"
$PY - unpaired.csv "$SCRATCH/out" <<'PYEOF' || fail "unpaired report numbers"
import csv, json, math, sys
import numpy as np
from scipy import stats
from h5util import Checker
c = Checker("report-unpaired")
rows = list(csv.DictReader(open(sys.argv[1])))
rep = json.load(open(sys.argv[2]))
units = {}
for r in rows:
    units.setdefault((r["mode"], r["cell"], int(r["repeat"])), []).append(float(r["value"]))
med = {k: float(np.median(v)) for k, v in units.items()}
c.check(rep["run"]["paired"] is False, "the report knows the data is unpaired")
for x in rep["comparisons"]:
    a = [math.log(v) for (m, ce, b), v in sorted(med.items()) if m == x["mode"] and ce == x["cell"]]
    b = [math.log(v) for (m, ce, _), v in sorted(med.items()) if m == "base" and ce == x["cell"]]
    # exact without ties (both samples <= 50), else the normal approximation (docs, stats.h)
    method = "exact" if len(set(a + b)) == len(a + b) else "asymptotic"
    p = stats.mannwhitneyu(a, b, alternative="two-sided", method=method).pvalue
    c.check(math.isclose(x["p_signed_rank"], p, rel_tol=1e-9), "%s %s: Mann-Whitney p %.6g = SciPy's %.6g" % (x["mode"], x["cell"], x["p_signed_rank"], p))
    w = stats.ttest_ind(a, b, equal_var=False, trim=0.2)
    c.check(math.isclose(x["p"], w.pvalue, rel_tol=1e-9, abs_tol=1e-300), "%s %s: Yuen p %.6g = SciPy's %.6g" % (x["mode"], x["cell"], x["p"], w.pvalue))
    w = stats.ttest_ind(a, b, equal_var=False)
    c.check(math.isclose(x["p_t"], w.pvalue, rel_tol=1e-9, abs_tol=1e-300), "%s %s: Welch p %.6g = SciPy's %.6g" % (x["mode"], x["cell"], x["p_t"], w.pvalue))
    r = math.exp(float(stats.trim_mean(a, 0.2)) - float(stats.trim_mean(b, 0.2)))
    c.check(math.isclose(x["ratio"], r, rel_tol=1e-9), "%s %s: ratio of 20%%-trimmed geometric means" % (x["mode"], x["cell"]))
    r = float(np.median(np.exp(a))) / float(np.median(np.exp(b)))
    c.check(math.isclose(x["median_ratio"], r, rel_tol=1e-9), "%s %s: ratio of medians" % (x["mode"], x["cell"]))
    c.check(x["p_sign"] is None and x["exact_ci"] == [None, None], "%s %s: no paired-only statistics" % (x["mode"], x["cell"]))
    if x["mode"] == "fast":
        c.check(x["verdict"] == "FASTER", "%s %s: FASTER unpaired too" % (x["mode"], x["cell"]))
c.exit()
PYEOF

# compare: identical runs are SAME; a run 10% slower is SLOWER everywhere
expect_status 0 h import --csv "$SYN" -o again.h5
# unpaired, the CI carries the between-unit spread (here the 3% block drift too): a wide
# margin is needed before identical data can be called SAME
expect_status 0 h compare --margin 0.1 -f json syn.h5 again.h5 && pass "compare identical runs"
$PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "harness-compare" and len(d["rows"]) == 12, len(d["rows"])
assert all(abs(r["ratio_b_over_a"] - 1) < 1e-12 for r in d["rows"])
v = [(r["mode"], r["verdict"]) for r in d["rows"]]
assert not [x for x in v if x[1] in ("FASTER", "SLOWER")], v
assert all(x[1] == "SAME" for x in v if x[0] != "noisy"), v
' "$SCRATCH/out" && pass "identical runs: ratio 1, never FASTER/SLOWER, SAME within 10%" || fail "compare of identical runs"
$PY -c '
import csv, sys
r = csv.reader(open(sys.argv[1])); w = csv.writer(open("slow.csv", "w", newline=""))
w.writerow(next(r))
for row in r:
    row[3] = "%.0f" % (float(row[3]) * 1.10); w.writerow(row)
' "$SYN"
expect_status 0 h import --csv slow.csv -o slow.h5
expect_status 0 h compare -f json syn.h5 slow.h5 && pass "compare against a 10% slower run"
$PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
v = {(r["mode"], r["cell"]): r["verdict"] for r in d["rows"]}
bad = {k: x for k, x in v.items() if x != "SLOWER" and k[0] != "noisy"}
assert not bad, bad
assert all(1.05 < r["ratio_b_over_a"] < 1.15 for r in d["rows"] if r["mode"] != "noisy")
' "$SCRATCH/out" && pass "10% slower: SLOWER in every low-noise row" || fail "compare of a slower run"

# bad input
expect_status 2 h report missing.h5 && expect_grep "missing.h5" "$SCRATCH/err"
expect_status 2 h report --baseline nosuch syn.h5 && expect_grep "no mode 'nosuch' \(modes: " "$SCRATCH/err"
expect_status 2 h report -f xml syn.h5 && expect_grep "format must be md, json or csv" "$SCRATCH/err"
expect_status 2 h report --alpha 2 syn.h5 && expect_grep "alpha" "$SCRATCH/err"
expect_status 2 h compare syn.h5 && expect_grep "usage: harness compare" "$SCRATCH/err"

# a real run: the report covers every cell and mode
cp "$DATA/run/faults.toml" f.toml
h run -q -o f.h5 f.toml >/dev/null 2>&1
expect_status 0 h report f.h5 && pass "report on a run with failed units"
expect_grep "mode 'crash': 1 unit\(s\) with status 'crashed' are left out" "$SCRATCH/out"
# a past run: the recorded experiment names a tuner and an op today's registries do not know
# (renamed or removed since); its baseline, A/A pair and margin still hold, and when the
# recorded experiment does not parse at all the report says what is lost
cp "$DATA/report/past.toml" past.toml
expect_status 0 h run -q -o past.h5 past.toml >/dev/null && pass "a run to read as a past run"
cp past.h5 garbled.h5
$PY - past.h5 garbled.h5 <<'PYEOF' || fail "rewrite the recorded experiments"
import hashlib, sys
import h5py, numpy as np
def rewrite(path, edit):
    with h5py.File(path, "r+") as f:
        g = f["run/files"]
        for name in list(g.keys()):
            d = g[name]
            if d.attrs["role"] not in ("experiment", b"experiment"):
                continue
            attrs = dict(d.attrs)
            text = edit(d[()].decode("utf-8")).encode("utf-8")
            del g[name]
            nd = g.create_dataset(name, data=np.bytes_(text))
            for k, v in attrs.items():
                nd.attrs[k] = v
            # fixed-length, as layout 2 has it (a variable-length string is refused)
            nd.attrs["sha256"] = np.bytes_(hashlib.sha256(text).hexdigest())
rewrite(sys.argv[1], lambda t: t.replace('tuner = "vendor"', 'tuner = "retired-tuner"').replace('op = "bias_relu"', 'op = "retired_op"'))
rewrite(sys.argv[2], lambda t: "schema = 1\n[[modes]]\n")
PYEOF
expect_status 0 h report -f json past.h5 && pass "report on a past run with unknown names"
$PY - "$SCRATCH/out" "$SCRATCH/err" <<'PYEOF' && pass "unknown tuner and op names keep the baseline, aa_of and margin" || fail "past run read leniently"
import json, sys
r = json.load(open(sys.argv[1]))
s = r["settings"]
assert s["baseline"] == "ref", s
assert s["margin"] == 0.03 and s["margin_source"] == "experiment", s
assert [(q["mode"], q["copy_of"]) for q in r["aa"]] == [("copy", "ref")], r["aa"]
assert not [w for w in r["warnings"] if "experiment" in w], r["warnings"]
assert "does not parse" not in open(sys.argv[2]).read()
PYEOF
expect_status 0 h report -f json garbled.h5 && pass "report on a run whose recorded experiment does not parse"
$PY - "$SCRATCH/out" <<'PYEOF' && pass "the report's warnings say what is lost" || fail "garbled experiment not reported"
import json, sys
r = json.load(open(sys.argv[1]))
w = [x for x in r["warnings"] if "the recorded experiment does not parse" in x]
assert len(w) == 1 and "baseline" in w[0] and "aa_of" in w[0] and "margin" in w[0], r["warnings"]
assert r["settings"]["baseline"] == "first" and r["aa"] == [], (r["settings"], r["aa"])
PYEOF
expect_grep "the recorded experiment does not parse" "$SCRATCH/err"
# the A/A noise floor's limits (tests/data/report/aa-floor.toml): a copy 150% off over 6
# blocks is a failed control (SLOWER in the A/A family), whatever its run-level floor says,
# and its cell floor comes from the pair's spread, not its offset; over 2 blocks no cell has
# the 3 pairs a floor needs (null, said in words), while the t CI of a geometric mean exists
if command -v python3 >/dev/null; then
	cp "$DATA/report/aa-floor.toml" "$DATA/command/fake_worker.py" .
	sed 's/^repeats = 6$/repeats = 2/' aa-floor.toml > aa-short.toml
	expect_status 0 h run -q -o aa6.h5 aa-floor.toml >/dev/null &&
		expect_status 0 h run -q -o aa3.h5 aa-short.toml >/dev/null &&
		pass "A/A runs with a copy 150% off, 6 and 2 blocks"
	expect_status 0 h report -f json aa6.h5 && cp "$SCRATCH/out" aa6.json
	expect_status 0 h report -f json aa3.h5 && cp "$SCRATCH/out" aa3.json
	$PY - aa6.json aa3.json <<'PYEOF' && pass "a copy 150% off is a failed A/A control; too few blocks give no floor, the t CI stays" || fail "A/A floor limits"
import json, math, sys
six, two = (json.load(open(p)) for p in sys.argv[1:3])
f6 = six["aa"][0]["noise_floor"]
assert f6 is not None and math.isclose(f6, 1.5, rel_tol=0.05), f6
assert six["settings"]["margin"] is None and six["settings"]["margin_source"] == "none", six["settings"]
# the copy differs from its original in every block: SLOWER in the A/A family
aa = [x for x in six["comparisons"] if x["mode"] == "base-aa"]
assert aa and all(x["family"] == "aa" and x["verdict"] == "SLOWER" for x in aa), aa
assert six["aa"][0]["false_positives"] == six["aa"][0]["cells"] == 1, six["aa"]
# the cell's floor: from the pairs' spread (every pair 2.5x apart: their scatter is small),
# within the documented clamp
(cell,) = six["cells"]
assert cell["noise_floor_source"] == "aa" and 0.005 <= cell["noise_floor"] <= 0.05, cell
assert two["aa"][0]["noise_floor"] is None and two["cells"][0]["noise_floor"] is None, two["aa"]
assert two["settings"]["margin_source"] == "none", two["settings"]
g6 = [a for a in six["aggregates"] if a["mode"] == "base-aa"]
g2 = [a for a in two["aggregates"] if a["mode"] == "base-aa"]
assert g6 and all(a["geomean"] is not None and None not in a["ci"] for a in g6), g6
assert g2 and all(a["geomean"] is not None and None not in a["ci"] for a in g2), g2
PYEOF
	# the audit of the 2-block run: no floor, said in words, never as a NaN
	h audit aa3.h5 >"$SCRATCH/out" 2>&1
	expect_grep "no noise floor \\(no cell has 3 pairs\\)" "$SCRATCH/out" &&
		! grep -qiw "nan" "$SCRATCH/out" && pass "the audit prints no NaN for a missing floor" ||
		fail "the audit of a 2-block run"
	# the floor per kind of cell (tests/data/report/aa-kinds.toml: the copy's forwards 4% off,
	# its op cells not): the JSON's three floors equal scripts/aa-floor.py's (numpy, from the
	# same files, the cells' kind from /cells), on that run and on the two above (op cells
	# only; with 3 blocks no cell counts, which the script must know too); the margin is still
	# the floor over every cell
	cp "$DATA/report/aa-kinds.toml" .
	expect_status 0 h run -q -o kinds.h5 aa-kinds.toml >/dev/null &&
		pass "an A/A run with op and e2e cells, the copy's forwards 4% off"
	expect_status 0 h report -f json kinds.h5 && cp "$SCRATCH/out" kinds.json
	expect_status 0 h report kinds.h5 && cp "$SCRATCH/out" kinds.md
	expect_status 0 h report aa6.h5 && cp "$SCRATCH/out" aa6.md
	$PY "$top_srcdir/scripts/aa-floor.py" --json --resamples 0 kinds.h5 aa6.h5 aa3.h5 \
		>kinds-ref.jsonl || fail "scripts/aa-floor.py on the A/A runs"
	$PY - kinds-ref.jsonl <<'PYEOF' && pass "the A/A floors of the op and the e2e cells equal scripts/aa-floor.py's, in the JSON and the table" || fail "A/A floor per kind"
import json, math, sys
def same(a, b):
    return a is None and b is None or (a is not None and b is not None and math.isclose(a, b, rel_tol=1e-9))
def pct(x):
    return "-" if x is None else "%.2f%%" % (100 * x)
for line in open(sys.argv[1]):
    ref = json.loads(line)
    stem = ref["file"][:-len(".h5")]
    rep = json.load(open(stem + ".json"))
    (q,) = rep["aa"]
    for k in ("noise_floor", "noise_floor_op", "noise_floor_e2e", "noise_floor_e2e_not_host_bound"):
        assert same(q[k], ref[k]), (stem, k, q[k], ref[k])
    if stem == "aa3":  # 2 blocks: no cell has 3 pairs
        assert q["noise_floor_op"] is None and q["noise_floor_e2e"] is None, q
        continue
    # the markdown table: the three columns after the floor over every cell (with no graph
    # forward, no e2e cell is host-bound: the last two floors are the same)
    assert same(q["noise_floor_e2e"], q["noise_floor_e2e_not_host_bound"]), q
    md = open(stem + ".md").read().splitlines()
    head = "| mode | copy of | cells | false FASTER/SLOWER | rate | noise floor (p95 of abs log ratio) | op cells | e2e cells | e2e cells not host-bound |"
    assert head in md and "|---|---|---|---|---|---|---|---|---|" in md, stem
    row = "| %s | %s | %d | %d | %.1f%% | %s | %s | %s | %s |" % (q["mode"], q["copy_of"], q["cells"],
        q["false_positives"], 100 * q["rate"], pct(q["noise_floor"]), pct(q["noise_floor_op"]),
        pct(q["noise_floor_e2e"]), pct(q["noise_floor_e2e_not_host_bound"]))
    assert row in md, (stem, row)
    if stem == "aa6":                     # one op cell, no e2e cell: no e2e floor
        assert same(q["noise_floor_op"], q["noise_floor"]) and q["noise_floor_e2e"] is None, q
        continue
    op, e2e, every = q["noise_floor_op"], q["noise_floor_e2e"], q["noise_floor"]
    assert ref["op_cells"] == 3 and ref["e2e_cells"] == 3, ref
    assert 0.03 < e2e < 0.05 and op < 0.02, (op, e2e)
    assert op < every < e2e, (op, every, e2e)  # the six cells' p95 lies between the kinds'
    s = rep["settings"]
    assert s["margin_source"] == "none" and s["margin"] is None, s
    # each cell is judged against its own floor, from the A/A pair's spread
    assert all(c["noise_floor_source"] == "aa" and c["noise_floor"] is not None for c in rep["cells"]), rep["cells"]
PYEOF
	expect_status 0 h report -f html kinds.h5 &&
		expect_grep '<th>noise floor \(p95 of \|log ratio\|\)</th><th>op cells</th><th>e2e cells</th><th>e2e cells not host-bound</th>' "$SCRATCH/out" &&
		pass "the html A/A table has the op, e2e and not host-bound e2e columns"
	# the same run with each forward also as one graph (fake_worker.py's graph: half the
	# stream forward's time, which then reads host-bound, and untouched by the copy's 4%),
	# the copy's samples recorded as 3 launches each: the floor of the e2e cells that are not
	# host-bound is the graph forwards' (the workers' own noise), the e2e floor still near
	# 4%; both equal scripts/aa-floor.py's, which must divide by the launches as the harness
	# does (on the GPU's runs it once did not)
	sed 's/e2e = true, e2e_scale = { base-aa = 1.04 }/e2e = true, graph = true, e2e_scale = { base-aa = 1.04 }, launches = { base-aa = 3 }/' \
		aa-kinds.toml >aa-graph.toml
	grep -q 'graph = true' aa-graph.toml || fail "aa-graph.toml not made"
	expect_status 0 h run -q -o graph.h5 aa-graph.toml >/dev/null &&
		pass "an A/A run with stream and graph forwards, the copy's samples 3 launches each"
	# the run's closing answer marks the stream forwards host-bound, naming their graph
	check "the answer marks a host-bound e2e cell" \
		grep -Eq '^    base-aa \(A/A copy of base\): e2e [0-9.]+ .* \(host-bound: [0-9.]+x e2e:launch=graph\); e2e:launch=graph [0-9.]+ ' "$SCRATCH/out"
	expect_status 0 h report -f json graph.h5 && cp "$SCRATCH/out" graph.json
	expect_status 0 h report graph.h5 && cp "$SCRATCH/out" graph.md
	$PY "$top_srcdir/scripts/aa-floor.py" --json --resamples 0 graph.h5 >graph-ref.jsonl ||
		fail "scripts/aa-floor.py on the graph run"
	$PY - graph-ref.jsonl graph.json graph.md <<'PYEOF' && pass "the A/A floor of the e2e cells that are not host-bound: the graph forwards', equal to scripts/aa-floor.py's" || fail "A/A floor without the host-bound cells"
import json, math, sys
ref = json.loads(open(sys.argv[1]).read())
rep = json.load(open(sys.argv[2]))
md = open(sys.argv[3]).read()
(q,) = rep["aa"]
for k in ("noise_floor", "noise_floor_op", "noise_floor_e2e", "noise_floor_e2e_not_host_bound"):
    assert q[k] is not None and math.isclose(q[k], ref[k], rel_tol=1e-9), (k, q[k], ref[k])
assert ref["e2e_cells"] == 6 and ref["e2e_cells_not_host_bound"] == 3, ref
nhb, e2e = q["noise_floor_e2e_not_host_bound"], q["noise_floor_e2e"]
assert 0.03 < e2e < 0.05 and nhb < 0.02, (nhb, e2e)
# the stream forwards are named host-bound, and the table's last column is the new floor
assert md.count("launched op by op, the forward waits on the host") == 3, md
assert ("| %.2f%% | %.2f%% |\n" % (100 * e2e, 100 * nhb)) in md, md
PYEOF
fi

# a forward launched op by op that takes 1.25x its graph forward's time or more under the
# baseline is warned about (it times the host); imported data with both e2e cells per
# workload: in "slow" the stream forward is 1.5x the graph's, in "fast" 1.1x
$PY - >hb.csv <<'PYEOF'
print("cell,mode,block,value,unit,kind")
for b in range(6):
    for mode, f in (("base", 1.0), ("other", 0.97 + 0.01 * b)):
        for w, k in (("slow", 1.5), ("fast", 1.1)):
            g = 1000 * f * (1 + 0.002 * b)
            print("%s/e2e-graph:launch=graph,%s,%d,%.3f,us,e2e" % (w, mode, b, g))
            print("%s/e2e,%s,%d,%.3f,us,e2e" % (w, mode, b, g * k * (1 + 0.001 * b)))
PYEOF
expect_status 0 h import --csv hb.csv -o hb.h5 && expect_status 0 h report hb.h5 &&
	expect_grep "^- 'slow/e2e' takes 1\.50x the time of 'slow/e2e-graph:launch=graph' under 'base' \(median over 6 blocks\): launched op by op" "$SCRATCH/out" &&
	! grep -q "'fast/e2e' takes" "$SCRATCH/out" &&
	pass "a stream forward at 1.5x its graph forward is warned about as host-bound, one at 1.1x is not" ||
	fail "host-bound warning"
finish
