"""tests/gpu/torch-conv-kernels.py: how long cuDNN's own kernel runs at the ResNet-50 layers
conv.cu is furthest behind on (issue 49), read from the GPU's kernel records rather than
from events around a launch: the harness's op cells time one launch of a one-launch graph
between CUDA events, which adds about 4.4-5 us to every config alike (tests/gpu/sk-probe.c's
empty kernel), so a kernel's own duration is what says how fast its k-loop runs.  Each layer
is torch's fp16 convolution (channels_last, batch 32, bias, cuDNN's choice under
torch.backends.cudnn.benchmark), run 50 times under torch.profiler (CUPTI's kernel records):
per kernel name the count and the median duration.  Then the same convolution 20 times in
one CUDA graph, timed by events (the median of 11 replays), per convolution: what
back-to-back launches cost, beside sk-probe's batch_us for conv.cu's kernel.  With COLD=1
(stop 71) the 50 runs are made twice more, each after L2 is overwritten: by a memset of
twice its size, as the harness's cold samples (kernels/cuda/backend-cuda.c: its lines left
dirty), and by a read of it (lines left clean); LAYERS=1x1 keeps the 1x1 layers.  Prints one
block per layer; needs PyTorch with CUDA (the lent machine's /opt/torch/.venv)."""
import os
import statistics
import sys

import torch

LAYERS = [  # name, C, H (= W), K, R, stride (pad R // 2): docs/BENCHMARKS.md row 14's cells
    ("r50-23 512x3x3@7", 512, 7, 512, 3, 1),
    ("r50-19 512x3x3/2@14", 512, 14, 512, 3, 2),
    ("r50-22 2048x1x1@7", 2048, 7, 512, 1, 1),
    ("r50-16 1024x1x1@14", 1024, 14, 256, 1, 1),
    ("r50-17 256x3x3@14", 256, 14, 256, 3, 1),
    ("r50-21 512x1x1@7 to 2048", 512, 7, 2048, 1, 1),
]


def main():
    if not torch.cuda.is_available():
        print("SKIP: torch-conv-kernels: no CUDA device")
        return 77
    torch.backends.cudnn.benchmark = True
    print("torch %s, cuDNN %s, %s" % (torch.__version__, torch.backends.cudnn.version(),
                                      torch.cuda.get_device_name(0)))
    cold = os.environ.get("COLD") == "1"
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    buf = torch.empty(2 * l2, dtype=torch.uint8, device="cuda") if cold else None
    flushes = [("warm", None)]
    if cold:
        flushes += [("memset", lambda: buf.zero_()), ("read", lambda: buf.sum(dtype=torch.int32))]
    for name, c, h, k, r, stride in LAYERS:
        if os.environ.get("LAYERS") == "1x1" and r != 1:
            continue
        conv = torch.nn.Conv2d(c, k, r, stride=stride, padding=r // 2, bias=True)
        conv = conv.cuda().half().to(memory_format=torch.channels_last).eval()
        x = torch.randn(32, c, h, h, device="cuda", dtype=torch.half)
        x = x.to(memory_format=torch.channels_last)
        with torch.no_grad():
            for _ in range(20):
                conv(x)
            torch.cuda.synchronize()
            act = [torch.profiler.ProfilerActivity.CUDA]
            durs = {}
            for mode, flush in flushes:
                with torch.profiler.profile(activities=act) as prof:
                    for _ in range(50):
                        if flush:
                            flush()
                        conv(x)
                    torch.cuda.synchronize()
                for e in prof.events():
                    if e.device_type == torch.autograd.DeviceType.CUDA:
                        key = e.name if mode == "warm" else "[%s] %s" % (mode, e.name)
                        durs.setdefault(key, []).append(e.device_time_total)
            g = torch.cuda.CUDAGraph()
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                conv(x)
                with torch.cuda.graph(g, stream=s):
                    for _ in range(20):
                        conv(x)
            torch.cuda.current_stream().wait_stream(s)
            torch.cuda.synchronize()
            times = []
            for _ in range(12):
                a = torch.cuda.Event(enable_timing=True)
                b = torch.cuda.Event(enable_timing=True)
                a.record()
                g.replay()
                b.record()
                b.synchronize()
                times.append(a.elapsed_time(b) * 1e3 / 20)
        flops = 2.0 * 32 * (h // stride) ** 2 * k * c * r * r
        print("== %s: %.2f GFLOP; 20 in one graph: %.2f us a convolution (median of 11)" % (
            name, flops / 1e9, statistics.median(times[1:])))
        for n, d in sorted(durs.items(), key=lambda kv: -sum(kv[1])):
            print("  %4d x %8.2f us median (min %.2f)  %s" % (
                len(d), statistics.median(d), min(d), n[:150]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
