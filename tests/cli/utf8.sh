#!/bin/sh
# tests/cli/utf8.sh: no writer drops a row (issue 9, item 10).  Input checks keep invalid
# UTF-8 out of new results files, but one written by an older or damaged build can hold
# some: here a mode and a cell name are damaged with h5py.  The JSON report (jansson refuses
# invalid strings) and the comparison must keep every mode, cell and comparison, with
# U+FFFD for each bad byte; so must the JSON verdicts and the JSON audit (one helper,
# harness/output/json.c, builds every JSON string); the HTML page must be valid UTF-8; md
# and csv keep the rows.
. "${top_srcdir:?run through make check (top_srcdir is not set)}/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || skip "h5py for /usr/bin/python3 is not installed (Debian: python3-h5py)"

OUT=$SCRATCH/out
ERR=$SCRATCH/err

expect_status 0 h import --csv "$DATA/import/good.csv" -o good.h5 || finish
cp good.h5 bad.h5
$PY - bad.h5 <<'PYEOF' || fail "cannot damage bad.h5"
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    for t in ("plan", "units"):
        a = f[t][...]
        for i in range(len(a)):
            if a["mode"][i] in (b"beam", "beam"):
                a["mode"][i] = b"be\xffm"
        f[t][...] = a
    c = f["cells"][...]
    c["name"][0] = b"gemm64/sgemm:m=64,n=\xc3"
    f["cells"][...] = c
PYEOF

# counts N FILE.json: modes, cells and comparisons in a JSON report
counts() {
	$PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(len(d["modes"]), len(d["cells"]), len(d["comparisons"]))' "$1"
}

if expect_status 0 h report -f json good.h5 && cp "$OUT" good.json &&
	expect_status 0 h report -f json bad.h5 && cp "$OUT" bad.json; then
	want=$(counts good.json) got=$(counts bad.json)
	[ "$want" = "$got" ] && pass "JSON report: every mode, cell and comparison kept ($got)" ||
		fail "JSON report dropped rows: $got of $want (modes, cells, comparisons)"
	$PY - bad.json <<'PYEOF' && pass "JSON report: U+FFFD for each bad byte" || fail "JSON report: the damaged names are not as expected"
import json, sys
d = json.load(open(sys.argv[1]))
assert "be\ufffdm" in [m["name"] for m in d["modes"]]
assert "gemm64/sgemm:m=64,n=\ufffd" in [c["name"] for c in d["cells"]]
assert sum(x["mode"] == "be\ufffdm" for x in d["comparisons"]) == 2
PYEOF
fi
for fmt in md csv; do
	if expect_status 0 h report -f $fmt bad.h5; then
		[ "$(grep -c 'be.m' "$OUT")" -ge 2 ] && pass "$fmt report keeps the damaged mode's rows" ||
			fail "$fmt report lost the damaged mode's rows"
	fi
done
if expect_status 0 h compare -f json bad.h5 bad.h5; then
	$PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["rows"]) == 6 and sum(r["mode"] == "be\ufffdm" for r in d["rows"]) == 2
' "$OUT" && pass "JSON comparison keeps every row" || fail "JSON comparison dropped rows"
fi
# the hypotheses' verdicts and the audit (every JSON writer shares harness/output/json.c):
# a damaged cell name and a results file whose own name is not UTF-8 keep every row
SYN=$DATA/report/synthetic.csv HYP=$DATA/hypotheses/synthetic.toml
if expect_status 0 h import --csv "$SYN" -o syn.h5; then
	cp syn.h5 cellbad.h5
	# damaged, then sealed again (tests/cli/h5seal.py): verify refuses a file altered after
	# it was written, and this is about the writers, not the digests
	PYTHONPATH="$top_srcdir/tests/cli" $PY - cellbad.h5 <<'PYEOF' || fail "cannot damage cellbad.h5"
import sys, h5py, h5seal
with h5py.File(sys.argv[1], "r+") as f:
    c = f["cells"][...]
    c["name"][0] = b"net/sgemm:m=6\xff4"
    f["cells"][...] = c
    h5seal.forge(f)
PYEOF
	badname=$(printf 'b\377d.h5')
	cp syn.h5 "$badname"
	for f in syn.h5 cellbad.h5 "$badname"; do
		expect_status 0 h verify --baseline base --hypotheses "$HYP" -f json "$f" || continue
		cp "$OUT" "verify-$f.json"
		expect_status 0 h audit -f json "$f" || continue
		cp "$OUT" "audit-$f.json"
	done
	$PY - verify-syn.h5.json verify-cellbad.h5.json "verify-$badname.json" <<'PYEOF' && pass "JSON verdicts: every hypothesis and target kept, U+FFFD for each bad byte" || fail "JSON verdicts dropped rows or names"
import json, sys
good, cell, path = (json.load(open(p, encoding="utf-8")) for p in sys.argv[1:4])
shape = lambda d: [(h["id"], len(h["targets"])) for h in d["hypotheses"]]
assert shape(good) == shape(cell) == shape(path) and len(good["hypotheses"]) > 0, (shape(good), shape(cell), shape(path))
labels = [t["label"] for h in cell["hypotheses"] for t in h["targets"]]
assert any("net/sgemm:m=6\ufffd4" in l for l in labels), labels
assert path["results"] == "b\ufffdd.h5", path["results"]
PYEOF
	$PY - audit-syn.h5.json audit-cellbad.h5.json "audit-$badname.json" <<'PYEOF' && pass "JSON audit: every check kept, U+FFFD for each bad byte" || fail "JSON audit dropped checks or names"
import json, sys
good, cell, path = (json.load(open(p, encoding="utf-8")) for p in sys.argv[1:4])
ids = lambda d: [c["id"] for c in d["checks"]]
assert ids(good) == ids(cell) == ids(path) and len(ids(good)) > 5, (ids(good), ids(cell), ids(path))
assert any("net/sgemm:m=6\ufffd4" in c for k in cell["checks"] for c in k["cells"]), "no damaged cell name"
assert path["run"]["path"] == "b\ufffdd.h5", path["run"]
PYEOF
fi

if command -v gnuplot >/dev/null 2>&1; then
	if expect_status 0 h report -f html bad.h5; then
		$PY -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$OUT" &&
			pass "HTML report is valid UTF-8" || fail "HTML report is not valid UTF-8"
	fi
else
	echo "note: no gnuplot: the HTML check is skipped"
fi

finish
