# tests/cli/launches.sh: a sample may cover several executions (`launches`, as the CUDA backend
# batches cells under 20 us, sizing the batch per config).  Every statistic compares one
# execution's time: a mode whose samples cover 4 executions at the same time per execution
# as the baseline's single ones must come out at ratio 1 in the report and in the run's
# closing answer, and at the same median in `export`, not 4x slower.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || skip "h5py for /usr/bin/python3 is needed"
cp "$DATA/launches/launches_worker.py" "$DATA/launches/launches.toml" .
expect_status 0 h run --results-dir res launches.toml && pass "run" || finish
grep -E "^    batched: " out >summary.txt
$PY - summary.txt <<'PY' && pass "the closing answer compares one execution's time" || fail "closing answer: $(cat summary.txt)"
import re, sys
m = re.search(r"geomean ([0-9.]+)", open(sys.argv[1]).read())
sys.exit(0 if m and abs(float(m.group(1)) - 1) < 0.02 else 1)
PY
H5=$(printf '%s\n' res/launches-*.h5 | head -1)
expect_status 0 h report --format json "$H5" && cp out rep.json
$PY - rep.json <<'PY' && pass "the report compares one execution's time" || fail "report: $(head -c 600 rep.json)"
import json, sys
r = json.load(open(sys.argv[1]))
cmp = [c for c in r["comparisons"] if c["mode"] == "batched"][0]
med = {m["mode"]: m["unit_medians_ns"]["median"] for m in r["cells"][0]["modes"]}
ok = abs(cmp["ratio"] - 1) < 0.02 and all(abs(v - 20000) < 400 for v in med.values())
print(cmp["ratio"], med)
sys.exit(0 if ok else 1)
PY
expect_status 0 h export --csv ex "$H5"
$PY - ex/samples.csv <<'PY' && pass "export writes one execution's time" || fail "export: $(head -3 ex/samples.csv)"
import csv, sys
v = [float(r["value"]) for r in csv.DictReader(open(sys.argv[1]))]
sys.exit(0 if v and all(abs(x - 20000) < 400 for x in v) else 1)
PY
finish
