"""tests/python/test_harness_tuner.py: kernels/python/harness_tuner.py speaks the tuner
protocol (docs/tuner-protocol.md): it reads the start message, writes one proposal per line
and reads its result, returns None at end-of-file, counts no invalid answer as a trial, and
refuses what would break the protocol.  Run by tests/cli/python.sh."""
import io
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.environ.get("top_srcdir", "."), "kernels", "python"))
import harness_tuner as ht  # noqa: E402

START = {"start": {"protocol": 1, "cell": "w/sgemm:m=8", "op": "sgemm", "shape": "m=8",
                   "fields": [{"name": "BM", "kind": "int", "values": [16, 32], "step": "pow2"},
                              {"name": "S", "kind": "string", "values": ["a", "b"], "step": "ordinal"}],
                   "vendor": [], "valid": None, "nvalid": 3,
                   "budget": {"trials": 2, "seconds": None}, "seed": 2385, "start": None}}


def result(config, status="ok", ns=2385.0):
    return {"result": {"config": config, "status": status, "median_ns": ns if status == "ok" else None,
                       "samples": [2385, 2390] if status == "ok" else [], "compile_ns": 7, "trial": 1}}


class TestTuner(unittest.TestCase):
    def session(self, *answers):
        lines = [json.dumps(START)] + [json.dumps(a) for a in answers]
        out = io.StringIO()
        s = ht.Session(io.StringIO("\n".join(lines) + "\n"), out)
        return s, out

    def test_conversation(self):
        c1, c2 = {"BM": 16, "S": "a"}, {"BM": 32, "S": "b"}
        s, out = self.session(result(c1, "invalid"), result(c2))
        space, budget = s.start()
        self.assertEqual(budget, {"trials": 2, "seconds": None})
        self.assertEqual(sorted(map(json.dumps, ht.points(space))),
                         sorted(map(json.dumps, [{"BM": b, "S": x} for b in (16, 32) for x in "ab"])))
        self.assertEqual(s.propose(c1)["status"], "invalid")
        self.assertEqual(s.trials, 0)
        r = s.propose("BM=32,S=b")
        self.assertEqual((r["status"], r["median_ns"], s.trials), ("ok", 2385.0, 1))
        self.assertIsNone(s.propose(c1))       # end of file: the budget is spent
        self.assertTrue(s.ended)
        s.done()                               # nothing is sent after the end
        sent = [json.loads(l) for l in out.getvalue().splitlines()]
        self.assertEqual(sent, [{"propose": c1}, {"propose": "BM=32,S=b"}, {"propose": c1}])

    def test_done(self):
        s, out = self.session()
        s.start()
        s.done()
        self.assertEqual(out.getvalue(), '{"done":true}\n')

    def test_refusals(self):
        s, _ = self.session()
        with self.assertRaises(ht.ProtocolError):
            s.propose({"BM": 16})              # before start()
        s.start()
        with self.assertRaises(ht.ProtocolError):
            s.propose(["BM", 16])
        bad = ht.Session(io.StringIO('{"hello": 1}\n'), io.StringIO())
        with self.assertRaises(ht.ProtocolError):
            bad.start()
        old = ht.Session(io.StringIO(json.dumps({"start": dict(START["start"], protocol=2)}) + "\n"),
                         io.StringIO())
        with self.assertRaises(ht.ProtocolError):
            old.start()


if __name__ == "__main__":
    unittest.main()
