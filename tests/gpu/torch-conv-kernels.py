"""tests/gpu/torch-conv-kernels.py: how long cuDNN's own kernel runs at the ResNet-50 layers
conv.cu is furthest behind on (issue 49), read from the GPU's kernel records rather than
from events around a launch: the harness's op cells time one launch of a one-launch graph
between CUDA events, which adds about 4.4-5 us to every config alike (tests/gpu/sk-probe.c's
empty kernel), so a kernel's own duration is what says how fast its k-loop runs.  Each layer
is torch's fp16 convolution (channels_last, batch 32, bias, cuDNN's choice under
torch.backends.cudnn.benchmark), run 50 times under torch.profiler (CUPTI's kernel records):
per kernel name the count and the median duration.  Then the same convolution 20 times in
one CUDA graph, timed by events (the median of 11 replays), per convolution: what
back-to-back launches cost, beside sk-probe's batch_us for conv.cu's kernel.  Prints one
block per layer; needs PyTorch with CUDA (the lent machine's /opt/torch/.venv)."""
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
    for name, c, h, k, r, stride in LAYERS:
        conv = torch.nn.Conv2d(c, k, r, stride=stride, padding=r // 2, bias=True)
        conv = conv.cuda().half().to(memory_format=torch.channels_last).eval()
        x = torch.randn(32, c, h, h, device="cuda", dtype=torch.half)
        x = x.to(memory_format=torch.channels_last)
        with torch.no_grad():
            for _ in range(20):
                conv(x)
            torch.cuda.synchronize()
            act = [torch.profiler.ProfilerActivity.CUDA]
            with torch.profiler.profile(activities=act) as prof:
                for _ in range(50):
                    conv(x)
                torch.cuda.synchronize()
            durs = {}
            for e in prof.events():
                if e.device_type == torch.autograd.DeviceType.CUDA:
                    durs.setdefault(e.name, []).append(e.device_time_total)
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
