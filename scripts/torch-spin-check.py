"""torch-spin-check.py: the op-cell spin on the GPU (docs/torch-worker.md, "Timing").  An op
(ReLU over 32x512x7x7, eager, and the same compiled by torch.compile) behind D us of injected
host work per call; the worker's measure() with the fixed spin of torch-resnet
(BUSY_HOST_FACTOR 0: BUSY_CYCLES alone) and with the spin it now sizes from the warm-up.
Prints one line per case: median, p90, the spin note (spin, host p50, late samples).  From
the checkout's root on a machine with PyTorch and a GPU:

    python3 scripts/torch-spin-check.py"""
import os, sys, time, statistics
sys.path.insert(0, "kernels/python")
import torch_worker as worker
import torch
dev = torch.device("cuda", 0)
x = torch.rand(32, 512, 7, 7, device=dev)
clock = worker.Clock(torch, dev)
print("gpu", torch.cuda.get_device_name(0), "torch", torch.__version__, "clock", clock.source, clock.read())
ms = {"warmup_count": 50, "warmup_s": 0.05, "min_samples": 50, "max_samples": 50, "max_time_s": 1}
def delayed(f, d_us):
    def g():
        t = time.perf_counter_ns()
        while time.perf_counter_ns() - t < d_us * 1000:
            pass
        return f()
    return g
t0 = time.time()
cf = torch.compile(lambda a: torch.relu(a), dynamic=False)
cf(x); torch.cuda.synchronize()
print("compile s", round(time.time() - t0, 1))
for name, f in (("eager", lambda: torch.relu(x)), ("compiled", lambda: cf(x))):
    for d in (0, 150, 400):
        for factor in (0, 3):
            worker.BUSY_HOST_FACTOR = factor
            out = worker.measure(torch, delayed(f, d), ms, None, clock, worker.BUSY_CYCLES)
            ns, spin = out[0], out[-1]
            print("%-8s delay %3d us  %-8s median %7.1f us  p90 %7.1f  %s" % (
                name, d, "fixed" if factor == 0 else "adaptive", statistics.median(ns) / 1e3,
                sorted(ns)[int(0.9 * len(ns))] / 1e3, worker.spin_note(spin)))
