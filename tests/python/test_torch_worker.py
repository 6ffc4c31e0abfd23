"""tests/python/test_torch_worker.py: the pure parts of kernels/python/torch_worker.py (mode ->
Inductor configuration, option overrides, specification parsing, cell names of e2e and op
cells, choice strings from generated code, the threshold replacement with a stand-in Inductor
module), and, where PyTorch is not installed (CI, this project's build machine), that a unit
fails at once with "PyTorch not importable: ...".  The GPU path ran on an H100
(docs/BENCHMARKS.md); it is not tested here.  Run by tests/cli/python.sh."""
import json
import os
import subprocess
import sys
import tempfile
import types
import unittest

TOP = os.environ.get("top_srcdir", ".")
sys.path.insert(0, os.path.join(TOP, "kernels", "python"))
import torch_worker as worker  # noqa: E402


def spec(mode="default", options=None, workloads=None):
    return {"spec": 1, "mode": mode, "unit": 0, "seed": 11, "cache_dir": "/nonexistent",
            "measure": {"warmup_s": 0.1, "warmup_count": 3, "min_samples": 5,
                        "max_samples": 10, "max_time_s": 1.0, "flush": False},
            "options": options or {}, "expects": ["compile"],
            "workloads": workloads if workloads is not None else
            [{"name": "r18", "kind": "model", "model": "resnet18", "batch": 32,
              "resolution": 224, "dtype": "float32", "tf32": False}]}


class TestModes(unittest.TestCase):
    def test_the_seven_modes(self):
        want = {
            "eager": (False, None, {}, None),
            "default": (True, "default", {}, None),
            "reduce-overhead": (True, "reduce-overhead", {}, None),
            "max-autotune": (True, "max-autotune", {}, None),
            "max-autotune-no-cudagraphs": (True, "max-autotune-no-cudagraphs", {}, None),
            "coordinate-descent": (True, "default", {"coordinate_descent_tuning": True}, None),
            "coordinate-descent-0.05": (True, "default", {"coordinate_descent_tuning": True}, 0.05),
        }
        self.assertEqual(set(want), set(worker.MODES))
        for name, (comp, tmode, ind, thr) in want.items():
            c = worker.resolve_mode(spec(mode="x", options={"compile": name}))
            self.assertEqual((c["compile"], c["torch_mode"], c["inductor"], c["threshold"]),
                             (comp, tmode, ind, thr), name)
        # the mode's own name when options name none
        self.assertEqual(worker.resolve_mode(spec(mode="max-autotune"))["torch_mode"], "max-autotune")

    def test_overrides(self):
        c = worker.resolve_mode(spec(options={"compile": "coordinate-descent", "threshold": 0.02,
                                              "inductor": {"max_autotune_gemm": True}}))
        self.assertEqual(c["threshold"], 0.02)
        self.assertEqual(c["inductor"], {"coordinate_descent_tuning": True, "max_autotune_gemm": True})
        # the table does not leak into the next mode's defaults
        self.assertEqual(worker.MODES["coordinate-descent"]["inductor"], {"coordinate_descent_tuning": True})
        for bad in ({"compile": "fastest"}, {"threshold": 0.05},
                    {"compile": "coordinate-descent", "threshold": 1.5},
                    {"compile": "eager", "inductor": {"max_autotune": True}},
                    {"compile": "default", "inductor": 3}, {"compile": "default", "color": "red"}):
            self.assertRaises(worker.SpecError, worker.resolve_mode, spec(options=bad))
        self.assertRaises(worker.SpecError, worker.resolve_mode, spec(mode="default-aa"))

    def test_workloads(self):
        w = worker.parse_workloads(spec(options={"channels_last": True}))
        self.assertEqual(w[0]["model"], "resnet18")
        self.assertTrue(w[0]["channels_last"])
        self.assertEqual(worker.e2e_cell(w[0]), ("r18/e2e", "batch=32,resolution=224"))
        self.assertRaises(worker.SpecError, worker.parse_workloads, spec(workloads=[]))
        self.assertRaises(worker.SpecError, worker.parse_workloads,
                          spec(workloads=[{"name": "g", "kind": "op", "op": "sgemm"}]))
        self.assertRaises(worker.SpecError, worker.parse_workloads,
                          spec(workloads=[{"name": "g", "kind": "model", "model": "alexnet",
                                           "dtype": "int8"}]))

    def test_code_hash(self):
        self.assertEqual(worker.code_hash("kernel"), worker.code_hash("kernel"))
        self.assertNotEqual(worker.code_hash("kernel a"), worker.code_hash("kernel b"))
        self.assertEqual(len(worker.code_hash("")), 16)


def T(shape, stride=None, dtype="float32"):
    return ("T", tuple(shape), tuple(stride) if stride else worker._contiguous_stride(shape), dtype)


class TestOpCells(unittest.TestCase):
    def test_matmul_names(self):
        # resnet18's fc as the eager forward dispatches it: addmm(bias, x, weight.t())
        n, s = worker.op_cell("resnet18", "addmm", [T([1000]), T([32, 512]), T([512, 1000], [1, 512])])
        self.assertEqual(n, "resnet18/addmm:m=32,n=1000,k=512,a=N,b=T,bias=1000")
        self.assertEqual(s, "m=32,n=1000,k=512,a=N,b=T,bias=1000")
        n, _ = worker.op_cell("g", "mm", [T([64, 32]), T([32, 16])])
        self.assertEqual(n, "g/mm:m=64,n=16,k=32")
        n, _ = worker.op_cell("g", "bmm", [T([4, 64, 32]), T([4, 32, 16])])
        self.assertEqual(n, "g/bmm:b=4,m=64,n=16,k=32")
        n, _ = worker.op_cell("g", "mm", [T([64, 32], dtype="float16"), T([32, 16], dtype="float16")])
        self.assertTrue(n.endswith(",dtype=float16"), n)
        self.assertEqual(worker.op_kind("addmm"), "matmul")

    def test_conv_names(self):
        args = [T([32, 3, 224, 224]), T([64, 3, 7, 7]), None, [2, 2], [3, 3], [1, 1], False, [0, 0], 1]
        n, _ = worker.op_cell("resnet18", "convolution", args)
        self.assertEqual(n, "resnet18/convolution:x=32x3x224x224,w=64x3x7x7,stride=2x2,pad=3x3,dil=1x1,groups=1")
        cl = [32 * 224 * 224 * 3 // 32 * 32 // 32, 1, 224 * 3, 3]
        cl[0] = 224 * 224 * 3
        args2 = [T([32, 3, 224, 224], cl), T([64, 3, 7, 7]), T([64]), [1, 1], [0, 0], [1, 1], True, [0, 0], 2]
        n, _ = worker.op_cell("m", "convolution", args2)
        self.assertIn("x=32x3x224x224:cl,", n)
        self.assertTrue(n.endswith("groups=2,bias,transposed"), n)
        self.assertEqual(worker.op_kind("convolution"), "conv")

    def test_generic_names(self):
        n, s = worker.op_cell("alexnet", "max_pool2d_with_indices", [T([32, 64, 55, 55]), [3, 3], [2, 2]])
        self.assertEqual(s, "32x64x55x55,[3;3],[2;2]")
        n, s = worker.op_cell("r", "add.Tensor", [T([32, 64, 56, 56]), T([32, 64, 56, 56])], {"alpha": 1})
        self.assertEqual(n, "r/add.Tensor:32x64x56x56,32x64x56x56,alpha=1")
        n, s = worker.op_cell("r", "mul", [T([8], [2]), 0.5])
        self.assertEqual(s, "8:s2,0.5")
        self.assertEqual(worker.op_kind("relu"), "pointwise")
        self.assertEqual(worker.op_kind("max_pool2d_with_indices"), "pool")
        # distinct shapes give distinct names, the same shape the same name
        a = worker.op_cell("r", "relu", [T([32, 64, 56, 56])])[0]
        self.assertEqual(a, worker.op_cell("r", "relu", [T([32, 64, 56, 56])])[0])
        self.assertNotEqual(a, worker.op_cell("r", "relu", [T([32, 64, 28, 28])])[0])


WRAPPER = """
# kernel path: /tmp/run/cache/u1/inductor/ab/cabc.py
from torch._inductor.select_algorithm import extern_kernels
triton_poi_fused_relu_0 = async_compile.triton('triton_poi_fused_relu_0', '''
@triton.jit
def triton_poi_fused_relu_0(in_ptr0, xnumel, XBLOCK : tl.constexpr):
    pass
''', device_str='cuda')
triton_tem_fused_mm_1 = async_compile.triton('triton_tem_fused_mm_1', '''
@triton.jit
def triton_tem_fused_mm_1(arg_A, arg_B, out_ptr0):
    BLOCK_M : tl.constexpr = 64
    BLOCK_N : tl.constexpr = 128
''', device_str='cuda')
def call(args):
    # Topologically Sorted Source Nodes: [conv2d]
    buf0 = extern_kernels.convolution(arg0_1, arg1_1, stride=(1, 1))
    buf1 = torch.ops.aten.max_pool2d_with_indices.default(buf0, [3, 3])
    triton_poi_fused_relu_0.run(buf0, 100, grid=grid(100))
"""


class TestChoices(unittest.TestCase):
    def test_summary(self):
        s = worker.summarize_wrapper(WRAPPER)
        self.assertEqual(s["extern"], ["aten.max_pool2d_with_indices", "convolution"])
        self.assertEqual(s["triton"], ["triton_poi_fused_relu_0", "triton_tem_fused_mm_1"])
        self.assertEqual(s["templates"], {"triton_tem_fused_mm_1": "BLOCK_M=64,BLOCK_N=128"})

    def test_config_and_hash(self):
        c = worker.choice_config(True, [WRAPPER], {"triton_poi_fused_relu_0": "XBLOCK: 1024"},
                                 "/tmp/run/cache/u1")
        self.assertTrue(c.startswith("extern=aten.max_pool2d_with_indices+convolution;"
                                     "triton=poi:1+tem:1;templates=triton_tem_fused_mm{BLOCK_M=64,BLOCK_N=128};code="), c)
        self.assertEqual(worker.choice_reason(c), "tuned")
        # the same code compiled in another unit (other cache dir, other comments): same string
        other = WRAPPER.replace("/tmp/run/cache/u1", "/tmp/run/cache/u7").replace("[conv2d]", "[x]")
        self.assertEqual(c, worker.choice_config(True, [other], {"triton_poi_fused_relu_0": "XBLOCK: 1024"},
                                                 "/tmp/run/cache/u7"))
        # another runtime config, or other code: another string
        self.assertNotEqual(c, worker.choice_config(True, [WRAPPER], {"triton_poi_fused_relu_0": "XBLOCK: 512"},
                                                    "/tmp/run/cache/u1"))
        self.assertNotEqual(c, worker.choice_config(True, [WRAPPER.replace("100", "200")],
                                                    {"triton_poi_fused_relu_0": "XBLOCK: 1024"}, "/tmp/run/cache/u1"))
        self.assertEqual(worker.choice_config(False, [], {}), "eager")
        self.assertEqual(worker.choice_reason("eager"), "vendor")
        self.assertEqual(worker.choice_config(True, [], {}), "compiled;code=unavailable")
        ext = worker.choice_config(True, ["def call(args):\n    return extern_kernels.mm(a, b)\n"], {})
        self.assertIn("triton=none", ext)
        self.assertEqual(worker.choice_reason(ext), "vendor")

    def test_normalize(self):
        self.assertEqual(worker.normalize_code("# a\nx = 1\n  # b\ny = '/c/d'", "/c"), "x = 1\ny = '<cache>/d'")


class TestThreshold(unittest.TestCase):
    def test_replaces_has_improvement(self):
        # a stand-in for torch._inductor.runtime.coordinate_descent_tuner as torch 2.11 has it
        class CoordescTuner:
            @staticmethod
            def has_improvement(baseline, test):
                threshold = 0.001
                return test is not None and test < baseline * (1 - threshold)

            def better(self, best, cand):
                return self.has_improvement(best, cand)
        names = ["torch", "torch._inductor", "torch._inductor.runtime",
                 "torch._inductor.runtime.coordinate_descent_tuner"]
        saved = {n: sys.modules.get(n) for n in names}
        mods = {n: types.ModuleType(n) for n in names}
        mods[names[-1]].CoordescTuner = CoordescTuner
        mods["torch._inductor.runtime"].coordinate_descent_tuner = mods[names[-1]]
        try:
            sys.modules.update(mods)
            self.assertTrue(CoordescTuner().better(1.0, 0.98))
            desc, calls = worker.apply_threshold(0.05)
            self.assertIn("1 - 0.05", desc)
            t = CoordescTuner()
            self.assertFalse(t.better(1.0, 0.98))       # 2% is no improvement at 5%
            self.assertTrue(t.better(1.0, 0.94))
            self.assertFalse(t.better(1.0, None))
            self.assertFalse(CoordescTuner.has_improvement(1.0, 0.96))  # still a staticmethod
            self.assertEqual(calls["calls"], 4)
        finally:
            for n, m in saved.items():
                if m is None:
                    sys.modules.pop(n, None)
                else:
                    sys.modules[n] = m


class TestPerOp(unittest.TestCase):
    def test_per_op_option(self):
        two = [{"name": "a", "kind": "model", "model": "resnet18"},
               {"name": "b", "kind": "model", "model": "alexnet"}]
        w = worker.parse_workloads(spec(workloads=two))
        self.assertEqual([x["per_op"] for x in w], [True, True])
        w = worker.parse_workloads(spec(options={"per_op": ["b"]}, workloads=two))
        self.assertEqual([x["per_op"] for x in w], [False, True])
        w = worker.parse_workloads(spec(options={"per_op": False}, workloads=two))
        self.assertEqual([x["per_op"] for x in w], [False, False])
        for bad in ({"per_op": ["c"]}, {"per_op": "a"}):
            self.assertRaises(worker.SpecError, worker.parse_workloads, spec(options=bad, workloads=two))
        self.assertRaises(worker.SpecError, worker.resolve_mode, spec(options={"training": True}))
        # a unit of one workload (unit_scope = "workload"): the list names other units' too
        one = spec(options={"per_op": ["a", "c"]}, workloads=two[1:])
        one["workload"] = "b"
        self.assertEqual([x["per_op"] for x in worker.parse_workloads(one)], [False])
        one["workload"] = None
        self.assertRaises(worker.SpecError, worker.parse_workloads, one)


class TestRecords(unittest.TestCase):
    def test_cells_and_choices_as_records(self):
        """What run() emits per cell, through harness_unit, for names and choices made here."""
        import io
        import harness_unit as hu
        out = io.StringIO()
        u = hu.Unit(spec(), backend="torch", stream=out)
        w = worker.parse_workloads(spec())[0]
        name, shape = worker.e2e_cell(w)
        c0 = u.cell(name, kind="e2e", workload=w["name"], op="e2e", shape=shape)
        oname, oshape = worker.op_cell(w["name"], "addmm", [T([1000]), T([32, 512]), T([512, 1000], [1, 512])])
        c1 = u.cell(oname, kind="op", workload=w["name"], op="addmm", shape=oshape, count=1)
        conf = worker.choice_config(True, [WRAPPER], {}, None)
        u.samples(c0, [1911000, 1903000], clock_mhz=[1980.0, None], throttle=[0, -1])
        u.measure(c0, stop="max-time", warmup_n=10, warmup_ns=2000000000)
        u.choice(c0, conf, worker.choice_reason(conf))
        u.choice(c1, "eager", worker.choice_reason("eager"))
        u.setup(compile_ns=5, tune_ns=7, compiles=2, cache_hits=0, benchmarks=3)
        u.done("ok")
        recs = [json.loads(l) for l in out.getvalue().splitlines()]
        self.assertEqual([r["type"] for r in recs],
                         ["hello", "cell", "cell", "samples", "measure", "choice", "choice", "setup", "done"])
        self.assertEqual(recs[0]["backend"], "torch")
        self.assertEqual(recs[2]["name"], "r18/addmm:m=32,n=1000,k=512,a=N,b=T,bias=1000")
        self.assertEqual(recs[3]["clock_mhz"], [1980.0, None])
        self.assertEqual((recs[5]["config"], recs[5]["reason"]), (conf, "tuned"))
        self.assertEqual((recs[6]["config"], recs[6]["reason"]), ("eager", "vendor"))


class FakeGpu:
    """A stand-in for the host's clock and torch's CUDA stream, for measure(): a virtual host
    clock (worker.time is swapped for this object: sleep() advances it, every read adds
    1 us of host work), and one in-order queue on it.  torch.cuda._sleep(cycles) busies the
    queue cycles / mhz, an event takes the queue's time when the queue reaches it, and
    launch(ns) (the op) starts when both the queue is free and the host has queued it.  A
    call whose host work outlasts the spin makes the events time that work too, as on a
    GPU; nothing depends on the test machine's speed."""

    def __init__(self, mhz=1980.0):
        self.mhz, self.free, self.t = mhz, 0, 10 ** 9

    def perf_counter_ns(self):
        self.t += 1000
        return self.t

    monotonic_ns = perf_counter_ns

    def sleep(self, s):
        self.t += int(s * 1e9)

    def enqueue(self, ns):
        self.free = max(self.free, self.t) + ns
        return self.free

    def torch(self):
        gpu = self

        class Event:
            def __init__(self, enable_timing=False):
                self.t = None

            def record(self):
                self.t = max(gpu.free, gpu.t)

            def synchronize(self):
                pass

            def elapsed_time(self, other):
                return (other.t - self.t) / 1e6

        cuda = types.SimpleNamespace(Event=Event, synchronize=lambda: None,
                                     _sleep=lambda cycles: gpu.enqueue(int(cycles * 1e3 / gpu.mhz)))
        return types.SimpleNamespace(cuda=cuda)


class TestSpin(unittest.TestCase):
    MS = {"warmup_count": 20, "warmup_s": 0, "min_samples": 15, "max_samples": 15, "max_time_s": 5}

    def clock(self, mhz=1980.0):
        return types.SimpleNamespace(read=lambda: (mhz, 0, 0))

    def setUp(self):
        self.gpu = FakeGpu()
        self.real_time, worker.time = worker.time, self.gpu

    def tearDown(self):
        worker.time = self.real_time

    def test_busy_cycles(self):
        """3x the 90th percentile of the warm-up's host calls, in cycles, within the bounds."""
        self.assertEqual(worker.busy_cycles([], 1980.0), worker.BUSY_CYCLES)
        self.assertEqual(worker.busy_cycles([10000] * 9, 1980.0), worker.BUSY_CYCLES)  # 59400 < least
        self.assertEqual(worker.busy_cycles(list(range(1, 11)), 1000.0, least=0), 27)  # p90 = 9 ns
        # one slow call in ten is the p90 of 10 (nearest rank 9 of 10 is the 9th smallest)
        self.assertEqual(worker.busy_cycles([100000] * 9 + [10 ** 7], 1000.0, least=0), 300000)
        self.assertEqual(worker.busy_cycles([400000] * 5, 2000.0), 2400000)  # 1.2 ms at 2 GHz
        self.assertEqual(worker.busy_cycles([400000] * 5, None), worker.busy_cycles([400000] * 5, 2000.0))
        self.assertEqual(worker.busy_cycles([10 ** 10], 1980.0), worker.BUSY_MAX_CYCLES)

    def test_a_slow_host_call_does_not_reach_the_events(self):
        """An op of 10 us of device time behind 400 us of host work per call: the fixed
        spin of ~100 us would let the events time ~300 us of the host's; the spin measure()
        sizes from the warm-up covers it, every sample reads the 10 us, none is late."""
        gpu = self.gpu

        def fn():
            gpu.sleep(0.0004)
            gpu.enqueue(10000)
        ns, _, _, _, _, n_w, _, spin = worker.measure(gpu.torch(), fn, self.MS, None, self.clock(),
                                                      worker.BUSY_CYCLES)
        self.assertEqual(n_w, 20)
        self.assertGreaterEqual(spin["spin_ns"], 3 * 400000)
        self.assertEqual(spin["late"], 0, spin)
        self.assertEqual(len(spin["host_ns"]), 15)
        self.assertTrue(all(abs(x - 10000) < 2000 for x in ns), ns)
        note = worker.spin_note(spin)
        self.assertRegex(note, r"^busy_cycles=\d+ spin_us=\d+\.\d host_us_p50=\d+\.\d "
                               r"host_us_max=\d+\.\d late=0 of 15$")

    def test_late_samples_are_counted(self):
        """Host work that grows after the warm-up outlasts the spin: those samples are late,
        and their times hold the host's excess, as the note then says."""
        gpu = self.gpu
        calls = [0]

        def fn():
            calls[0] += 1
            gpu.sleep(0.0002 if calls[0] <= 20 else 0.003)
            gpu.enqueue(10000)
        ns, _, _, _, _, _, _, spin = worker.measure(gpu.torch(), fn, self.MS, None, self.clock(),
                                                    worker.BUSY_CYCLES)
        self.assertEqual(spin["late"], 15, spin)
        self.assertTrue(all(x > 1000000 for x in ns), ns)  # the excess over the spin, ~2 ms
        self.assertRegex(worker.spin_note(spin), r"late=15 of 15$")

    def test_no_spin_without_busy(self):
        """An e2e cell's samples (busy 0) keep the host's overhead and carry no spin note."""
        gpu = self.gpu
        out = worker.measure(gpu.torch(), lambda: gpu.enqueue(10000), self.MS, None, self.clock())
        self.assertIsNone(out[-1])


class TestGpuState(unittest.TestCase):
    def test_state_keys(self):
        """The GPU state as info keys the audit reads (docs/record-protocol.md, "GPU state"):
        every field present, a failed read "unavailable", NVML missing said once."""
        got = worker.gpu_state_info("gpu_open_", {
            "gpu_name": "NVIDIA H100 80GB HBM3", "gpu_uuid": "GPU-d2963362", "driver": "580.159.04",
            "sm_clock_mhz": 1980, "mem_clock_mhz": 2619, "sm_clock_max_mhz": 1980,
            "temperature_c": 36, "power_w": 118.28, "power_limit_w": 700.0,
            "clock_event_reasons": 1, "other_processes": [4242, 77], "other_process_count": 2})
        self.assertEqual(sorted(got), sorted("gpu_open_" + k for k in worker.GPU_STATE_FIELDS))
        self.assertEqual(got["gpu_open_power_w"], "118.280")
        self.assertEqual(got["gpu_open_clock_event_reasons"], "0x1")
        self.assertEqual(got["gpu_open_other_processes"], "4242,77")
        self.assertEqual(got["gpu_open_temperature_c"], 36)
        gone = worker.gpu_state_info("gpu_close_", {"temperature_c": None, "other_processes": []})
        self.assertEqual(gone["gpu_close_temperature_c"], "unavailable")
        self.assertEqual(gone["gpu_close_other_processes"], "")
        self.assertEqual(gone["gpu_close_sm_clock_mhz"], "unavailable")
        self.assertEqual(worker.gpu_state_info("gpu_open_", "no libnvidia-ml.so.1"),
                         {"gpu_open_nvml": "unavailable (no libnvidia-ml.so.1)"})
        # no GPU has this UUID: without a driver NVML cannot load, with one it does not know
        # the device; either way a reason, not an exception
        why = worker.read_gpu_state("GPU-00000000-no-such-gpu")
        self.assertIsInstance(why, str)
        self.assertTrue(why, why)

    def test_own_processes(self):
        """A process in the unit's group is the unit's (Inductor's compile workers), one in a
        session of its own is another process on the GPU."""
        self.assertTrue(worker.own_process(os.getpid()))
        mine = subprocess.Popen(["sleep", "5"])
        other = subprocess.Popen(["sleep", "5"], start_new_session=True)
        try:
            self.assertTrue(worker.own_process(mine.pid))
            self.assertFalse(worker.own_process(other.pid))
        finally:
            for p in (mine, other):
                p.kill()
                p.wait()
        self.assertFalse(worker.own_process(other.pid))  # gone: not this unit's


class TestWithoutTorch(unittest.TestCase):
    def test_fails_the_unit_without_pytorch(self):
        try:
            import torch  # noqa: F401
            self.skipTest("PyTorch is installed here: this checks the machine without it")
        except ImportError:
            pass
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "spec.json")
            with open(p, "w") as f:
                json.dump(spec(), f)
            r, w = os.pipe()
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HARNESS_UNIT_SPEC": p,
                   "HARNESS_RECORD_FD": "3", "PYTHONDONTWRITEBYTECODE": "1",
                   "PYTHONPATH": os.path.join(TOP, "kernels", "python")}
            # the record pipe on fd 3, as the harness gives it
            proc = subprocess.Popen(["/bin/sh", "-c", 'exec "$0" "$1" 3>&%d %d>&-' % (w, w),
                                     sys.executable, os.path.join(TOP, "kernels", "python", "torch_worker.py")],
                                    env=env, pass_fds=(w,), stderr=subprocess.PIPE)
            os.close(w)
            with os.fdopen(r) as f:
                out = f.read()
            _, err = proc.communicate(timeout=60)
        recs = [json.loads(l) for l in out.splitlines()]
        self.assertEqual(proc.returncode, 0, err)
        self.assertEqual(recs[0]["type"], "hello")
        self.assertEqual(recs[-1]["type"], "done")
        self.assertEqual(recs[-1]["status"], "failed")
        self.assertTrue(recs[-1]["message"].startswith("PyTorch not importable: "), recs[-1])
        self.assertIn(b"PyTorch not importable", err)


if __name__ == "__main__":
    unittest.main()
