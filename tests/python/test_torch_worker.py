"""tests/python/test_torch_worker.py: the pure parts of kernels/torch/worker.py (mode ->
Inductor configuration, option overrides, specification parsing, cell names), and, where
PyTorch is not installed (CI, this project's build machine), that a unit fails at once with
"PyTorch not importable: ...".  The worker itself has never run with PyTorch.  Run by
tests/cli/python.sh."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

TOP = os.environ.get("top_srcdir", ".")
sys.path.insert(0, os.path.join(TOP, "kernels", "python"))
sys.path.insert(0, os.path.join(TOP, "kernels", "torch"))
import worker  # noqa: E402


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
                                     sys.executable, os.path.join(TOP, "kernels", "torch", "worker.py")],
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
