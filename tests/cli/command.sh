# tests/cli/command.sh: external command modes (issue 12), with a Python worker written with
# kernels/python/harness_unit.py and a shell one, no GPU and no PyTorch: the isolation a unit
# sees (its own 0700 cache dir as cwd, HOME and framework caches, its own process group, the
# built environment), warm probes, timeouts, crashes, malformed and partial records, a planted
# cache leak judged from the counters against `expects`, resume, report and audit.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || skip "h5py for /usr/bin/python3 is not installed (Debian: python3-h5py)"
command -v python3 >/dev/null || skip "no python3 on PATH for the fake worker"
export PYTHONPATH="$top_srcdir/tests/cli"
cp "$DATA/command/ok.toml" "$DATA/command/faults.toml" "$DATA/command/fake_worker.py" \
	"$DATA/command/fake_worker.sh" .
# a variable of the harness's own environment that no unit may see
export LEAKY_SECRET=do-not-pass

# ---- a healthy run: isolation, warm probes, the record stream ---------------------------
expect_status 0 h run -q -o ok.h5 ok.toml && pass "a run of command modes exits 0"
expect_grep 'units: 15 recorded of 15 planned, 0 not ok' "$SCRATCH/out"
$PY - ok.h5 ok <<'PYEOF' || fail "command units in the results file"
import json, os, sys, h5py
from h5util import table, meta
from collections import Counter
c_ok = [True]
def check(cond, what):
    print(("ok: " if cond else "FAIL: command: ") + what, file=sys.stdout if cond else sys.stderr)
    c_ok[0] &= bool(cond)
with h5py.File(sys.argv[1], "r") as f:
    units = table(f, "units")
    m = meta(f)
run = sys.argv[2]
check(all(u["status"] == "ok" for u in units), "every unit ok")
mb = json.loads(m["mode_backends"])
check(mb["py"]["backend"] == "command" and mb["py"]["command"][0] == "python3"
      and mb["py"]["command"][1] == os.path.realpath("fake_worker.py"),
      "mode_backends records the argv as run (relative path resolved): %s" % mb["py"].get("command"))
check(mb["sh"]["command"] == [os.path.realpath("fake_worker.sh")], "argv[0] with a '/' resolved")
for u in units:
    argv = json.loads(u["argv_json"])
    if u["mode"].startswith("py"):
        check(argv == mb[u["mode"]]["command"], "unit %d ran its mode's argv" % u["id"])
    out = open(os.path.join(run, "logs", "u%04d.out" % u["id"])).read()
    cache = u["cache_dir"]
    if u["mode"] == "sh":
        env = dict(l.split("=", 1) for l in out.splitlines() if "=" in l)
        check("LEAKY_SECRET" not in env, "unit %d (sh) does not inherit the harness's environment" % u["id"])
        check(env.get("cwd") == cache and env.get("HOME") == cache and env.get("TORCHINDUCTOR_CACHE_DIR") == cache + "/inductor"
              and env.get("TMPDIR") == cache + "/tmp" and env.get("HARNESS_UNIT_SPEC") == cache + "/harness-unit-%04d.json" % u["id"],
              "unit %d (sh): cwd, HOME, TMPDIR, Inductor cache and spec point into its cache dir" % u["id"])
        continue
    seen = json.loads(out.splitlines()[0])
    check(seen["cwd"] == cache and seen["HOME"] == cache and seen["XDG_CACHE_HOME"] == cache
          and seen["TORCHINDUCTOR_CACHE_DIR"] == cache + "/inductor" and seen["TRITON_CACHE_DIR"] == cache + "/triton"
          and seen["CUDA_CACHE_PATH"] == cache + "/cuda" and seen["TMPDIR"] == cache + "/tmp",
          "unit %d: its caches, HOME and cwd are its own cache dir" % u["id"])
    check(seen["cache_mode"] == "0o700" and seen["pgid_is_pid"] and seen["fd3"] == "3",
          "unit %d: 0700 cache dir, own process group, records on fd 3" % u["id"])
    check(seen["LEAKY_SECRET"] is None and seen["EXP_SET"] == "from-experiment",
          "unit %d: built environment ([environment] set, nothing inherited)" % u["id"])
    check(seen["MODE_ONLY"] == ("py-only" if u["mode"] in ("py", "py-aa") else None),
          "unit %d: [modes.environment] reaches its own mode only" % u["id"])
    spec = json.load(open(seen["HARNESS_UNIT_SPEC"]))
    check(spec["unit"] == u["id"] and spec["mode"] == u["mode"] and bool(spec["warm"]) == bool(u["warm"])
          and spec["seed"] == 8675309 and spec["measure"]["min_samples"] == 8
          and spec["workloads"][0]["op"] == "sgemm", "unit %d: its specification" % u["id"])
cold = [u for u in units if u["mode"] == "py" and not u["warm"]]
warm = [u for u in units if u["mode"] == "py" and u["warm"]]
check(len(cold) == 3 and len(warm) == 3, "three cold units of py and three warm probes")
for w in warm:
    c = [u for u in cold if u["cache_dir"] == w["cache_dir"]]
    check(len(c) == 1, "warm unit %d reuses a cold unit's cache dir" % w["id"])
    check(w["compiles"] == 0 and w["cache_hits"] == 1 and c[0]["compiles"] == 1,
          "warm unit %d found what its cold unit compiled (a proven cache hit)" % w["id"])
check(all(u["cache_dir_empty"] for u in units if not u["warm"]), "every cold unit started in an empty cache dir")
check(not any(u["cache_leak"] for u in units), "no cache leak flagged")
check(all(u["expects_work"] == (1 if u["mode"] != "sh" else 0) for u in units if not u["warm"]),
      "expects_work is the mode's `expects`, not the unit's word")
with h5py.File(sys.argv[1], "r") as f:
    n = Counter()
    reasons = Counter()
    for s in table(f, "samples"):
        n[s["unit"]] += 1
        reasons[(s["unit"], int(s["clock_reasons"]))] += 1
check(all(n[u["id"]] == (8 if u["mode"] != "sh" else 5) for u in units), "every sample recorded")
py = [u for u in units if u["mode"] != "sh"]
check(all(reasons[(u["id"], 4)] == 1 and reasons[(u["id"], 0)] == 7 for u in py),
      "the Python units' clock-event reasons are recorded per sample (harness_unit.py)")
check(all(reasons[(u["id"], -1)] == 5 for u in units if u["mode"] == "sh"),
      "a unit that sends no reasons records -1 (unknown)")
sys.exit(0 if c_ok[0] else 1)
PYEOF
expect_status 0 h report ok.h5 && pass "report on a run of command modes"
expect_grep 'py-slow' "$SCRATCH/out"
h audit ok.h5 >audit.md 2>&1
grep -q '| cache isolation (cold units start cold) | PASS |' audit.md && pass "audit: cache isolation passes" ||
	{ fail "audit: cache isolation"; grep -i cache audit.md >&2; }
# the GPU state an external unit records (docs/record-protocol.md, "GPU state") gets the
# audit's GPU checks, as the CUDA backend's does; how op cells were timed is the CUDA
# backend's own check
grep -q '| clocks, temperature and power across units | PASS | recorded per sample and per unit (backend command): judged by the gpu-clocks' audit.md &&
	grep -q '| GPU clocks the same for every mode | PASS |' audit.md &&
	grep -q '| GPU temperature across the run | PASS | within 2 C on each of 1 GPU(s)' audit.md &&
	grep -q '| no other process on the GPU | PASS | .*; some units did not record them' audit.md &&
	grep -q '| one GPU per block | PASS |' audit.md && ! grep -q 'op cells timed on the GPU' audit.md &&
	pass "audit: the GPU checks judge the command units' GPU state" ||
	{ fail "audit: GPU checks of command units"; grep -i "gpu\|clocks" audit.md >&2; }
# units run without slots (no --gpus) that name their GPU: the report's devices are those
# GPUs, and a block whose units ran on two is flagged, by each GPU's unit count
sed 's/gpu = "GPU-fake"/gpu = "GPU-a|GPU-b"/' ok.toml >two.toml
expect_status 0 h run -q -o two.h5 two.toml || cat "$SCRATCH/err" >&2
expect_status 0 h report two.h5 && expect_grep "^The units ran on 2 devices" "$SCRATCH/out" &&
	pass "report: the GPUs the units named are its devices" || fail "report: devices from the units' GPU"
h audit two.h5 >audit3.md 2>&1
grep -q '| every block on one device | \*\*FAIL\*\* |' audit3.md &&
	grep -Eq "^- block [0-9]+ is split across devices: [0-9]+ unit\(s\) on 'GPU-[ab]' \(unit [0-9]+ first\), [0-9]+ unit\(s\) on 'GPU-[ab]'" audit3.md &&
	grep -q '| one GPU per block | \*\*FAIL\*\* |' audit3.md &&
	pass "audit: blocks on two GPUs fail, each GPU's units counted" ||
	{ fail "audit: blocks on two GPUs"; grep -i "device\|gpu" audit3.md >&2; }

# ---- faults: each status, nothing recorded lost ------------------------------------------
expect_status 1 h run -q -o faults.h5 faults.toml && pass "a run with failing command units exits 1"
expect_grep 'units: 8 recorded of 8 planned, 6 not ok' "$SCRATCH/out"
$PY - faults.h5 <<'PYEOF' || fail "command unit statuses"
import sys, h5py
from h5util import table, Checker
from collections import Counter
c = Checker("command")
with h5py.File(sys.argv[1], "r") as f:
    units = {u["mode"]: u for u in table(f, "units")}
    n = Counter(units_id for units_id in (s["unit"] for s in table(f, "samples")))
c.check(units["ok"]["status"] == "ok" and not units["ok"]["cache_leak"], "a healthy unit is ok")
c.check(units["crash"]["status"] == "crashed" and units["crash"]["signal"] == 11, "crash: crashed, SIGSEGV")
# 6 s: long enough for Python to start and send its samples on a loaded 2-core machine
c.check(units["hang"]["status"] == "timeout" and 6e9 <= units["hang"]["wall_ns"] < 30e9,
        "hang: timeout after the mode's own 6 s (%.1f s)" % (units["hang"]["wall_ns"] / 1e9))
c.check(units["exit"]["status"] == "failed" and units["exit"]["exit_code"] == 3, "exit 3: failed")
c.check(units["malformed"]["status"] == "bad-output" and "not JSON" in units["malformed"]["message"], "malformed record: bad-output")
c.check(units["partial"]["status"] == "bad-output" and "inside a record" in units["partial"]["message"], "partial record: bad-output")
c.check(units["nodone"]["status"] == "bad-output" and "'done'" in units["nodone"]["message"], "no done: bad-output")
for m in ("crash", "hang", "exit", "partial", "nodone"):
    c.check(n[units[m]["id"]] == 5, "%s: the samples it sent before failing are kept" % m)
c.check(n[units["malformed"]["id"]] == 3, "malformed: the samples before the bad line are kept")
c.check(units["leak"]["status"] == "ok" and units["leak"]["cache_leak"] == 1 and units["leak"]["expects_work"] == 1,
        "a cold unit that compiled and benchmarked nothing, whose mode expects both, is a cache leak")
c.exit()
PYEOF
grep -q 'fake worker: exiting 3 on purpose' faults/logs/u0003.err && pass "the failing unit's stderr is kept" || fail "stderr log"
h audit faults.h5 >audit2.md 2>&1
grep -q '| cache isolation (cold units start cold) | \*\*FAIL\*\* |' audit2.md && pass "audit: the planted leak fails cache isolation" ||
	{ fail "audit: planted leak"; grep -i cache audit2.md >&2; }

# ---- resume: kill -9 mid-run, resume from elsewhere with the recorded argv ---------------
$HARNESS run -q -o r.h5 ok.toml >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 600); do
	n=$(ls r/logs/*.err 2>/dev/null | wc -l)
	[ "$n" -ge 5 ] && break
	sleep 0.05
done
kill -9 "$pid"
wait "$pid" 2>/dev/null
mkdir elsewhere
# the run folder's experiment copy lies away from fake_worker.py: only the recorded argv works
check "--resume of a killed command run" '(cd elsewhere && expect_status 0 h run -q --resume ../r.h5)'
$PY - r.h5 <<'PYEOF' || fail "resumed command run"
import sys, h5py
from h5util import table, Checker
c = Checker("command")
with h5py.File(sys.argv[1], "r") as f:
    units = table(f, "units")
ids = sorted(u["id"] for u in units)
c.check(ids == list(range(15)), "every unit recorded exactly once: %s" % ids)
c.check(all(u["status"] == "ok" for u in units), "every resumed unit ok")
c.exit()
PYEOF

# ---- [modes.measure]: a mode's own measure keys, for its units alone ---------------------
# over [measure] for the unit specification an external unit reads (py6) and for the
# harness's own worker (cpu3): each unit's sample count is its mode's
# small NAME REPEATS [KEY = VALUE]: the head of the small experiments below (4 samples a
# cell, one tiny workload), their modes appended
small() {
	printf 'schema = 1\nname = "%s"\nrepeats = %s\nseed = 7\nunit_timeout = 60\n%s\n' "$1" "$2" "${3:-}"
	printf '[measure]\nmin_samples = 4\nmax_samples = 4\n'
	printf '[[workloads]]\nname = "w1"\nop = "sgemm"\nshape = { m = 8, n = 8, k = 8 }\n'
}
small mm 2 >mm.toml
cat >>mm.toml <<'EOF'
[[modes]]
name = "py"
command = ["python3", "fake_worker.py"]
[[modes]]
name = "py6"
command = ["python3", "fake_worker.py"]
measure = { min_samples = 6, max_samples = 6 }
[[modes]]
name = "cpu3"
backend = "cpu"
tuner = "vendor"
measure = { min_samples = 3, max_samples = 3, warmup_count = 1, warmup_time = 0 }
EOF
expect_status 0 h run -q -o mm.h5 mm.toml || cat "$SCRATCH/err" >&2
$PY - mm.h5 <<'PYEOF' && pass "[modes.measure]: each mode's units sample as its own measure says" || fail "[modes.measure]"
import sys, h5py
from h5util import table
with h5py.File(sys.argv[1], "r") as f:
    units = table(f, "units")
got = sorted((u["mode"], int(u["sample_count"])) for u in units)
assert got == [("cpu3", 3)] * 2 + [("py", 4)] * 2 + [("py6", 6)] * 2, got
# a command unit's info says which program its PATH resolved (host_unit_program, absolute)
for u in units:
    info = u["info"].decode() if isinstance(u["info"], bytes) else u["info"]
    progs = [l.split("=", 1)[1] for l in info.splitlines() if l.startswith("host_unit_program=")]
    if u["mode"] in ("py", "py6"):
        assert len(progs) == 1 and progs[0].startswith("/") and "python3" in progs[0], info
    else:
        assert not progs, info
PYEOF
# the report says which modes measure otherwise, as they are written (md header, JSON modes)
expect_status 0 h report mm.h5 &&
	expect_grep '^- measured otherwise \(\[modes\.measure\]\): `py6` \(min_samples = 6, max_samples = 6\); `cpu3` \(warmup_time = 0 s, warmup_count = 1, min_samples = 3, max_samples = 3\); a ratio between modes that measure differently includes that difference$' "$SCRATCH/out" &&
	h report -f json mm.h5 >mm.json 2>/dev/null &&
	$PY -c 'import json, sys; m = {x["name"]: x["measure"] for x in json.load(open("mm.json"))["modes"]}; sys.exit(m != {"py": None, "py6": "min_samples = 6, max_samples = 6", "cpu3": "warmup_time = 0 s, warmup_count = 1, min_samples = 3, max_samples = 3"})' &&
	pass "the report names the modes that measure otherwise, md and JSON" || fail "report of [modes.measure]"
# and the audit warns of them by name; a run whose modes measure alike passes
h audit mm.h5 >mm-audit.md 2>&1
grep -q '| modes measured alike | \*\*WARN\*\* | 2 of 3 mode(s) measure by settings of their own' mm-audit.md &&
	grep -q "^- 'py6' measures by its own \[modes.measure\]: min_samples = 6, max_samples = 6$" mm-audit.md &&
	grep -q '| modes measured alike | PASS | every mode measured by the run' audit.md &&
	pass "audit: modes measured otherwise named (WARN); alike, PASS" ||
	{ fail "audit of [modes.measure]"; grep -i -A3 "measured alike" mm-audit.md audit.md >&2; }

# ---- the program: gone or changed mid-run stops the run, unit not run, nothing lost ------
# A run records each command file's SHA-256 (mode_backends' command_sha256) and checks it
# before every unit.  Until 2026-11-26 a vanished worker (a bundle not carried into a
# lease) turned every unit left into a recorded 'failed' one in seconds; a changed one ran
# on, the units of one run measuring two programs.
# The unit itself deletes or edits its program, standing for a folder cleaned from outside:
# out of the sandbox, which would keep the results folder (prog/ included) from it.
mkdir -p prog
small prog 3 'order = "sequential"
[environment]
sandbox = false' >prog.toml
cat >>prog.toml <<'EOF'
[[modes]]
name = "py"
command = ["python3", "prog/fake_worker.py"]
options = { remove_self_unit = 0 }
EOF
sed 's/remove_self_unit = 0/edit_self_unit = 0/' prog.toml >prog2.toml
for t in gone changed; do
	toml=prog.toml; [ $t = changed ] && toml=prog2.toml
	cp fake_worker.py prog/
	want="is gone \(it was there when the run started\): unit 1 not started, nothing recorded for it; put the file back and continue with 'harness run --resume $t.h5'"
	[ $t = changed ] && want="changed since the run started \(sha256 [0-9a-f]{16}\.\.\., now [0-9a-f]{16}\.\.\.\): unit 1 not started"
	expect_status 1 h run -q -o $t.h5 $toml &&
		expect_grep "^harness: mode 'py': '$(pwd -P)/prog/fake_worker.py', a file of its command, $want" "$SCRATCH/err" &&
		expect_grep 'units: 1 recorded of 3 planned, 0 not ok' "$SCRATCH/out" &&
		pass "a command file $t mid-run stops the run before the next unit, which is not recorded"
	cp fake_worker.py prog/ # the original back: --resume completes the run
	if [ $t = gone ]; then # a damaged record of the hashes is refused, naming the file
		cp -r gone bad
		$PY - bad/journal/run.h5 <<'PYEOF'
import json, sys, h5py
import numpy as np
with h5py.File(sys.argv[1], "r+") as f:
    a = f["run"].attrs
    mb = json.loads(a["mode_backends"])
    mb["py"]["command_sha256"] = [None, "not-a-hash"]
    a["mode_backends"] = np.bytes_(json.dumps(mb).encode())
PYEOF
		expect_status 2 h run -q --resume bad.h5 &&
			expect_grep "^harness: bad.h5: mode 'py': command_sha256\\[1\\] in mode_backends is not a SHA-256 \\(64 lowercase hex digits\\) or null" "$SCRATCH/err" &&
			pass "--resume refuses a malformed command_sha256, naming the file"
	fi
	expect_status 0 h run -q --resume $t.h5 &&
		expect_grep 'units: 3 recorded of 3 planned, 0 not ok' "$SCRATCH/out" &&
		pass "with the file back as it was, --resume completes the $t run"
done
# moved: the program is not where the run started it, but the experiment given to --resume
# names a copy with the recorded SHA-256 (a run taken to another machine, a bundle unpacked
# elsewhere): that copy runs, said on stderr, and each unit's argv says which path it ran
mkdir -p there/prog
cp prog.toml there/
cp fake_worker.py prog/
expect_status 1 h run -q -o mv.h5 prog.toml
printf '# another program\n' | cat fake_worker.py - >there/prog/fake_worker.py
expect_status 1 h run -q --resume mv.h5 there/prog.toml &&
	expect_grep "^harness: mode 'py': '$(pwd -P)/prog/fake_worker.py', a file of its command, is gone" "$SCRATCH/err" &&
	pass "--resume does not take a file of another SHA-256 from the experiment's folder"
cp fake_worker.py there/prog/
expect_status 0 h run -q --resume mv.h5 there/prog.toml &&
	expect_grep "^harness: warning: mode 'py': 'prog/fake_worker.py' is not at '$(pwd -P)/prog/fake_worker.py' as the run started it, or not the same; the same file \(SHA-256 [0-9a-f]{16}\.\.\.\) is at '$(pwd -P)/there/prog/fake_worker.py': this session runs that" "$SCRATCH/err" &&
	expect_grep 'units: 3 recorded of 3 planned, 0 not ok' "$SCRATCH/out" &&
	pass "--resume runs the same program found where the experiment given names it"
$PY - mv.h5 "$(pwd -P)" <<'PYEOF' || fail "moved program: the units' argv"
import json, sys, h5py
from h5util import table, Checker
c = Checker("command")
with h5py.File(sys.argv[1], "r") as f:
    units = table(f, "units")
ran = {u["id"]: json.loads(u["argv_json"])[1] for u in units}
c.check(ran == {0: sys.argv[2] + "/prog/fake_worker.py", 1: sys.argv[2] + "/there/prog/fake_worker.py",
                2: sys.argv[2] + "/there/prog/fake_worker.py"}, "each unit's argv names the path it ran: %s" % ran)
c.exit()
PYEOF
cp fake_worker.py prog/ # removed by mv.h5's unit 0
# the same through the kernel folder: a command path found there when the run started (a
# bundle's kernels/python/torch_worker.py), resumed with the kernel folder at another path
mkdir -p k1/kw k2/kw
cp -r "$top_srcdir/kernels/python" k1/ && cp -r "$top_srcdir/kernels/python" k2/ # harness_unit.py, on the units' PYTHONPATH
cp fake_worker.py k1/kw/
cp fake_worker.py k2/kw/
sed 's|"prog/fake_worker.py"|"kw/fake_worker.py"|' prog.toml >kw.toml
HARNESS_KERNEL_DIR=$PWD/k1 expect_status 1 h run -q -o kw.h5 kw.toml
HARNESS_KERNEL_DIR=$PWD/k2 expect_status 0 h run -q --resume kw.h5 &&
	expect_grep "^harness: warning: mode 'py': 'kw/fake_worker.py' is not at '$(pwd -P)/k1/kw/fake_worker.py' as the run started it, or not the same; the same file \(SHA-256 [0-9a-f]{16}\.\.\.\) is at '$(pwd -P)/k2/kw/fake_worker.py'" "$SCRATCH/err" &&
	expect_grep 'units: 3 recorded of 3 planned, 0 not ok' "$SCRATCH/out" &&
	pass "--resume runs the same program found in the kernel folder at its new path"
$PY - gone.h5 prog/fake_worker.py <<'PYEOF' || fail "command_sha256 recorded"
import hashlib, json, os, sys, h5py
from h5util import table, meta, Checker
c = Checker("command")
with h5py.File(sys.argv[1], "r") as f:
    mb = json.loads(meta(f)["mode_backends"])
    units = table(f, "units")
py = mb["py"]
want = hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest()
c.check(py["command"] == ["python3", os.path.realpath(sys.argv[2])] and py["command_sha256"] == [None, want],
        "mode_backends records each command file's SHA-256 (none for python3, found in PATH): %s" % py.get("command_sha256"))
c.check(sorted(u["id"] for u in units) == [0, 1, 2] and all(u["status"] == "ok" for u in units),
        "every unit recorded once, ok")
c.exit()
PYEOF

# ---- --max-time: a warm probe follows its cold unit even when that ran long -------------
# The two start together or not at all (the probe needs the cold unit's cache directory,
# which stays on the machine); pl.h5 says each takes 1 s, so at the start 2 s fit the 3 s
# budget, the cold unit then takes 2.5 s, and the probe still starts.  Until 2026-11-26 it
# was judged alone, did not fit, and waited for a --resume on a machine without that cache.
cat >probe.toml <<'TOML'
schema = 1
name = "cmdprobe"
repeats = 1
seed = 5
unit_timeout = 60
[measure]
min_samples = 4
max_samples = 4
[[workloads]]
name = "w1"
op = "sgemm"
shape = { m = 8, n = 8, k = 8 }
[[modes]]
name = "py"
command = ["python3", "fake_worker.py"]
expects = ["compile", "benchmark"]
warm_probe = true
options = { cold_s = 2.5 }
TOML
expect_status 0 h run -q -o pl.h5 probe.toml || fail "the probe run to take lengths from"
$PY - pl.h5 <<'PYEOF' || fail "shorten pl.h5's units"
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    u = f["units"][()]
    u["wall_ns"] = 10**9
    f["units"][...] = u
PYEOF
expect_status 0 h run -q --max-time 3 --estimates pl.h5 -o p2.h5 probe.toml &&
	[ "$($PY -c 'import sys, h5py; u = h5py.File(sys.argv[1])["units"][()]; print(sorted(u["warm"]), sorted(x.decode() for x in u["status"]), u["wall_ns"][u["warm"] == 0][0] > 2.5e9)' p2.h5)" = "[0, 1] ['ok', 'ok'] True" ] &&
	pass "--max-time: the warm probe ran after its cold unit overran the estimate" ||
	fail "--max-time 3 with a 2.5 s cold unit: $(cat err)"
finish
