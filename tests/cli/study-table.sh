# tests/cli/study-table.sh: scripts/study-table.py (docs/BENCHMARKS.md's tables of a study,
# issue 12) on the planted composition data imported from CSV: each e2e row's median is the
# median over blocks of the CSV's values (computed here from the CSV), its ratio, CI and
# verdict are the report's comparison of that cell and mode, every audit check has a row;
# the pre-registered spread claim is decided on spreads computed here from the CSV;
# on 3 of its blocks, the exact CI with its coverage instead of a 95% CI; and a file that is
# not a results file exits 2.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
expect_status 0 h import --csv "$DATA/compose/compose.csv" -o c.h5 || finish
expect_status 0 $PY "$top_srcdir/scripts/study-table.py" --harness "$HARNESS" c.h5 &&
	pass "study-table.py runs" || finish
cp "$SCRATCH/out" table.md
h report -f json c.h5 >r.json 2>/dev/null
h audit -f json c.h5 >a.json 2>/dev/null
$PY - "$DATA/compose/compose.csv" table.md r.json a.json <<'PYEOF' && pass "e2e rows match the CSV and the report; one row per audit check" || fail "study table"
import csv, json, statistics, sys
vals = {}
for row in csv.DictReader(open(sys.argv[1])):
    if row["cell"].endswith("/e2e"):
        vals.setdefault((row["cell"], row["mode"]), []).append(float(row["value"]))
lines = open(sys.argv[2]).read().split("\n")
rep, aud = json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
cmp = {(c["cell"], c["mode"]): c for c in rep["comparisons"]}
start = lines.index("End to end:") + 4
rows = []
for l in lines[start:]:
    if not l.startswith("| "):
        break
    rows.append([x.strip() for x in l.strip("|").split("|")])
assert len(rows) == len(vals), (len(rows), len(vals))
for model, mode, med, ratio, verdict, setup, spread, units in rows:
    cell = model + "/e2e"
    v = vals[(cell, mode)]
    assert med == "%.3f" % (statistics.median(v) / 1e6), (cell, mode, med)
    assert int(units) == len(v), (cell, mode, units)
    if mode == rep["settings"]["baseline"]:
        assert ratio == "baseline", ratio
        continue
    c = cmp[(cell, mode)]
    assert ratio.startswith("%.4f [" % c["ratio"]) and verdict == c["verdict"], (cell, mode, ratio, verdict)
a0 = lines.index("Audit:") + 4
assert len([l for l in lines[a0:] if l.startswith("| ")]) == len(aud["checks"])
PYEOF
# the pre-registered spread claim: each e2e cell's spread (IQR / median over blocks, the
# quartiles by linear interpolation, as GSL's) computed here from the CSV; FALSIFIED by a
# mode whose spread is below the baseline's, and each such mode named
$PY - "$DATA/compose/compose.csv" table.md r.json <<'PYEOF' && pass "the spread claim, from the CSV" || fail "spread claim"
import csv, json, statistics, sys
vals = {}
for row in csv.DictReader(open(sys.argv[1])):
    if row["cell"].endswith("/e2e"):
        vals.setdefault(row["cell"], {}).setdefault(row["mode"], []).append(float(row["value"]))
text = open(sys.argv[2]).read()
base = json.load(open(sys.argv[3]))["settings"]["baseline"]
def spread(v):
    q1, _, q3 = statistics.quantiles(v, n=4, method="inclusive")
    return (q3 - q1) / statistics.median(v)
falsified = False
for cell, modes in sorted(vals.items()):
    b = spread(modes[base])
    low = sorted((spread(v), m) for m, v in modes.items() if m != base and spread(v) < b)
    falsified |= bool(low)
    want = "- %s: %s's spread %.1f%%; " % (cell, base, b * 100) + (
        "smaller: " + ", ".join("%s %.1f%%" % (m, s * 100) for s, m in low) if low
        else "every other mode's is at least as large")
    assert want in text.split("\n"), want
verdict = "FALSIFIED" if falsified else "CORROBORATED"
assert "%s's spread across units is the smallest (rule as pre-registered): %s" % (base, verdict) in text, verdict
PYEOF
# 3 of its blocks: each row prints the t test's CI (2 blocks carry one); a CI the deciding
# test cannot give (--test signed-rank below 6 blocks) is replaced by the exact CI and its
# coverage
$PY - "$DATA/compose/compose.csv" <<'PYEOF' >short.csv
import csv, sys
r = csv.DictReader(open(sys.argv[1]))
w = csv.DictWriter(sys.stdout, r.fieldnames, lineterminator="\n")
w.writeheader()
w.writerows(x for x in r if int(x["block"]) < 3)
PYEOF
expect_status 0 h import --csv short.csv -o s.h5 &&
	expect_status 0 $PY "$top_srcdir/scripts/study-table.py" --harness "$HARNESS" s.h5 &&
	cp "$SCRATCH/out" short.md &&
	h report -f json s.h5 >s.json 2>/dev/null &&
	$PY - short.md s.json <<'PYEOF' && pass "3 blocks: the t CI of each e2e ratio" || fail "study table of 3 blocks"
import json, sys
lines = open(sys.argv[1]).read().split("\n")
rep = json.load(open(sys.argv[2]))
cmp = {(c["cell"], c["mode"]): c for c in rep["comparisons"]}
start = lines.index("End to end:") + 4
n = 0
for l in lines[start:]:
    if not l.startswith("| "):
        break
    model, mode, _, ratio = [x.strip() for x in l.strip("|").split("|")][:4]
    if ratio == "baseline":
        continue
    c = cmp[(model + "/e2e", mode)]
    want = "%.4f [%.4f, %.4f]" % (c["ratio"], c["ci"][0], c["ci"][1])
    assert ratio == want, (ratio, want)
    n += 1
assert n > 0
PYEOF
# the hypotheses' table: one row per hypothesis verify decided, its verdict (exploratory, with
# the file's status, where verify says so: this run's file is not committed) and its margin
# (min effect and where it came from) as verify's JSON gives them
cp "$DATA/run/mode-workloads.toml" "$DATA/run/mode-workloads-hyp.toml" .
expect_status 0 h run -q -o mw.h5 mode-workloads.toml >/dev/null &&
	expect_status 0 $PY "$top_srcdir/scripts/study-table.py" --harness "$HARNESS" mw.h5 &&
	cp "$SCRATCH/out" mw.md && { h verify -f json mw.h5 >v.json 2>/dev/null; true; } &&
	$PY - mw.md v.json <<'PYEOF' && pass "hypotheses: verdict and margin of each, as verify's" || fail "hypotheses table"
import json, sys
lines = open(sys.argv[1]).read().split("\n")
hyp = json.load(open(sys.argv[2]))["hypotheses"]
start = lines.index("Hypotheses:") + 2
assert lines[start].startswith("| hypothesis | primary | verdict | margin (min effect) |"), lines[start]
rows = []
for l in lines[start + 2:]:
    if not l.startswith("| "):
        break
    rows.append([x.strip() for x in l.strip("|").split("|")])
assert len(rows) == len(hyp) > 0, (len(rows), len(hyp))
for r, h in zip(rows, hyp):
    want = h["verdict"] + (" (exploratory: %s)" % h["status"] if h["exploratory"] else "")
    assert r[0] == h["id"] and r[2] == want, (r, h["id"], want)
    me = h["min_effect"]
    want = "-" if me is None else "+-%.2f%% (%s)" % (100 * me, h["min_effect_source"])
    assert r[3] == want, (r[3], want)
assert any(r[3] != "-" for r in rows), rows
PYEOF
echo "not hdf5" > bogus.h5
expect_status 2 $PY "$top_srcdir/scripts/study-table.py" --harness "$HARNESS" bogus.h5 &&
	expect_grep "bogus.h5" "$SCRATCH/err" && pass "a file that is not a results file: exit 2, the harness's message"
finish
