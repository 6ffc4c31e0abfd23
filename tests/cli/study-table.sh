# tests/cli/study-table.sh: scripts/study-table.py (docs/BENCHMARKS.md's tables of a study,
# issue 12) on the planted composition data imported from CSV: each e2e row's median is the
# median over blocks of the CSV's values (computed here from the CSV), its ratio, CI and
# verdict are the report's comparison of that cell and mode, every audit check has a row,
# and a file that is not a results file exits 2.
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
echo "not hdf5" > bogus.h5
expect_status 2 $PY "$top_srcdir/scripts/study-table.py" --harness "$HARNESS" bogus.h5 &&
	expect_grep "bogus.h5" "$SCRATCH/err" && pass "a file that is not a results file: exit 2, the harness's message"
finish
