"""tests/data/devices/devices_worker.py: an external command unit (kernels/python/harness_unit.py)
whose timings depend on the device it runs on, for tests/cli/devices.sh.  With harness run
--jobs 2 each unit is pinned to one slot's cores (sched_setaffinity); a unit whose cores
exclude core 0 plays the "slow device": its level is 25% higher (option slow = 1.25) and
drifts up by 1% per unit id (option drift = 0.01), a planted level difference and a
planted drift on that device only.  Everything else is seeded by (seed, unit): each unit's
level has 1.5% noise of its own, each sample 0.5% around it.  Nothing is timed."""
import os
import random

import harness_unit as hu

spec = hu.read_spec()
opt = spec["options"]
u = hu.Unit(spec, backend="devices-python")
u.hello()
cores = sorted(os.sched_getaffinity(0))
slow = 0 not in cores
rng = random.Random(spec["seed"] * 1000003 + spec["unit"])
level = float(opt.get("scale", 1.0)) * rng.lognormvariate(0, 0.015)
if slow:
    level *= float(opt.get("slow", 1.25)) * (1 + float(opt.get("drift", 0.01)) * spec["unit"])
u.info({"cores": ",".join(map(str, cores)), "slow_device": str(int(slow))})
n = int(spec["measure"]["min_samples"])
for i, w in enumerate(spec["workloads"]):
    c = u.cell(w["name"] + "/planted", kind="op", workload=w["name"], op="planted",
               shape="n=%d" % (i + 1))
    base = 20000.0 * (1 + i) * level
    u.samples(c, [int(base * rng.lognormvariate(0, 0.005)) for _ in range(n)],
              clock_mhz=[1980.0] * n, throttle=[0] * n, launches=[1] * n)
    u.measure(c, stop="max-samples", warmup_n=1, warmup_ns=1000)
u.setup(compile_ns=0, compiles=0, cache_hits=0, benchmarks=0)
u.done("ok")
