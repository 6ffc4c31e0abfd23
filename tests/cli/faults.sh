# tests/cli/faults.sh: units that crash, hang, exit non-zero or break the record protocol are
# recorded with their status, and the run goes on to the next unit.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || skip "h5py for /usr/bin/python3 is not installed (Debian: python3-h5py)"
export PYTHONPATH="$top_srcdir/tests/cli"

expect_status 1 h run -q -o faults.h5 "$DATA/run/faults.toml" && pass "a run with failed units exits 1"
expect_grep 'units: 6 recorded of 6 planned, 4 not ok' "$SCRATCH/out"
$PY - faults.h5 <<'PYEOF' || fail "fault statuses"
import sys, h5py
from h5util import table, Checker
c = Checker("faults")
with h5py.File(sys.argv[1], "r") as f:
    units = {u["mode"]: u for u in table(f, "units")}
c.check(len(units) == 6, "all six units recorded")
c.check(units["default"]["status"] == "ok" and units["after"]["status"] == "ok", "healthy units before and after the faults are ok")
c.check(units["crash"]["status"] == "crashed" and units["crash"]["signal"] == 11 and units["crash"]["exit_code"] == 139, "crash: status crashed, SIGSEGV, 128+11")
c.check(units["hang"]["status"] == "timeout" and units["hang"]["wall_ns"] >= 3e9 and units["hang"]["wall_ns"] < 20e9, "hang: status timeout after ~3 s (%.1f s)" % (units["hang"]["wall_ns"] / 1e9))
c.check(units["exit"]["status"] == "failed" and units["exit"]["exit_code"] == 3, "exit 3: status failed, code 3")
c.check(units["garbage"]["status"] == "bad-output" and "not JSON" in units["garbage"]["message"], "garbage: bad-output naming the record line")
c.exit()
PYEOF
grep -q 'fault injected' faults/logs/u0003.err && pass "the failing unit's stderr is kept" || fail "stderr log of the exit-3 unit"
finish
