# tests/cli/mode-workloads.sh: a mode's `workloads` (docs/experiment-format.md): the mode
# runs only those workloads (less those only_on another backend), with unit_scope =
# "workload" (no unit of the others) and "mode" (its units build no cell of the others,
# built-in and command units alike: the unit specification lists its workloads); check,
# show, report, audit, verify, export and plot say so and make the comparisons that exist.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || skip "h5py for /usr/bin/python3 is not installed (Debian: python3-h5py)"
export PYTHONPATH="$top_srcdir/tests/cli"

# check RESULTS SCOPE: plan, units and cells of RESULTS against the experiment's modes:
# default and heuristic run g, g2, br; exhaustive runs g and br
check_run() { $PY - "$@" <<'PYEOF'
import json, sys, h5py
from h5util import table, meta, Checker
c = Checker("mode-workloads " + sys.argv[1])
runs = {"default": {"g", "g2", "br"}, "heuristic": {"g", "g2", "br"}, "exhaustive": {"g", "br"}}
with h5py.File(sys.argv[1], "r") as f:
    plan, units, cells = table(f, "plan"), table(f, "units"), table(f, "cells")
    samples = table(f, "samples")
    mb = json.loads(meta(f)["mode_backends"])
c.check(len(units) == len(plan) and all(u["status"] == "ok" for u in units), "every unit ran, ok")
cold = [p for p in plan if not p["warm"]]
if sys.argv[2] == "workload":
    per = {}
    for p in cold:
        per.setdefault(p["block"], []).append((p["mode"], p["workload"]))
    want = sorted((m, w) for m in runs for w in runs[m])
    c.check(all(sorted(v) == want for v in per.values()),
            "every block has one cold unit per (mode, workload it runs): %s" % per[0])
else:
    c.check(all(p["workload"] == "" for p in plan), "unit_scope = mode: no unit names a workload")
    c.check(len(cold) == 3 * 3, "three cold units per block")
seen = {}
for s in samples:
    seen.setdefault(s["unit"], set()).add(cells[s["cell"]]["workload"])
mode = {u["id"]: u["mode"] for u in units}
c.check(all(seen.get(u) == (runs[mode[u]] if sys.argv[2] == "mode" else {p["workload"] for p in plan if p["id"] == u})
            for u in mode), "each unit measured the cells of its workloads only")
c.check(not any(cells[s["cell"]]["workload"] == "g2" for s in samples if mode[s["unit"]] == "exhaustive"),
        "no cell of g2 for exhaustive")
c.check(mb["exhaustive"].get("workloads") == ["br", "g", "gpu-only"] and
        all("workloads" not in mb[m] for m in ("default", "heuristic")),
        "mode_backends records the workloads of exhaustive alone: %s" % mb)
c.exit()
PYEOF
}

cp "$DATA/run/mode-workloads.toml" "$DATA/run/mode-workloads-hyp.toml" .
expect_status 0 h check mode-workloads.toml &&
	expect_grep "^'mode-workloads.toml': ok \(3 modes, 4 workloads, 3 repeats, a unit per mode and workload; mode 'exhaustive' runs only 'br', 'g', 'gpu-only'\)$" "$SCRATCH/out" &&
	expect_grep "hypothesis 'exhaustive-g2': mode 'exhaustive' does not run workload 'g2' \(its 'workloads' in 'mode-workloads.toml'\): it will be left out of the hypothesis" "$SCRATCH/err" &&
	pass "check names the mode's workloads, and warns of a hypothesis on one it does not run"

expect_status 0 h run -q -o r.h5 mode-workloads.toml && pass "a unit_scope = workload run" || finish
check_run r.h5 workload || fail "the run's plan, units and cells"
sed -n '/^  g2$/,/^  [^ ]/p' "$SCRATCH/out" >g2-answer.txt
check "the closing answer compares no cell of g2 for exhaustive" \
	'grep -q "^    exhaustive: no cell compared$" g2-answer.txt && grep -q "^    heuristic: 1 op cell, geomean [0-9.]" g2-answer.txt'
expect_grep "hypothesis 'g2-any': no comparison of mode 'exhaustive' with 'default' in workload 'g2' \(a mode's 'workloads' leaves it out\): the mode is left out of it" "$SCRATCH/err"
expect_grep "hypothesis 'all-geomean': no comparison of mode 'exhaustive' with 'default' in workload 'g2' .*: those cells are left out of it" "$SCRATCH/err"
expect_grep "hypothesis 'exhaustive-g2': not decided on this run: none of its modes is compared with 'default' in its scope" "$SCRATCH/err"
grep -qiw "nan" "$SCRATCH/out" && fail "the run's output prints a NaN"

expect_status 0 h show r.h5 &&
	expect_grep '^mode_backends: .*"exhaustive":\{[^}]*"workloads":\["br","g","gpu-only"\]\}' "$SCRATCH/out" &&
	pass "show: mode_backends names the mode's workloads"

if expect_status 0 h report r.h5; then
	cp "$SCRATCH/out" report.md
	expect_grep "^\| g2/sgemm:m=24,n=16,k=48 \| exhaustive \| - \|.*\| not compared: 'exhaustive' does not run workload 'g2' \(its 'workloads'\) \|" report.md
	expect_grep "^\| g/sgemm:m=32,n=24,k=40 \| exhaustive \| 3 \| [0-9.]+ \|" report.md
	expect_grep "^\| g2/sgemm:m=24,n=16,k=48 \| heuristic \| 3 \| [0-9.]+ \|" report.md
	# 3 blocks: a geometric mean and its t CI
	expect_grep "^\| all \| exhaustive \| 2 \| [0-9.]+ \| \[[0-9.]+, [0-9.]+\] \|" report.md &&
		pass "report: the aggregate over all is exhaustive's two op cells"
	expect_grep "^\| g2 \| exhaustive \| 0 \| - \|" report.md
	grep -q "geometric mean of 'exhaustive'" report.md && fail "report: a geometric mean of exhaustive was not computed"
	grep -qiw "nan" report.md && fail "report: a NaN is printed"
fi
for f in json csv html; do
	expect_status 0 h report --format $f r.h5 && ! grep -qiw "nan" "$SCRATCH/out" &&
		pass "report --format $f" || fail "report --format $f: a NaN or an error"
done
h report --format json r.h5 | $PY -c '
import json, sys
d = json.load(sys.stdin)
agg = {(a["scope"], a["mode"]): a for a in d["aggregates"]}
assert agg[("all", "exhaustive")]["op_cells"] == 2 and agg[("all", "exhaustive")]["geomean"] is not None, agg
assert agg[("g2", "exhaustive")]["op_cells"] == 0, agg
' && pass "report JSON: the aggregates of exhaustive" || fail "report JSON: the aggregates of exhaustive"

h audit r.h5 >audit.md 2>"$SCRATCH/err"
expect_grep "failed and timed-out units \| PASS \| all 24 cold units finished ok" audit.md
expect_grep "^- 'exhaustive' runs only workloads 'br', 'g', 'gpu-only' \(its 'workloads'\): no unit or cell of the others is expected$" audit.md &&
	pass "audit: the mode's workloads are said, no unit is missing"
expect_grep "cache isolation \(cold units start cold\) \| PASS \| 24 cold units" audit.md
grep -qiw "nan" audit.md && fail "audit: a NaN is printed"

if expect_status 0 h verify --format json r.h5; then
	$PY - "$SCRATCH/out" <<'PYEOF' && pass "verify: exhaustive is left out where it does not run" || fail "verify's targets"
import json, sys
d = json.load(open(sys.argv[1]))
h = {x["id"]: x for x in d["hypotheses"]}
labels = {k: [t["label"] for t in v["targets"]] for k, v in h.items()}
assert "exhaustive-g2" not in h, labels
assert labels["g2-any"] == ["heuristic/g2/sgemm:m=24,n=16,k=48"], labels
assert labels["all-geomean"] == ["heuristic/geomean(3 cells)", "exhaustive/geomean(2 cells)"], labels
PYEOF
fi

if expect_status 0 h export --csv ex r.h5; then
	grep -qiw "nan" ex/*.csv && fail "export: a NaN is written"
	expect_grep '^"g2/sgemm:m=24,n=16,k=48","op","g2","exhaustive",0,,,,,,,$' ex/summary.csv &&
		pass "export: exhaustive's row in g2 has no unit and no number"
fi
if command -v gnuplot >/dev/null 2>&1; then
	expect_status 0 h plot -f svg -o plots r.h5 && pass "plot" || fail "plot"
	grep -q "g2/sgemm:m=24,n=16,k=48 | exhaustive" plots/forest.svg && fail "plot: a forest row of exhaustive in g2"
fi

# each unit's specification lists only the workloads its mode runs (and its backend has)
python3 - r/cache/*/harness-unit-*.json <<'PYEOF' && pass "no exhaustive unit is told of g2, no unit of the cuda-only workload" ||
import json, sys
specs = [json.load(open(p)) for p in sys.argv[1:]]
ex = [s for s in specs if s["mode"] == "exhaustive"]
assert ex and all(s["workload"] != "g2" and "g2" not in [w["name"] for w in s["workloads"]] for s in ex), ex
assert all(len(s["workloads"]) == 1 and s["workloads"][0]["name"] == s["workload"] for s in specs), specs
assert all(s["backend"] == "cpu" and "gpu-only" not in [w["name"] for w in s["workloads"]] for s in specs)
PYEOF
	fail "the units' specifications"

# unit_scope = "mode": one unit per mode, exhaustive's measures g and br alone
sed '/^unit_scope/d; /^hypotheses/d' mode-workloads.toml >mode.toml
expect_status 0 h run -q -o m.h5 mode.toml && pass "a unit_scope = mode run" || finish
check_run m.h5 mode || fail "the unit_scope = mode run's plan, units and cells"

# a command unit's specification lists its mode's workloads
cp "$DATA/command/fake_worker.py" "$DATA/command/mode-workloads.toml" .
expect_status 0 h run -q -o c.h5 mode-workloads.toml && pass "a command-mode run" || finish
$PY - c.h5 <<'PYEOF' && pass "py-w2's units are told w2 alone and measure it alone" || fail "the command run"
import glob, json, sys, h5py
from h5util import table
with h5py.File(sys.argv[1], "r") as f:
    units, cells, samples = table(f, "units"), table(f, "cells"), table(f, "samples")
mode = {u["id"]: u["mode"] for u in units}
assert len(units) == 4 and all(u["status"] == "ok" for u in units), units
for u in units:
    spec = json.load(open(glob.glob("c/cache/u%04d-*/harness-unit-%04d.json" % (u["id"], u["id"]))[0]))
    want = ["w2"] if u["mode"] == "py-w2" else ["w1", "w2"]
    assert [w["name"] for w in spec["workloads"]] == want, (u, spec["workloads"])
    got = {cells[s["cell"]]["workload"] for s in samples if s["unit"] == u["id"]}
    assert got == set(want), (u, got)
PYEOF
expect_status 0 h report c.h5 &&
	expect_grep "^\| w1/fake \| py-w2 \| - \|.*not compared: 'py-w2' does not run workload 'w1' \(its 'workloads'\)" "$SCRATCH/out" &&
	expect_grep "^\| w2/fake \| py-w2 \| 2 \| [0-9.]+ \|" "$SCRATCH/out" &&
	pass "the command run's report compares py-w2 in w2 alone"
finish
