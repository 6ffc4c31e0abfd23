# tests/cli/resume.sh: kill -9 of the harness mid-run leaves every finished unit in the
# run's journal; --resume runs only the missing units (none twice), works without the
# results file and from another directory (the run folder's experiment copy), refuses a
# changed experiment without writing anything, rewrites nothing when the run is complete,
# and copes with a deleted cache/ (issue 9, items 1 and 13); a unit killed mid-run leaves
# its running note, which a resumed --max-time counts as a lower bound on its length.
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
# a fingerprint of every file of a run (path, size, mtime, inode), to prove nothing changed;
# the lock files apart: a process that takes a run's lock writes its pid and boot id there
# (for the message that refuses a second writer), and that is not part of the record
state() { find "$@" -type f ! -name lock -printf '%p %s %T@ %i\n' 2>/dev/null | sort; }

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
nb=$(ls r/journal/unit-*.h5 2>/dev/null | wc -l)
[ "$nb" -ge 3 ] && [ "$nb" -lt 12 ] && pass "after kill -9: $nb finished units in the journal" || fail "after kill -9 the journal holds $nb units"
# no orphan worker outlives the harness (PDEATHSIG: the kernel kills it; give a busy machine
# up to 10 s to deliver and reap)
for _ in $(seq 1 100); do
	pgrep -f "__worker --spec $SCRATCH/r/" >/dev/null || break
	sleep 0.1
done
pgrep -f "__worker --spec $SCRATCH/r/" >/dev/null && fail "a worker outlived the killed harness"
# killed before the results file was (re)assembled: it may be missing altogether
rm -f r.h5

# a changed experiment is refused, and nothing at all is written
echo "# edited" >> exp.toml
before=$(state r r.h5)
expect_status 2 h run -q --resume r.h5 exp.toml && expect_grep "has changed since the run started" "$SCRATCH/err"
[ "$(state r r.h5)" = "$before" ] && pass "a refused resume writes nothing" || fail "a refused resume changed the run's files"
cp "$DATA/run/resume.toml" exp.toml

# resumed from another directory: the run folder's copy of the experiment is used
mkdir elsewhere
(cd elsewhere && expect_status 0 h run -q --resume ../r.h5) && pass "resume from another directory completes the run" || fail "resume from another directory"
after=$(units r.h5)
[ "$after" = "$(seq 0 11 | tr '\n' ' ' | sed 's/ $//')" ] && pass "every unit exactly once, in plan order: $after" || fail "units after resume: '$after'"
# resuming a complete run rewrites nothing and says so
before=$(state r r.h5)
expect_status 0 h run --resume r.h5 && expect_grep 'units: 12 recorded of 12 planned' "$SCRATCH/out" &&
	expect_grep "is complete: every unit is recorded; nothing to do" "$SCRATCH/err"
[ "$(state r r.h5)" = "$before" ] && pass "resuming a complete run rewrites nothing" || fail "resuming a complete run changed files"

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

# a deleted cache/: a cold unit that runs again gets a new cache directory; a warm probe
# whose cold unit's cache is gone is recorded 'skipped', and its cold unit is not re-run
expect_status 0 h run -q -o c.h5 "$DATA/run/crash.toml" || fail "the crash experiment runs"
read -r cold warm other <<EOF2
$($PY -c '
import h5py
from h5util import table
with h5py.File("c.h5", "r") as f:
    p = table(f, "plan")
w = [x for x in p if x["warm"]][0]
o = [x["id"] for x in p if not x["warm"] and x["id"] != w["warm_of"]][0]
print(w["warm_of"], w["id"], o)')
EOF2
coldpid=$($PY -c 'import h5py,sys; from h5util import table; print([u["pid"] for u in table(h5py.File("c.h5","r"),"units") if u["id"]=='"$cold"'][0])')
rm -rf c/cache "c/journal/unit-$(printf %04d "$warm").h5" "c/journal/unit-$(printf %04d "$other").h5" c.h5
# the lost session's note that the probe was running goes with the probe's 'skipped' record
echo 5000000000 > "c/journal/running-$(printf %04d "$warm")"
expect_status 1 h run -q --resume c.h5 && expect_grep "unit $warm \\(warm probe of exhaustive\\) skipped" "$SCRATCH/err"
[ ! -e "c/journal/running-$(printf %04d "$warm")" ] && pass "the skipped probe's running note is removed" ||
	fail "the skipped probe's running note is left in the journal"
$PY - "$cold" "$warm" "$coldpid" "$other" <<'PYEOF' && pass "deleted cache/: cold unit re-run in a new cache dir, warm probe 'skipped', nothing else re-run" || fail "deleted cache/ handling"
import sys, os, h5py
from h5util import table
cold, warm, coldpid, other = (int(a) for a in sys.argv[1:5])
with h5py.File("c.h5", "r") as f:
    u = {x["id"]: x for x in table(f, "units")}
assert sorted(u) == list(range(6)), sorted(u)
assert u[other]["status"] == "ok" and os.path.isdir(u[other]["cache_dir"]), u[other]
assert u[warm]["status"] == "skipped" and "cache directory" in u[warm]["message"], u[warm]
assert u[cold]["pid"] == coldpid, "the cold unit was re-run"
PYEOF

# an experiment with a hypothesis file, resumed from another directory: the run folder's
# copy is read without its hypothesis files (recorded when the run started)
mkdir -p hyp
sed 's/^unit_timeout = 60$/unit_timeout = 60\nhypotheses = ["h.toml"]/' "$DATA/run/crash.toml" > hyp/exp.toml
printf 'schema = 1\n[[hypotheses]]\nid = "n"\nclaim = "c"\nmode = "*"\ncriteria = [ { id = "p", statistic = "n", op = ">=", value = 1 }, { id = "q", statistic = "n", op = "<", value = 1 } ]\ncorroborate = "p"\nfalsify = "q"\n' > hyp/h.toml
expect_status 0 h run -q -o hyp/r.h5 hyp/exp.toml || fail "a run with a hypothesis file"
rm -f hyp/r/journal/unit-0003.h5 hyp/r.h5
(cd elsewhere && expect_status 0 h run -q --resume ../hyp/r.h5) &&
	pass "a run with a hypothesis file resumes from another directory" || fail "resume of a run with a hypothesis file"

# a run folder moved with only its journal (another machine: logs/, cache/ and the
# experiment copy left behind): resumed with the experiment given, whose SHA-256 matches,
# it writes the copy again and recreates logs/; without it, the missing copy is named
mkdir -p mv
expect_status 0 h run -q -o mv/r.h5 "$DATA/run/crash.toml" || fail "a run to move"
rm -rf mv/r/logs mv/r/cache mv/r/experiment.toml mv/r.h5 mv/r/journal/unit-0002.h5
expect_status 2 h run -q --resume mv/r.h5 && expect_grep "cannot open 'mv/r/experiment.toml'" "$SCRATCH/err"
expect_status 0 h run -q --resume mv/r.h5 "$DATA/run/crash.toml" && [ -f mv/r/logs/u0002.err ] &&
	cmp -s mv/r/experiment.toml "$DATA/run/crash.toml" &&
	pass "a run moved with only its journal resumes with its experiment given" ||
	fail "resume of a run moved with only its journal"

# a unit a lost session left running: the journal keeps its running note (its wall time,
# rewritten every second), and a resumed --max-time counts that as a lower bound on its
# length, so a unit longer than what the session has left is not started (here: no unit
# was ever recorded, so without the note the first unit would start blind; every unit
# samples a 256^3 GEMM for 4 s, so the first is still running when the harness is
# killed 2.5 s after it started); a resume
# without --max-time runs it and leaves no note behind
mkdir -p lost
sed 's/^max_time = 0.4$/max_time = 4/; s/^repeats = 4$/repeats = 1/; s/^shape = .*/shape = { m = 256, n = 256, k = 256 }/' exp.toml > lost/exp.toml
$HARNESS run -q -o lost/r.h5 lost/exp.toml >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 600); do
	[ -n "$(ls lost/r/logs/*.err 2>/dev/null)" ] && break
	sleep 0.05
done
sleep 2.5
kill -9 "$pid"
wait "$pid" 2>/dev/null
notes=$(ls lost/r/journal/ | grep -c '^running-[0-9]*$')
[ "$notes" -eq 1 ] && [ "$(units lost/r.h5 2>/dev/null)" = "" ] &&
	[ "$(cat lost/r/journal/running-* | tr -d '\n')" -ge 1000000000 ] &&
	pass "kill -9 mid-unit: the journal holds the unit's running note, >= 1 s" ||
	fail "after kill -9: $notes running notes ($(cat lost/r/journal/running-* 2>/dev/null))"
expect_status 75 h run --max-time 1 --resume lost/r.h5 &&
	expect_grep "ran [0-9]+ s in the last session without finishing" "$SCRATCH/err" &&
	[ -z "$(ls lost/r/journal/ | grep '^unit-')" ] &&
	pass "--resume --max-time 1: the unfinished unit's note keeps it from starting" ||
	fail "--resume --max-time 1 after a lost unit: $(ls lost/r/journal/)"
expect_status 0 h run -q --resume lost/r.h5 && [ -z "$(ls lost/r/journal/ | grep '^running-')" ] &&
	pass "--resume without --max-time: the run completes, no running note left" ||
	fail "resume of the lost run: $(ls lost/r/journal/)"

# --repeats N with --resume extends the plan by whole blocks: the recorded ones unchanged,
# the new ones those a run planned with N from the start draws (one seeded stream, block
# by block), and the file says it was extended (report header, audit); a plan never
# shrinks, a new run takes its repeats from the experiment
mkdir -p ext
cp exp.toml ext/exp.toml
sed 's/^repeats = 4$/repeats = 6/' exp.toml > ext/exp6.toml
expect_status 0 h run -q -o ext/r.h5 ext/exp.toml && expect_status 0 h run -q -o ext/six.h5 ext/exp6.toml ||
	fail "the runs to extend and to compare with"
planrows() { $PY -c '
import sys, h5py
from h5util import table
with h5py.File(sys.argv[1], "r") as f:
    for u in table(f, "plan"):
        print(u["id"], u["block"], u["position"], u["mode"], u["warm"])' "$1"; }
planrows ext/r.h5 >ext/plan4.txt
before=$(state ext/r.h5 ext/r)
expect_status 2 h run -q --resume ext/r.h5 --repeats 3 && expect_grep "has 4 blocks planned; a plan grows, it never shrinks" err &&
	[ "$(state ext/r.h5 ext/r)" = "$before" ] && pass "--resume --repeats 3 of a 4-block run: refused, nothing written" ||
	fail "--repeats 3 shrank or changed the run"
# a new run's --repeats N is the override repeats=N (tests/cli/overrides.sh); 0 is no number
expect_status 2 h run -q --repeats 0 ext/exp.toml && expect_grep "is not a number of blocks" err &&
	pass "--repeats 0 for a new run: a usage error"
expect_status 0 h run -q --resume ext/r.h5 --repeats 6 &&
	[ "$(planrows ext/r.h5 | head -12)" = "$(cat ext/plan4.txt)" ] &&
	[ "$(planrows ext/r.h5)" = "$(planrows ext/six.h5)" ] && [ "$(units ext/r.h5 | wc -w)" -eq 18 ] &&
	pass "--resume --repeats 6: 4 recorded blocks kept, 2 appended as a 6-block plan draws them, 18 units" ||
	fail "--repeats 6: plan $(planrows ext/r.h5 | wc -l) rows, units $(units ext/r.h5)"
expect_status 0 h report ext/r.h5 && expect_grep "plan extended: 4 -> 6 blocks after 12 of 12 units recorded" out &&
	{ h audit ext/r.h5 >out 2>err; expect_grep "the plan was extended: 4 -> 6 blocks" out; } &&
	pass "the extension is in the report's header and the audit's repeats check"
before=$(state ext/r.h5 ext/r)
expect_status 0 h run -q --resume ext/r.h5 && [ "$(state ext/r.h5 ext/r)" = "$before" ] &&
	pass "--resume of the extended, complete run: 6 blocks kept, nothing rewritten" ||
	fail "a later --resume without --repeats changed the extended run"

# a results file that is not one, and one without a journal
echo "not hdf5" > bogus.h5
expect_status 2 h run -q --resume bogus.h5 && expect_grep "bogus.h5" "$SCRATCH/err"
finish
