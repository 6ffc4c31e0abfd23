#!/usr/bin/python3
"""layer-table.py: per op cell of a CUDA run, the best template config against the vendor
(cuDNN / cuBLASLt heuristic), from the exhaustive units' own trials; a Markdown table on
stdout (docs/BENCHMARKS.md, issue 11's per-layer numbers).

    scripts/layer-table.py RESULTS.h5 [WORKLOAD] [TUNED_MODE] [FIELD=VALUE]

Both sides come from the same unit (TUNED_MODE, default "exhaustive"): its trial of the
first vendor candidate ("vendor:..." first in the space's vendor list: cuDNN's heuristic
algorithm, what the `default` mode runs) and its fastest correct template trial (a config
that is not a vendor point), each the median of the trial's samples per execution (graph
replays; `trial_samples` of them).  Per cell the median over the units of the run, then:
time ratio template / vendor (< 1: the template is faster), throughput ratio vendor time /
template time, TFLOP/s of each (the cell's recorded flops), in how many of the units that
timed both the template was the faster (the pair compared within its unit), the template
config most often fastest.  Below the table: the geometric mean of the time ratio over the
cells, how many non-GEMM cells (convolutions and the memory-bound ops) have the template
faster by the medians, and how many in every unit (with n units, a sign test's one-sided p
is 0.5^n: 2 units cannot tell it from chance, 8 can), and over the convolutions the
geometric mean of the throughput ratio (issue 11's 70% target, issue 49's 95%), how many
reach 70%, 80% and 90% and how many are faster; then, on the CUDA backend, what the vendor
ran at each cell (the units' vendor_kernels lines: cuDNN's or cuBLASLt's kernels by name).
FIELD=VALUE (e.g. CLUSTER=1) keeps only the template trials whose config has that value
(FIELD=V1|V2: any of them, e.g. STAGES=3|4 against the whole table), so that one field's
values can be read apart ("" or "-" for WORKLOAD: every workload).  Read with h5py only (no
harness); needs the results format of docs/results-format.md.
"""
import collections
import math
import statistics
import sys

import h5py


def s(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def main(path, workload=None, tuned="exhaustive", only=None):
    workload = None if workload in ("", "-") else workload
    field, _, values = (only or "").partition("=")
    values = set(values.split("|"))
    f = h5py.File(path, "r")
    cells = f["cells"][:]
    units = f["units"][:]
    trials = f["trials"][:]
    vend = f["space_vendors"][:]
    tuned_units = sorted(int(u["id"]) for u in units
                         if s(u["mode"]) == tuned and not u["warm"] and s(u["status"]) == "ok")
    if not tuned_units:
        sys.exit("layer-table: no ok cold '%s' unit in %s" % (tuned, path))
    first_vendor = {}  # (unit, cell) -> config string of vendor candidate 0
    for v in vend:
        if int(v["candidate"]) == 0:
            first_vendor[(int(v["unit"]), int(v["cell"]))] = s(v["config"])
    vendor, best = {}, {}  # (unit, cell) -> vendor time; -> (best template time, config)
    for t in trials:
        u, c = int(t["unit"]), int(t["cell"])
        if u not in tuned_units or s(t["status"]) != "ok" or not t["median_ns"] > 0:
            continue
        cfg = s(t["config"])
        if cfg == first_vendor.get((u, c)):
            vendor[(u, c)] = float(t["median_ns"])
        elif not cfg.startswith("vendor"):
            if only and dict(kv.split("=", 1) for kv in cfg.split(",")).get(field) not in values:
                continue
            b = best.get((u, c))
            if b is None or t["median_ns"] < b[0]:
                best[(u, c)] = (float(t["median_ns"]), cfg)
    print("| cell (count) | vendor: us (TFLOP/s) | best template: us (TFLOP/s) | time ratio "
          "template / vendor | throughput template / vendor | template faster in units | "
          "template config (most often fastest) |")
    print("|---|---|---|---|---|---|---|")
    logs, faster, every, nongemm, conv = [], 0, 0, 0, []
    for i, c in enumerate(cells):
        name = s(c["name"])
        if s(c["kind"]) != "op" or (workload and s(c["workload"]) != workload):
            continue
        vs = [vendor[(u, i)] for u in tuned_units if (u, i) in vendor]
        bs = [best[(u, i)] for u in tuned_units if (u, i) in best]
        if not vs or not bs:
            continue
        v, t = statistics.median(vs), statistics.median(ns for ns, _ in bs)
        flops = float(c["flops"])
        tf = lambda ns: " (%.1f)" % (flops / ns / 1e3) if flops > 0 else ""
        cfg = collections.Counter(k for _, k in bs).most_common(1)[0][0]
        r = t / v
        both = [u for u in tuned_units if (u, i) in vendor and (u, i) in best]
        won = sum(1 for u in both if best[(u, i)][0] < vendor[(u, i)])
        logs.append(math.log(r))
        if "gemm" not in s(c["op"]):  # gemm (cuda), sgemm (cpu)
            nongemm += 1
            faster += r < 1
            every += bool(both) and won == len(both)
        if s(c["op"]).startswith("conv"):
            conv.append(r)
        print("| `%s` (%d) | %.2f%s | %.2f%s | %.3f | %.1f%% | %d of %d | `%s` |" % (
            name, int(c["count"]), v / 1e3, tf(v), t / 1e3, tf(t), r, 100 / r, won,
            len(both), cfg))
    if not logs:
        sys.exit("layer-table: no cell has both a vendor and a template trial")
    print()
    print("%d cells (units: %d); geometric mean of the time ratio template / vendor: %.3f; "
          "template faster than the vendor on %d of %d non-GEMM cells (in every unit: %d; "
          "one-sided sign-test p of a cell faster in all %d units: %.3g)" % (
              len(logs), len(tuned_units), math.exp(sum(logs) / len(logs)), faster, nongemm,
              every, len(tuned_units), 0.5 ** len(tuned_units)))
    if conv:  # issue 11's target: the convolutions' throughput against the vendor's
        print("%d convolutions: geometric mean of the throughput template / vendor %.1f%%; "
              "%d at 70%% or more, %d at 80%%, %d at 90%%, %d faster than the vendor; the "
              "lowest %.1f%%" % (
                  len(conv), 100 / math.exp(sum(map(math.log, conv)) / len(conv)),
                  sum(1 for r in conv if 1 / r >= 0.7), sum(1 for r in conv if 1 / r >= 0.8),
                  sum(1 for r in conv if 1 / r >= 0.9), sum(1 for r in conv if r < 1),
                  100 / max(conv)))
    vendor_kernels(f, units, cells, tuned_units, workload)


def vendor_kernels(f, units, cells, tuned_units, workload):
    """What the vendor ran at each cell: the CUDA backend's vendor_kernels.<cell> lines (its
    first candidate's kernels, named by the driver: docs/kernels.md, "Timing") in the tuned
    units' info, the most common per cell; nothing when no unit has them (the CPU backend)."""
    whole = {}  # a unit's info past 64 KiB is whole in /long_strings (docs/results-format.md)
    if "long_strings" in f:
        lb = f["long_bytes"][:].tobytes()
        for r in f["long_strings"][:]:
            if s(r["table"]) == "/units" and s(r["field"]) == "info":
                whole[int(r["row"])] = lb[r["first"]:r["first"] + r["bytes"]].decode()
    seen = collections.defaultdict(collections.Counter)
    for row, u in enumerate(units):
        if int(u["id"]) not in tuned_units:
            continue
        for line in whole.get(row, s(u["info"])).splitlines():
            if line.startswith("vendor_kernels."):
                key, _, text = line.partition("=")
                seen[int(key.split(".")[1])][text] += 1
    rows = [(i, seen[i].most_common(1)[0][0]) for i in sorted(seen)
            if i < len(cells) and (not workload or s(cells[i]["workload"]) == workload)]
    if not rows:
        return
    print()
    print("What the vendor ran (its first candidate's kernels, `vendor_kernels`):")
    print()
    print("| cell | vendor config: kernels |")
    print("|---|---|")
    for i, text in rows:
        print("| `%s` | `%s` |" % (s(cells[i]["name"]), text))


if __name__ == "__main__":
    if len(sys.argv) < 2 or len(sys.argv) > 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
