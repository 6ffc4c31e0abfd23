# tests/cli/cuda.sh: the CUDA backend end to end (tests/data/cuda/smoke.toml): every op in
# every dtype under every tuner, checked, timed with clocks, throttle flags and clock-event
# reasons, the device's state recorded, then report and audit.  Skips (77) with the reason where this build has
# no CUDA backend or this machine no CUDA device; `make check-gpu` sets
# HARNESS_CUDA_REQUIRED=1 so that a GPU machine cannot skip it.
. "$top_srcdir/tests/setup"
. "$top_srcdir/tests/setup-cuda"
cp "$DATA/cuda/smoke.toml" smoke.toml
h check smoke.toml >"$SCRATCH/out" 2>"$SCRATCH/err"
if grep -q "backend 'cuda' is not built into this harness" "$SCRATCH/err"; then
	[ "${HARNESS_CUDA_REQUIRED:-0}" = 1 ] && { fail "this build has no CUDA backend"; finish; }
	skip "this build has no CUDA backend"
fi
expect_status 0 h check smoke.toml && pass "smoke.toml checks" || finish
# every cell's float64 reference is computed on the GPU and, here, on the host as well: a
# disagreement fails the unit (kernels/cuda/reference.c)
export HARNESS_CUDA_REF_VERIFY=1
cuda_run smoke.toml smoke cudasmoke

expect_status 0 h report "$H5" && pass "report"
cp "$SCRATCH/out" report.txt
h audit "$H5" >audit.txt 2>&1
echo "audit exit status $?" >>audit.txt
[ -n "${HARNESS_CUDA_KEEP:-}" ] && cp "$H5" report.txt audit.txt "$HARNESS_CUDA_KEEP"/

PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || PY=python3
$PY -c 'import h5py' 2>/dev/null || { pass "h5py missing: results not inspected"; finish; }
export PYTHONPATH="$top_srcdir/tests/cli"
$PY - "$H5" <<'PYEOF' || fail "results file checks"
import math, sys, h5py
from h5util import table, meta, Checker
c = Checker("cuda")
with h5py.File(sys.argv[1], "r") as f:
    m = meta(f)
    units, cells, samples = table(f, "units"), table(f, "cells"), table(f, "samples")
    trials, choices = table(f, "trials"), table(f, "choices")
def s(v):
    return v.decode() if isinstance(v, bytes) else v
c.check(m.get("backend") == "cuda", "the run is on the cuda backend")
c.check(all(s(u["status"]) == "ok" for u in units), "every unit ok: " + ", ".join("%s:%s" % (s(u["mode"]), s(u["status"])) for u in units if s(u["status"]) != "ok"))
def verified(u):
    for line in s(u["info"]).splitlines():
        if line.startswith("cuda_ref_verified_cells="):
            return int(line.split("=", 1)[1])
    return 0
c.check(all(verified(u) > 0 for u in units), "every unit's GPU reference agreed with the host's: " + ", ".join("%s:%d" % (s(u["mode"]), verified(u)) for u in units))
c.check(len(samples) > 0 and all(sm["ns"] > 0 for sm in samples), "samples are positive")
clk = [sm["clock_mhz"] for sm in samples]
c.check(sum(1 for x in clk if not math.isnan(x)) == len(clk), "every sample has an SM clock")
c.check(all(sm["throttle"] in (0, 1) for sm in samples), "every sample has a throttle flag")
rsn = [int(sm["clock_reasons"]) for sm in samples]
c.check(all(r >= 0 for r in rsn), "every sample has NVML's clock-event reasons")
c.check(all(int(sm["throttle"]) == ((r & ~1) != 0) for sm, r in zip(samples, rsn)), "the throttle flag is set exactly when a reason other than idle is")
bad = [t for t in trials if s(t["status"]) not in ("ok", "compile-error", "incorrect")]
c.check(not bad, "trial statuses are known")
vb = [t for t in trials if s(t["config"]).startswith("vendor:algo=")]
c.check(len(vb) > 0, "cuBLASLt algorithms are recorded as vendor:algo=... trials")
# op cells are timed by CUDA-graph replay (kernels/cuda/graph-replay.c): every config of every op,
# the vendor paths included, must capture, so no unit falls back to the stream
def info(u, key):
    for line in s(u["info"]).splitlines():
        if line.startswith(key + "="):
            return line.split("=", 1)[1]
    return None
c.check(all(int(info(u, "op_timing_graph_configs") or 0) > 0 for u in units), "every unit timed its op cells' configs by graph replay")
c.check(all(info(u, "op_timing_stream_configs") == "0" for u in units), "no config fell back to stream launches: " + "; ".join(str(info(u, "op_timing_fallback")) for u in units if info(u, "op_timing_stream_configs") != "0"))
# the check's float64 reference compiles once a run (HARNESS_CHECK_DIR, <run>/cache/check):
# the first unit to run compiles it, the others load its cubin (docs/audit.md)
dirs = set(info(u, "check_dir") for u in units)
c.check(len(dirs) == 1 and all(d and d.endswith("/cache/check") for d in dirs), "every unit's check folder is the run's <run>/cache/check: %s" % sorted(map(str, dirs)))
order = sorted(units, key=lambda u: (int(u["block"]), int(u["position"])))
refc = [int(info(u, "cuda_ref_compile_ns") or 0) for u in order]
c.check(refc[0] > 0 and all(x == 0 for x in refc[1:]), "only the first unit compiled the reference: %s" % refc)
c.exit()
PYEOF

# A bad value of variable $1 ($2) fails timing.toml's unit, naming the variable.
bad_value() {
	rm -rf res
	export "$1=$2"
	h run -q --results-dir res timing.toml >"$SCRATCH/out" 2>"$SCRATCH/err"
	rc=$?
	[ $rc -ne 0 ] && grep -rq "$1='$2'" res "$SCRATCH/err" &&
		pass "a bad $1 fails the unit, naming the variable" ||
		fail "a bad $1: exit $rc, or the variable not named"
	unset "$1"
}

# HARNESS_CUDA_OP_TIMING=stream: the same cells on stream launches, said so per cell; a value
# that is neither fails the unit, naming the variable
export HARNESS_CUDA_OP_TIMING=stream
cuda_run timing.toml timing-stream cudatiming
$PY - "$H5" <<'PYEOF' || fail "stream timing checks"
import sys, h5py
from h5util import table, infos, Checker
c = Checker("cuda stream timing")
with h5py.File(sys.argv[1], "r") as f:
    ii = infos(table(f, "units"))
c.check(all(i.get("op_timing", "").startswith("stream") for i in ii), "units say they time on the stream")
c.check(all(i.get("op_timing_graph_configs") == "0" and int(i.get("op_timing_stream_configs", 0)) > 0 for i in ii), "every config on stream launches")
c.check(all(any(k.startswith("op_timing.") and v.startswith("stream launches=") for k, v in i.items()) for i in ii), "each op cell's timing is recorded")
c.exit()
PYEOF
bad_value HARNESS_CUDA_OP_TIMING replay
# HARNESS_CUDA_FAST_COMPILE=min: the configs' modules compiled with NVRTC's --Ofast-compile,
# said so; a bad level fails the unit, naming the variable
export HARNESS_CUDA_FAST_COMPILE=min
rm -rf res
cuda_run timing.toml timing-fast cudatiming
$PY - "$H5" <<'PYEOF' || fail "fast compile checks"
import sys, h5py
from h5util import table, infos, Checker
c = Checker("cuda fast compile")
with h5py.File(sys.argv[1], "r") as f:
    units = table(f, "units")
c.check(all(u["status"] == "ok" for u in units), "every unit ok")
c.check(all(i.get("nvrtc_fast_compile") == "min" for i in infos(units)), "units say they compile with --Ofast-compile=min")
c.exit()
PYEOF
bad_value HARNESS_CUDA_FAST_COMPILE fastest
finish
