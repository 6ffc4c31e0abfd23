"""tests/gpu/torch-forward.py [MODEL DTYPE]: what a PyTorch user gets for the forward the
harness's e2e cells time (issue 49): torchvision's MODEL (resnet50) with batch norm folded
into the convolutions, channels_last, batch 32, 224 x 224, DTYPE float16 or tf32, in eval
mode under no_grad.  Prints one line per way of running it: eager (launched op by op on the
stream), eager in one CUDA graph, torch.compile default; each the median over 21 blocks of
50 forwards (CUDA events around a block), with the blocks' spread ((max - min) / median of
the middle 19, the harness's "unit-median spread" analogue).  No weights are downloaded
(random initialisation: the time does not depend on the values)."""
import statistics
import sys

import torch
import torchvision
from torch.nn.utils.fusion import fuse_conv_bn_eval

BATCH, RES, BLOCKS, PER_BLOCK = 32, 224, 21, 50


def fold(module):
    """Batch norm folded into the convolution before it, as the harness's models are."""
    names = list(module._modules)
    for i, name in enumerate(names):
        child = module._modules[name]
        if child is None:
            continue
        fold(child)
        if isinstance(child, torch.nn.BatchNorm2d) and i > 0:
            prev = module._modules[names[i - 1]]
            if isinstance(prev, torch.nn.Conv2d):
                module._modules[names[i - 1]] = fuse_conv_bn_eval(prev, child)
                module._modules[name] = torch.nn.Identity()
    return module


def timed(fn):
    """Median ms per forward over BLOCKS blocks of PER_BLOCK, and the blocks' spread."""
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    per = []
    for _ in range(BLOCKS):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(PER_BLOCK):
            fn()
        b.record()
        b.synchronize()
        per.append(a.elapsed_time(b) / PER_BLOCK)
    per.sort()
    mid = per[1:-1]
    med = statistics.median(per)
    return med, (mid[-1] - mid[0]) / med


def main():
    model = sys.argv[1] if len(sys.argv) > 1 else "resnet50"
    dtype = sys.argv[2] if len(sys.argv) > 2 else "float16"
    torch.backends.cudnn.benchmark = False
    tf32 = dtype == "tf32"
    torch.backends.cudnn.allow_tf32 = tf32
    torch.backends.cuda.matmul.allow_tf32 = tf32
    t = torch.float16 if dtype == "float16" else torch.float32
    net = fold(getattr(torchvision.models, model)().eval()).to("cuda", t)
    net = net.to(memory_format=torch.channels_last)
    x = torch.randn(BATCH, 3, RES, RES, device="cuda", dtype=t)
    x = x.to(memory_format=torch.channels_last)
    print("torch %s, cuDNN %s, %s" % (torch.__version__, torch.backends.cudnn.version(),
                                        torch.cuda.get_device_name()))
    with torch.no_grad():
        med, spread = timed(lambda: net(x))
        print("%s %s eager-stream %.4f ms spread %.2f%%" % (model, dtype, med, 100 * spread))
        g = torch.cuda.CUDAGraph()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                net(x)
        torch.cuda.current_stream().wait_stream(s)
        with torch.cuda.graph(g):
            net(x)
        med, spread = timed(g.replay)
        print("%s %s eager-graph %.4f ms spread %.2f%%" % (model, dtype, med, 100 * spread))
        if "--compile" in sys.argv:
            c = torch.compile(net)
            med, spread = timed(lambda: c(x))
            print("%s %s compile-default %.4f ms spread %.2f%%" %
                  (model, dtype, med, 100 * spread))


if __name__ == "__main__":
    main()
