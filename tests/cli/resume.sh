# tests/cli/resume.sh: kill -9 of the harness mid-run leaves a readable file holding every
# finished unit; --resume runs only the missing units (none twice) and refuses a changed
# experiment.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || skip "h5py for /usr/bin/python3 is not installed (Debian: python3-h5py)"
export PYTHONPATH="$top_srcdir/tests/cli"
cp "$DATA/run/resume.toml" exp.toml

units() { $PY -c '
import sys, h5py
from h5util import table
with h5py.File(sys.argv[1], "r") as f:
    print(" ".join(str(u["id"]) for u in table(f, "units")))' "$1"; }

$HARNESS run -q -o r.h5 exp.toml >/dev/null 2>&1 &
pid=$!
# wait until four units have started (three finished), then kill -9 mid-unit
for _ in $(seq 1 600); do
	n=$(ls r/logs/*.err 2>/dev/null | wc -l)
	[ "$n" -ge 4 ] && break
	sleep 0.05
done
sleep 0.2
kill -9 "$pid"
wait "$pid" 2>/dev/null
before=$(units r.h5) || fail "the file opens after kill -9"
nb=$(echo "$before" | wc -w)
[ "$nb" -ge 3 ] && [ "$nb" -lt 12 ] && pass "after kill -9: $nb finished units on disk" || fail "after kill -9 found '$before'"
# no orphan worker outlives the harness (PDEATHSIG: the kernel kills it; give a busy machine
# up to 10 s to deliver and reap)
for _ in $(seq 1 100); do
	pgrep -f "__worker --experiment $SCRATCH/r/" >/dev/null || break
	sleep 0.1
done
pgrep -f "__worker --experiment $SCRATCH/r/" >/dev/null && fail "a worker outlived the killed harness"

# a changed experiment is refused, and nothing is added
echo "# edited" >> exp.toml
expect_status 2 h run -q --resume r.h5 && expect_grep "has changed since the run started" "$SCRATCH/err"
[ "$(units r.h5)" = "$before" ] || fail "a refused resume added units"
cp "$DATA/run/resume.toml" exp.toml

expect_status 0 h run -q --resume r.h5 && pass "resume completes the run"
after=$(units r.h5)
[ "$(echo $after | tr ' ' '\n' | sort -n | tr '\n' ' ')" = "$(seq 0 11 | tr '\n' ' ')" ] && pass "every unit exactly once: $after" || fail "units after resume: '$after'"
case "$after" in "$before"*) pass "resume appended after the recorded units";; *) fail "resume rewrote recorded units";; esac
# resuming a complete run runs nothing
expect_status 0 h run -q --resume r.h5 && expect_grep 'units: 12 recorded of 12 planned' "$SCRATCH/out"
[ "$(units r.h5)" = "$after" ] || fail "resuming a complete run changed it"
# SIGTERM stops cleanly: exit 130, the run marked interrupted, the running unit not recorded
$HARNESS run -q -o t.h5 exp.toml >/dev/null 2>t.err &
pid=$!
for _ in $(seq 1 600); do
	[ "$(ls t/logs/*.err 2>/dev/null | wc -l)" -ge 3 ] && break
	sleep 0.05
done
kill -TERM "$pid"
wait "$pid"
st=$?
[ "$st" -eq 130 ] && pass "SIGTERM: exit 130" || fail "SIGTERM: exit $st, wanted 130"
grep -q "continue with 'harness run --resume t.h5'" t.err && pass "SIGTERM: says how to resume" || fail "SIGTERM message: $(cat t.err)"
$PY -c '
import sys, h5py
from h5util import meta, table
with h5py.File("t.h5", "r") as f:
    m, u = meta(f), table(f, "units")
assert m["status"] == "interrupted", m["status"]
assert 1 <= len(u) < 12 and all(x["status"] == "ok" for x in u), [x["status"] for x in u]
' && pass "SIGTERM: file says interrupted and holds only finished units" || fail "SIGTERM: results file state"
expect_status 0 h run -q --resume t.h5 && [ "$(units t.h5 | wc -w)" -eq 12 ] && pass "the interrupted run resumes to 12 units" || fail "resume after SIGTERM"

# a results file that is not one
echo "not hdf5" > bogus.h5
expect_status 2 h run -q --resume bogus.h5 && expect_grep "bogus.h5" "$SCRATCH/err"
finish
