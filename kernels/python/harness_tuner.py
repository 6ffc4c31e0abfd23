"""harness_tuner: write a tuner for the harness's "external" tuner in Python, speaking the
propose/observe protocol of docs/tuner-protocol.md.

Standard library only.  The harness starts the tuner program once per cell (and seed), with
this folder on PYTHONPATH, sends the cell's space and budget as one JSON line on stdin, then
answers each proposal with its measurement.  The harness keeps the budget and chooses the
fastest ok trial; the tuner only proposes.  Typical use:

    import harness_tuner as ht
    space, budget = ht.start()          # the "start" message; print() now goes to stderr
    cfg = space["start"] or space["valid"][0]
    while cfg is not None:
        result = ht.propose(cfg)        # a dict, or None: the harness ended the search
        if result is None:
            break
        if result["status"] == "ok":
            ...                         # result["median_ns"], result["samples"] (ns)
        cfg = pick_next(...)
    ht.done()                           # no more proposals (harmless after None)

start() returns (space, budget): space is the start message's dict ("cell", "op", "shape",
"fields" [{"name", "kind", "values", "step"}], "vendor", "valid" (a list of configs, or None
when the space has too many points to list), "nvalid", "seed", "start" (the heuristic's
config or None)); budget is {"trials": int or None, "seconds": float or None}.  A config is
a dict {FIELD: value} with each value as the field's "values" write it (an int, a float or a
string), or a string "FIELD=VALUE,..." / "vendor".  propose() returns the result dict
("config", "status" one of ok, compile-error, incorrect, failed, or "invalid" (with "why")
when the valid points were not listed and the constraint excludes the config; "median_ns"
(None unless ok), "samples" (each sample's time in ns), "compile_ns", "trial").  An invalid
proposal is not a trial and costs no budget.  points(space) yields the valid points when
listed, else every grid point (some of which may be invalid).

Once start() has run, the protocol owns file descriptor 1: sys.stdout (print) is sent to
stderr, which the harness keeps in the unit's log (or shows, in a replay).
"""

import itertools
import json
import os
import sys

PROTOCOL = 1
STATUSES = ("ok", "compile-error", "incorrect", "failed", "invalid")


class ProtocolError(Exception):
    """A message this module cannot read or refuses to write."""


class Session:
    """One conversation with the harness: a start message, proposals and their results."""

    def __init__(self, stream_in=None, stream_out=None):
        self._in = stream_in
        self._out = stream_out
        self.space = None
        self.budget = None
        self.trials = 0
        self.ended = False  # the harness closed the conversation (budget spent)
        self._done = False

    def start(self):
        """Read the start message; (space, budget)."""
        if self._out is None:
            # the protocol keeps fd 1; stray prints go to stderr instead
            self._out = os.fdopen(os.dup(1), "w", encoding="utf-8")
            os.dup2(2, 1)
            sys.stdout = sys.stderr
        if self._in is None:
            self._in = sys.stdin
        line = self._in.readline()
        if not line:
            raise ProtocolError("no start message: not started by the harness?")
        msg = json.loads(line)
        if not isinstance(msg, dict) or not isinstance(msg.get("start"), dict):
            raise ProtocolError("the first message is not {\"start\": ...}: %r" % line[:200])
        st = msg["start"]
        if st.get("protocol") != PROTOCOL:
            raise ProtocolError("protocol %r, this module speaks %d" % (st.get("protocol"), PROTOCOL))
        self.space = st
        self.budget = st.get("budget") or {"trials": None, "seconds": None}
        return self.space, self.budget

    def _send(self, obj):
        try:
            self._out.write(json.dumps(obj, separators=(",", ":")) + "\n")
            self._out.flush()
            return True
        except BrokenPipeError:
            self.ended = True
            return False

    def propose(self, config):
        """Propose config; its result dict, or None when the harness has ended the search."""
        if self.space is None:
            raise ProtocolError("propose() before start()")
        if self._done:
            raise ProtocolError("propose() after done()")
        if self.ended:
            return None
        if not isinstance(config, (dict, str)):
            raise ProtocolError("a config is a dict {FIELD: value} or a string, not %r" % (config,))
        if not self._send({"propose": config}):
            return None
        line = self._in.readline()
        if not line:
            self.ended = True
            return None
        msg = json.loads(line)
        if not isinstance(msg, dict) or not isinstance(msg.get("result"), dict):
            raise ProtocolError("expected {\"result\": ...}, got %r" % line[:200])
        result = msg["result"]
        if result.get("status") != "invalid":
            self.trials += 1
        return result

    def done(self):
        """Say there is nothing more to propose (nothing is sent once the harness ended)."""
        if self._done:
            return
        self._done = True
        if not self.ended and self.space is not None:
            self._send({"done": True})


def points(space):
    """The valid points when the start message listed them, else every grid point."""
    if space.get("valid") is not None:
        return iter(space["valid"])
    names = [f["name"] for f in space["fields"]]
    return (dict(zip(names, vals)) for vals in
            itertools.product(*[f["values"] for f in space["fields"]]))


_session = Session()


def start():
    """(space, budget) of the cell to tune (see the module's docstring)."""
    return _session.start()


def propose(config):
    """The result of measuring config, or None when the search is over."""
    return _session.propose(config)


def done():
    """No more proposals."""
    _session.done()
