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
assert a["composition"] == b["composition"] and a["op_vs_e2e"] == b["op_vs_e2e"], "composition differs"
spread = lambda rep: {(x["name"], m["mode"]): (m["unit_rel_se"], m["log_variance"]) for x in rep["cells"] for m in x["modes"] if m["unit_medians_ns"]["n"]}
assert spread(a) == spread(b), "unit SE or variance decomposition differs"
PYEOF
$PY - csvout/summary.csv a.json <<'PYEOF' && pass "summary.csv's unit SE and process share are the report's" || fail "summary.csv against the report"
import csv, json, math, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
rep = json.load(open(sys.argv[2]))
want = {(x["name"], m["mode"]): m for x in rep["cells"] for m in x["modes"]}
def same(text, v):
    return (text == "" and v is None) or (text != "" and v is not None and math.isclose(float(text), v, rel_tol=1e-15))
assert rows and all(same(r["unit_rel_se"], want[(r["cell"], r["mode"])]["unit_rel_se"]) and
                    same(r["process_share"], want[(r["cell"], r["mode"])]["log_variance"]["process_share"])
                    for r in rows), "a row differs"
PYEOF

# names with commas and quotes survive export -> import -> export
expect_status 0 h import --csv "$DATA/import/good.csv" -o g.h5
expect_status 0 h export --csv g1 g.h5
expect_status 0 h import --csv g1/samples.csv -o g2.h5
expect_status 0 h export --csv g2 g2.h5
cmp -s g1/samples.csv g2/samples.csv && pass "export -> import -> export is a fixed point" || fail "samples.csv changed through a round trip"
grep -q '"gemm64/sgemm:m=64,n=64,k=""64"""' g1/samples.csv && pass "a name with commas and quotes is quoted" || fail "quoting of 'gemm64/sgemm:m=64,n=64,k=\"64\"'"

# ---- files replaced whole, never through a symlink, never partly (issue 9, item 12) -------
# A symlink planted in the output folder is replaced itself; its target is untouched.
mkdir -p planted
echo "precious" >target.txt
ln -s ../target.txt planted/samples.csv
ln -s ../no-such-file planted/units.csv
if expect_status 0 h export --csv planted g.h5; then
	[ "$(cat target.txt)" = precious ] && pass "the symlink's target is untouched" ||
		fail "export wrote through a symlink into target.txt"
	[ -e no-such-file ] && fail "export created a dangling symlink's target"
	[ -f planted/samples.csv ] && [ ! -L planted/samples.csv ] && [ ! -L planted/units.csv ] &&
		cmp -s planted/samples.csv g1/samples.csv && pass "the symlinks were replaced by the files" ||
		fail "planted/samples.csv is not the exported file"
fi
set -- planted/*.tmp*
[ -e "$1" ] && fail "temporary files left in planted/: $*"

# A write that fails (a full disk, through tests/stress/writefault.so) leaves the folder as it
# was: no partial file, no temporary file, the previous export intact.
SHIM=$top_builddir/tests/stress/writefault.so
if [ ! -f "$SHIM" ]; then
	echo "note: $SHIM not built: full-disk checks skipped"
elif ! LD_PRELOAD=$SHIM $HARNESS --version >/dev/null 2>&1; then
	echo "note: the harness does not run under LD_PRELOAD=$SHIM (a sanitizer build?): full-disk checks skipped"
else
	cp -R g1 before
	cnt=$SCRATCH/count
	rm -f "$cnt"
	WRITEFAULT_MATCH=.csv WRITEFAULT_LOG=$cnt LD_PRELOAD=$SHIM h export --csv g1 g.h5 >/dev/null 2>&1
	total=$(awk '{ s += $2 } END { print s + 0 }' "$cnt" 2>/dev/null)
	[ "${total:-0}" -ge 3 ] || fail "writefault counted ${total:-0} writes to .csv files"
	n=1
	while [ "$n" -le "${total:-0}" ]; do
		if expect_status 1 env WRITEFAULT_MATCH=.csv WRITEFAULT_ENOSPC_AT=$n LD_PRELOAD=$SHIM \
			$HARNESS export --csv g1 g.h5; then
			expect_grep "^harness: cannot write 'g1/[a-z]+\.csv': No space left on device\$" "$SCRATCH/err"
		fi
		diff -r before g1 >/dev/null || fail "ENOSPC at write $n of $total changed g1/: $(ls g1)"
		n=$((n + 1))
	done
	pass "a full disk at each of $total writes leaves the previous export as it was"
	rm -rf fresh
	expect_status 1 env WRITEFAULT_MATCH=.csv WRITEFAULT_ENOSPC_AT=1 LD_PRELOAD=$SHIM \
		$HARNESS export --csv fresh g.h5
	[ -z "$(ls fresh 2>/dev/null)" ] && pass "a full disk leaves nothing in a new folder" ||
		fail "a failed export left $(ls fresh) in a new folder"
	# killed inside a write (torn): the final names hold the previous export or nothing
	expect_status 137 env WRITEFAULT_MATCH=.csv WRITEFAULT_KILL_AT=2 LD_PRELOAD=$SHIM \
		$HARNESS export --csv g1 g.h5
	for x in samples units summary; do
		cmp -s before/$x.csv g1/$x.csv || fail "a kill inside a write changed g1/$x.csv"
	done
	rm -f g1/*.tmp*
fi

# A real full disk: a small tmpfs, when this process may mount one (root, not in a
# restricted container); else skipped with the reason.
mkdir full
if mount -t tmpfs -o size=64k tmpfs full 2>/dev/null; then
	trap 'umount "$SCRATCH/full" 2>/dev/null; rm -rf "$SCRATCH"' EXIT
	if expect_status 0 h export --csv full/out g.h5; then
		cp -R full/out before-full
		dd if=/dev/zero of=full/filler bs=1k count=1024 2>/dev/null # fills it: fails at 64k
		if expect_status 1 h export --csv full/out g.h5; then
			expect_grep "No space left on device" "$SCRATCH/err"
			diff -r before-full full/out >/dev/null && pass "a full tmpfs leaves the previous export as it was" ||
				fail "a full tmpfs changed full/out: $(ls full/out)"
		fi
	fi
	umount full || fail "cannot unmount the tmpfs"
else
	echo "note: cannot mount a tmpfs here (not root, or not allowed): the real full-disk check is skipped"
fi

expect_status 2 h export f.h5 && expect_grep "needs --csv DIR" "$SCRATCH/err"
expect_status 2 h export --csv x missing.h5 && expect_grep "missing.h5" "$SCRATCH/err"
finish
