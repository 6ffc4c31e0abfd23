"""tests/gpu/mm.py DTYPE N REPS: REPS products of two N x N matrices of DTYPE (float32,
float16, bfloat16) on the GPU, synchronized: one process for tests/gpu/time-run.sh, which
times whole processes with `harness time` (torch's import and CUDA's start-up included)."""
import sys

import torch

dtype, n, reps = getattr(torch, sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
a = torch.randn(n, n, device="cuda", dtype=dtype)
b = torch.randn(n, n, device="cuda", dtype=dtype)
for _ in range(reps):
    c = a @ b
torch.cuda.synchronize()
