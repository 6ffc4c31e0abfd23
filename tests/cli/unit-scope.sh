# tests/cli/unit-scope.sh: unit_scope = "workload" (docs/experiment-format.md): a block holds
# a unit per (mode, workload); each unit runs its one workload (the worker's --workload, an
# external unit's specification), is recorded with it in the plan and units tables, and
# measures only that workload's cells; the report pairs them by block as usual; a run killed
# mid-way resumes with the same plan; and a command unit is told one workload.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || skip "h5py for /usr/bin/python3 is not installed (Debian: python3-h5py)"
export PYTHONPATH="$top_srcdir/tests/cli"

# check RESULTS MODES...: the plan, the units and their cells in RESULTS
check_run() { $PY - "$@" <<'PYEOF'
import json, sys, h5py
from h5util import table, Checker
c = Checker("unit-scope " + sys.argv[1])
with h5py.File(sys.argv[1], "r") as f:
    plan, units, cells = table(f, "plan"), table(f, "units"), table(f, "cells")
    samples = table(f, "samples")
modes, wls = sys.argv[2].split(","), sys.argv[3].split(",")
blocks = sorted(set(p["block"] for p in plan))
per = {}
for p in plan:
    if not p["warm"]:
        per.setdefault(p["block"], []).append((p["mode"], p["workload"]))
c.check(all(sorted(per[b]) == sorted((m, w) for m in modes for w in wls) for b in blocks),
        "every block has one cold unit per (mode, workload): %s" % per[blocks[0]])
pw = {p["id"]: p["workload"] for p in plan}
c.check(all(p["workload"] == pw[p["warm_of"]] for p in plan if p["warm"]), "a warm probe runs its cold unit's workload")
c.check(len(units) == len(plan) and all(u["status"] == "ok" for u in units), "every unit ran, ok")
c.check(all(u["workload"] == pw[u["id"]] for u in units), "each unit is recorded with its plan's workload")
builtin = [u for u in units if "__worker" in u["argv_json"]]
def spec(u):
    return json.load(open(json.loads(u["argv_json"])[-1]))
c.check(all(spec(u)["workload"] == u["workload"] and [w["name"] for w in spec(u)["workloads"]] == [u["workload"]] for u in builtin),
        "each built-in unit's specification names its one workload")
seen = {}
for s in samples:
    seen.setdefault(s["unit"], set()).add(cells[s["cell"]]["workload"])
c.check(all(seen.get(u["id"]) == {u["workload"]} for u in units), "each unit measured its workload's cells only")
c.exit()
PYEOF
}

cp "$DATA/run/scope.toml" scope.toml
expect_status 0 h run -q -o r.h5 scope.toml && pass "a unit_scope = workload run" || finish
check_run r.h5 default,heuristic,exhaustive g,br || fail "the run's plan and units"
expect_status 0 h report r.h5 && pass "report" || finish
for cell in "g/sgemm:m=32,n=24,k=40" "br/bias_relu:c=8,hw=64"; do
	for m in heuristic exhaustive; do
		grep -q "^| $cell | $m | 3 |" "$SCRATCH/out" ||
			fail "no verdict over 3 blocks for $cell, $m"
	done
done
pass "the report pairs each cell's units by block"
h audit r.h5 >"$SCRATCH/out" 2>&1 # FAILs "enough repeats": 3 blocks decide nothing
grep -q "cache isolation (cold units start cold) | PASS | 18 cold units" "$SCRATCH/out" &&
	pass "audit: each (mode, workload) unit started cold" || fail "audit: cache isolation"

# a worker whose specification names a workload it does not list fails, naming it
mkdir -p cx
python3 - r/cache/u0000-*/harness-unit-0000.json cx/spec.json <<'PYEOF'
import json, sys
s = json.load(open(sys.argv[1]))
s["workload"], s["cache_dir"] = "nope", "cx"
json.dump(s, open(sys.argv[2], "w"))
PYEOF
h __worker --spec cx/spec.json 3>/dev/null >"$SCRATCH/out" 2>"$SCRATCH/err"
rc=$?
[ $rc -ne 0 ] && grep -q "cx/spec.json': no workload to run (it names workload 'nope')" "$SCRATCH/err" &&
	pass "a specification's workload it does not list fails the unit, naming it" ||
	fail "workload nope: exit $rc, $(cat "$SCRATCH/err")"
printf '{"spec": 1,\n "mode": }\n' >cx/bad.json
expect_status 1 h __worker --spec cx/bad.json 3>/dev/null && expect_grep "cx/bad.json':2:[0-9]+: " "$SCRATCH/err" &&
	pass "a malformed specification fails the unit, naming its line" || fail "a malformed specification"
echo '{"spec": 1, "experiment": 3}' >cx/bad.json
expect_status 1 h __worker --spec cx/bad.json 3>/dev/null &&
	expect_grep "cx/bad.json': a wrong type for key 'experiment' \(a string expected\)" "$SCRATCH/err" &&
	pass "a specification's key of the wrong type fails the unit, naming the key" || fail "a wrong key type"
python3 - r/cache/u0000-*/harness-unit-0000.json cx/fault.json <<'PYEOF'
import json, sys
s = json.load(open(sys.argv[1]))
s["fault"], s["cache_dir"] = "nope", "cx"
json.dump(s, open(sys.argv[2], "w"))
PYEOF
expect_status 1 h __worker --spec cx/fault.json 3>/dev/null &&
	check "a specification's unknown fault fails the unit, naming it" \
		expect_grep "cx/fault.json': fault 'nope' is none of the faults" "$SCRATCH/err"

# killed mid-run, --resume runs the rest with the same (mode, workload) plan
$HARNESS run -q -o k.h5 scope.toml >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 600); do
	[ "$(ls k/logs/*.err 2>/dev/null | wc -l)" -ge 5 ] && break
	sleep 0.05
done
kill -9 "$pid"
wait "$pid" 2>/dev/null
expect_status 0 h run -q --resume k.h5 && pass "resumed" || finish
check_run k.h5 default,heuristic,exhaustive g,br || fail "the resumed run's plan and units"

# a command unit's specification lists its one workload
cp "$DATA/command/fake_worker.py" .
cp "$DATA/command/scope.toml" cscope.toml
expect_status 0 h run -q -o c.h5 cscope.toml && pass "a command-mode run" || finish
check_run c.h5 py,py-slow w1,w2 || fail "the command run's plan and units"
# a cell's setup time is its workload's unit's: py's units compile for 2 s (w1) and 5 s (w2);
# a mode's sum over its units of the block (7 s for both) was reported until 2026-11-26
expect_status 0 h report --format json c.h5 && $PY - "$SCRATCH/out" <<'PYEOF' &&
import json, sys
r = json.load(open(sys.argv[1]))
got = {c["workload"]: [m["setup_s"] for m in c["modes"] if m["mode"] == "py"][0] for c in r["cells"]}
assert got["w1"]["median"] == 2.0 and got["w2"]["median"] == 5.0 and got["w1"]["n"] == 2, got
PYEOF
	pass "report: each cell's setup time is its workload's unit's (2 s and 5 s)" ||
	fail "report: setup time per workload"
finish
