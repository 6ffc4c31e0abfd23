# tests/cli/journal-tamper.sh: the journal is verified, not trusted (issue 45, item 2).
# A unit that copies the first unit file over the others (the assembly used to record unit 0
# several times and lose the rest), and one that rewrites the baseline's samples x3 through
# h5py (HDF5's checksums recomputed: nothing noticed before): every unit file is checked
# against the SHA-256 the harness recorded (journal/digests) before it wrote the file, and
# against the unit its name says.  The run stops with the tampered file named (exit 1,
# nothing assembled from it); --resume removes the tampered files and runs those units
# again; the final file holds each unit once, with the samples it sent.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || skip "h5py for /usr/bin/python3 is not installed (Debian: python3-h5py)"
export PYTHONPATH="$top_srcdir/tests/cli"
cp "$DATA/writer/tamper.sh" "$DATA/writer/tamper.toml" "$DATA/writer/slow.sh" .

for how in copy scale; do
	sed "s/\"tamper.sh\", \"copy\"/\"tamper.sh\", \"$how\"/" tamper.toml > $how.toml
	expect_status 1 h run -q -o $how.h5 $how.toml &&
		expect_grep "journal/unit-000[0-9].h5': its bytes differ from what the harness wrote \(SHA-256 recorded in journal/digests\)" "$SCRATCH/err" &&
		pass "$how: the tampered unit file is named and the run stops (exit 1)"
	expect_status 0 h run -q --resume $how.h5 &&
		expect_grep "warning: '$how/journal/unit-000[0-9].h5': its bytes differ .*; removed, unit [0-9] runs again" "$SCRATCH/err" &&
		pass "$how: --resume removes the tampered files and runs those units again"
	$PY - $how.h5 <<'PYEOF' && pass "$how: each unit once, with the samples it sent" || fail "$how: the final record"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
u = f["units"][:]
assert sorted(int(x["id"]) for x in u) == list(range(6)), [int(x["id"]) for x in u]
assert all(x["status"] == b"ok" for x in u)
ns = sorted(set(int(v) for v in f["samples"]["ns"]))
assert ns == [19900, 20050, 20100, 20200, 20300], ns
PYEOF
done

# verify re-checks a results file against its journal: the completed copy.h5 holds what its
# journal files (each with its recorded SHA-256) hold; rescaled afterwards through h5py, it
# does not, and verify says which unit and what, and refuses it (exit 2)
expect_status 0 h verify --record copy.h5 &&
	expect_grep "^6 of 6 units re-checked" "$SCRATCH/out" &&
	pass "verify --record: 6 of 6 units as their journal files hold them"
cp copy.h5 moved.h5 && mkdir away && mv moved.h5 away/
expect_status 0 h verify --record away/moved.h5 &&
	expect_grep "^0 of 6 units re-checked" "$SCRATCH/out" &&
	expect_grep "^6 could not be re-checked \(the first: 'away/copy/journal/unit-0000.h5' is not there\)" "$SCRATCH/out" &&
	pass "verify --record: a results file away from its run folder cannot be re-checked, and says so"
$PY - copy.h5 <<'PYEOF'
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    s = f["samples"][:]
    u = f["units"][:]
    first = int(u[0]["sample_first"]); n = int(u[0]["sample_count"])
    s["ns"][first:first + n] *= 3
    f["samples"][:] = s
PYEOF
expect_status 2 h verify --record copy.h5 &&
	expect_grep "1 of 6 units differ from the journal they were recorded in; the first: unit [0-9] \(row 0\): its samples in the results file differ from its journal file" "$SCRATCH/err" &&
	expect_grep "^\*\*1 differ\*\*" "$SCRATCH/out" &&
	pass "verify --record: samples rescaled in the results file are found, naming the unit"
expect_status 2 h verify copy.h5 &&
	expect_grep "differ from the journal they were recorded in" "$SCRATCH/err" &&
	pass "verify refuses a results file that differs from its journal (exit 2)"
finish
