#!/usr/bin/python3
"""gemm-space.py: count the valid points of the CUDA backend's GEMM space, written apart from
the C code from the rules as docs/kernels.md states them (templates/gemm.cu's static_asserts
as gemm-config.h has them, the redundancy rules, the prunings), so tests/unit/test-cuda.c's
counts are checked against an independent implementation.

    scripts/gemm-space.py            # the counts test-cuda.c asserts (an H100: 132 SMs,
                                     # 227 KiB of shared memory a block, sm_90a)
    scripts/gemm-space.py M N K DTYPE [tf32]   # one shape (DTYPE float16, bfloat16, float32)
"""
import itertools
import sys

SMS = 132
SMEM = 227 * 1024
BM = BN = [16, 32, 64, 128, 256]
BK = [16, 32, 64, 128]
WARPS = [1, 2, 4, 8]
STAGES = [2, 3, 4, 5]
SPLIT = [1, 2, 4, 8]
GROUP = [1, 4, 8]


def cdiv(a, b):
    return -(-a // b)


def wgmma(bm, bn, bk, w, eb, tf32):
    """gemm-config.h's cuda_gemm_use_wgmma on sm_90a."""
    if not (eb == 2 or (eb == 4 and tf32)) or w not in (4, 8):
        return False
    wg = w // 4
    return bm % (64 * wg) == 0 and bm // (64 * wg) <= 2 and bn in (64, 128, 256) \
        and bk % (128 // eb) == 0


def template_ok(bm, bn, bk, w, st, eb, tf32, wg):
    """gemm.cu's rules (gemm-config.h, cuda_gemm_config_check) for a derived path."""
    mma = eb == 2 or tf32
    kstep = 16 if eb == 2 else (8 if tf32 else 1)
    warps_m = {1: 1, 2: 2 if bm >= bn else 1, 4: 2, 8: 4 if bm >= bn else 2}[w]
    if bm % warps_m or bn % (w // warps_m):
        return False
    wm, wn = bm // warps_m, bn // (w // warps_m)
    if bk % (16 // eb) or bk % kstep:
        return False
    if mma and not wg and (wm % 16 or wn % 16):
        return False
    if not mma and (wm % 8 or wn % 4):
        return False
    if bm * bn / (32 * w) > 128:
        return False
    smem = st * (bm + bn) * bk * eb + 2048 if wg else st * (bm + bn) * (bk + 16 // eb) * eb
    return smem <= SMEM


def redundant(values, v, extent):
    """A smaller value of the field covers the extent already."""
    return any(x >= extent for x in values if x < v)


def valid(m, n, k, eb, tf32, c):
    bm, bn, bk, w, st, sk, g = c
    wg = wgmma(bm, bn, bk, w, eb, tf32)
    if not template_ok(bm, bn, bk, w, st, eb, tf32, wg):
        return False
    if redundant(BM, bm, m) and not (wg and bm == 64):
        return False  # the smallest wgmma tile (64 rows, 4 warps) is kept when a smaller
        # BLOCK_M covers m; 8 warps' smallest (128 rows) is not
    if redundant(BN, bn, n) or redundant(BK, bk, k):
        return False
    ktiles = cdiv(k, bk)
    if cdiv(ktiles, sk) * (sk - 1) >= ktiles:
        return False
    grid_m = cdiv(m, bm)
    if redundant(GROUP, g, grid_m):
        return False
    # the prunings
    if bk * eb not in (64, 128) or w not in (4, 8):
        return False
    if st < 3 or (st > 4 and not wg):
        return False
    if (eb == 2 or tf32) and not wg and (bm > 128 or bn > 128):
        return False
    if sk > 1 and grid_m * cdiv(n, bn) * sk // 2 >= SMS:
        return False
    return g != 4


def count(m, n, k, dtype, tf32=False):
    eb = 2 if dtype in ("float16", "bfloat16") else 4
    grid = itertools.product(BM, BN, BK, WARPS, STAGES, SPLIT, GROUP)
    return sum(valid(m, n, k, eb, tf32, c) for c in grid)


def main(argv):
    if len(argv) in (4, 5):
        print(count(int(argv[0]), int(argv[1]), int(argv[2]), argv[3],
                    len(argv) == 5 and argv[4] == "tf32"))
        return
    if argv:
        sys.exit(__doc__)
    for name, shape in (("fc of ResNet-50, float16", (32, 1000, 2048, "float16")),
                        ("fc of ResNet-18, TF32", (32, 1000, 512, "float32", True)),
                        ("4096^3, float16", (4096, 4096, 4096, "float16")),
                        ("1024^3, float16", (1024, 1024, 1024, "float16"))):
        print("%-26s %d" % (name, count(*shape)))


if __name__ == "__main__":
    main(sys.argv[1:])
