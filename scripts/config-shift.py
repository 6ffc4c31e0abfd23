#!/usr/bin/env python3
"""config-shift.py OLD NEW [cell|tile]: how each config's time moved between two results
files of the same experiment (two builds, or two cards), or two modes of one: the trials'
medians (ns) of every (cell, config) both hold, each side's median over its units, then
NEW / OLD.  OLD and NEW are FILE or FILE:MODE (the trials of that mode's units alone; e.g.
run.h5:exhaustive-gather run.h5:exhaustive, an A/B of a backend switch in the same blocks).

Grouped by cell (the default: per cell, the vendor's points and the template's by STAGES)
or by tile (WARPS, BLOCK_M x BLOCK_N, STAGES over all cells).  The vendor's ratio is the
card's and the clocks' share of a shift; a template group's ratio beyond it is the build's.
Used for conv.cu's run-time pipeline depth and its TMA-only modules (docs/BENCHMARKS.md,
2026-11-30, stops 62 and 63).
Needs h5py (Debian: python3-h5py)."""
import collections
import math
import os
import statistics
import sys

import h5py


def medians(arg):
    path, mode = arg, None
    if not os.path.exists(arg) and ":" in arg:
        path, mode = arg.rsplit(":", 1)
    f = h5py.File(path, "r")
    cells = f["cells"][:]
    modes = [m.decode() for m in f["units"]["mode"]]
    if mode is not None and mode not in modes:
        sys.exit("config-shift.py: %s has no unit of mode '%s' (modes: %s)" %
                 (path, mode, ", ".join(sorted(set(modes)))))
    per = collections.defaultdict(list)
    for r in f["trials"][:]:
        if mode is not None and modes[r["unit"]] != mode:
            continue
        if r["status"] == b"ok":
            name = cells[r["cell"]]["name"].decode().split("/")[0]
            per[(name, r["config"].decode())].append(r["median_ns"])
    return {k: statistics.median(v) for k, v in per.items()}


def fields(config):
    return dict(kv.split("=", 1) for kv in config.split(",") if "=" in kv)


def main():
    if len(sys.argv) < 3 or (len(sys.argv) > 3 and sys.argv[3] not in ("cell", "tile")):
        sys.exit("usage: config-shift.py OLD NEW [cell|tile]")
    old, new = medians(sys.argv[1]), medians(sys.argv[2])
    by = sys.argv[3] if len(sys.argv) > 3 else "cell"
    groups = collections.defaultdict(list)
    for key, t in old.items():
        if key not in new or not t > 0 or math.isnan(new[key]):
            continue  # (a vendor engine's failed trials record no time)
        cell, config = key
        if config.startswith("vendor"):
            g = (cell, "vendor") if by == "cell" else ("vendor",)
        else:
            f = fields(config)
            g = ((cell, "STAGES=" + f.get("STAGES", "?")) if by == "cell" else
                 ("WARPS=" + f.get("WARPS", "?"), f.get("BLOCK_M", "?") + "x" +
                  f.get("BLOCK_N", "?"), "STAGES=" + f.get("STAGES", "?")))
        groups[g].append(new[key] / t)
    print("| group | pairs | NEW / OLD: median (lowest, highest) |")
    print("|---|---|---|")
    for g in sorted(groups):
        v = groups[g]
        print("| %s | %d | %.3f (%.3f, %.3f) |" % (" ".join(g), len(v), statistics.median(v),
                                                    min(v), max(v)))
    if not groups:
        sys.exit("config-shift.py: no (cell, config) in both files")


if __name__ == "__main__":
    main()
