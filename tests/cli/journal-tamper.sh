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
finish
