# tests/gpu/dobench-aa.py CUBIN: triton.testing.do_bench(warmup=25, rep=100) in this (fresh)
# process on the kernels of experiments/gpu-aa.toml: bias + ReLU (c = 1) over 1M and 32M float32 elements
# through the harness's own cubin (its vendor point: BLOCK 256, VEC 4, loaded with the
# driver API and launched on torch's current stream with the backend's grid), and fp16
# C = A B^T at 1024^3 and 4096^3 through torch.matmul (cuBLAS, PyTorch's choice of
# algorithm).  CUBIN: a gpu-aa unit's cuda-bias_relu-<key>.cubin (its cache directory).
# Prints one line per kernel: name, mean ms, median ms.  Run it in 10 processes, right after
# gpu-aa.toml on the same GPU (docs/BENCHMARKS.md).
import ctypes, sys, torch, triton
from triton.testing import do_bench
cubin = sys.argv[1]
torch.cuda.init()
dev = torch.device("cuda")
torch.empty(1, device=dev)  # the primary context, current on this thread
cu = ctypes.CDLL("libcuda.so.1")
mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
assert cu.cuModuleLoad(ctypes.byref(mod), cubin.encode()) == 0
assert cu.cuModuleGetFunction(ctypes.byref(fn), mod, b"bias_relu") == 0
sms = torch.cuda.get_device_properties(0).multi_processor_count
def elementwise(n):
    x = torch.rand(n, device=dev) * 2 - 1
    bias = torch.rand(1, device=dev) * 2 - 1
    y = torch.empty_like(x)
    px, pb, pr, py = (ctypes.c_void_p(t.data_ptr()) for t in (x, bias, x, y))
    total, C = ctypes.c_longlong(n), ctypes.c_int(1)
    args = (ctypes.c_void_p * 6)(*[ctypes.cast(ctypes.pointer(a), ctypes.c_void_p)
                                   for a in (px, pb, pr, py, total, C)])
    grid = min((n + 4 * 256 - 1) // (4 * 256), sms * 32)
    def run():
        s = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        r = cu.cuLaunchKernel(fn, grid, 1, 1, 256, 1, 1, 0, s, args, None)
        assert r == 0, r
    run(); torch.cuda.synchronize()
    ref = torch.relu(x + bias)
    assert torch.equal(y, ref), "the cubin's output differs from torch's"
    return run
def gemm(n):
    a = torch.rand(n, n, device=dev, dtype=torch.float16) * 2 - 1
    b = torch.rand(n, n, device=dev, dtype=torch.float16) * 2 - 1
    return lambda: a @ b.t()
for name, f in (("elementwise-1M-f32", elementwise(1 << 20)),
                ("elementwise-32M-f32", elementwise(1 << 25)),
                ("gemm1024-f16", gemm(1024)), ("gemm4096-f16", gemm(4096))):
    mean = do_bench(f, warmup=25, rep=100)
    med = do_bench(f, warmup=25, rep=100, return_mode="median")
    print("%s %.6f %.6f" % (name, mean, med), flush=True)
