"""tests/data/replay/big-space.py: a command unit that records two op cells' spaces and every
point of each as an ok trial: "small" (one field of 3 values) and "big" (one field of 1030
values, over what replay can hold).  tests/cli/replay.sh replays it: the big cell must be
left out loudly, not dropped without a word (issue 47)."""
import random
import harness_unit as hu

spec = hu.read_spec()
rng = random.Random(spec["seed"] + spec["unit"])
with hu.Unit(spec, backend="py") as u:
    for name, n in (("small", 3), ("big", 1030)):
        c = u.cell("w/%s" % name, workload="w", op="sgemm", shape="n=%d" % n)
        values = [8 * (k + 1) for k in range(n)]
        u._emit({"type": "space", "cell": c, "grid": n, "valid": n,
                 "fields": [{"name": "BM", "values": values}], "vendors": [], "invalid": []})
        for v in values:
            u.trial(c, "BM=%d" % v, ns=[1000 + 10 * v + rng.randint(0, 5) for _ in range(3)])
        u.choice(c, "BM=%d" % values[0], "tuned")
        u.samples(c, [1000 + rng.randint(0, 5) for _ in range(5)])
        u.measure(c)
    u.setup(compiles=n, benchmarks=n)
