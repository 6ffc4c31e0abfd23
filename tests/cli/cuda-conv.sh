# tests/cli/cuda-conv.sh: the CUDA convolutions at odd shapes (tests/data/cuda/conv.toml):
# the 7x7/2 stem with 3 channels (by space-to-depth, and again on the element gather),
# channels not multiples of 8 (output channels too: the unfused epilogue), batch 1, 1x1
# stride 2, every
# epilogue and dtype, under vendor (cuDNN's heuristic), vendor-benchmarked (every cuDNN
# algorithm), heuristic and an exhaustive walk of the whole conv space, each config checked
# before it is timed against the cell's float64 reference, computed on the GPU (ref_conv in
# templates/reference.cu) and here also on the host, where a disagreement beyond 1e-12 fails
# the unit (HARNESS_CUDA_REF_VERIFY=1; kernels/cuda/reference.c).  Every unit must end ok,
# every unit record its cells' GPU references as verified, the exhaustive units build im2col
# maps (TMA's im2col mode reads X for the i2c-* workloads) and launch TMA-only modules (no
# gather; exhaustive-gather none), every cuDNN algorithm be recorded
# as vendor:engine=E,rank=R,fused=F by the graph API, the default (some of them the fused
# graph, at every epilogue), the vendor-legacy units (HARNESS_CUDA_DNN_API=legacy) say so and
# record the legacy API's algorithms as vendor:algo=A,math=M, and the exhaustive search must have checked
# its grid points correct (an incorrect conv.cu config fails this test), stream-K's among
# them, the clusters' (CLUSTER 2, A shared by multicast; 4 and 8, both) and the residual's by TMA
# (RES_TMA 1, launched so, with stream-K and clusters among them), eight-stage pipelines and
# deeper (9, 10, 12), 112-wide tiles where their tile count fits (the w112-* workloads),
# k-tiles of 128 (BLOCK_K 128, two atoms a stage), pairs splitting k (CLUSTER_K 2) and
# swapped operands (SWAP_AB 1, the swap-* workloads);
# compiling ahead must say its mode and keep its counts (the unit's compile_ns the sum of
# its trials', every queued compile compiled or dropped) consistent; the default units name
# cuDNN's kernels at every cell (vendor_kernels) and the exhaustive ones launch their wgmma
# configs as programmatic dependents (HARNESS_CUDA_PDL).  Skips (77) with the
# reason where there is no CUDA backend or device; `make check-gpu` cannot skip it.
. "$top_srcdir/tests/setup"
. "$top_srcdir/tests/setup-cuda"
export HARNESS_CUDA_REF_VERIFY=1
cuda_run conv.toml conv cudaconv
[ -n "${HARNESS_CUDA_KEEP:-}" ] && cp "$H5" "$HARNESS_CUDA_KEEP"/

PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || PY=python3
$PY -c 'import h5py' 2>/dev/null || { pass "h5py missing: results not inspected"; finish; }
export PYTHONPATH="$top_srcdir/tests/cli"
$PY - "$H5" <<'PYEOF' || fail "results file checks"
import sys, h5py
from h5util import table, Checker
c = Checker("cuda-conv")
with h5py.File(sys.argv[1], "r") as f:
    units, trials, cells = table(f, "units"), table(f, "trials"), table(f, "cells")
def s(v):
    return v.decode() if isinstance(v, bytes) else v
c.check(all(s(u["status"]) == "ok" for u in units), "every unit ok: " + ", ".join("%s:%s" % (s(u["mode"]), s(u["status"])) for u in units if s(u["status"]) != "ok"))
def info(u):
    return dict(l.split("=", 1) for l in s(u["info"]).splitlines() if "=" in l)
def verified(u):
    for line in s(u["info"]).splitlines():
        if line.startswith("cuda_ref_verified_cells="):
            return int(line.split("=", 1)[1])
    return 0
# TMA's im2col mode (the i2c-* workloads; conv.cu's use_tma 3): the exhaustive walk built
# its maps, so its configs were checked through it and not through the gather
ex = [u for u in units if s(u["mode"]) == "exhaustive"]
c.check(ex and all(int(info(u).get("cuda_conv_im2col_maps", 0)) > 0 for u in ex), "the exhaustive units read X through im2col maps: " + ", ".join(info(u).get("cuda_conv_im2col_maps", "none") for u in ex))
# space-to-depth (the stem-f16, c12-f16, s2d-* workloads): on by default, its pre-pass ran;
# exhaustive-gather (HARNESS_CUDA_CONV_S2D=0) walked the same configs on the element gather
for u in units:
    on = s(u["mode"]) != "exhaustive-gather"
    c.check(info(u).get("conv_s2d") == ("1" if on else "0"), "%s: conv_s2d=%s" % (s(u["mode"]), info(u).get("conv_s2d")))
    n = int(info(u).get("cuda_conv_s2d_launches", -1))
    if s(u["mode"]) in ("exhaustive", "heuristic"):
        c.check(n > 0, "%s: %d space-to-depth pre-passes" % (s(u["mode"]), n))
    elif not on:
        c.check(n == 0, "exhaustive-gather: %d space-to-depth pre-passes" % n)
# TMA-only modules (conv.c's cuda_conv_tma_only: no gather where X has a map): launched in
# every exhaustive unit (and checked correct with the rest below); exhaustive-gather
# (HARNESS_CUDA_CONV_TMA_ONLY=0) launched none
for u in units:
    n = int(info(u).get("cuda_conv_tma_only_launches", -1))
    if s(u["mode"]) == "exhaustive":
        c.check(info(u).get("conv_tma_only") == "1" and n > 0, "exhaustive: %d TMA-only launches" % n)
    elif s(u["mode"]) == "exhaustive-gather":
        c.check(info(u).get("conv_tma_only") == "0" and n == 0, "exhaustive-gather: %d TMA-only launches" % n)
# the unfused epilogue (conv.c's conv_fused): odd-bf16's 7 channels out take no wide store,
# so every exhaustive unit ran template convs at SPLIT_K 1 through fp32 partials and
# conv_splitk_reduce (checked correct above and below with the rest); the vendor modes none
for u in units:
    n = int(info(u).get("cuda_conv_partial_launches", -1))
    if s(u["mode"]) in ("exhaustive", "exhaustive-gather"):
        c.check(n > 0, "%s: %d convolutions through the unfused epilogue" % (s(u["mode"]), n))
    elif s(u["mode"]).startswith("vendor") or s(u["mode"]) == "default":
        c.check(n == 0, "%s: %d template convolutions, wanted none" % (s(u["mode"]), n))
c.check(all(verified(u) > 0 for u in units), "every unit's GPU reference agreed with the host's: " + ", ".join("%s:%d" % (s(u["mode"]), verified(u)) for u in units))
# what the vendor ran (graph-replay.c's vendor_kernels): every default unit names the kernels
# of the first vendor candidate of each op cell it timed by graph replay, each one by the
# driver (no "?")
for u in units:
    if s(u["mode"]) != "default":
        continue
    ops = [int(k.split(".")[1]) for k, v in info(u).items() if k.startswith("op_timing.") and v.startswith("graph")]
    vk = {int(k.split(".")[1]): v.split(": ", 1)[-1].split() for k, v in info(u).items() if k.startswith("vendor_kernels.")}
    bad = [i for i in ops if not vk.get(i) or "?" in vk[i]]
    c.check(ops and not bad, "default: the vendor's kernels named at %d of %d op cells timed by graph (not at %s)" % (len(ops) - len(bad), len(ops), bad[:4]))
# the legacy API's mode: its units say so, their trials are algorithms; every other unit
# ran the graph API (the default), its trials engine configs, some of them the fused graph
mode = {row: s(u["mode"]) for row, u in enumerate(units)}  # trials.unit: a row of /units
g = [u for u in units if s(u["mode"]) == "vendor-legacy"]
c.check(g and all(info(u).get("cudnn_api") == "legacy" for u in g), "the vendor-legacy units ran cuDNN's legacy API: " + ", ".join(info(u).get("cudnn_api", "none") for u in g))
c.check(all(info(u).get("cudnn_api") == "graph" for u in units if s(u["mode"]) != "vendor-legacy"), "every other unit ran the graph API")
vb = [s(t["config"]) for t in trials if mode[int(t["unit"])] == "vendor-legacy" and s(t["config"]).startswith("vendor:")]
c.check(vb and all(v.startswith("vendor:algo=") and ",math=" in v for v in vb), "the legacy API's algorithms are recorded as vendor:algo=A,math=M trials: %s" % sorted(set(vb))[:4])
gb = [s(t["config"]) for t in trials if mode[int(t["unit"])] != "vendor-legacy" and s(t["config"]).startswith("vendor:")]
c.check(gb and all(v.startswith("vendor:engine=") and ",rank=" in v and ",fused=" in v for v in gb), "the graph API's candidates are recorded as vendor:engine=E,rank=R,fused=F trials: %s" % sorted(set(gb))[:4])
c.check(any(v.endswith(",fused=1") for v in gb), "some graph-API engine config ran the fused graph")
grid = [t for t in trials if not s(t["config"]).startswith("vendor")]
bad = [s(t["config"]) for t in grid if s(t["status"]) != "ok"]
c.check(len(grid) >= 50, "the exhaustive walk checked %d conv.cu configs" % len(grid))
c.check(not bad, "every conv.cu config is correct: %s" % bad[:5])
# stream-K: every grid was walked and checked at the sk-* shapes (a wrong fix-up, a flag
# left raised by a launch, fails "every conv.cu config is correct" above); 3 (equal runs a
# tile) where the tiles are at most half the SMs: sk3-f16 (test-cuda counts its points)
def fields(t):
    return dict(kv.split("=", 1) for kv in s(t["config"]).split(","))
for v, least in (("1", 5), ("2", 5), ("3", 2)):
    sk = [t for t in grid if fields(t).get("STREAM_K") == v]
    c.check(len(sk) >= least, "the exhaustive walk checked %d STREAM_K=%s configs" % (len(sk), v))
# clusters (CLUSTER 2: A shared by TMA multicast; the cl-* workloads, sk3-f16, i2c-s2,
# res-f16): walked and checked correct above, with and without stream-K, launched as
# clusters in the exhaustive units; with HARNESS_CUDA_CONV_IM2COL=0 (exhaustive-gather) the
# 3x3 ones have no map for X and launch without one, counted as fallbacks
cl = [t for t in grid if fields(t).get("CLUSTER") == "2"]
c.check(len(cl) >= 20, "the exhaustive walk checked %d CLUSTER=2 configs" % len(cl))
c.check(any(fields(t).get("STREAM_K") != "0" for t in cl), "some CLUSTER=2 config ran stream-K")
c.check(all(fields(t).get("CLUSTER") in ("1", "2", "4", "8") for t in grid), "every config text names its CLUSTER")
# two-dimensional clusters (CLUSTER 4 and 8: both operands shared; the cl2d-* workloads):
# walked and checked correct above, through im2col and plain maps, with stream-K
for v in ("4", "8"):
    c2 = [t for t in grid if fields(t).get("CLUSTER") == v]
    c.check(len(c2) >= 10, "the exhaustive walk checked %d CLUSTER=%s configs" % (len(c2), v))
    for w in ("cl2d-3x3/", "cl2d-1x1/"):
        c.check(any(s(cells[int(t["cell"])]["name"]).startswith(w) for t in c2), "%s ran CLUSTER=%s configs" % (w, v))
    c.check(any(fields(t).get("STREAM_K") != "0" for t in c2), "some CLUSTER=%s config ran stream-K" % v)
# BLOCK_N 112 (the w112-* workloads; its 16-bit epilogue's second half 6 tiles of 8): walked and
# checked correct above at each, and nowhere else (bn112_fills)
w112 = [t for t in grid if fields(t).get("BLOCK_N") == "112"]
for w in ("w112-res/", "w112-3x3/", "w112-tf32/"):
    c.check(any(s(cells[int(t["cell"])]["name"]).startswith(w) for t in w112), "%s ran BLOCK_N=112 configs" % w)
c.check(all(s(cells[int(t["cell"])]["name"]).startswith("w112-") for t in w112), "BLOCK_N=112 ran only where its tiles fill the SMs better: %s" % sorted(set(s(cells[int(t["cell"])]["name"]).split("/")[0] for t in w112)))
# BLOCK_K 128 (two atoms a stage): walked and checked correct above through im2col and
# plain maps, with stream-K and with one to three consumer warpgroups, in 16 bits only
k128 = [t for t in grid if fields(t).get("BLOCK_K") == "128"]
c.check(len(k128) >= 10, "the exhaustive walk checked %d BLOCK_K=128 configs" % len(k128))
c.check(any(s(cells[int(t["cell"])]["name"]).startswith("i2c-") for t in k128), "an im2col workload ran BLOCK_K=128 configs")
c.check(any(fields(t).get("STREAM_K") != "0" for t in k128), "some BLOCK_K=128 config ran stream-K")
c.check(len(set(fields(t).get("WARPS") for t in k128)) >= 2, "BLOCK_K=128 ran with one consumer warpgroup and more: %s" % sorted(set(fields(t).get("WARPS") for t in k128)))
# programmatic dependent launch (HARNESS_CUDA_PDL, default on): every exhaustive unit
# launched its wgmma configs so (each checked correct above)
for u in ex:
    c.check(int(info(u).get("cuda_pdl_launches", 0)) > 0, "exhaustive: %s programmatic dependent launches" % info(u).get("cuda_pdl_launches"))
for u in ex:
    i = info(u)
    c.check(int(i.get("cuda_cluster_launches", 0)) > 0 and int(i.get("cuda_conv_cluster_fallbacks", -1)) == 0, "exhaustive: %s cluster launches, %s fallbacks" % (i.get("cuda_cluster_launches"), i.get("cuda_conv_cluster_fallbacks")))
for u in units:
    if s(u["mode"]) == "exhaustive-gather":
        c.check(int(info(u).get("cuda_conv_cluster_fallbacks", 0)) > 0, "exhaustive-gather: %s CLUSTER=2 configs launched without a cluster" % info(u).get("cuda_conv_cluster_fallbacks"))
# the residual by TMA (RES_TMA 1; wgmma.cuh's wg_res): walked and checked correct above at
# every residual workload, 16-bit and TF32, with stream-K (sk-f16) and clusters (cl-odd,
# res-f16), and launched so in every exhaustive unit
rt = [t for t in grid if fields(t).get("RES_TMA") == "1"]
c.check(len(rt) >= 20, "the exhaustive walk checked %d RES_TMA=1 configs" % len(rt))
c.check(all(fields(t).get("RES_TMA") in ("0", "1") for t in grid), "every config text names its RES_TMA")
for what, ok in (("stream-K", lambda f: f.get("STREAM_K") != "0"), ("a cluster", lambda f: f.get("CLUSTER") == "2")):
    c.check(any(ok(fields(t)) for t in rt), "some RES_TMA=1 config ran %s" % what)
c.check(any(s(cells[int(t["cell"])]["name"]).startswith("res-tf32/") for t in rt), "res-tf32 (TF32 pairs) ran RES_TMA=1 configs")
# pairs splitting k (CLUSTER_K 2, wgmma.cuh's wg_ck_sum: one half's sums handed to the other
# through a slot of the workspace): walked and checked correct above wherever the pairs fit
# one wave (test-cuda's rules), through im2col and plain (cl2d-1x1) maps, in 16 bits and
# TF32, with a residual from global memory (res-tf32, w112-res), at odd shapes (cl-odd), with
# one consumer warpgroup and more, and at depths whose B stages could not have held the sums
# (stop 69's rule, gone since they pass through L2)
ck = [t for t in grid if fields(t).get("CLUSTER_K") == "2"]
c.check(len(ck) >= 20, "the exhaustive walk checked %d CLUSTER_K=2 configs" % len(ck))
c.check(all(fields(t).get("CLUSTER_K") in ("1", "2") for t in grid), "every config text names its CLUSTER_K")
for w in ("i2c-", "cl2d-1x1/", "res-tf32/", "w112-res/", "cl-odd/", "cl-tf32/"):
    c.check(any(s(cells[int(t["cell"])]["name"]).startswith(w) for t in ck), "%s ran CLUSTER_K=2 configs" % w)
c.check(len(set(fields(t).get("WARPS") for t in ck)) >= 2, "CLUSTER_K=2 ran with one consumer warpgroup and more: %s" % sorted(set(fields(t).get("WARPS") for t in ck)))
def shallow(t):
    f, es = fields(t), 4 if "tf32" in s(cells[int(t["cell"])]["name"]) else 2
    return int(f["STAGES"]) * int(f["BLOCK_K"]) * es < 4 * int(f["BLOCK_M"])
c.check(any(shallow(t) for t in ck), "CLUSTER_K=2 ran where the B stages could not hold the sums")
# swapped operands (SWAP_AB 1: wgmma.cuh's D^T = B A^T and its transposed store): walked and
# checked correct at both swap-* workloads (the 1x1s without a residual), at BLOCK_M 96 and
# 112 (ragged last halves), with one consumer warpgroup and two, and in clusters of two
sw = [t for t in grid if fields(t).get("SWAP_AB") == "1"]
c.check(len(sw) >= 20, "the exhaustive walk checked %d SWAP_AB=1 configs" % len(sw))
c.check(all(fields(t).get("SWAP_AB") in ("0", "1") for t in grid), "every config text names its SWAP_AB")
for w in ("swap-f16/", "swap-bf16/"):
    c.check(any(s(cells[int(t["cell"])]["name"]).startswith(w) for t in sw), "%s ran SWAP_AB=1 configs" % w)
for f, v in (("BLOCK_M", "96"), ("BLOCK_M", "112"), ("WARPS", "4"), ("WARPS", "8"), ("CLUSTER", "2")):
    c.check(any(fields(t).get(f) == v for t in sw), "SWAP_AB=1 ran with %s=%s" % (f, v))
# eight stages (where the tiles fit one wave of one block an SM: most of these small shapes)
s8 = [t for t in grid if fields(t).get("STAGES") == "8"]
c.check(len(s8) >= 20, "the exhaustive walk checked %d STAGES=8 configs" % len(s8))
# deeper rings (9, 10, 12: the launch's depth on the wgmma path, as shared memory holds it;
# the w112-* workloads are one wave of tiles)
sd = [t for t in grid if fields(t).get("STAGES") in ("9", "10", "12")]
c.check(len(sd) >= 10 and {"9", "10", "12"} <= {fields(t)["STAGES"] for t in sd}, "the exhaustive walk checked %d configs of 9, 10 and 12 stages" % len(sd))
for u in ex:
    c.check(int(info(u).get("cuda_conv_res_tma_launches", 0)) > 0, "exhaustive: %s launches read the residual by TMA" % info(u).get("cuda_conv_res_tma_launches"))
# compiling ahead, overlapped with benchmarking (the default; docs/kernels.md "NVRTC and the
# cubin cache"): compile_ns is time blocked on the compiler, the unit's the sum of its trials'
# (exhaustive: every chosen config was a trial, so the final prepare loads it again) and never
# less; every queued compile is either compiled or dropped, and counted among the unit's
c.check(all(info(u).get("compile_ahead") == "overlapped" for u in units), "every unit says compile_ahead=overlapped")
for row, u in enumerate(units):
    tsum = sum(t["compile_ns"] for t in trials if t["unit"] == row)
    c.check(u["compile_ns"] >= tsum, "%s: the unit's compile_ns %d >= its trials' %d" % (s(u["mode"]), u["compile_ns"], tsum))
    i = info(u)
    if s(u["mode"]) != "exhaustive":
        continue
    c.check(u["compile_ns"] == tsum, "exhaustive: the unit's compile_ns %d == its trials' %d" % (u["compile_ns"], tsum))
    q, n, x = (int(i.get("cuda_compile_ahead_" + k, -1)) for k in ("queued", "compiled", "cancelled"))
    c.check(q > 0 and q == n + x, "exhaustive: %d queued = %d compiled + %d dropped" % (q, n, x))
    c.check(u["compiles"] >= n, "exhaustive: the unit's %d compiles count the queue's %d" % (u["compiles"], n))
    c.check(int(i.get("cuda_compile_ahead_waited_ns", -1)) <= u["compile_ns"], "exhaustive: the queue's waits are within compile_ns")
c.exit()
PYEOF
finish
