# tests/cli/lease-chunk.sh: scripts/lease-chunk.sh, a long run in chunks across calls on a
# lent machine (docs/studies/torch-resnet.md): a first call starts the run detached and
# returns while it runs; a later call waits for it and packs its journal (every unit, no
# cache); that journal, unpacked elsewhere with units missing, is resumed by a fresh machine
# state and only the missing units run (the recorded ones byte for byte kept); bad
# arguments exit 2.
. "$top_srcdir/tests/setup"
S="$top_srcdir/scripts/lease-chunk.sh"
cp "$DATA/run/resume.toml" exp.toml
mkdir o1 o2 o3 repo
export HARNESS

POLL=0 STATE="$SCRATCH/st1" OUT=o1 bash "$S" runs/r.h5 exp.toml >c1.out 2>&1
grep -q "starting runs/r.h5 afresh" c1.out && tail -1 c1.out | grep -q "^lease-chunk: running" &&
	pass "the first call starts the run and returns while it runs" ||
	{ fail "first call"; cat c1.out >&2; }
POLL=300 STATE="$SCRATCH/st1" OUT=o2 bash "$S" runs/r.h5 exp.toml >c2.out 2>&1
tail -1 c2.out | grep -q "^lease-chunk: exited 0 (12 units in the journal)" &&
	pass "a later call waits for the run's end" || { fail "second call"; cat c2.out >&2; }
grep -q "starting" c2.out && fail "the second call started the run again"
tar tzf o2/chunk.tgz >list.txt
[ "$(grep -c '^r/journal/unit-.*\.h5$' list.txt)" -eq 12 ] && grep -q '^r/journal/run.h5$' list.txt &&
	grep -q '^r/logs/' list.txt && ! grep -q 'cache' list.txt &&
	pass "chunk.tgz holds the journal's 12 units and the logs, no cache" ||
	{ fail "chunk.tgz's contents"; cat list.txt >&2; }

# the committed copy, with four units lost: a new machine resumes it
tar xzf o2/chunk.tgz -C repo
cp exp.toml repo/r/experiment.toml
rm repo/r/journal/unit-0000.h5 repo/r/journal/unit-0003.h5 repo/r/journal/unit-0007.h5 repo/r/journal/unit-0011.h5
POLL=300 STATE="$SCRATCH/st2" OUT=o3 bash "$S" repo/r.h5 exp.toml >c3.out 2>&1
grep -q "resuming repo/r.h5 (8 units in its journal)" c3.out &&
	tail -1 c3.out | grep -q "^lease-chunk: exited 0 (12 units in the journal)" &&
	pass "a fresh machine resumes the committed journal and runs the 4 missing units" ||
	{ fail "resume"; cat c3.out >&2; }
mkdir back && tar xzf o3/chunk.tgz -C back
same=1
for f in repo/r/journal/unit-*.h5; do cmp -s "$f" "back/r/journal/$(basename "$f")" || same=0; done
[ $same = 1 ] && [ -f back/r/journal/unit-0003.h5 ] &&
	pass "the 8 recorded units came back unchanged, the 4 missing ones recorded" ||
	fail "the resumed journal changed a recorded unit or lacks a missing one"
[ -e repo/r/journal/lock ] && fail "the chunk wrote into the checkout's copy"

# a call cut off at its time limit while it waits still leaves chunk.tgz: packed at its start
# (a run that never ends: its state has started, no rc)
mkdir -p "$SCRATCH/st4/r/journal" o4
touch "$SCRATCH/st4/started" "$SCRATCH/st4/r/journal/unit-0000.h5"
POLL=60 PACK_EVERY=1 STATE="$SCRATCH/st4" OUT=o4 timeout -s KILL 3 bash "$S" runs/r.h5 exp.toml \
	>c4.out 2>&1
tar tzf o4/chunk.tgz 2>/dev/null | grep -q '^r/journal/unit-0000.h5$' && [ ! -e o4/chunk.tgz.part ] &&
	pass "a call killed while it waits leaves its last pack" || fail "no chunk.tgz from a killed call"

expect_status 2 bash "$S" exp.toml && grep -q "usage" "$SCRATCH/err" && pass "one argument: usage, exit 2" ||
	fail "one argument: usage, exit 2"
expect_status 2 bash "$S" runs/r exp.toml && grep -q "not a results file" "$SCRATCH/err" &&
	pass "a run name without .h5: exit 2"
expect_status 2 bash "$S" runs/r.h5 missing.toml && grep -q "missing.toml': no such" "$SCRATCH/err" &&
	pass "a missing experiment: exit 2"
finish
