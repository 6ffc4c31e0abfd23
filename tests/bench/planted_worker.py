"""tests/bench/planted_worker.py: a command unit with a planted truth, for the simulation
study of the verdicts (tests/bench/sim-verdicts.py, tests/bench/sim-verdicts.toml).  Written
with kernels/python/harness_unit.py, like tests/data/command/fake_worker.py; standard library
only, no sleeping, so one unit costs about a Python start-up.

One op cell per workload it is given, "W/planted".  A unit's level is

    level_ns x effect[mode] x process x block

and its samples are that level times lognormal within-unit noise (`within`), one per sample
the unit's [measure] min_samples asks for.  Options (the mode's `options`; an A/A copy takes
its original's, so everything per mode is a table keyed by mode name):

  effect      = {mode = factor}: the true ratio of that mode to the others (default 1.0)
  sigma       = the process effect's lognormal sigma (default 0.01)
  mix_share   = the share of processes that are slow for their whole life (default 0)
  mix_slow    = how much slower such a process runs (default 1.3: 30% slower)
  block_sigma = the block effect's lognormal sigma, shared by every unit of a block (0.01)
  within      = the within-unit sample noise's lognormal sigma (default 0.0005: 0.05%)
  level_ns    = the level of the baseline (default 100000)
  rep         = the replication id (an integer)

The process effect is drawn from a stream seeded from (the spec's seed, the unit's plan id,
rep), the block effect from (seed, block, rep): a unit's truth is a function of the run's
seed, its plan position and the replication, never of the clock, so a replication can be run
again and gives the same samples.  The unit records its draws as an info record
(planted_process, planted_block, planted_slow), for a check against the report."""
import hashlib
import math
import random

import harness_unit as hu


def stream(*parts):
    """A random.Random seeded from the parts by SHA-256 (stable across Python versions)."""
    h = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return random.Random(int.from_bytes(h[:8], "little"))


spec = hu.read_spec()
opt = spec["options"]
mode = spec["mode"]
rep = int(opt.get("rep", 0))
seed = int(spec["seed"])
effect = float(opt.get("effect", {}).get(mode, 1.0))
sigma = float(opt.get("sigma", 0.01))
mix_share = float(opt.get("mix_share", 0.0))
mix_slow = float(opt.get("mix_slow", 1.3))
block_sigma = float(opt.get("block_sigma", 0.01))
within = float(opt.get("within", 0.0005))
level = float(opt.get("level_ns", 100000))

pr = stream("process", seed, spec["unit"], rep)
proc = math.exp(pr.gauss(0.0, sigma)) if sigma > 0 else 1.0
slow = pr.random() < mix_share
if slow:
    proc *= mix_slow
br = stream("block", seed, spec["block"], rep)
blk = math.exp(br.gauss(0.0, block_sigma)) if block_sigma > 0 else 1.0
sr = stream("samples", seed, spec["unit"], rep)

with hu.Unit(spec, backend="planted") as u:
    u.info({"planted_effect": repr(effect), "planted_process": repr(proc),
            "planted_block": repr(blk), "planted_slow": int(slow), "planted_rep": rep})
    n = int(spec["measure"]["min_samples"])
    unit_level = level * effect * proc * blk
    for w in spec["workloads"]:
        c = u.cell(w["name"] + "/planted", kind="op", workload=w["name"], op="planted",
                   shape="n=1")
        u.choice(c, "planted", "rule")
        u.samples(c, [max(1, int(round(unit_level * math.exp(sr.gauss(0.0, within)))))
                      for _ in range(n)])
        u.measure(c, stop="max-samples")
    u.setup()
    u.done("ok")
