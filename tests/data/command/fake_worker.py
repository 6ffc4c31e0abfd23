"""tests/data/command/fake_worker.py: an external command unit in pure Python, written with
kernels/python/harness_unit.py, for the CLI tests (no GPU, no PyTorch).  What it does is
set by its mode's options (the unit specification):
  behave = "ok" | "crash" | "hang" | "exit" | "malformed" | "partial" | "no-done"
  scale  = a factor on its (synthetic, seeded) sample times
  mode_scale = {mode = factor}: a further factor for the units of that mode (an A/A copy,
           which takes its original's options, made to differ from it)
  e2e    = true: each workload also gets a forward, a cell "W/e2e" of kind e2e (after the op
           cells, so theirs keep their ids)
  e2e_scale = {mode = factor}: a further factor on the e2e cells' times for the units of that
           mode (an A/A copy off in its forwards only)
  graph  = true (with e2e): each workload also gets its forward as one graph, as the CUDA
           backend records it: a cell "W/e2e:launch=graph" (kind e2e, shape launch=graph) at
           half the time of "W/e2e", which then reads host-bound; e2e_scale leaves it alone
  launches = {mode = L}: the units of that mode record each sample as L launches (its ns
           the sum of L executions' times, as graph-timed cells do); the harness reads ns / L
  spin   = {mode = L}: the units of that mode say each op cell's samples started behind a GPU
           spin, L of them late (info "spin.<cell>", as the torch worker records it; the
           audit's op-spin check reads it)
  spin_fixed = true: say the op cells were timed behind a fixed spin and record no host
           time (info "op_sample_busy_cycles", as the torch worker did before its spin notes)
  config = the configuration it says it chose ("tile=8")
  configs = "a|b|...": instead, configs[block % n]
  slow   = a config whose samples are 1.5 times slower
  choose = false: record no choice
  runtime = true: with the choice, each kernel's config as the torch worker records it (info
           "runtime.<cell>": k_same, always alike, k_tile, whose XBLOCK is the tile, and
           with "tile=8" k_two, two launch configs joined by '|')
  work   = true: compile into TORCHINDUCTOR_CACHE_DIR when cold (a warm unit finds it there)
  compile_s = {workload = seconds}: the compile time a cold unit reports per workload it
           was given (else 5 us)
  cold_s = seconds a cold unit (one that compiles) sleeps before it is done
  remove_self_unit = N: the unit with id N deletes its own program file once its records are
           written (a program that vanishes mid-run: a bundle not carried, a cleaned folder)
  edit_self_unit = N: the unit with id N appends a comment line to its own program file
           (a program changed mid-run)
  gpu    = "GPU-...": say the unit ran on that GPU, its state at the start and the end as the
           info keys the audit's gpu-* checks read (docs/record-protocol.md, "GPU state");
           "GPU-a|GPU-b|...": the unit's id picks one
It reports what it was given (cwd, cache variables, its process group, what it inherited)
as an 'info' record and on stdout, for the tests to check the isolation."""
import json
import os
import random
import signal
import sys
import time

import harness_unit as hu

spec = hu.read_spec()
opt = spec["options"]
behave = opt.get("behave", "ok")
u = hu.Unit(spec, backend="fake-python")
u.hello()
seen = {
    "cwd": os.getcwd(),
    "cache_dir": spec["cache_dir"],
    "cache_mode": oct(os.stat(spec["cache_dir"]).st_mode & 0o777),
    "pgid_is_pid": os.getpgid(0) == os.getpid(),
    "fd3": os.environ.get("HARNESS_RECORD_FD"),
}
for k in ("HOME", "TMPDIR", "XDG_CACHE_HOME", "TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR",
          "CUDA_CACHE_PATH", "HARNESS_UNIT_SPEC", "HARNESS_MODE", "HARNESS_UNIT",
          "LEAKY_SECRET", "MODE_ONLY", "EXP_SET"):
    seen[k] = os.environ.get(k)
print(json.dumps(seen, sort_keys=True))
sys.stdout.flush()
u.info({"seen": json.dumps(seen, sort_keys=True), "python": sys.version.split()[0]})


def gpu_state(prefix):
    if "gpu" in opt:
        gpus = str(opt["gpu"]).split("|")
        u.info({prefix + "gpu_uuid": gpus[int(spec["unit"]) % len(gpus)], prefix + "sm_clock_mhz": 1980,
                prefix + "temperature_c": 40 + spec["unit"] % 3, prefix + "other_processes": "",
                prefix + "other_process_count": 0})


gpu_state("gpu_open_")
if opt.get("spin_fixed"):
    u.info({"op_sample_busy_cycles": 200000})

rng = random.Random(spec["seed"] * 1000003 + spec["unit"])
scale = float(opt.get("scale", 1.0)) * float(opt.get("mode_scale", {}).get(spec["mode"], 1.0))
compiles = hits = 0
ind = os.environ["TORCHINDUCTOR_CACHE_DIR"]
if opt.get("work", True):
    os.makedirs(ind, exist_ok=True)
    marker = os.path.join(ind, "compiled-" + spec["mode"])
    if os.path.exists(marker):
        hits = 1
    else:
        with open(marker, "w") as f:
            f.write("kernel\n")
        compiles = 1
cells = []
for w in spec["workloads"]:
    cells.append(u.cell(w["name"] + "/fake", kind="op", workload=w["name"], op="fake",
                        shape="n=%d" % w.get("batch", 1)))
nops = len(cells)
if opt.get("e2e"):
    for w in spec["workloads"]:
        cells.append(u.cell(w["name"] + "/e2e", kind="e2e", workload=w["name"], op="e2e",
                            shape="batch=%d" % w.get("batch", 1)))
nstream = len(cells)
if opt.get("e2e") and opt.get("graph"):
    for w in spec["workloads"]:
        cells.append(u.cell(w["name"] + "/e2e:launch=graph", kind="e2e", workload=w["name"],
                            op="e2e", shape="launch=graph"))
if behave == "malformed":
    os.write(3, b'{"type":"samples","cell":0,"first":0,"ns":[1,2,3]}\nthis is not json\n')
    sys.exit(0)
for c in cells:
    cfg = str(opt.get("config", "tile=8"))
    if "configs" in opt:
        choices = str(opt["configs"]).split("|")
        cfg = choices[int(spec["block"]) % len(choices)]
    u.trial(c, cfg, ns=[rng.randint(900, 1100) for _ in range(2)], compile_ns=1000)
    if opt.get("choose", True):
        u.choice(c, cfg, "tuned")
        if opt.get("runtime") and c < nops:
            u.info({"runtime.%s/fake" % spec["workloads"][c]["name"]:
                    "k_same=XBLOCK: 64, num_warps: 4;k_tile=XBLOCK: %s, num_warps: 4%s"
                    % (cfg.split("=")[-1],
                       ";k_two=XBLOCK: 8|XBLOCK: 16" if cfg == "tile=8" else "")})
    n = int(spec["measure"]["min_samples"])
    base = 10000.0 * scale * (1 + c) * (1.5 if cfg == opt.get("slow") else 1.0)
    if c >= nstream:  # a graph forward: half its workload's stream forward, never scaled
        base = 10000.0 * scale * (1 + c - (nstream - nops)) / 2
    elif c >= nops:
        base *= float(opt.get("e2e_scale", {}).get(spec["mode"], 1.0))
    nl = int(opt.get("launches", {}).get(spec["mode"], 1))
    u.samples(c, [nl * int(base * rng.uniform(0.98, 1.02)) for _ in range(n)],
              clock_mhz=[1980.0] * n, throttle=[0] * n, launches=[nl] * n,
              clock_reasons=[0x4 if i == 0 else 0 for i in range(n)])
    u.measure(c, stop="max-samples", warmup_n=1, warmup_ns=1000)
    if c < nops and spec["mode"] in opt.get("spin", {}):
        u.info({"spin.%s/fake" % spec["workloads"][c]["name"]: "busy_cycles=200000 spin_us=101.0 host_us_p50=40.0 "
                "host_us_max=90.0 late=%d of %d" % (min(n, int(opt["spin"][spec["mode"]])), n)})
per_wl = opt.get("compile_s", {})
compile_ns = sum(int(per_wl.get(w["name"], 0) * 1e9) for w in spec["workloads"]) or 5000
u.setup(compile_ns=compile_ns * compiles, compiles=compiles, cache_hits=hits,
        benchmarks=2 * len(cells) if compiles else 0)
if behave == "crash":
    os.kill(os.getpid(), signal.SIGSEGV)
if behave == "hang":
    time.sleep(3600)
if behave == "exit":
    print("fake worker: exiting 3 on purpose", file=sys.stderr)
    sys.exit(3)
if behave == "partial":
    os.write(3, b'{"type":"done","status":"ok"')
    sys.exit(0)
if behave == "no-done":
    sys.exit(0)
if compiles and "cold_s" in opt:
    time.sleep(float(opt["cold_s"]))
gpu_state("gpu_close_")
u.done("ok")
if opt.get("remove_self_unit") == spec["unit"]:
    os.unlink(os.path.abspath(sys.argv[0]))
if opt.get("edit_self_unit") == spec["unit"]:
    with open(os.path.abspath(sys.argv[0]), "a") as f:
        f.write("# edited by unit %d\n" % spec["unit"])
