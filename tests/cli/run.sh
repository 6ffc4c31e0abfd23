# tests/cli/run.sh: a real tiny run, verified by reading its HDF5 file with h5py alone:
# one process and one fresh cache directory per unit, blocks reproducible from the seed,
# a warm probe that hits the cache its cold unit filled, an allowlisted environment,
# provenance, and no silent backend fallback.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || skip "h5py for /usr/bin/python3 is not installed (Debian: python3-h5py)"
export PYTHONPATH="$top_srcdir/tests/cli"
cp "$DATA/run/tiny.toml" tiny.toml
export PLANTED_SECRET=do-not-leak

expect_status 0 h run -q --results-dir res tiny.toml && pass "tiny run exits 0"
set -- res/clitiny-*.h5
[ $# -eq 1 ] && [ -f "$1" ] || fail "one results file in res/ (got: $*)"
H5=$1
RUN=${H5%.h5}
[ -d "$RUN/logs" ] && [ -d "$RUN/cache" ] && [ -f "$RUN/experiment.toml" ] || fail "run folder layout"
cmp -s tiny.toml "$RUN/experiment.toml" || fail "the experiment copy is verbatim"
expect_grep '^run: res/clitiny-' "$SCRATCH/out"
expect_grep 'exhaustive' "$SCRATCH/out"

$PY - "$H5" "$RUN" "$(sha256sum tiny.toml | cut -d' ' -f1)" <<'PYEOF' || fail "results file checks"
import json, os, sys, h5py
from h5util import table, meta, Checker
path, run, sha = sys.argv[1:4]
c = Checker("run")
with h5py.File(path, "r") as f:
    m = meta(f)
    units, plan = table(f, "units"), table(f, "plan")
    cells, samples = table(f, "cells"), table(f, "samples")
    trials, choices = table(f, "trials"), table(f, "choices")
    files = f["run/files"]
    texts = {files[k].attrs["role"] if isinstance(files[k].attrs["role"], str) else files[k].attrs["role"].decode(): files[k] for k in files}
    exp_text = texts["experiment"][()]
    exp_text = exp_text.decode() if isinstance(exp_text, bytes) else exp_text
c.check(exp_text == open("tiny.toml").read(), "experiment text recorded verbatim")
c.check(m.get("experiment_sha256") == sha, "experiment SHA-256 recorded")
c.check(m.get("backend") == "cpu" and "auto" in m.get("backend_reason", ""), "backend cpu chosen by auto, with the reason")
c.check(m.get("status") == "complete" and m.get("end_utc"), "run marked complete with an end time")
for k in ("harness_version", "git_commit", "host", "cpu_model", "compiler", "start_utc", "seed"):
    c.check(m.get(k) not in (None, ""), "metadata has %s" % k)
c.check(len(plan) == 12 and len(units) == 12, "12 planned and 12 recorded units (3 blocks x (3 modes + 1 warm))")
c.check(sorted(u["id"] for u in units) == list(range(12)), "every plan id recorded once")
c.check(all(u["status"] == "ok" for u in units), "every unit ok")
cold = [u for u in units if not u["warm"]]
warm = [u for u in units if u["warm"]]
c.check(len(set(u["pid"] for u in units)) == 12, "a distinct process per unit")
c.check(len(set(u["cache_dir"] for u in cold)) == 9, "a distinct cache dir per cold unit")
c.check(all(os.path.realpath(u["cache_dir"]).startswith(os.path.realpath(run + "/cache/")) for u in units), "cache dirs inside the run folder")
c.check(all(u["cache_dir_empty"] == 1 for u in cold), "cold cache dirs empty at start")
byid = {u["id"]: u for u in units}
pl = {p["id"]: p for p in plan}
for w in warm:
    cu = byid[pl[w["id"]]["warm_of"]]
    c.check(w["mode"] == "exhaustive" and cu["mode"] == "exhaustive" and w["block"] == cu["block"], "warm unit %d follows its cold unit in its block" % w["id"])
    c.check(w["cache_dir"] == cu["cache_dir"] and w["cache_dir_empty"] == 0, "warm unit %d reuses the cold cache dir" % w["id"])
    c.check(cu["compiles"] > 0 and w["compiles"] == 0 and w["cache_hits"] > 0, "warm unit %d hit the cache its cold unit filled (cold %d compiles, warm %d, hits %d)" % (w["id"], cu["compiles"], w["compiles"], w["cache_hits"]))
for u in cold:
    if u["mode"] == "default":
        c.check(u["compiles"] == 0 and u["benchmarks"] == 0 and u["expects_work"] == 0, "vendor unit %d compiles and benchmarks nothing" % u["id"])
    else:
        c.check(u["compiles"] > 0 and u["expects_work"] == 1, "%s unit %d compiled (%d)" % (u["mode"], u["id"], u["compiles"]))
    c.check(u["cache_leak"] == 0, "no cache leak flagged on unit %d" % u["id"])
    env = json.loads(u["env_json"])
    c.check(env.get("HARNESS_CACHE_DIR") == u["cache_dir"] and env.get("HOME") == u["cache_dir"], "unit %d env points caches at its dir" % u["id"])
    c.check("PLANTED_SECRET" not in env, "unit %d env is allowlisted (no PLANTED_SECRET)" % u["id"])
    argv = json.loads(u["argv_json"])
    spec_path = os.path.join(u["cache_dir"], "harness-unit-%04d.json" % u["id"])
    c.check(argv == ["/proc/self/exe", "__worker", "--spec", spec_path] and env.get("HARNESS_UNIT_SPEC") == spec_path, "unit %d argv recorded (the scheduler's own binary, its specification)" % u["id"])
    spec = json.load(open(spec_path))
    c.check(spec["mode"] == u["mode"] and spec["unit"] == u["id"] and spec["backend"] == "cpu" and spec["warm"] == bool(u["warm"]), "unit %d's specification names its mode, unit and backend" % u["id"])
    c.check(os.path.exists(os.path.join(os.path.dirname(path), u["stderr_log"])), "unit %d stderr log kept" % u["id"])
names = sorted(x["name"] for x in cells)
c.check(len(names) == 2 and any(n.startswith("g/sgemm") for n in names) and any(n.startswith("br/bias_relu") for n in names), "two op cells: %s" % names)
# sample, trial and choice rows refer to units by their row in /units
for row, u in enumerate(units):
    per = {}
    for s in samples:
        if s["unit"] == row:
            per[s["cell"]] = per.get(s["cell"], 0) + 1
    c.check(len(per) == 2 and all(n >= 5 for n in per.values()), "unit %d has >= min_samples for both cells" % u["id"])
c.check(all(s["ns"] > 0 for s in samples), "samples are positive ns")
ex_trials = [t for t in trials if units[t["unit"]]["mode"] == "exhaustive" and not units[t["unit"]]["warm"]]
c.check(len(ex_trials) > 0 and all(t["nsamples"] == 2 for t in ex_trials if t["status"] == "ok"), "exhaustive trials benchmarked with trial_samples")
c.check(any(t["config"] == "vendor" for t in ex_trials), "exhaustive includes the vendor path as a candidate")
c.check(len(choices) == 12 * 2, "a choice per unit and op cell")
c.exit()
PYEOF

# Block orders reproduce from the seed, and change with it.
order() { $PY -c '
import sys, h5py
from h5util import table
with h5py.File(sys.argv[1], "r") as f:
    print(" ".join("%s/%s/%s" % (u["block"], u["position"], u["mode"]) for u in sorted(table(f, "units"), key=lambda u: u["id"])))' "$1"; }
expect_status 0 h run -q -o again.h5 tiny.toml || true
[ "$(order "$H5")" = "$(order again.h5)" ] && pass "same seed, same block orders" || fail "same seed gave different block orders"
sed 's/^seed = 424242/seed = 5150/' tiny.toml > reseeded.toml
expect_status 0 h run -q -o reseeded.h5 reseeded.toml || true
[ "$(order "$H5")" != "$(order reseeded.h5)" ] && pass "another seed, other block orders" || fail "the seed does not drive block orders"

# A backend asked for by name that cannot run is an error, never a fallback.
expect_status 2 h run -q -o cuda.h5 --backend cuda tiny.toml && pass "--backend cuda refused on a CPU build"
expect_grep "backend 'cuda'" "$SCRATCH/err"
[ ! -e cuda.h5 ] && [ ! -e cuda ] || fail "nothing written when the backend is refused"
# A mode chooses its backend; --backend is the backend of the modes that name none.  Each
# mode's request, backend and reason are recorded (mode_backends), and its units start as
# the registry says, with --backend of the resolved name.
sed 's/^repeats = 3/repeats = 1/; s/^name = "heuristic"/name = "heuristic"\nbackend = "auto"/' tiny.toml > permode.toml
expect_status 0 h run -q -o permode.h5 --backend cpu permode.toml && pass "a mode with its own backend runs"
expect_grep '^backend: cpu, per mode:$' "$SCRATCH/out"
expect_grep '^  heuristic: cpu \(auto: ' "$SCRATCH/out"
expect_grep '^  default: cpu \(requested by name\)$' "$SCRATCH/out"
$PY - permode.h5 <<'PYEOF' || fail "per-mode backends recorded"
import json, sys, h5py
from h5util import table, meta, Checker
c = Checker("permode")
with h5py.File(sys.argv[1], "r") as f:
    m = meta(f)
    units = table(f, "units")
mb = json.loads(m["mode_backends"])
c.check(sorted(mb) == ["default", "exhaustive", "heuristic"], "mode_backends has every mode")
c.check(mb["default"] == {"requested": "cpu", "backend": "cpu", "reason": "requested by name"}, "--backend is the default mode's request")
c.check(mb["heuristic"]["requested"] == "auto" and mb["heuristic"]["backend"] == "cpu" and mb["heuristic"]["reason"].startswith("auto: "), "the mode's own backend wins, with auto's reason")
c.check(m["backend_requested"] == "cpu" and m["backend"] == "cpu", "run-level backend keys")
c.check(m.get("openblas") not in (None, "", "unknown"), "the cpu backend's describe_build recorded openblas")
for u in units:
    argv = json.loads(u["argv_json"])
    spec = json.load(open(argv[argv.index("--spec") + 1]))
    c.check(argv[1] == "__worker" and spec["backend"] == "cpu" and spec["tuner"] == ("vendor" if u["mode"] == "default" else u["mode"]), "unit %d started as the registry says (its spec: backend %s, tuner %s)" % (u["id"], spec["backend"], spec["tuner"]))
c.exit()
PYEOF
h audit -f json permode.h5 >"$SCRATCH/out" 2>"$SCRATCH/err"
$PY - "$SCRATCH/out" <<'PYEOF' || fail "audit of per-mode backends"
import json, sys
a = json.load(open(sys.argv[1]))
k = [c for c in a["checks"] if c["id"] == "backend"][0]
assert k["status"] == "WARN", k
assert any("mode 'heuristic': requested 'auto', ran 'cpu'" in e for e in k["evidence"]), k
assert "1 of 3 modes asked for 'auto'" in k["summary"], k
PYEOF
# Backend names in messages and help come from one registry.
expect_status 2 h run --backend tpu tiny.toml && expect_grep "unknown backend 'tpu' \(auto, cpu, cuda or command\)" "$SCRATCH/err"
expect_status 0 h run --help && expect_grep 'auto, cpu, cuda or command' "$SCRATCH/out"
# A run never overwrites another.
expect_status 1 h run -q -o again.h5 tiny.toml && expect_grep "already exists" "$SCRATCH/err"
# Usage errors
expect_status 2 h run && expect_grep "needs an experiment file" "$SCRATCH/err"
expect_status 2 h run --bogus tiny.toml && expect_grep "unknown option" "$SCRATCH/err"
expect_status 0 h run --help && expect_grep '^usage: harness run' "$SCRATCH/out"
finish
