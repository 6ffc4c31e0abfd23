# tests/cli/import-cache.sh: `harness import --kernel-tuner` and `--t4` on a real cache of the
# field (tests/data/caches: pnpoly on an RTX 3090, both formats), on synthetic caches with
# float and string values and a grid too large to enumerate, and on bad caches; and `replay`
# on what they write (issue 47).  Every number checked here is computed again in Python
# from the source file, not typed in.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py, numpy' 2>/dev/null || skip "h5py and numpy for /usr/bin/python3 are needed (Debian: python3-h5py)"
KT="$DATA/caches/pnpoly-RTX_3090.json.gz"
T4="$DATA/caches/pnpoly-RTX_3090-T4.json.gz"

# 1. a Kernel Tuner cache: every configuration with its samples, its space listed, the checks
expect_status 0 h import --kernel-tuner "$KT" -o kt.h5 &&
	check "the summary counts what the cache holds" expect_grep "^'kt.h5': 4092 configurations of 4 parameters \(grid 4092\): 3762 ok, 0 compile errors, 330 runtime failures, 0 invalid, 0 incorrect; 37620 samples$" "$SCRATCH/out" &&
	check "the stored time that is not the samples' mean is warned of" expect_grep "stored time of 3327 of 3762 configurations differs from the mean" "$SCRATCH/err"
check "the results file holds the cache, as the cache has it" $PY - kt.h5 "$KT" <<'PYEOF'
import gzip, hashlib, json, sys
import h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
raw = open(sys.argv[2], "rb").read()
src = json.loads(gzip.decompress(raw))
run = f["run"].attrs
s = lambda k: run[k].decode() if isinstance(run[k], bytes) else run[k]
assert s("source") == "kernel-tuner" and s("source_sha256") == hashlib.sha256(raw).hexdigest()
assert s("device") == src["device_name"] and s("kernel_name") == src["kernel_name"]
assert s("problem_size") == str(src["problem_size"]) and s("status") == "complete"
sp = f["spaces"][:]
assert len(sp) == 1 and sp[0]["listed"] == 1 and sp[0]["nvalid"] == len(src["cache"]), sp
vals = f["space_values"][:]
for i, k in enumerate(src["tune_params_keys"]):
    mine = [int(v["value"]) for v in vals if v["field"] == i]
    assert mine == sorted(src["tune_params"][k]) and all(v["kind"] == 0 for v in vals if v["field"] == i), k
tr, ts = f["trials"][:], f["trial_samples"][:]
okd = [e for e in src["cache"].values() if not isinstance(e["time"], str)]
assert len(tr) == len(src["cache"]) and len(ts) == sum(len(e["times"]) for e in okd)  # a failure's samples are not kept
keys = src["tune_params_keys"]
by = {",".join("%s=%s" % (k, e[k]) for k in keys): e for e in src["cache"].values()}
status = {"RuntimeFailedConfig": "failed", "CompilationFailedConfig": "compile-error", "InvalidConfig": "invalid"}
for i, t in enumerate(tr):
    e = by[t["config"].decode()]
    want = status.get(e["time"], "ok") if isinstance(e["time"], str) else "ok"
    assert t["status"].decode() == want, (t, e["time"])
    got = ts[ts["trial"] == i]["ns"]
    want = e["times"] if t["status"] == b"ok" else []
    # llround: halves away from zero (18.4453125 ms is 18445313 ns)
    assert np.array_equal(got, np.floor(np.array(want, dtype=float) * 1e6 + 0.5).astype(np.int64)), t["config"]
    assert abs(t["compile_ns"] - round(e["compile_time"] * 1e6)) <= 1
ch = f["choices"][:]
ok = {c: np.median(e["times"]) for c, e in by.items() if not isinstance(e["time"], str)}
assert ch[0]["config"].decode() == min(ok, key=ok.get) and ch[0]["reason"] == b"tuned", ch
PYEOF

# 2. the same measurements in T4's format import to the same trials and samples
expect_status 0 h import --t4 "$T4" --kernel cn_pnpoly --device "NVIDIA GeForce RTX 3090" -o t4.h5 &&
	check "T4 and Kernel Tuner give the same trials and samples" $PY - kt.h5 t4.h5 <<'PYEOF'
import sys, h5py, numpy as np
a, b = (h5py.File(p, "r") for p in sys.argv[1:3])
for t in ("trials", "trial_samples", "space_values"):
    x, y = a[t][:], b[t][:]
    for name in x.dtype.names:
        if name in ("compile_ns", "bench_ns"):
            continue  # T4 keeps the compile time, not the benchmark time
        assert np.array_equal(x[name], y[name], equal_nan=x[name].dtype.kind == "f"), (t, name)
assert b["run"].attrs["source"] in (b"t4", "t4") and b["run"].attrs["source_schema_version"] in (b"1.0.0", "1.0.0")
PYEOF

# 3. replay on it: random search scores 0 against itself (the CI over 300 seeds holds 0), and
# --objective picks what a config's samples score as (its best_ns computed again here)
expect_status 0 h replay kt.h5 --tuners random,simulated-annealing --budget 20 --seeds 300 -f json -o r-med.json &&
	expect_status 0 h replay kt.h5 --tuners random --budget 20 --seeds 20 --objective mean -f json -o r-mean.json &&
	check "replay on an imported cache: random scores 0, the objective is the samples' median or mean" $PY - r-med.json r-mean.json kt.h5 <<'PYEOF'
import json, sys, h5py, numpy as np
med, mean = (json.load(open(p)) for p in sys.argv[1:3])
f = h5py.File(sys.argv[3], "r")
tr, ts = f["trials"][:], f["trial_samples"][:]
per = {}
for t, ns in zip(ts["trial"], ts["ns"]):
    per.setdefault(int(t), []).append(int(ns))
ok = [i for i, t in enumerate(tr) if t["status"] == b"ok"]
r = med["rows"][0]
assert r["tuner"] == "random" and r["valid"] == 4092 and r["measured_ok"] == 3762, (r["valid"], r["measured_ok"])
assert r["score_ci_lo"][-1] <= 0 <= r["score_ci_hi"][-1], (r["score_ci_lo"][-1], r["score_ci_hi"][-1])
assert r["best_ns"] == min(np.median(per[i]) for i in ok)
assert med["objective"] == "median" and mean["objective"] == "mean"
want = min(np.mean(per[i]) for i in ok)
assert abs(mean["rows"][0]["best_ns"] - want) <= 0.5, (mean["rows"][0]["best_ns"], want)
PYEOF

# 4. float and string values as ordinals with their labels, and a grid of 8^20 points that
# is never enumerated: the space lists its 600 measured points
$PY - syn.json big.json <<'PYEOF'
import json, random, sys
rng = random.Random(4747)
kinds = {"block": [32, 64, 128], "ratio": [0.25, 0.5, 1.0, 1.5], "method": ["naive", "shared", "tiled"]}
cache = {}
for b in kinds["block"]:
    for r in kinds["ratio"]:
        for m in kinds["method"]:
            t = 10 + b / 64 + abs(r - 0.5) * 3 + ["naive", "shared", "tiled"].index(m)
            e = {"block": b, "ratio": r, "method": m, "time": t, "times": [t + rng.random() * 0.01 for _ in range(5)],
                 "compile_time": 1.0, "benchmark_time": 5.0, "verification_time": 0}
            cache["%s,%s,%s" % (b, r, m)] = e
json.dump({"device_name": "synthetic", "kernel_name": "syn", "problem_size": [64, 64],
           "tune_params_keys": list(kinds), "tune_params": kinds, "objective": "time", "cache": cache},
          open(sys.argv[1], "w"), indent=1)
keys = ["p%02d" % i for i in range(20)]
cache = {}
while len(cache) < 600:
    c = [rng.randrange(8) for _ in keys]
    t = 1 + sum((v - 3) ** 2 for v in c) * 0.01
    cache[",".join(map(str, c))] = dict(zip(keys, c), time=t, times=[t] * 3, compile_time=0.5, benchmark_time=1.0)
json.dump({"device_name": "synthetic", "kernel_name": "big", "problem_size": 1,
           "tune_params_keys": keys, "tune_params": {k: list(range(8)) for k in keys}, "cache": cache},
          open(sys.argv[2], "w"))
PYEOF
expect_status 0 h import --kernel-tuner syn.json -o syn.h5 &&
	expect_status 0 h replay syn.h5 --tuners exhaustive,coordinate-descent --budget 36 --seeds 2 -f json -o syn-r.json &&
	check "float and string fields: ordinals with their labels, configs written with the labels" $PY - syn.h5 syn-r.json <<'PYEOF'
import json, sys, h5py
f = h5py.File(sys.argv[1], "r")
v = f["space_values"][:]
assert [(int(x["kind"]), x["label"].decode(), int(x["value"])) for x in v if x["field"] == 1] == [(1, "0.25", 0), (1, "0.5", 1), (1, "1", 2), (1, "1.5", 3)], v
assert [x["label"].decode() for x in v if x["field"] == 2] == ["naive", "shared", "tiled"]
assert f["choices"][0]["config"].decode() == "block=32,ratio=0.5,method=naive"
r = json.load(open(sys.argv[2]))["rows"]
assert r[0]["config_seed0"] == "block=32,ratio=0.5,method=naive" and r[0]["score_mean"][-1] == 1, r[0]
PYEOF
expect_status 0 h import --kernel-tuner big.json -o big.h5 &&
	check "a grid of 8^20 points imports as its 600 listed points" expect_grep "600 configurations of 20 parameters \(grid 1152921504606846976\)" "$SCRATCH/out" &&
	expect_status 0 h replay big.h5 --tuners random,simulated-annealing,coordinate-descent --budget 40 --seeds 3 -f json -o big-r.json &&
	check "replay tunes the listed space without enumerating its grid" $PY -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert [w["valid"] for w in r["rows"]] == [600] * 3 and not r["left_out"], r["left_out"]
assert all(w["unmeasured"] == 0 for w in r["rows"]), [w["unmeasured"] for w in r["rows"]]' big-r.json

# 5. bad caches: file, line and column named, exit 2, nothing written
bad_import() { # PATTERN FILE: import FILE: exit 2 naming PATTERN, nothing written
	expect_status 2 h import --kernel-tuner "$2" -o bad.h5 && expect_grep "$1" "$SCRATCH/err" &&
		path_is_missing bad.h5
}
bad() { check "$1" bad_import "$2" "$3"; } # DESC PATTERN FILE
gzip -dc "$KT" | head -c 200000 > trunc.json
bad "a truncated cache" "^harness: 'trunc.json':[0-9]+:[0-9]+: (the file ends|.*end of)" trunc.json
$PY -c '
import json, sys
d = json.load(open(sys.argv[1])); e = next(iter(d["cache"].values())); e["block"] = 48
json.dump(d, open(sys.argv[2], "w"), indent=1)' syn.json undeclared.json
bad "a value tune_params does not declare" "^harness: 'undeclared.json':[0-9]+:[0-9]+: 'block' = 48 is not among the values tune_params declares" undeclared.json
$PY -c '
import json, sys
d = json.load(open(sys.argv[1])); e = next(iter(d["cache"].values())); e["time"] = "Exploded"
json.dump(d, open(sys.argv[2], "w"), indent=1)' syn.json marker.json
bad "a failure marker Kernel Tuner does not write" "'time' is 'Exploded', neither a time nor a failure" marker.json
$PY -c '
import json, sys
d = json.load(open(sys.argv[1])); d["tune_params"]["block"] = list(range(1025)); d["tune_params_keys"] = ["block", "ratio", "method"]
json.dump(d, open(sys.argv[2], "w"))' syn.json wide.json
bad "a field over 1,024 values" "field 'block' has more than the 1024 values a space can hold" wide.json
$PY -c '
import json, sys
keys = ["q%02d" % i for i in range(33)]
json.dump({"tune_params_keys": keys, "tune_params": {k: [1] for k in keys}, "cache": {}}, open(sys.argv[1], "w"))' many.json
bad "over 32 parameters" "33 tunable parameters; a space holds at most 32" many.json
printf '{"tune_params": {"a": [1]}, "cache": {"1": {"a": 1, "time": 1.0}, "1b": {"a": 1, "time": 2.0}}}' > dup.json
bad "a configuration twice" "the configuration of line 1 again" dup.json
printf '{"tune_params": {"a": [1]}, "tune_params": {"a": [2]}, "cache": {}}' > twice.json
bad "a key twice (found by fuzzing: the second one leaked the first)" "'tune_params' appears twice in the object" twice.json
printf '{"tune_params": {"a": [1]}, "cache": {"1": {"a": 1, "time": 1.0}}} x' > trail.json
bad "text after the cache" "^harness: 'trail.json':1:[0-9]+: text after the JSON object" trail.json
expect_status 2 h import --kernel-tuner syn.json -o kt.h5 &&
	check "an existing results file is never overwritten" expect_grep "already exists" "$SCRATCH/err"
expect_status 2 h import --kernel-tuner syn.json --t4 "$T4" -o x.h5 && path_is_missing x.h5 &&
	pass "one source at a time"
expect_status 2 h import --t4 syn.json -o x.h5 && path_is_missing x.h5 &&
	check "a Kernel Tuner cache is not a T4 file" expect_grep "no results in the file" "$SCRATCH/err"
finish
