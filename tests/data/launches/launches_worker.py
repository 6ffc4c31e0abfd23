"""tests/data/launches/launches_worker.py: an external command unit (kernels/python/harness_unit.py)
whose samples each cover `launches` executions (the mode's option, default 1), as a backend
batching short cells records them: ns is the whole sample's time, launches how many
executions it covers.  One execution takes the same time in every mode (20 us, 0.5% noise
seeded by (seed, unit)), so every comparison of one execution's time must say 1.  Its
trials do the same: config "A" batched 4, config "B" 1 launch and 10% faster per
execution, so a tuner comparing whole samples would pick A.  Nothing is timed."""
import random

import harness_unit as hu

spec = hu.read_spec()
k = int(spec["options"].get("launches", 1))
u = hu.Unit(spec, backend="launches-python")
u.hello()
rng = random.Random(spec["seed"] * 1000003 + spec["unit"])
n = int(spec["measure"]["min_samples"])
w = spec["workloads"][0]
c = u.cell(w["name"] + "/planted", kind="op", workload=w["name"], op="planted", shape="n=1")
u.samples(c, [int(20000 * k * rng.lognormvariate(0, 0.005)) for _ in range(n)],
          launches=[k] * n)
u.measure(c, stop="max-samples", warmup_n=1, warmup_ns=1000)
u.setup(compile_ns=0, compiles=0, cache_hits=0, benchmarks=0)
u.done("ok")
