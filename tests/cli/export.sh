# tests/cli/export.sh: `harness export --csv DIR`: CSV that any tool parses (names with commas
# and quotes survive), and export then import gives identical statistics.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || skip "h5py for /usr/bin/python3 is not installed (Debian: python3-h5py)"
export PYTHONPATH="$top_srcdir/tests/cli"

# a real run (with failed units, which samples.csv leaves out and units.csv keeps)
h run -q -o f.h5 "$DATA/run/faults.toml" >/dev/null 2>&1
expect_status 0 h export --csv csvout f.h5 && pass "export a run"
for x in samples units summary; do [ -s "csvout/$x.csv" ] || fail "csvout/$x.csv written"; done
$PY - csvout f.h5 <<'PYEOF' || fail "exported CSV content"
import csv, sys, h5py
from h5util import table, Checker
c = Checker("export")
d, path = sys.argv[1], sys.argv[2]
with h5py.File(path, "r") as f:
    units, cells, samples = table(f, "units"), table(f, "cells"), table(f, "samples")
u = list(csv.DictReader(open(d + "/units.csv", newline="")))
c.check(len(u) == len(units) and [r["status"] for r in u] == [x["status"] for x in units], "units.csv: every unit with its status")
s = list(csv.DictReader(open(d + "/samples.csv", newline="")))
ok_rows = {i for i, x in enumerate(units) if x["status"] == "ok" and not x["warm"]}
want = [(cells[x["cell"]]["name"], units[x["unit"]]["mode"], x["ns"]) for x in samples if x["unit"] in ok_rows]
got = [(r["cell"], r["mode"], int(r["value"])) for r in s]
c.check(got == want, "samples.csv: every sample of the ok cold units, exactly (%d rows)" % len(got))
c.check(all(r["unit"] == "ns" for r in s), "values in ns")
c.exit()
PYEOF

# export then import: identical statistics
expect_status 0 h import --csv csvout/samples.csv -o back.h5 && pass "import the export"
h report --margin 0.05 -f json f.h5 > a.json 2>/dev/null
h report --margin 0.05 -f json back.h5 > b.json 2>/dev/null
$PY - a.json b.json <<'PYEOF' && pass "export then import: identical comparisons and summaries" || fail "statistics changed through export/import"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
# modes whose every unit failed have no samples to export: only the compared rows carry over
key = lambda rep: {(x["cell"], x["mode"]): x for x in rep["comparisons"] if x["compared"]}
assert key(a) == key(b) and len(key(a)) > 0, "comparisons differ"
cells = lambda rep: {x["name"]: {m["mode"]: m["unit_medians_ns"] for m in x["modes"] if m["unit_medians_ns"]["n"]} for x in rep["cells"]}
assert cells(a) == cells(b), "per-cell summaries differ"
PYEOF

# names with commas and quotes survive export -> import -> export
expect_status 0 h import --csv "$DATA/import/good.csv" -o g.h5
expect_status 0 h export --csv g1 g.h5
expect_status 0 h import --csv g1/samples.csv -o g2.h5
expect_status 0 h export --csv g2 g2.h5
cmp -s g1/samples.csv g2/samples.csv && pass "export -> import -> export is a fixed point" || fail "samples.csv changed through a round trip"
grep -q '"gemm64/sgemm:m=64,n=64,k=""64"""' g1/samples.csv && pass "a name with commas and quotes is quoted" || fail "quoting of 'gemm64/sgemm:m=64,n=64,k=\"64\"'"

expect_status 2 h export f.h5 && expect_grep "needs --csv DIR" "$SCRATCH/err"
expect_status 2 h export --csv x missing.h5 && expect_grep "missing.h5" "$SCRATCH/err"
finish
