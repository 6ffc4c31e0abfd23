# tests/cli/sequential.sh: blocks until decided (issue 44; docs/report-format.md, "Blocks until
# decided").  With the fake worker (a mode 40% faster, A/A copies alike): a primary claim the
# data decide stops at the first look after `repeats` blocks; one they can never decide runs
# to max_repeats, each look spending its alpha-spending increment (summing to alpha) at its
# exact group-sequential boundary's level, and every later reading (report, verify) at the
# last look's level; the experiment's
# [sequential] table does what --until-decided does; --until cells waits for the cells; a
# run killed between looks resumes its design; the audit does not call the design's
# extension optional stopping; bad uses are refused before anything is written.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || skip "h5py for /usr/bin/python3 is not installed (Debian: python3-h5py)"
command -v python3 >/dev/null || skip "python3 is needed for the fake worker"
export PYTHONPATH="$top_srcdir/tests/cli"
cp "$DATA/command/fake_worker.py" .

# exp.toml HYPOTHESES: base, its A/A copy, and fast (0.6 of base), 3 blocks
exp() {
	cat <<TOML
schema = 1
name = "seq"
repeats = 3
seed = 4242
order = "randomized"
unit_timeout = 60
hypotheses = ["$1"]

[measure]
min_samples = 5
max_samples = 5

[[workloads]]
name = "w"
op = "sgemm"
shape = { m = 8, n = 8, k = 8 }

[[modes]]
name = "base"
baseline = true
command = ["python3", "fake_worker.py"]
options = { mode_scale = { fast = 0.6 } }

[[modes]]
name = "base-aa"
aa_of = "base"
command = ["python3", "fake_worker.py"]
options = { mode_scale = { fast = 0.6 } }

[[modes]]
name = "fast"
command = ["python3", "fake_worker.py"]
options = { mode_scale = { fast = 0.6 } }
TOML
}
cat >decides.toml <<'TOML'
schema = 1
[[hypotheses]]
id = "fast-faster"
claim = "fast is faster than base by 10% or more"
primary = true
mode = "fast"
prediction = "faster"
min_effect = 0.10
TOML
# never decided: the A/A copy SAME as base within 0.01% needs a CI that narrow (the
# workers' spread is about 0.5%), and its falsifier a CI wholly beyond 0.01% with p < alpha,
# which an identical configuration does not give
cat >never.toml <<'TOML'
schema = 1
[[hypotheses]]
id = "aa-same-exactly"
claim = "the A/A copy is the same as base within 0.01%"
primary = true
mode = "base-aa"
prediction = "same"
min_effect = 0.0001
TOML
exp decides.toml >decides-exp.toml
exp never.toml >never-exp.toml

# meta FILE KEY: a metadata value of a results file
meta() { $PY -c '
import sys, h5py
from h5util import meta
print(meta(h5py.File(sys.argv[1], "r"))[sys.argv[2]])' "$1" "$2"; }

# 1. decided at the first look: 3 blocks, stopped "decided"
expect_status 0 h run -q -o d.h5 --until-decided 8 decides-exp.toml &&
	expect_grep "^\| fast-faster \| yes \| .* \*\*CORROBORATED\*\*" "$SCRATCH/out" &&
	pass "a claim the data decide: CORROBORATED"
[ "$(meta d.h5 sequential_stopped)" = decided ] && [ "$(meta d.h5 repeats)" = 3 ] &&
	pass "decided at the first look, after the experiment's 3 blocks" ||
	fail "decides: stopped '$(meta d.h5 sequential_stopped)' after $(meta d.h5 repeats) blocks"

# 2. never decided: looks after 3, 4, 5 and 6 blocks, stopped at max_repeats; each spends
# stats_seq_alpha's increment (Pocock-type over 6 blocks; they sum to alpha) and is tested at
# its level calibrated for Student's t, a separate simulation's in
# tests/data/stats/seqbounds-t.csv (within its tolerance); the report and verify read the run
# at the last look's level
expect_status 0 h run -q -o n.h5 --until-decided 6 never-exp.toml && pass "a claim no data decide: the run ends"
$PY - n.h5 "$top_srcdir/tests/data/stats/seqbounds-t.csv" <<'PYEOF' && pass "looks after 3, 4, 5, 6 blocks spending Pocock's increments (0.05 in all) at the levels calibrated for Student's t; stopped at max_repeats" || fail "the looks of an undecided run"
import json, math, sys, h5py
from h5util import meta
m = meta(h5py.File(sys.argv[1], "r"))
looks = json.loads(m["sequential_looks"])
assert [l["blocks"] for l in looks] == [3, 4, 5, 6], looks
assert m["sequential_stopped"] == "max_repeats" and m["sequential"] == "pocock", m
g = lambda t: 0.05 * math.log(1 + (math.e - 1) * t)
spent = [g(3 / 6), g(4 / 6) - g(3 / 6), g(5 / 6) - g(4 / 6), g(1) - g(5 / 6)]
assert all(math.isclose(l["spent"], w, rel_tol=1e-9) for l, w in zip(looks, spent)), (looks, spent)
assert math.isclose(sum(l["spent"] for l in looks), 0.05, rel_tol=1e-9)
row = [l for l in open(sys.argv[2]) if l.startswith("pocock_3to6_of_6,")][0].split(",")
assert [float(v) for v in row[2].split(";")] == [3, 4, 5, 6], row
want = [float(v) for v in row[4].split(";")]
tol = [float(v) for v in row[3].split(";")]
assert all(math.isclose(l["alpha"], w, rel_tol=t) for l, w, t in zip(looks, want, tol)), (looks, want)
assert looks[0]["alpha"] == looks[0]["spent"] and all(l["alpha"] > l["spent"] for l in looks[1:])
assert math.isclose(float(m["sequential_alpha"]), looks[-1]["alpha"], rel_tol=1e-12), m["sequential_alpha"]
assert all(not l["done"] and l["primary"] == 1 and l["primary_decided"] == 0 for l in looks), looks
assert "4 -> 5 blocks" in m["repeats_extended"] and m["repeats"] == "6", m["repeats_extended"]
PYEOF
expect_status 0 h report -f json n.h5 &&
	$PY -c '
import json, sys, h5py
from h5util import meta
r = json.load(open(sys.argv[1]))
a = float(meta(h5py.File(sys.argv[2], "r"))["sequential_alpha"])
s = r["settings"]
assert abs(s["alpha"] - a) < 1e-12 and abs(s["conf"] - (1 - a)) < 1e-12, s
' "$SCRATCH/out" n.h5 && pass "the report reads the run at its last look's level" ||
	fail "the report reads the run at its last look's level"
expect_status 0 h verify n.h5 && expect_grep "^\| aa-same-exactly \| yes \| .* \*\*INCONCLUSIVE\*\*" "$SCRATCH/out" &&
	pass "verify: the undecided claim stays INCONCLUSIVE"
h audit -f json n.h5 >audit.json 2>/dev/null
$PY -c '
import json, sys
c = {k["id"]: k for k in json.load(open(sys.argv[1]))["checks"]}["repeats"]
ev = " ".join(c["evidence"])
assert "sequential design" in ev and "optional stopping" not in c["summary"], c
' audit.json && pass "the audit: the design's extension is no optional stopping" || fail "audit of a sequential run"

# 3. the experiment's [sequential] table does what --until-decided does
{ cat never-exp.toml; printf '\n[sequential]\nmax_repeats = 4\n'; } >table.toml
expect_status 0 h run -q -o t.h5 table.toml &&
	[ "$(meta t.h5 sequential_stopped)" = max_repeats ] && [ "$(meta t.h5 repeats)" = 4 ] &&
	pass "[sequential] max_repeats = 4: looks after 3 and 4 blocks" || fail "the [sequential] table"

# 4. --until cells: a run whose claim is decided waits for every cell too (here decided at
# once: the one cell is 40% faster)
expect_status 0 h run -q -o c.h5 --until-decided 5 --until cells decides-exp.toml &&
	[ "$(meta c.h5 sequential_until)" = cells ] && [ "$(meta c.h5 sequential_stopped)" = decided ] &&
	pass "--until cells: recorded, and decided when every cell is" || fail "--until cells"

# 5. killed between looks: the resumed run continues its design
$HARNESS run -q -o k.h5 --until-decided 6 never-exp.toml >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 600); do
	[ -f k.h5 ] && [ "$(meta k.h5 sequential_looks 2>/dev/null)" != "[]" ] &&
		[ -n "$(meta k.h5 sequential_looks 2>/dev/null)" ] && break
	sleep 0.05
done
kill -9 "$pid"
wait "$pid" 2>/dev/null
n=$($PY -c 'import json, sys, h5py; from h5util import meta; print(len(json.loads(meta(h5py.File(sys.argv[1], "r"))["sequential_looks"])))' k.h5 2>/dev/null)
[ -n "$n" ] && [ "$n" -ge 1 ] && [ "$(meta k.h5 sequential_stopped)" = "" ] &&
	pass "killed after $n look(s), before the design ended" || fail "the kill did not land between looks ($n looks)"
expect_status 0 h run -q --resume k.h5 &&
	[ "$(meta k.h5 sequential_stopped)" = max_repeats ] && [ "$(meta k.h5 repeats)" = 6 ] &&
	pass "--resume goes on with the recorded design to its end" || fail "resume of a sequential run"

# 6. refused before anything is written
expect_status 2 h run -o r1.h5 --until-decided 2 never-exp.toml &&
	expect_grep "until-decided 2: below the 3 blocks the run starts with" "$SCRATCH/err" && [ ! -e r1.h5 ] &&
	pass "--until-decided below repeats: refused, nothing written"
expect_status 2 h run --until cells never-exp.toml && expect_grep "only qualifies --until-decided" "$SCRATCH/err"
expect_status 2 h run --resume n.h5 --until-decided 9 && expect_grep "continues the design it recorded" "$SCRATCH/err"
expect_status 2 h run --until-decided 1 never-exp.toml && expect_grep "not a number of blocks" "$SCRATCH/err"

# 7. recorded looks whose blocks do not increase: a damaged file, named (status 1, as any
# failure of a run), not a level made up
cp n.h5 bad.h5 && cp -r n bad
$PY - bad.h5 <<'PYEOF'
import json, sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r+") as f:
    looks = json.loads(f["run"].attrs["sequential_looks"])
    looks[2]["blocks"] = 3
    f["run"].attrs["sequential_looks"] = np.bytes_(json.dumps(looks))
PYEOF
expect_status 1 h run -q --resume bad.h5 &&
	expect_grep "'bad.h5': its sequential_looks is damaged: look 3's blocks are not a count above the last look's" "$SCRATCH/err" &&
	pass "damaged looks: refused, naming the file and the look"
finish
