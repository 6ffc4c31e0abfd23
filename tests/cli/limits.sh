# tests/cli/limits.sh: bounded records (issue 45, item 3).  A unit streaming samples without
# end, and one sending info text without end, each past the experiment's [limits]: killed at
# once, recorded bad-output with the limit it passed, and the run goes on (the behaving unit
# recorded ok, the results file small); a flood past output_bytes likewise.  A bad [limits]
# is refused at its line:col.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || skip "h5py for /usr/bin/python3 is not installed (Debian: python3-h5py)"
export PYTHONPATH="$top_srcdir/tests/cli"
cp "$DATA/limits/flood.sh" "$DATA/limits/flood.toml" .

start=$(date +%s)
h run -q -o f.h5 flood.toml >out 2>err
st=$?
took=$(($(date +%s) - start))
[ "$st" = 1 ] || fail "the run exited $st, want 1 (units not ok): $(tail -3 err)"
[ "$took" -lt 50 ] && pass "the flooding units were stopped at their limits, not at the 60 s timeout (${took} s)" ||
	fail "the run took $took s: the flooding units ran to their timeout"
$PY - f.h5 <<'PYEOF' && pass "recorded: the floods bad-output naming the limit passed, the baseline ok, the file small" || fail "the record of the floods"
import os, sys, h5py
f = h5py.File(sys.argv[1], "r")
u = {x["mode"].decode(): x for x in f["units"][:]}
assert u["ok"]["status"] == b"ok", u["ok"]["status"]
for m, what in (("samples", b"more than 100000 samples (the experiment's [limits] samples); killed"),
                ("info", b"info records of more than 262144 bytes (the experiment's [limits] info_bytes); killed")):
    assert u[m]["status"] == b"bad-output", (m, u[m]["status"])
    assert what in u[m]["message"], (m, u[m]["message"])
assert os.path.getsize(sys.argv[1]) < 8 << 20, os.path.getsize(sys.argv[1])
assert len(f["samples"]) < 200000, len(f["samples"])
PYEOF

# output_bytes: the same sample flood under a byte limit below its sample limit
sed 's/^info_bytes = 262144$/output_bytes = 50000/' flood.toml > bytes.toml
h run -q -o b.h5 bytes.toml >out 2>err
$PY - b.h5 <<'PYEOF' && pass "output_bytes: the flood stopped at 50000 bytes of records" || fail "the record of the byte limit"
import sys, h5py
u = {x["mode"].decode(): x for x in h5py.File(sys.argv[1], "r")["units"][:]}
assert u["samples"]["status"] == b"bad-output", u["samples"]["status"]
assert b"more than 50000 bytes of records (the experiment's [limits] output_bytes); killed" in u["samples"]["message"], u["samples"]["message"]
assert u["ok"]["status"] == b"ok"
PYEOF

# a long info within the limits: stored whole beside /units (/long_strings, /long_bytes), its
# /units row cut at 64 KiB, so one long value does not widen every row
cp "$DATA/limits/big.toml" .
expect_status 0 h run -q -o g.h5 big.toml &&
	$PY - g.h5 <<'PYEOF' && pass "a 3 MiB info: its row cut at 64 KiB, the whole of it in /long_bytes, the file small" || fail "the long info"
import os, sys, h5py
f = h5py.File(sys.argv[1], "r")
u = f["units"][:]
assert f["units"].dtype["info"].itemsize == 65536, f["units"].dtype["info"].itemsize
assert all(x["status"] == b"ok" for x in u), [x["status"] for x in u]
ls = f["long_strings"][:]
lb = f["long_bytes"][:].tobytes()
big = [i for i, x in enumerate(u) if x["mode"] == b"info"]
assert sorted(int(r["row"]) for r in ls) == sorted(big) and all(r["table"] == b"/units" and r["field"] == b"info" for r in ls), ls
for r in ls:
    whole = lb[int(r["first"]):int(r["first"]) + int(r["bytes"])].decode()
    cut = u[int(r["row"])]["info"]
    assert whole.startswith(cut.decode()) and len(cut) <= 65535, len(cut)
    assert "\nbig_tail=\u00e9\n" in whole and len(whole) > 3 * 2**20, len(whole)
assert os.path.getsize(sys.argv[1]) < 2 << 20, os.path.getsize(sys.argv[1])
PYEOF
expect_status 0 h verify --record g.h5 && expect_grep "^6 of 6 units re-checked" "$SCRATCH/out" &&
	pass "the harness reads the long infos back whole, as the journal has them"

sed 's/^samples = 100000$/samples = 0/' flood.toml > bad.toml
expect_status 2 h check bad.toml && expect_grep "'bad.toml':11:11: " "$SCRATCH/err" &&
	pass "[limits] samples = 0: refused at its line:col"
sed 's/^samples = 100000$/sample = 100000/' flood.toml > typo.toml
expect_status 2 h check typo.toml && expect_grep "'typo.toml':11:1: .*sample.* in \[limits\]" "$SCRATCH/err" &&
	pass "[limits] with an unknown key: refused, naming it"
finish
