#!/usr/bin/env python3
"""doc-tuner.py: random search with local steps, speaking docs/tuner-protocol.md directly
(standard library only, no harness_tuner.py).  Written against that page's text alone, to
show that the page is enough to write a tuner (see tests/cli/tuner-external.sh).

A quarter of the trial budget (at least 3) goes to uniformly random valid points; then each
proposal is a local step from the best configuration so far: one field moved to the next
value up or down (two fields with probability 0.25), a random point when no unseen neighbour
is found.  Every configuration is proposed at most once.  It stops when the harness closes
its input (the budget is spent) or, with no budget, when every valid point has been seen.
"""
import json
import random
import sys


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def receive():
    line = sys.stdin.readline()
    return json.loads(line) if line else None


def main():
    msg = receive()
    if msg is None or "start" not in msg:
        sys.exit("doc-tuner: no start message")
    st = msg["start"]
    fields = st["fields"]
    names = [f["name"] for f in fields]
    rng = random.Random(st["seed"])
    valid = st["valid"]
    key = lambda c: tuple(c[n] for n in names)
    valid_keys = {key(c) for c in valid} if valid is not None else None
    trials = (st.get("budget") or {}).get("trials")
    n_random = max(3, (trials or 40) // 4)
    seen = set()
    best, best_ns = None, float("inf")

    def random_point():
        for _ in range(10000):
            c = rng.choice(valid) if valid is not None else \
                {f["name"]: rng.choice(f["values"]) for f in fields}
            if key(c) not in seen:
                return c
        return None

    def local_step(c):
        for _ in range(200):
            n = dict(c)
            for f in rng.sample(fields, 2 if len(fields) > 1 and rng.random() < 0.25 else 1):
                vals = f["values"]
                i = vals.index(n[f["name"]]) + rng.choice((-1, 1))
                if 0 <= i < len(vals):
                    n[f["name"]] = vals[i]
            k = key(n)
            if k not in seen and (valid_keys is None or k in valid_keys):
                return n
        return random_point()

    count = 0
    while True:
        if valid is not None and len(seen) >= len(valid):
            send({"done": True})
            return
        if count < n_random or best is None:
            cfg = st["start"] if count == 0 and st["start"] is not None else random_point()
        else:
            cfg = local_step(best)
        if cfg is None:
            send({"done": True})
            return
        seen.add(key(cfg))
        send({"propose": cfg})
        msg = receive()
        if msg is None:
            return  # the budget is spent
        r = msg["result"]
        if r["status"] == "invalid":
            continue
        count += 1
        if r["status"] == "ok" and r["median_ns"] is not None and r["median_ns"] < best_ns:
            best, best_ns = r["config"], r["median_ns"]


if __name__ == "__main__":
    main()
