"""tests/python/test_harness_unit.py: kernels/python/harness_unit.py writes records the
protocol accepts (docs/record-protocol.md): hello first, done last, samples numbered in
chunks, and refuses what would break the protocol.  Run by tests/cli/python.sh."""
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.environ.get("top_srcdir", "."), "kernels", "python"))
import harness_unit as hu  # noqa: E402


def records(buf):
    return [json.loads(l) for l in buf.getvalue().splitlines()]


class TestUnit(unittest.TestCase):
    def test_stream(self):
        buf = io.StringIO()
        with hu.Unit({"mode": "m", "unit": 7, "expects": ["compile"]}, backend="t", stream=buf) as u:
            c = u.cell("w/e2e", kind="e2e", workload="w", op="e2e", shape="batch=1")
            n = hu.CHUNK + 5
            u.samples(c, list(range(1, n + 1)), clock_mhz=[1980.5] * n, launches=[2] * n)
            u.samples(c, [7, 8], clock_reasons=[0, 0x4])
            u.measure(c, stop="max-time", warmup_n=3, warmup_ns=1000)
            u.trial(c, "a=1", ns=[5, 3, 4])
            u.choice(c, "a=1")
            u.setup(compiles=2, benchmarks=3)
            u.info({"torch": "x", "multi": "a\nb"})
        r = records(buf)
        self.assertEqual(r[0]["type"], "hello")
        self.assertEqual((r[0]["mode"], r[0]["unit"], r[0]["protocol"]), ("m", 7, 2))
        self.assertEqual(r[-1], {"type": "done", "status": "ok", "message": ""})
        s = [x for x in r if x["type"] == "samples"]
        self.assertEqual([x["first"] for x in s], [0, hu.CHUNK, hu.CHUNK + 5])
        self.assertEqual([len(x["ns"]) for x in s], [hu.CHUNK, 5, 2])
        self.assertEqual(len(s[0]["clock_mhz"]), hu.CHUNK)
        self.assertNotIn("clock_mhz", s[2])
        self.assertEqual(s[2]["clock_reasons"], [0, 4])
        self.assertNotIn("clock_reasons", s[0])
        m = [x for x in r if x["type"] == "measure"][0]
        self.assertEqual(m["n"], hu.CHUNK + 7)
        t = [x for x in r if x["type"] == "trial"][0]
        self.assertEqual((t["median_ns"], t["min_ns"], t["max_ns"], t["n"]), (4.0, 3.0, 5.0, 3))
        st = [x for x in r if x["type"] == "setup"][0]
        self.assertTrue(st["expects_work"])
        info = [x for x in r if x["type"] == "info"][0]
        self.assertEqual(info["text"], "torch=x\nmulti=a b\n")

    def test_exception_is_failed(self):
        buf = io.StringIO()
        with self.assertRaises(RuntimeError):
            with hu.Unit({}, stream=buf):
                raise RuntimeError("boom 2.385")
        last = records(buf)[-1]
        self.assertEqual((last["type"], last["status"]), ("done", "failed"))
        self.assertIn("boom 2.385", last["message"])

    def test_refusals(self):
        buf = io.StringIO()
        u = hu.Unit({}, stream=buf)
        c = u.cell("a")
        for bad in (lambda: u.samples(5, [1]), lambda: u.samples(c, [-1]),
                    lambda: u.samples(c, [1.5]), lambda: u.samples(c, [1, 2], clock_mhz=[1.0]),
                    lambda: u.cell("a"), lambda: u.cell("b", kind="fused"),
                    lambda: u.measure(c, stop="whenever"), lambda: u.done("great"),
                    lambda: u.choice(c, "x", "because"),
                    lambda: u.samples(c, [1], clock_mhz=[float("nan")]),
                    lambda: u.samples(c, [1], clock_reasons=[-2]),
                    lambda: u.samples(c, [1, 2], clock_reasons=[0])):
            self.assertRaises(hu.ProtocolError, bad)
        u.done("failed", "x")
        self.assertRaises(hu.ProtocolError, lambda: u.info("late"))
        # nothing of the refused calls reached the stream
        self.assertEqual([x["type"] for x in records(buf)], ["hello", "cell", "done"])

    def test_read_spec(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "s.json")
            with open(p, "w") as f:
                json.dump({"spec": 1, "mode": "m", "unit": 0, "workloads": [], "measure": {},
                           "options": {}, "seed": 3}, f)
            self.assertEqual(hu.read_spec(p)["seed"], 3)
            with open(p, "w") as f:
                json.dump({"spec": 2}, f)
            self.assertRaises(hu.ProtocolError, hu.read_spec, p)
        old = os.environ.pop("HARNESS_UNIT_SPEC", None)
        try:
            self.assertRaises(hu.ProtocolError, hu.read_spec)
        finally:
            if old is not None:
                os.environ["HARNESS_UNIT_SPEC"] = old


if __name__ == "__main__":
    unittest.main()
