"""docs/tutorial/worker.py: the same two products timed inside one process, as a command unit
of harness (docs/tutorial.md, second step).  harness starts it once per unit with the unit
specification; kernels/python/harness_unit.py (on its PYTHONPATH) speaks the record
protocol: each sgemm workload becomes a cell, timed min_samples times after a warm-up call.
Its mode's options say which product: impl = "numpy" or "python"."""
import random
import time

import harness_unit as hu

from matmul import product_python


def operands(m, n, k, seed):
    rng = random.Random(seed)
    a = [[rng.random() for _ in range(k)] for _ in range(m)]
    b = [[rng.random() for _ in range(n)] for _ in range(k)]
    return a, b


def main():
    spec = hu.read_spec()
    impl = spec["options"].get("impl", "numpy")
    if impl == "numpy":
        import numpy
        product = lambda a, b: numpy.asarray(a) @ numpy.asarray(b)
    else:
        product = product_python
    samples = spec["measure"]["min_samples"]
    with hu.Unit(spec, backend="python-" + impl) as u:
        u.info({"impl": impl})
        for w in spec["workloads"]:
            if w["kind"] != "op" or w["op"] != "sgemm":
                continue  # this worker times matrix products only
            s = w["shape"]
            cell = u.cell("%s/sgemm:m=%d,n=%d,k=%d" % (w["name"], s["m"], s["n"], s["k"]),
                          workload=w["name"], op="sgemm",
                          shape="m=%d,n=%d,k=%d" % (s["m"], s["n"], s["k"]))
            a, b = operands(s["m"], s["n"], s["k"], spec["seed"])
            product(a, b)  # warm-up: imports, caches
            ns = []
            for _ in range(samples):
                t0 = time.perf_counter_ns()
                product(a, b)
                ns.append(time.perf_counter_ns() - t0)
            u.samples(cell, ns)
            u.measure(cell, warmup_n=1)
        u.setup()


if __name__ == "__main__":
    main()
