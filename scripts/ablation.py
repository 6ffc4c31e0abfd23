#!/usr/bin/python3
"""ablation.py: an experiment that swaps one op cell at a time into the baseline's forward,
so that a mode's per-op wins that do not compose end to end (harness report, "Per-op versus
end to end") can be traced to the layers that lose them (h5py and the standard library).

    /usr/bin/python3 scripts/ablation.py RESULTS.h5 --mode M [--baseline B] [--workload W]
        [--top N] [--repeats N] -o DIR

From a run's recorded choices: per op cell of workload W (default: the first with an e2e
cell), the config mode M chose and the one baseline B (default: the run's) chose, each the
most common over their cold ok units.  The cells where they differ are swapped, all of them
or the N whose count x |M's op time - B's| is largest (--top).  DIR gets:

- tables/all.toml: a lookup table (docs/kernels.md, `lut`) giving every op cell of W M's
  config; tables/only-K.toml: B's config for every cell but the K-th swapped one, which
  gets M's (exact entries: the tuner compiles and checks them, never benchmarks);
- ablation.toml: the recorded experiment with W alone, B as recorded (the baseline), its A/A
  copy `B-aa` (the margin), `all` (tuner lut on tables/all.toml: M's forward without its
  search) and `only-K` per swapped cell, on the backend the run resolved; its description
  and a comment list which cell each `only-K` swaps.

--repeats N gives the experiment N blocks instead of the run's (the top level's repeats and
those of every [on.BACKEND] table that sets its own).

Then `harness run DIR/ablation.toml` and `harness report`: each `only-K`'s composition row
is one layer's predicted against measured e2e ratio, so its interaction is that layer's in
situ; `all` against the product of the `only-K` ratios says whether the layers' effects add
up.  Exit 2 with a message for a file, mode or workload that is not there, or no cell to
swap."""
import argparse
import collections
import json
import math
import os
import statistics
import sys
import tomllib

import h5py


def s(v):
    return v.decode() if isinstance(v, bytes) else v


def fail(msg):
    sys.stderr.write("ablation.py: %s\n" % msg)
    sys.exit(2)


def load(path):
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        fail("'%s': not a results file (%s)" % (path, e))
    with f:
        cells = [{k: s(r[k]) for k in ("name", "kind", "workload", "op", "shape", "count")}
                 for r in f["cells"][:]]
        units = f["units"][:]
        choices = f["choices"][:]
        samples = f["samples"][:]
        exp = None
        for k in f["run"]["files"]:
            d = f["run"]["files"][k]
            if s(d.attrs["role"]) == "experiment":
                exp = tomllib.loads(s(d[()]))
        backend = s(f["run"].attrs.get("backend", ""))
    if exp is None:
        fail("'%s' records no experiment" % path)
    return exp, backend, cells, units, choices, samples


def modal_configs(mode, units, choices):
    """Per cell index: the config mode chose most often over its cold ok units (ties: the
    first seen), and how many units chose something else."""
    ids = {int(u["id"]) for u in units
           if s(u["mode"]) == mode and not u["warm"] and s(u["status"]) == "ok"}
    seen = collections.defaultdict(list)
    for r in choices:
        if int(r["unit"]) in ids:
            seen[int(r["cell"])].append(s(r["config"]))
    out = {}
    for c, v in seen.items():
        best = collections.Counter(v).most_common(1)[0][0]
        out[c] = (best, sum(1 for x in v if x != best))
    return out, ids


def median_times(ids, units, samples, ncells):
    """Per cell: the median over units (ids) of each unit's median sample, in ns, a sample
    being one execution's time as the harness reads it (kernels/sample.h's sample_exec_ns: a
    sample of L > 1 launches is its ns / L, rounded half away from zero)."""
    per = collections.defaultdict(list)
    for u in units:
        if int(u["id"]) not in ids:
            continue
        rows = samples[u["sample_first"]:u["sample_first"] + u["sample_count"]]
        one = "launches" not in rows.dtype.names  # layout 1: one launch a sample
        for c in range(ncells):
            v = [int(x["ns"]) if one or x["launches"] <= 1
                 else math.floor(x["ns"] / x["launches"] + 0.5) for x in rows[rows["cell"] == c]]
            if len(v):
                per[c].append(float(statistics.median(v)))
    return {c: statistics.median(v) for c, v in per.items()}


def shape_table(shape):
    out = {}
    for item in shape.split(","):
        k, _, v = item.partition("=")
        out[k] = int(v)
    return out


# ---- a TOML writer for what an experiment holds (strings, numbers, booleans, arrays of
# those, tables, arrays of tables)
def tval(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(tval(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join("%s = %s" % (tkey(k), tval(x)) for k, x in v.items()) + " }"
    raise TypeError(v)


def tkey(k):
    return k if k.replace("_", "").replace("-", "").isalnum() else json.dumps(k)


def ttable(name, d, out):
    """[name] with d's plain keys, then its sub-tables (dicts of dicts) as [name.sub]."""
    plain = {k: v for k, v in d.items() if not (isinstance(v, dict) and
                                                any(isinstance(x, dict) for x in v.values()))}
    out.append("\n[%s]" % name)
    for k, v in plain.items():
        out.append("%s = %s" % (tkey(k), tval(v)))
    for k, v in d.items():
        if k not in plain:
            ttable("%s.%s" % (name, tkey(k)), v, out)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--mode", required=True)
    ap.add_argument("--baseline")
    ap.add_argument("--workload")
    ap.add_argument("--top", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=0)
    ap.add_argument("-o", "--output", required=True)
    o = ap.parse_args()
    exp, backend, cells, units, choices, samples = load(o.results)
    modes = {m["name"]: m for m in exp["modes"]}
    base = o.baseline or next((m["name"] for m in exp["modes"] if m.get("baseline")),
                              exp["modes"][0]["name"])
    for m in (o.mode, base):
        if m not in modes:
            fail("'%s' has no mode '%s' (modes: %s)" % (o.results, m, ", ".join(modes)))
    if o.mode == base:
        fail("--mode and the baseline are both '%s'" % base)
    e2e = [c["workload"] for c in cells if c["kind"] == "e2e"]
    w = o.workload or (e2e[0] if e2e else None)
    if w is None or w not in {c["workload"] for c in cells}:
        fail("'%s' has no workload '%s' with cells" % (o.results, w))
    mc, mids = modal_configs(o.mode, units, choices)
    bc, bids = modal_configs(base, units, choices)
    mt = median_times(mids, units, samples, len(cells))
    bt = median_times(bids, units, samples, len(cells))
    ops = [i for i, c in enumerate(cells) if c["workload"] == w and c["kind"] == "op"]
    missing = [cells[i]["name"] for i in ops if i not in mc or i not in bc]
    if missing:
        fail("no recorded choice of '%s' or '%s' for %s" % (o.mode, base, ", ".join(missing)))
    swap = [i for i in ops if mc[i][0] != bc[i][0]]
    if not swap:
        fail("'%s' and '%s' chose the same config in every op cell of '%s'" % (o.mode, base, w))

    def weight(i):
        d = (mt.get(i, math.nan) - bt.get(i, math.nan)) * int(cells[i]["count"])
        return abs(d) if not math.isnan(d) else 0.0
    swap.sort(key=lambda i: -weight(i))
    if o.top > 0:
        swap = swap[:o.top]
    swap.sort()

    try:
        os.makedirs(os.path.join(o.output, "tables"), exist_ok=True)
    except OSError as e:
        fail("cannot make '%s': %s" % (os.path.join(o.output, "tables"), e.strerror))

    def table(name, desc, pick):
        out = ["# %s" % desc, "schema = 1", "description = %s" % json.dumps(desc)]
        for i in ops:
            out += ["", "[[entries]]", "op = %s" % json.dumps(cells[i]["op"]),
                    "shape = %s" % tval(shape_table(cells[i]["shape"])),
                    "config = %s" % json.dumps(pick(i))]
        write(os.path.join(o.output, "tables", name + ".toml"), "\n".join(out) + "\n")
    table("all", "every op cell of %s on %s's config (from %s)" % (w, o.mode, o.results),
          lambda i: mc[i][0])
    for k, c in enumerate(swap):
        table("only-%d" % k, "%s's configs, but %s's for %s" % (base, o.mode, cells[c]["name"]),
              lambda i, c=c: mc[i][0] if i == c else bc[i][0])

    # the experiment: the recorded one with W alone and the ablation's modes
    e = {k: v for k, v in exp.items() if k not in ("workloads", "modes", "hypotheses")}
    e["name"] = "%s-ablation" % exp.get("name", "run")
    e["description"] = ("one op cell of %s at a time on %s's config, the rest on %s's (from %s)"
                        % (w, o.mode, base, os.path.basename(o.results)))
    if backend and "," not in backend:
        e["backend"] = backend
    if o.repeats > 0:  # the top level's and every backend's own ([on.cuda] repeats = 8)
        e["repeats"] = o.repeats
        for v in (e.get("on") or {}).values():
            if isinstance(v, dict) and "repeats" in v:
                v["repeats"] = o.repeats
    wl = [x for x in exp["workloads"] if x.get("name", x.get("model", x.get("op"))) == w]
    if not wl:
        fail("the recorded experiment has no workload named '%s'" % w)
    bmode = {k: v for k, v in modes[base].items() if k not in ("workloads", "only_on")}
    bmode["baseline"] = True
    aa = {k: v for k, v in bmode.items() if k != "baseline"}
    aa["name"] = base + "-aa"
    aa["aa_of"] = base
    mlist = [bmode, aa, {"name": "all", "tuner": "lut",
                         "options": {"table": "tables/all.toml", "match": "exact"}}]
    for k in range(len(swap)):
        mlist.append({"name": "only-%d" % k, "tuner": "lut",
                      "options": {"table": "tables/only-%d.toml" % k, "match": "exact"}})
    out = ["# ablation.toml, written by scripts/ablation.py from %s:" % o.results,
           "# mode %s against %s on workload %s; each only-K takes %s's config for one cell:"
           % (o.mode, base, w, o.mode)]
    for k, c in enumerate(swap):
        out.append("#   only-%d: %s (%s -> %s)" % (k, cells[c]["name"], bc[c][0], mc[c][0]))
    head = {k: v for k, v in e.items() if not isinstance(v, dict)}
    for k, v in head.items():
        out.append("%s = %s" % (tkey(k), tval(v)))
    for k, v in e.items():
        if isinstance(v, dict):
            ttable(tkey(k), v, out)
    for x in wl:
        out += ["", "[[workloads]]"] + ["%s = %s" % (tkey(k), tval(v)) for k, v in x.items()]
    for m in mlist:
        out += ["", "[[modes]]"] + ["%s = %s" % (tkey(k), tval(v)) for k, v in m.items()]
    write(os.path.join(o.output, "ablation.toml"), "\n".join(out) + "\n")
    print("%s: %d cell(s) swapped, %d mode(s); run: harness run %s"
          % (os.path.join(o.output, "ablation.toml"), len(swap), len(mlist),
             os.path.join(o.output, "ablation.toml")))


if __name__ == "__main__":
    sys.exit(main())
