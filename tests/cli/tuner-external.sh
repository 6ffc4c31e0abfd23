# tests/cli/tuner-external.sh: the "external" tuner (docs/tuner-protocol.md): a tuner program
# speaking the propose/observe protocol, offline (`harness replay` on the imported pnpoly
# cache) and live (`harness run` of a tiny CPU experiment), and its failures: a command that
# does not exist, exits at once, proposes a config outside the space, writes a line that is
# not JSON or hangs, each a clear error and a non-zero exit (a failed unit in a run), never a
# hang (every command runs under `timeout`).
#
# tests/data/tuners/doc-tuner.py is meant to be written from docs/tuner-protocol.md alone, by
# someone who read nothing else of the harness.  The one here was written against that page
# only, but by the session that wrote the page (it had no independent agent to give the page
# to); it speaks the protocol directly, without harness_tuner.py, and is used as-is.
. "$top_srcdir/tests/setup"
command -v python3 >/dev/null || skip "no python3 on PATH for the tuner programs"
DOC="$DATA/tuners/doc-tuner.py"
T="timeout 120 $HARNESS_CMD"

# a tuner on harness_tuner.py that keeps every start message it gets (one line each) in the
# file named by its argument, then walks the valid points in a seeded random order
cat >mine.py <<'EOF'
import json, random, sys
import harness_tuner as ht
space, budget = ht.start()
if len(sys.argv) > 1:
    with open(sys.argv[1], "a") as f:
        f.write(json.dumps(space) + "\n")
print("mine: tuning %s" % space["cell"])   # goes to stderr, not into the protocol
pts = list(ht.points(space))
random.Random(space["seed"]).shuffle(pts)
for p in pts:
    if ht.propose(p) is None:
        break
ht.done()
EOF
# a tuner that breaks the protocol in the way its argument names
cat >bad.py <<'EOF'
import sys, time
import harness_tuner as ht
space, budget = ht.start()
how = sys.argv[1]
if how == "exit":
    sys.exit(3)
if how == "outside":
    ht.propose(dict({f["name"]: f["values"][0] for f in space["fields"]}, **{space["fields"][0]["name"]: 7}))
if how == "garbage":
    ht._session._out.write("hello world\n")
    ht._session._out.flush()
if how == "hang":
    time.sleep(600)
sys.stdin.readline()
EOF

# ---- replay ----------------------------------------------------------------------------
expect_status 0 h import --kernel-tuner "$DATA/caches/pnpoly-RTX_3090.json.gz" -o pn.h5 || finish
expect_status 0 $T replay pn.h5 --tuners "external:command=python3 mine.py $SCRATCH/starts.jsonl,external:command=python3 $DOC,random" \
	--budget 20 --seeds 3 -f json -o r1.json &&
	check "replay scores a harness_tuner.py tuner and the doc-only tuner beside random search" \
	/usr/bin/python3 - r1.json starts.jsonl <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
rows = {r["tuner"].split("/")[-1].split(" ")[-1]: r for r in d["rows"] if r["cell"].startswith("pnpoly")}
for name in ("starts.jsonl", "doc-tuner.py", "random"):
    r = rows[name]
    assert r["trials_used_median"] == 20, (name, r["trials_used_median"])
    assert r["chosen_over_best_median"] >= 1 and len(r["seed_best_ns"]) == 3, r
    print("%s: score %.3f at 20 trials, chosen/best %.4f" % (name, r["score_mean"][-1], r["chosen_over_best_median"]))
starts = [json.loads(l) for l in open(sys.argv[2])]
assert len(starts) == 3, len(starts)                  # one program per seed
s = starts[0]
assert s["protocol"] == 1 and s["op"] == "cn_pnpoly" and s["cell"].startswith("pnpoly-RTX_3090/")
assert [f["name"] for f in s["fields"]] == ["between_method", "block_size_x", "tile_size", "use_method"], s["fields"]
assert all(f["kind"] == "int" and f["values"] == sorted(f["values"]) for f in s["fields"])
assert s["nvalid"] == 4092 and len(s["valid"]) == 4092 and s["budget"] == {"trials": 20, "seconds": None}, s["budget"]
assert len({x["seed"] for x in starts}) == 3, "each seed's program gets its own seed"
assert all(set(v) == {f["name"] for f in s["fields"]} for v in s["valid"])
PYEOF
check "the tuner's print() went to stderr, not into the protocol" expect_grep "^mine: tuning pnpoly" "$SCRATCH/err"
# the same seeds give the same trials: the doc-only tuner seeds itself from the start message
expect_status 0 $T replay pn.h5 --tuners "external:command=python3 $DOC" --budget 20 --seeds 3 -f json -o r2.json &&
	check "a replay of the doc-only tuner repeats itself" /usr/bin/python3 -c '
import json, sys
a = [r for r in json.load(open(sys.argv[1]))["rows"] if "doc-tuner" in r["tuner"]][0]
b = json.load(open(sys.argv[2]))["rows"][0]
assert a["seed_best_ns"] == b["seed_best_ns"] and a["config_seed0"] == b["config_seed0"], (a["config_seed0"], b["config_seed0"])' r1.json r2.json
# a seconds budget reaches the tuner too
expect_status 0 $T replay pn.h5 --tuners "external:command=python3 mine.py $SCRATCH/secs.jsonl" --budget 2s --seeds 1 &&
	check "a seconds budget is sent as budget.seconds" /usr/bin/python3 -c '
import json, sys
s = json.loads(open(sys.argv[1]).readline())
assert s["budget"]["seconds"] == 2 and s["budget"]["trials"] is None, s["budget"]' secs.jsonl

# ---- replay: what breaks the protocol stops the replay, naming the command -----------------
expect_status 2 $T replay pn.h5 --tuners "external:command=no-such-tuner-program" --budget 20 --seeds 2 &&
	check "a command that does not exist" expect_grep "command 'no-such-tuner-program'\): cannot run 'no-such-tuner-program': No such file" "$SCRATCH/err"
expect_status 2 $T replay pn.h5 --tuners "external:command=python3 bad.py exit" --budget 20 --seeds 2 &&
	check "a command that exits at once" expect_grep "seed 0: tuner 'external' \(command 'python3 bad.py exit'\): its output ended after 0 lines \(it exited with status 3\)" "$SCRATCH/err"
expect_status 2 $T replay pn.h5 --tuners "external:command=python3 bad.py outside" --budget 20 --seeds 2 &&
	check "a proposal outside the space" expect_grep "line 1 proposes what is not a point of the 'cn_pnpoly' space \(7 is not a value of field 'between_method'\)" "$SCRATCH/err"
expect_status 2 $T replay pn.h5 --tuners "external:command=python3 bad.py garbage" --budget 20 --seeds 2 &&
	check "a line that is not JSON" expect_grep "line 1 is not JSON \(.*\): 'hello world'" "$SCRATCH/err"
start=$(date +%s)
expect_status 2 $T replay pn.h5 --tuners "external:command=python3 bad.py hang:timeout=3" --budget 20 --seeds 2 &&
	check "a command that does not reply within 'timeout'" expect_grep "no reply within 3 s \(option 'timeout'\); stopped it \(it was killed by signal 15\)" "$SCRATCH/err"
check "the hung command cost the timeout, not more ($(( $(date +%s) - start )) s)" '[ $(( $(date +%s) - start )) -lt 30 ]'
check "no tuner program outlives its replay" '[ "$(alive "bad.py hang")" = 0 ]'
expect_status 2 h replay pn.h5 --tuners "external:timeout=5" --budget 20 &&
	check "a replay without a command" expect_grep "needs option 'command'" "$SCRATCH/err"

# ---- live: a tiny CPU experiment ----------------------------------------------------------
cp "$DOC" doc-tuner.py
cat >ext.toml <<'EOF'
schema = 1
name = "ext"
description = "external tuners on a small CPU sgemm"
backend = "cpu"
repeats = 2
seed = 20261121
order = "randomized"
unit_timeout = 60

[measure]
warmup_time = 0.01
warmup_count = 1
min_samples = 3
max_samples = 5
max_time = 0.1
target_precision = 0.05
trial_samples = 3
threads = 1

[[workloads]]
name = "sgemm48"
op = "sgemm"
shape = { m = 48, n = 40, k = 56 }

[[modes]]
name = "default"
tuner = "vendor"
baseline = true

[[modes]]
name = "doc"
tuner = "external"
options = { command = ["python3", "doc-tuner.py"], max_trials = 4, timeout = 60 }

[[modes]]
name = "mine"
tuner = "external"
options = { command = "python3 mine.py", max_trials = 3 }
EOF
expect_status 0 h check ext.toml || sed 's/^/  /' "$SCRATCH/err"
expect_status 0 $T run ext.toml -o ext.h5 &&
	expect_status 0 h show ext.h5 &&
	check "a live run with the doc-only tuner and a harness_tuner.py tuner: every unit ok" \
	/usr/bin/python3 -c '
import re, sys
rows = [l.split() for l in open(sys.argv[1]) if re.match(r"\s*\d+\s+(default|doc|mine)\s", l)]
assert len(rows) == 6 and all(r[7] == "ok" for r in rows), rows' "$SCRATCH/out"
check "the units were given the tuner program's absolute path" \
	'grep -q "\"$(pwd -P)/doc-tuner.py\"" ext/cache/*/harness-unit-*.json'
check "no tuner program outlives the run" '[ "$(alive "doc-tuner.py")" = 0 ] && [ "$(alive "mine.py")" = 0 ]'

# ---- live: a broken tuner fails its unit, and the run says so --------------------------------
sed -e 's/"python3", "doc-tuner.py"/"python3", "bad.py", "garbage"/' -e 's/^repeats = 2/repeats = 1/' ext.toml >broken.toml
expect_status 1 $T run broken.toml -o broken.h5 &&
	check "a tuner writing garbage fails its unit, with the reason in the unit's log" \
	'grep -l "tuner .external. (command .python3 .*bad.py garbage.): line 1 is not JSON" broken/logs/*.err >/dev/null'

# ---- check: the options --------------------------------------------------------------------
sed 's/options = { command = "python3 mine.py", max_trials = 3 }/options = { max_trials = 3 }/' ext.toml >nocmd.toml
expect_status 2 h check nocmd.toml &&
	check "a mode without a command" expect_grep "mode 'mine': tuner 'external' needs options.command" "$SCRATCH/err"
sed 's/"python3", "doc-tuner.py"/".\/no-such-tuner.py"/' ext.toml >missing.toml
expect_status 2 h check missing.toml &&
	check "a program path that names no file" expect_grep "tuner program './no-such-tuner.py' not found in the experiment's folder" "$SCRATCH/err"
sed 's/command = "python3 mine.py"/command = []/' ext.toml >empty.toml
expect_status 2 h check empty.toml &&
	check "an empty command" expect_grep "'command' must be the tuner program's argv" "$SCRATCH/err"
finish
