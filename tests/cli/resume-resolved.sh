# tests/cli/resume-resolved.sh: --resume rebuilds the plan the run resolved (issue 50): a
# run killed with SIGKILL at several points of experiments whose plan depends on how it was
# resolved ([on.BACKEND] overlays of repeats and measure settings, workloads and modes
# `only_on` another backend, `backend = "auto"`, `--backend`, unit_scope = "workload" with a
# mode's own workloads), each followed by --resume (itself killed once), completes with no
# finished unit lost, none twice, none missing, the overlay's settings in every unit; the
# main job (experiments/resnet.toml) killed in its first units resumes with the plan it
# recorded; a plan that really differs is refused naming the unit and both values.
. "$top_srcdir/tests/setup"
. "$top_srcdir/tests/setup-faults"

# Every shape the issue named in one experiment: the CPU's overlay sets 2 blocks (the
# experiment says 1, the GPU's 3) and at most 4 samples a cell; a workload and a mode are
# only_on "cuda", a mode only_on "cpu"; the backend is "auto".  On a GPU host "auto" takes
# cuda and the other half applies: the same code either way.
cat >overlay.toml <<'TOML'
schema = 1
name = "resolved"
backend = "auto"
repeats = 1
seed = 3141
order = "randomized"
unit_timeout = 60

[measure]
warmup_count = 1
min_samples = 3
max_samples = 6
max_time = 0.02
trial_samples = 1

[on.cpu]
repeats = 2

[on.cpu.measure]
warmup_count = 1
min_samples = 3
max_samples = 4
max_time = 0.02
trial_samples = 1

[on.cuda]
repeats = 3

[[workloads]]
name = "br"
op = "bias_relu"
shape = { c = 4, hw = 32 }
only_on = "cpu"

[[workloads]]
name = "gpu-only"
op = "gemm"
dtype = "float16"
shape = { m = 64, n = 64, k = 64 }
only_on = "cuda"

[[modes]]
name = "default"
tuner = "vendor"
baseline = true

[[modes]]
name = "vb"
tuner = "vendor-benchmarked"
only_on = "cuda"

[[modes]]
name = "cpu-aa"
tuner = "vendor"
aa_of = "default"
only_on = "cpu"

[[modes]]
name = "exhaustive"
tuner = "exhaustive"
warm_probe = true
options = { max_configs = 1 }
TOML

# unit_scope = "workload": a unit a mode and a workload; one mode runs one workload only
sed -e 's/^order = "randomized"/order = "randomized"\nunit_scope = "workload"/' \
	-e 's/^shape = { c = 4, hw = 32 }/shape = { c = 4, hw = 32 }\n\n[[workloads]]\nname = "br2"\nop = "bias_relu"\nshape = { c = 3, hw = 16 }/' \
	-e '/^name = "exhaustive"/a workloads = ["br2"]' overlay.toml >scoped.toml

nplan() { $PY -c 'import sys, h5py; print(len(h5py.File(sys.argv[1], "r")["plan"]))' "$1"; }

# check_complete NAME RESULTS SNAP: the resumed run against the journal before it, and every
# unit measured with the overlay's settings (cpu: at most 4 samples a cell)
check_complete() {
	local n
	n=$(nplan "$2") || { fail "$1: the results file has no plan"; return 1; }
	$PY "$CHECK" check "$2" "$3" "$n" >check.out || { fail "$1: $(cat check.out)"; return 1; }
	$PY - "$2" <<'PYEOF' || { fail "$1: a unit was measured without the run's [on.BACKEND] settings"; return 1; }
import sys, h5py
from h5util import meta
with h5py.File(sys.argv[1], "r") as f:
    m = meta(f)
    if m["backend"] == "cpu":
        assert m["repeats"] == "2", m["repeats"]
        worst = max(int(r["nsamples"]) for r in f["measures"][:])
        assert worst <= 4, worst
PYEOF
	cat check.out >>counts
}

# writes EXP [RUN OPTIONS...]: how many .h5 writes a whole run makes
writes() {
	local exp=$1
	shift
	rm -rf ref ref.h5 wlog
	faulty WRITEFAULT_LOG="$SCRATCH/wlog" $HARNESS run -q "$@" -o ref.h5 "$exp" >/dev/null 2>ref.err ||
		{ fail "$exp: the reference run failed: $(tail -3 ref.err)"; echo 0; return; }
	awk '{ s += $2 } END { print s + 0 }' wlog
}

# kill_and_resume NAME EXP TOTAL POINTS [RUN OPTIONS...]: kill -9 the run inside each of
# the POINTS (fractions of its TOTAL writes: "1/3 1/2"), resume (the first resume itself
# killed inside a write), and check
kill_and_resume() {
	local name=$1 exp=$2 total=$3 points=$4 st k f tried=0
	shift 4
	: >counts
	for f in $points; do
		k=$((total * ${f%/*} / ${f#*/}))
		[ "$k" -ge 3 ] || k=3
		rm -rf run run.h5
		faulty WRITEFAULT_KILL_AT="$k" $HARNESS run -q "$@" -o run.h5 "$exp" >/dev/null 2>kill.err
		st=$?
		[ "$st" -eq 137 ] || { fail "$name: kill at write $k of $total: exit $st, wanted 137"; continue; }
		[ -d run/journal ] || continue
		$PY "$CHECK" snapshot run >snap.json || { fail "$name: kill at write $k: the journal does not open"; continue; }
		if [ "$tried" -eq 0 ]; then # a resume killed too, then resumed
			faulty WRITEFAULT_KILL_AT=4 $HARNESS run -q --resume run.h5 >/dev/null 2>resume.err
			st=$?
			[ "$st" -eq 137 ] || [ "$st" -eq 0 ] ||
				{ fail "$name: a resume killed at its 4th write: exit $st: $(tail -2 resume.err)"; continue; }
		fi
		if ! $HARNESS run -q --resume run.h5 >/dev/null 2>resume.err; then
			fail "$name: kill at write $k of $total, then --resume: $(tail -2 resume.err)"
			continue
		fi
		check_complete "$name: kill at write $k of $total" run.h5 snap.json || continue
		tried=$((tried + 1))
	done
	[ "$tried" -eq "$(echo $points | wc -w)" ] &&
		pass "$name: kill -9 at $tried points, then --resume: $(awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); s[kv[1]] += kv[2] } } END { printf "finished before %d, lost %d, duplicated %d, missing %d, unverified %d", s["finished-before"], s["lost"], s["duplicated"], s["missing"], s["unverified"] }' counts)" ||
		fail "$name: $tried kill points of $(echo $points | wc -w) were checked"
}

total=$(writes overlay.toml)
kill_and_resume "auto, [on.BACKEND], only_on" overlay.toml "$total" "1/5 1/2 9/10"
kill_and_resume "--backend cpu" overlay.toml "$total" "1/3 2/3" --backend cpu
total=$(writes scoped.toml --backend cpu)
kill_and_resume "unit_scope workload, a mode's workloads" scoped.toml "$total" "1/3 2/3" --backend cpu

# The main job itself, on the CPU (the whole job takes minutes: make stress runs it to the
# end): killed inside its first unit's journal write; resumed and killed at the resume's
# first write (the journal's status, written only once the recorded plan is accepted: a
# refusal writes nothing and exits 2); resumed and killed inside its next unit's write
rm -rf run run.h5
faulty WRITEFAULT_KILL_AT=4 $HARNESS run -q --backend cpu -o run.h5 "$top_srcdir/experiments/resnet.toml" >/dev/null 2>main.err
st=$?
if [ "$st" -eq 137 ] && [ -d run/journal ]; then
	before=$(ls run/journal | grep -c '^unit-')
	faulty WRITEFAULT_KILL_AT=1 $HARNESS run -q --resume run.h5 >/dev/null 2>main.err
	st=$?
	[ "$st" -eq 137 ] && pass "the main job killed after $before unit(s): --resume accepts the plan it recorded" ||
		fail "the main job's resume: exit $st, wanted 137 at its first write: $(tail -2 main.err)"
	faulty WRITEFAULT_KILL_AT=4 $HARNESS run -q --resume run.h5 >/dev/null 2>main.err
	st=$?
	after=$(ls run/journal | grep -c '^unit-')
	[ "$st" -eq 137 ] && [ "$after" -gt "$before" ] &&
		pass "the main job resumed, ran and was killed again: $before -> $after unit(s)" ||
		fail "the main job's second resume: exit $st, $before -> $after units: $(tail -2 main.err)"
	$PY - run <<'PYEOF' && pass "the main job's journal: each unit once, the plan as recorded" || fail "the main job's journal after two resumes"
import glob, sys, h5py
ids = []
for p in sorted(glob.glob(sys.argv[1] + "/journal/unit-*.h5")):
    with h5py.File(p, "r") as f:
        ids.append(int(f["units"][0]["id"]))
assert len(ids) == len(set(ids)), ids
with h5py.File(sys.argv[1] + "/journal/run.h5", "r") as f:
    modes = {m.decode() for m in f["plan"]["mode"]}
assert modes == {"default", "default-aa", "heuristic", "exhaustive"}, modes
PYEOF
else
	fail "the main job killed at its 4th write: exit $st, journal: $(ls run 2>&1)"
fi

# A plan that really differs (the journal's plan edited: a unit's mode): refused, naming it
cp -r run edited
$PY - edited/journal/run.h5 <<'PYEOF' || fail "cannot edit the journal's plan"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r+") as f:
    p = f["plan"][:]
    p[5]["mode"] = b"nosuchmode"
    f["plan"][...] = p
PYEOF
expect_status 2 h run -q --resume edited.h5 &&
	expect_grep "plan is not the one the run recorded \(unit 5: recorded mode 'nosuchmode', block [0-9]+, (cold|warm); the experiment now plans mode '[a-z-]+', block [0-9]+, (cold|warm)\)" "$SCRATCH/err" &&
	pass "a plan that differs is refused, the unit and both values named"
finish
