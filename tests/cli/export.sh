# tests/cli/export.sh: `harness export --csv DIR`: CSV that any tool parses (names with commas
# and quotes survive), and export then import gives identical statistics; the files are one
# set, put in place whole with a manifest of their sizes and hashes, which import checks.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || skip "h5py for /usr/bin/python3 is not installed (Debian: python3-h5py)"
export PYTHONPATH="$top_srcdir/tests/cli"

# a real run (with failed units, which samples.csv leaves out and units.csv keeps)
h run -q -o f.h5 "$DATA/run/faults.toml" >/dev/null 2>&1
expect_status 0 h export --csv csvout f.h5 && pass "export a run"
for x in samples units summary manifest; do [ -s "csvout/$x.csv" ] || fail "csvout/$x.csv written"; done
# the manifest: every other file with its size and SHA-256, as sha256sum and wc see them
check "manifest.csv lists each file's size and SHA-256" $PY - csvout <<'PYEOF'
import csv, hashlib, os, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/manifest.csv", newline="")))
assert [r["file"] for r in rows] == ["samples.csv", "units.csv", "summary.csv"], rows
for r in rows:
    data = open(os.path.join(d, r["file"]), "rb").read()
    assert int(r["bytes"]) == len(data) and r["sha256"] == hashlib.sha256(data).hexdigest(), r
assert sorted(os.listdir(d)) == ["manifest.csv", "samples.csv", "summary.csv", "units.csv"], os.listdir(d)
PYEOF
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

# ---- one set, put in place whole (issue 51) ------------------------------------------------
# A folder with entries is refused without --force, and left as it was.
cp -R g1 g1-before
expect_status 2 h export --csv g1 f.h5 &&
	expect_grep "^harness: 'g1' is not empty; export writes its set into a new or empty folder \(--force replaces an earlier export there whole\)\$" "$SCRATCH/err"
check "a refused export leaves the folder as it was" diff -r g1-before g1
# --force replaces an earlier set whole: every file is the new run's, the manifest too
if expect_status 0 h export --force --csv g1 f.h5; then
	check "--force replaced the whole set" cmp -s g1/samples.csv csvout/samples.csv
	check "its manifest is the new set's" cmp -s g1/manifest.csv csvout/manifest.csv
fi
# --force replaces only an export: a folder with anything else is refused, untouched
mkdir mine && echo "notes" >mine/notes.txt && echo "x" >mine/samples.csv
expect_status 2 h export --force --csv mine f.h5 &&
	expect_grep "^harness: 'mine' holds 'notes.txt', which is not a file of an export" "$SCRATCH/err"
check "the other folder is untouched" '[ "$(cat mine/notes.txt)" = notes ] && [ "$(cat mine/samples.csv)" = x ]'
# an empty folder is a new one; a file where the folder should be is refused
mkdir empty
expect_status 0 h export --csv empty g.h5 && check "an empty folder takes the set" cmp -s empty/samples.csv g1-before/samples.csv
echo x >afile
expect_status 2 h export --csv afile g.h5 && expect_grep "^harness: 'afile' exists and is not a folder" "$SCRATCH/err"
# Planted symlinks in an earlier set are replaced with it (the folder is), targets untouched.
mkdir -p planted
echo "precious" >target.txt
ln -s ../target.txt planted/samples.csv
ln -s ../no-such-file planted/units.csv
if expect_status 0 h export --force --csv planted g.h5; then
	check "the symlink's target is untouched" '[ "$(cat target.txt)" = precious ]'
	check "no dangling symlink's target was created" '[ ! -e no-such-file ]'
	check "the symlinks were replaced by the set" '[ -f planted/samples.csv ] && [ ! -L planted/samples.csv ] && [ ! -L planted/units.csv ] && cmp -s planted/samples.csv g1-before/samples.csv'
fi
check "no temporary file or folder is left" '[ -z "$(ls -A planted | grep -v "^[a-z]*\.csv$")" ] && [ -z "$(ls -A | grep "export-")" ]'

# import checks the manifest: a set whose files disagree with it, or without it, is refused
cp -R g1-before bad1 && echo 'x,y,0,1,ns,op,false,1' >>bad1/samples.csv
expect_status 2 h import --csv bad1/samples.csv -o bad1.h5 &&
	expect_grep "^harness: 'bad1/samples.csv' has [0-9]+ bytes, but 'bad1/manifest.csv' says [0-9]+: the set was changed or mixed with another export's files\$" "$SCRATCH/err"
cp -R g1-before bad2 && cp csvout/units.csv bad2/units.csv # another export's units.csv
expect_status 2 h import --csv bad2/samples.csv -o bad2.h5 &&
	expect_grep "^harness: 'bad2/units.csv' has " "$SCRATCH/err"
cp -R g1-before bad3 && sed -i 's/1/2/' bad3/samples.csv # the same size, other bytes
expect_status 2 h import --csv bad3/samples.csv -o bad3.h5 &&
	expect_grep "^harness: 'bad3/samples.csv' has SHA-256 [0-9a-f]{64}, but 'bad3/manifest.csv' says [0-9a-f]{64}" "$SCRATCH/err"
cp -R g1-before bad4 && rm bad4/manifest.csv
expect_status 2 h import --csv bad4/samples.csv -o bad4.h5 &&
	expect_grep "^harness: 'bad4' is an export's set without its manifest.csv" "$SCRATCH/err"
check "nothing was imported from a refused set" '[ ! -e bad1.h5 ] && [ ! -e bad2.h5 ] && [ ! -e bad3.h5 ] && [ ! -e bad4.h5 ]'
cp g1-before/samples.csv alone.csv
expect_status 0 h import --csv alone.csv -o alone.h5 && pass "samples.csv out of its set is plain CSV"

# A write that fails (a full disk, through tests/stress/writefault.so) leaves the folder as it
# was: no partial file, no temporary file or folder, the previous export intact.
SHIM=$top_builddir/tests/stress/writefault.so
if [ ! -f "$SHIM" ]; then
	echo "note: $SHIM not built: full-disk checks skipped"
elif ! LD_PRELOAD=$SHIM $HARNESS --version >/dev/null 2>&1; then
	echo "note: the harness does not run under LD_PRELOAD=$SHIM (a sanitizer build?): full-disk checks skipped"
else
	cnt=$SCRATCH/count
	rm -f "$cnt"
	WRITEFAULT_MATCH=.csv WRITEFAULT_LOG=$cnt LD_PRELOAD=$SHIM h export --csv counted g.h5 >/dev/null 2>&1
	# g1 holds f.h5's set; each export below tries to put g.h5's in its place
	rm -rf before && cp -R g1 before
	check "g1 holds another run's set than the one exported below" '! cmp -s g1/samples.csv counted/samples.csv'
	total=$(awk '{ s += $2 } END { print s + 0 }' "$cnt" 2>/dev/null)
	[ "${total:-0}" -ge 4 ] || fail "writefault counted ${total:-0} writes to .csv files"
	n=1
	while [ "$n" -le "${total:-0}" ]; do
		if expect_status 1 env WRITEFAULT_MATCH=.csv WRITEFAULT_ENOSPC_AT=$n LD_PRELOAD=$SHIM \
			$HARNESS export --force --csv g1 g.h5; then
			expect_grep "^harness: cannot write '[^']*(manifest|[a-z]+\.csv)[^']*': No space left on device\$" "$SCRATCH/err"
		fi
		diff -r before g1 >/dev/null || fail "ENOSPC at write $n of $total changed g1/: $(ls g1)"
		[ -z "$(ls -A | grep "export-")" ] || fail "ENOSPC at write $n of $total left $(ls -A | grep "export-")"
		n=$((n + 1))
	done
	pass "a full disk at each of $total writes leaves the previous export as it was, nothing beside it"
	rm -rf fresh
	expect_status 1 env WRITEFAULT_MATCH=.csv WRITEFAULT_ENOSPC_AT=1 LD_PRELOAD=$SHIM \
		$HARNESS export --csv fresh g.h5
	check "a full disk leaves no folder" '[ ! -e fresh ] && [ -z "$(ls -A | grep "export-")" ]'
	# killed inside a write (torn): DIR holds the previous set, whole; the next export
	# removes the temporary folder the killed one left, and says so
	expect_status 137 env WRITEFAULT_MATCH=.csv WRITEFAULT_KILL_AT=2 LD_PRELOAD=$SHIM \
		$HARNESS export --force --csv g1 g.h5
	check "a kill inside a write leaves the previous set" diff -r before g1
	check "no *.tmp file in the set" '[ -z "$(ls -A g1 | grep -v "^[a-z]*\.csv$")" ]'
	left=$(ls -A | grep "^\.g1\.export-")
	check "the killed export's folder is beside the set, hidden" '[ -n "$left" ]'
	if expect_status 0 h export --force --csv g1 g.h5; then
		expect_grep "^harness: warning: removed '\./$left', left by an export that was stopped \(process [0-9]+\)\$" "$SCRATCH/err"
		check "and it is gone" '[ -z "$(ls -A | grep "export-")" ]'
		check "the new set is in place" diff -r counted g1
	fi
fi

# A real full disk: a small tmpfs, when this process may mount one (root, not in a
# restricted container); else skipped with the reason.
mkdir full
if mount -t tmpfs -o size=64k tmpfs full 2>/dev/null; then
	trap 'umount "$SCRATCH/full" 2>/dev/null; rm -rf "$SCRATCH"' EXIT
	if expect_status 0 h export --csv full/out g.h5; then
		cp -R full/out before-full
		dd if=/dev/zero of=full/filler bs=1k count=1024 2>/dev/null # fills it: fails at 64k
		if expect_status 1 h export --force --csv full/out g.h5; then
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
