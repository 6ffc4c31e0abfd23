#!/usr/bin/env python3
# doc-tuner: an external tuner written from docs/tuner-protocol.md alone, by an
# agent that read nothing else of the repository (not the harness, not
# harness_tuner, not the other tuners). It speaks protocol 1 directly: lines of
# JSON on standard input (harness -> tuner) and standard output (tuner ->
# harness); all logging goes to standard error.
#
# Search: "random search with local steps". Seeded from the start message's
# seed. It proposes the heuristic start configuration first (when given and
# valid), then a few random configurations, then mostly neighbours (one field
# moved one value up or down in its values list) of the best ok configuration so
# far, with an occasional random jump. It never proposes a configuration twice
# while an untried one is available. It sends {"done": true} once every valid
# configuration has been tried (when the space is listed or counted), and exits
# cleanly when its input ends. Standard library only.

import itertools
import json
import random
import sys

NAME = "doc-tuner"
RANDOM_JUMP = 0.2          # chance of a random proposal once local steps begin
MAX_RANDOM_START = 10      # most random proposals before local steps begin
ENUMERATE_LIMIT = 200000   # grid sizes up to this are enumerated when "valid" is null
INVALID_LIMIT = 99000      # stay under the harness's 100,000 "invalid" answers
SAMPLE_TRIES = 2000        # random draws before giving up on finding an untried point
SELF_MAX_TRIALS = 100      # with no budget at all: most trials we measure
SELF_STALL = 30            # with no budget at all: stop after this many trials without improvement


def log(*args):
    print(NAME + ":", *args, file=sys.stderr, flush=True)


class EndOfInput(Exception):
    pass


def read_message():
    """The next JSON object from the harness; EndOfInput at end-of-file."""
    while True:
        line = sys.stdin.readline()
        if not line:
            raise EndOfInput()
        line = line.strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            log("ignoring a line that is not JSON:", line[:200])
            continue
        if isinstance(msg, dict):
            return msg
        log("ignoring a message that is not an object:", line[:200])


def send(obj):
    try:
        sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
        sys.stdout.flush()
    except (BrokenPipeError, OSError, ValueError):
        raise EndOfInput()


class Space:
    """The grid: configurations are kept as tuples of value indices."""

    def __init__(self, fields):
        self.names = []
        self.kinds = []
        self.values = []
        self.lookup = []
        for f in fields:
            kind = f.get("kind", "string")
            vals = list(f.get("values") or [])
            self.names.append(f["name"])
            self.kinds.append(kind)
            self.values.append(vals)
            table = {}
            for i, v in enumerate(vals):
                key = self._norm(kind, v)
                if key is not None and key not in table:
                    table[key] = i
            self.lookup.append(table)
        size = 1
        for vals in self.values:
            size *= len(vals)
        self.size = size

    @staticmethod
    def _norm(kind, v):
        try:
            if kind == "int":
                if isinstance(v, str):
                    v = v.strip()
                    return int(float(v)) if ("." in v or "e" in v.lower()) else int(v)
                return int(v)
            if kind == "float":
                return float(v)
            return str(v)
        except (TypeError, ValueError):
            return None

    def to_index(self, config):
        """A config object (or 'a=1,b=2' string) as an index tuple; None if not a grid point."""
        if isinstance(config, str):
            parsed = {}
            for part in config.split(","):
                if "=" not in part:
                    return None
                k, v = part.split("=", 1)
                parsed[k.strip()] = v.strip()
            config = parsed
        if not isinstance(config, dict) or len(config) != len(self.names):
            return None
        idx = []
        for name, kind, table in zip(self.names, self.kinds, self.lookup):
            if name not in config:
                return None
            i = table.get(self._norm(kind, config[name]))
            if i is None:
                return None
            idx.append(i)
        return tuple(idx)

    def to_config(self, idx):
        return {n: vals[i] for n, vals, i in zip(self.names, self.values, idx)}

    def neighbours(self, idx):
        out = []
        for d, i in enumerate(idx):
            for j in (i - 1, i + 1):
                if 0 <= j < len(self.values[d]):
                    out.append(idx[:d] + (j,) + idx[d + 1:])
        return out

    def random_point(self, rng):
        return tuple(rng.randrange(len(vals)) for vals in self.values)

    def all_points(self):
        return itertools.product(*[range(len(vals)) for vals in self.values])


class Pool:
    """Untried candidates with O(1) random pick and removal."""

    def __init__(self, items):
        self.items = list(items)
        self.pos = {x: i for i, x in enumerate(self.items)}

    def __contains__(self, x):
        return x in self.pos

    def __len__(self):
        return len(self.items)

    def remove(self, x):
        i = self.pos.pop(x, None)
        if i is None:
            return
        last = self.items.pop()
        if i < len(self.items):
            self.items[i] = last
            self.pos[last] = i

    def pick(self, rng):
        return self.items[rng.randrange(len(self.items))]


class Tuner:
    def __init__(self, start):
        self.space = Space(start.get("fields") or [])
        seed = start.get("seed")
        self.rng = random.Random(seed if isinstance(seed, int) else 0)
        budget = start.get("budget") or {}
        self.budget_trials = budget.get("trials")
        self.budget_seconds = budget.get("seconds")
        self.self_limited = self.budget_trials is None and self.budget_seconds is None
        self.nvalid = start.get("nvalid")

        self.listed = start.get("valid") is not None
        if self.listed:
            points = []
            for c in start.get("valid") or []:
                idx = self.space.to_index(c)
                if idx is None:
                    log("valid configuration not on the grid, skipped:", c)
                else:
                    points.append(idx)
            self.pool = Pool(dict.fromkeys(points))
            self.nvalid = len(self.pool)
        elif self.space.size <= ENUMERATE_LIMIT:
            self.pool = Pool(self.space.all_points())
        else:
            self.pool = None  # sample the grid at random

        self.tried = set()      # measured (any status except invalid)
        self.invalid = set()    # answered "invalid"
        self.invalid_answers = 0
        self.results = []       # (median_ns, idx) of ok trials
        self.best = None
        self.trials = 0
        self.since_improvement = 0

        self.start_idx = None
        if start.get("start") is not None:
            idx = self.space.to_index(start["start"])
            if idx is None:
                log("start configuration is not a grid point, ignored:", start["start"])
            elif self.pool is not None and idx not in self.pool:
                log("start configuration is not among the valid ones, ignored")
            else:
                self.start_idx = idx

        if self.budget_trials is not None:
            self.n_random = max(1, min(MAX_RANDOM_START, self.budget_trials // 4))
        else:
            self.n_random = MAX_RANDOM_START

    def untried(self, idx):
        if self.pool is not None:
            return idx in self.pool
        return idx not in self.tried and idx not in self.invalid

    def random_untried(self):
        if self.pool is not None:
            return self.pool.pick(self.rng) if len(self.pool) else None
        for _ in range(SAMPLE_TRIES):
            idx = self.space.random_point(self.rng)
            if self.untried(idx):
                return idx
        return None

    def local_step(self):
        for _, centre in sorted(self.results)[:5]:
            cands = [n for n in self.space.neighbours(centre) if self.untried(n)]
            if cands:
                return self.rng.choice(cands)
        return None

    def finished(self):
        if self.pool is not None and len(self.pool) == 0:
            return "every valid configuration has been tried"
        if self.nvalid is not None and len(self.tried) >= self.nvalid:
            return "every valid configuration has been tried"
        if self.invalid_answers >= INVALID_LIMIT:
            return "too many invalid answers"
        if self.self_limited:
            if self.trials >= SELF_MAX_TRIALS:
                return "no budget given; trial limit of %d reached" % SELF_MAX_TRIALS
            if self.trials >= self.n_random and self.since_improvement >= SELF_STALL:
                return "no budget given; %d trials without improvement" % SELF_STALL
        return None

    def next_proposal(self):
        why = self.finished()
        if why:
            log(why)
            return None
        if self.start_idx is not None and self.untried(self.start_idx):
            idx, self.start_idx = self.start_idx, None
            return idx
        self.start_idx = None
        idx = None
        if self.results and self.trials >= self.n_random and self.rng.random() >= RANDOM_JUMP:
            idx = self.local_step()
        if idx is None:
            idx = self.random_untried()
        if idx is None:
            if self.pool is None and self.space.size > 0:
                # A huge grid where random draws keep hitting known points:
                # a repeat is allowed by the protocol, but stop instead.
                log("no untried configuration found by sampling")
            return None
        return idx

    def record(self, idx, result):
        status = result.get("status")
        if status == "invalid":
            self.invalid.add(idx)
            self.invalid_answers += 1
            if self.pool is not None:
                self.pool.remove(idx)
            return
        self.trials += 1
        self.tried.add(idx)
        if self.pool is not None:
            self.pool.remove(idx)
        median = result.get("median_ns")
        improved = False
        if status == "ok" and isinstance(median, (int, float)):
            self.results.append((float(median), idx))
            if self.best is None or median < self.best[0]:
                self.best = (float(median), idx)
                improved = True
        self.since_improvement = 0 if improved else self.since_improvement + 1
        log("trial %s: %s %s median_ns=%s%s" % (
            result.get("trial", self.trials), self.space.to_config(idx), status, median,
            " (best)" if improved else ""))

    def run(self):
        log("space: %d fields, grid %d, valid %s, budget trials=%s seconds=%s" % (
            len(self.space.names), self.space.size,
            self.nvalid if self.nvalid is not None else "unknown",
            self.budget_trials, self.budget_seconds))
        while True:
            idx = self.next_proposal()
            if idx is None:
                send({"done": True})
                return
            send({"propose": self.space.to_config(idx)})
            while True:
                msg = read_message()
                if "result" in msg and isinstance(msg["result"], dict):
                    break
                log("ignoring a message while waiting for a result:", sorted(msg))
            self.record(idx, msg["result"])


def main():
    try:
        while True:
            msg = read_message()
            if isinstance(msg.get("start"), dict):
                break
            log("ignoring a message before start:", sorted(msg))
        start = msg["start"]
        if start.get("protocol") != 1:
            log("warning: protocol %r, expected 1" % (start.get("protocol"),))
        tuner = Tuner(start)
        tuner.run()
        if tuner.best is not None:
            log("done; best %s at %.0f ns" % (tuner.space.to_config(tuner.best[1]), tuner.best[0]))
        else:
            log("done; no ok trial")
    except EndOfInput:
        log("end of input; exiting")
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
