# tests/cli/overrides.sh: run-time overrides, filters and parameter axes (issue 48, item 2):
# -D KEY=VALUE, --repeats N for a new run, --mode and --workload change what runs and are
# recorded as the run's own (overrides, mode_filter, workload_filter) with the file's bytes
# unchanged; --resume applies them again and refuses others; merge refuses shards that
# disagree; axes expand modes and workloads with derived names and values; every bad input
# exits 2 with a clear message and writes nothing.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || skip "h5py for /usr/bin/python3 is not installed (Debian: python3-h5py)"
export PYTHONPATH="$top_srcdir/tests/cli"
cp "$DATA/run/tiny.toml" tiny.toml
cp "$DATA/run/axes.toml" axes.toml
mkdir res
state() { find res ! -name lock -printf '%p %s %T@\n' 2>/dev/null | sort; }

# ---- bad input: exit 2, a message naming what is wrong, nothing written -----------------
bad() { # DESC PATTERN ARGS...
	local desc=$1 pat=$2
	shift 2
	local before
	before=$(state)
	expect_status 2 h run -q --results-dir res "$@" &&
		expect_grep "$pat" "$SCRATCH/err" &&
		check "$desc: exit 2, said, nothing written" '[ "$(state)" = "$before" ] && [ -z "$(ls res)" ]'
}
bad "a value out of range" "'tiny.toml': -D measure.min_samples=0: 'min_samples' must be between 1" \
	-D measure.min_samples=0 tiny.toml
bad "an unknown key" "-D measure.min_sampels=3: unknown key 'min_sampels' in \[measure\] \(did you mean 'min_samples'\?\)" \
	-D measure.min_sampels=3 tiny.toml
bad "a value of the wrong kind" "-D repeats=many: 'repeats' must be an integer, not a string" \
	-D repeats=many tiny.toml
bad "no =" "-D measure.min_samples: not KEY=VALUE" -D measure.min_samples tiny.toml
bad "TOML that does not parse" "-D x.y=\[1,2: not KEY=VALUE in TOML" -D 'x.y=[1,2' tiny.toml
bad "an entry of [[modes]] that is not there" "no \[\[modes\]\] entry is named 'heurstic' \(did you mean 'heuristic'\?\)" \
	-D modes.heurstic.tuner=random tiny.toml
bad "--mode with a name not there" "--mode 'heurstic': no mode of that name \(did you mean 'heuristic'\?\)" \
	--mode heurstic tiny.toml
bad "--workload with a name not there" "--workload 'gg': no workload of that name \(did you mean 'g'\?\)" \
	--workload gg tiny.toml
bad "--repeats above the limit" "--repeats: '20000' is not a number of blocks \(1 to 10000, the most an experiment's repeats may be\)" \
	--repeats 20000 tiny.toml
bad "-D repeats above the limit" "-D repeats=20000: 'repeats' must be between 1 and 10000" \
	-D repeats=20000 tiny.toml

# ---- a new run with overrides and filters -------------------------------------------------
expect_status 0 h run -q -o res/a.h5 --repeats 2 -D measure.min_samples=7 \
	-D 'modes.heuristic.measure.max_samples=9' --mode heuristic --workload g tiny.toml
check "overrides and filters: the run exits 0" '[ -f res/a.h5 ]'
expect_grep "also planning 'default', the baseline" "$SCRATCH/err"
check "the experiment copy is the file's bytes" cmp -s tiny.toml res/a/experiment.toml
$PY - res/a.h5 <<'PYEOF' || fail "the run's overrides and filters are what ran, and recorded"
import json, sys, h5py
from collections import Counter
from h5util import table, meta, Checker
c = Checker("overrides")
with h5py.File(sys.argv[1], "r") as f:
    m, plan, units = meta(f), table(f, "plan"), table(f, "units")
    cells, samples = table(f, "cells"), table(f, "samples")
    texts = [f["run/files"][k][()] for k in f["run/files"]]
c.check(json.loads(m["overrides"]) == ["measure.min_samples=7", "modes.heuristic.measure.max_samples=9", "repeats=2"], "overrides recorded in order, --repeats last: %s" % m["overrides"])
c.check(json.loads(m["mode_filter"]) == ["heuristic"] and json.loads(m["workload_filter"]) == ["g"], "filters recorded")
c.check(m["repeats"] == "2" and len(plan) == 4 and len(units) == 4, "--repeats 2: 2 blocks of 2 modes (%d units)" % len(units))
c.check(sorted(set(p["mode"] for p in plan)) == ["default", "heuristic"], "--mode heuristic plans it and the baseline only")
c.check([x["workload"] for x in cells] == ["g"], "--workload g: only its cell")
n = Counter((s["unit"], s["cell"]) for s in samples)
mode_of = {u["id"]: u["mode"] for u in units}
c.check(all(v >= 7 for v in n.values()), "min_samples = 7 applied: %s" % sorted(n.values()))
c.check(all(v <= 9 for k, v in n.items() if mode_of[k[0]] == "heuristic"), "the mode's max_samples = 9 applied")
t = texts[0].decode() if isinstance(texts[0], bytes) else texts[0]
c.check(t == open("tiny.toml").read(), "the experiment's bytes recorded as the file has them")
sys.exit(c.fails)
PYEOF
expect_status 0 h show res/a.h5 &&
	expect_grep '^overrides: \["measure.min_samples=7",' "$SCRATCH/out" &&
	expect_grep '^mode_filter: \["heuristic"\]' "$SCRATCH/out"
expect_status 0 h report res/a.h5 && expect_grep 'heuristic' "$SCRATCH/out"
check "report names no mode the filter left out" '! grep -q exhaustive "$SCRATCH/out"'

# ---- --resume applies them again ----------------------------------------------------------
before=$(state)
expect_status 2 h run -q --resume res/a.h5 -D measure.min_samples=8 --repeats 3 &&
	expect_grep "resume applies the overrides and filters 'res/a.h5' recorded" "$SCRATCH/err"
check "a resume with other overrides is refused, nothing written" '[ "$(state)" = "$before" ]'
expect_status 0 h run -q --resume res/a.h5 --repeats 3
$PY - res/a.h5 <<'PYEOF' || fail "the resumed blocks ran with the recorded overrides and filters"
import sys, h5py
from collections import Counter
from h5util import table, Checker
c = Checker("resume")
with h5py.File(sys.argv[1], "r") as f:
    plan, units, samples = table(f, "plan"), table(f, "units"), table(f, "samples")
c.check(len(plan) == 6 and len(units) == 6, "--resume --repeats 3: 6 units (%d)" % len(units))
c.check(sorted(set(p["mode"] for p in plan)) == ["default", "heuristic"], "still the filtered modes")
n = Counter((s["unit"], s["cell"]) for s in samples)
c.check(len(n) == 6 and all(v >= 7 for v in n.values()), "the new block's cells took min_samples = 7 too")
sys.exit(c.fails)
PYEOF

# ---- merge: shards must agree on them ----------------------------------------------------
h run -q -o res/s0.h5 --shard 0/2 --repeats 2 --mode heuristic --workload br tiny.toml >/dev/null 2>&1
h run -q -o res/s1.h5 --shard 1/2 --repeats 2 --mode heuristic --workload br -D measure.min_samples=6 tiny.toml >/dev/null 2>&1
expect_status 2 h merge -o res/m.h5 res/s0.h5 res/s1.h5 &&
	expect_grep "not shards of one plan: their overrides differ" "$SCRATCH/err"
check "no merged file" path_is_missing res/m.h5

# ---- axes ----------------------------------------------------------------------------------
expect_status 0 h check axes.toml &&
	expect_grep '^  modes: default \(baseline\) ex-2 ex-3$' "$SCRATCH/out" &&
	expect_grep '^  workloads: g8 g24 br$' "$SCRATCH/out" &&
	expect_grep "mode 'ex-2' runs only 'g8', 'g24'" "$SCRATCH/out"
expect_status 0 h run -q -o res/x.h5 --mode ex-3 axes.toml
$PY - res/x.h5 <<'PYEOF' || fail "axes expanded with their names and values"
import json, sys, h5py
from h5util import table, meta, Checker
c = Checker("axes")
with h5py.File(sys.argv[1], "r") as f:
    plan, cells, units = table(f, "plan"), table(f, "cells"), table(f, "units")
c.check(sorted(set(p["mode"] for p in plan)) == ["default", "ex-3"], "--mode takes an expanded name")
c.check(sorted(x["name"] for x in cells) == ["br/bias_relu:c=8,hw=64", "g24/sgemm:m=24,n=12,k=16", "g8/sgemm:m=8,n=12,k=16"], "workloads g8 and g24 with m = 8 and 24")
ex = [u for u in units if u["mode"] == "ex-3"]
c.check(ex and all(u["benchmarks"] == 2 * 3 for u in ex), "ex-3 searched 3 configs in each of its 2 workloads (benchmarks %s)" % [u["benchmarks"] for u in ex])
sys.exit(c.fails)
PYEOF
expect_status 0 h check -D 'modes."ex-{max_configs}".axes."options.max_configs"=[4,5]' --workload g8 axes.toml &&
	expect_grep '^  modes: default \(baseline\) ex-4 ex-5$' "$SCRATCH/out" &&
	expect_grep '^  workloads: g8$' "$SCRATCH/out"
axbad() { # DESC PATTERN SED
	sed "$3" axes.toml >bad.toml
	expect_status 2 h check bad.toml
	check "axes: $1" expect_grep "$2" "$SCRATCH/err"
}
axbad "a name without the axis" "'bad.toml':36:8: 'name' must say the value of axis 'options.max_configs'" \
	's/name = "ex-{max_configs}"/name = "ex"/'
axbad "a placeholder that is no axis" "'bad.toml':36:8: 'name': '\{budget\}' names no axis" \
	's/name = "ex-{max_configs}"/name = "ex-{budget}"/'
axbad "two entries of one name" "'bad.toml':36:8: two \[\[modes\]\] entries are named 'ex-2'" \
	's/\[2, 3\]/[2, 2]/'
axbad "a value out of range" "'bad.toml':39:35: 'max_configs' must be an integer >= 1" \
	's/\[2, 3\]/[0, 3]/'
axbad "an empty axis" "'bad.toml':39:34: axis 'options.max_configs' must be a non-empty array" \
	's/\[2, 3\]/[]/'
axbad "a key the entry writes too" "axis 'options.max_configs' sets a key the entry writes too" \
	's/^tuner = "exhaustive"/tuner = "exhaustive"\noptions = { max_configs = 4 }/'
axbad "more than 1000 entries" "'axes' of this \[\[workloads\]\] entry expand to more than 1000" \
	"s/\"shape.m\" = \[8, 24\]/\"shape.m\" = [$(seq -s, 1 40)], \"shape.n\" = [$(seq -s, 1 30)]/; s/name = \"g{m}\"/name = \"g{m}x{n}\"/; s/shape = { n = 12, k = 16 }/shape = { k = 16 }/"
axbad "a name made twice by two entries" "'bad.toml':36:8: two \[\[modes\]\] entries are named 'ex-2'" \
	's/name = "default"/name = "ex-2"/'
[ "$FAILS" -eq 0 ]
