"""harness_unit: write the harness's unit record protocol (docs/record-protocol.md) from
Python, and read the unit specification the harness gives an external command unit.

Standard library only.  A unit is one fresh process; the harness reads its records from
file descriptor 3 (HARNESS_RECORD_FD) and tells it what to measure in a JSON file named by
HARNESS_UNIT_SPEC.  Typical use:

    import harness_unit as hu
    spec = hu.read_spec()
    with hu.Unit(spec, backend="torch") as u:      # hello now; done(failed) on an exception
        c = u.cell("resnet18/e2e", kind="e2e", workload="resnet18", op="e2e",
                   shape="batch=32,resolution=224")
        u.samples(c, [1911000, 1903000])            # chunked, numbered for you
        u.measure(c, stop="max-samples", warmup_n=3, warmup_ns=50_000_000)
        u.setup(compiles=12, benchmarks=40)
        u.done("ok")
"""

import json
import math
import os

PROTOCOL = 2
STATUSES = ("ok", "compile-error", "incorrect", "failed")
STOPS = ("precision", "max-samples", "max-time")
REASONS = ("vendor", "rule", "tuned", "fallback-vendor")
CHUNK = 4096  # samples per 'samples' record


class ProtocolError(Exception):
    """A record this module refuses to write (it would break the protocol)."""


def read_spec(path=None):
    """The unit specification as a dict (HARNESS_UNIT_SPEC unless path is given)."""
    path = path or os.environ.get("HARNESS_UNIT_SPEC")
    if not path:
        raise ProtocolError("HARNESS_UNIT_SPEC is not set: not started by the harness")
    with open(path, encoding="utf-8") as f:
        spec = json.load(f)
    if not isinstance(spec, dict) or spec.get("spec") != 1:
        raise ProtocolError("%s: not a version 1 unit specification" % path)
    for key in ("mode", "unit", "workloads", "measure", "options", "seed"):
        if key not in spec:
            raise ProtocolError("%s: missing '%s'" % (path, key))
    return spec


def _int(name, v, lo=0):
    if isinstance(v, bool) or not isinstance(v, int):
        raise ProtocolError("'%s' must be an integer, not %r" % (name, v))
    if v < lo:
        raise ProtocolError("'%s' must be >= %d, not %d" % (name, lo, v))
    return v


def _num_or_null(name, v):
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise ProtocolError("'%s' must be a finite number or None, not %r" % (name, v))
    return v


class Unit:
    """One unit's record stream.  Records are written as they are made (one line each,
    flushed), so whatever the unit measured before it crashes is kept."""

    def __init__(self, spec=None, backend="command", fd=None, stream=None):
        self.spec = spec or {}
        if stream is None:
            if fd is None:
                fd = int(os.environ.get("HARNESS_RECORD_FD", "3"))
            stream = os.fdopen(fd, "w", encoding="utf-8", closefd=False)
        self._out = stream
        self._backend = backend
        self._cells = []
        self._next = {}
        self._hello = False
        self._done = False

    # -- the stream --
    def _emit(self, rec):
        if self._done:
            raise ProtocolError("nothing may follow 'done'")
        if not self._hello and rec["type"] != "hello":
            self.hello()
        self._out.write(json.dumps(rec, separators=(",", ":"), allow_nan=False) + "\n")
        self._out.flush()

    def __enter__(self):
        self.hello()
        return self

    def __exit__(self, etype, exc, tb):
        if not self._done:
            if etype is None:
                self.done("ok")
            else:
                self.done("failed", "%s: %s" % (etype.__name__, exc))
        return False

    def hello(self):
        if self._hello:
            return
        self._emit_hello()

    def _emit_hello(self):
        self._hello = True
        self._emit({"type": "hello", "protocol": PROTOCOL, "pid": os.getpid(),
                    "mode": str(self.spec.get("mode", os.environ.get("HARNESS_MODE", ""))),
                    "unit": int(self.spec.get("unit", os.environ.get("HARNESS_UNIT", "0"))),
                    "backend": self._backend})

    def info(self, pairs):
        """Provenance: a dict (or 'key=value' lines) of versions, flags, devices."""
        if isinstance(pairs, dict):
            text = "".join("%s=%s\n" % (k, str(v).replace("\n", " ")) for k, v in pairs.items())
        else:
            text = str(pairs)
        self._emit({"type": "info", "text": text})

    def cell(self, name, kind="op", workload="", op="", shape="", count=1, flops=0.0):
        """Declare a cell; returns its id for the records that follow."""
        if kind not in ("op", "e2e"):
            raise ProtocolError("a cell's kind is 'op' or 'e2e', not %r" % kind)
        if name in self._cells:
            raise ProtocolError("cell %r declared twice" % name)
        cid = len(self._cells)
        self._emit({"type": "cell", "id": cid, "name": name, "kind": kind,
                    "workload": workload, "op": op, "shape": shape,
                    "count": _int("count", count, 1), "flops": float(flops)})
        self._cells.append(name)
        self._next[cid] = 0
        return cid

    def _cell_id(self, cid):
        if not isinstance(cid, int) or not 0 <= cid < len(self._cells):
            raise ProtocolError("undeclared cell %r" % (cid,))
        return cid

    def samples(self, cid, ns, clock_mhz=None, throttle=None, launches=None,
                clock_reasons=None):
        """Append samples (integer ns) to a cell, in records of at most CHUNK.  clock_reasons:
        NVML's clock-event reasons bitmask per sample (-1 unknown)."""
        cid = self._cell_id(cid)
        ns = [_int("ns", int(v) if isinstance(v, float) and v.is_integer() else v) for v in ns]
        for name, extra in (("clock_mhz", clock_mhz), ("throttle", throttle),
                            ("launches", launches), ("clock_reasons", clock_reasons)):
            if extra is not None and len(extra) != len(ns):
                raise ProtocolError("'%s' has %d entries for %d samples" %
                                    (name, len(extra), len(ns)))
        for lo in range(0, len(ns), CHUNK):
            hi = min(lo + CHUNK, len(ns))
            rec = {"type": "samples", "cell": cid, "first": self._next[cid], "ns": ns[lo:hi]}
            if clock_mhz is not None:
                rec["clock_mhz"] = [_num_or_null("clock_mhz", v) for v in clock_mhz[lo:hi]]
            if throttle is not None:
                rec["throttle"] = [int(v) for v in throttle[lo:hi]]
            if launches is not None:
                rec["launches"] = [_int("launches", v, 1) for v in launches[lo:hi]]
            if clock_reasons is not None:
                rec["clock_reasons"] = [_int("clock_reasons", v, -1)
                                        for v in clock_reasons[lo:hi]]
            self._emit(rec)
            self._next[cid] += hi - lo

    def measure(self, cid, stop="max-samples", warmup_n=0, warmup_ns=0, rel_precision=None):
        cid = self._cell_id(cid)
        if stop not in STOPS:
            raise ProtocolError("'stop' is one of %s, not %r" % (", ".join(STOPS), stop))
        self._emit({"type": "measure", "cell": cid, "n": self._next[cid], "stop": stop,
                    "warmup_n": _int("warmup_n", warmup_n), "warmup_ns": _int("warmup_ns", warmup_ns),
                    "rel_precision": _num_or_null("rel_precision", rel_precision)})

    def trial(self, cid, config, status="ok", ns=(), cache_hit=False, compile_ns=0,
              bench_ns=0):
        """One configuration a tuner tried, with the samples it took of it."""
        cid = self._cell_id(cid)
        if status not in STATUSES:
            raise ProtocolError("trial status %r is not one of %s" % (status, STATUSES))
        ns = [_int("ns", v) for v in ns]
        s = sorted(ns)
        med = None
        if s:
            h = len(s) // 2
            med = float(s[h]) if len(s) % 2 else (s[h - 1] + s[h]) / 2.0
        self._emit({"type": "trial", "cell": cid, "config": str(config), "status": status,
                    "cache_hit": bool(cache_hit), "compile_ns": _int("compile_ns", compile_ns),
                    "n": len(ns), "median_ns": med,
                    "min_ns": float(s[0]) if s else None, "max_ns": float(s[-1]) if s else None,
                    "bench_ns": _int("bench_ns", bench_ns), "ns": ns})

    def choice(self, cid, config, reason="tuned"):
        cid = self._cell_id(cid)
        if reason not in REASONS:
            raise ProtocolError("choice reason %r is not one of %s" % (reason, REASONS))
        self._emit({"type": "choice", "cell": cid, "config": str(config), "reason": reason})

    def setup(self, compile_ns=0, tune_ns=0, search_ns=0, compiles=0, cache_hits=0,
              benchmarks=0, expects_work=None):
        """The unit's setup cost and counters.  expects_work defaults to the spec's
        `expects` (the harness judges a cache leak from the mode's own, in any case)."""
        if expects_work is None:
            expects_work = bool(self.spec.get("expects"))
        self._emit({"type": "setup", "compile_ns": _int("compile_ns", compile_ns),
                    "tune_ns": _int("tune_ns", tune_ns), "search_ns": _int("search_ns", search_ns),
                    "compiles": _int("compiles", compiles), "cache_hits": _int("cache_hits", cache_hits),
                    "benchmarks": _int("benchmarks", benchmarks), "expects_work": bool(expects_work)})

    def done(self, status="ok", message=""):
        if status not in STATUSES:
            raise ProtocolError("done status %r is not one of %s" % (status, STATUSES))
        self._emit({"type": "done", "status": status, "message": str(message)})
        self._done = True
