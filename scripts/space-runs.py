#!/usr/bin/python3
"""space-runs.py: how many /space_invalid rows a results file's units hold, and how many they
would hold as runs of consecutive grid points excluded for one reason (the recorder's rows
since 2026-11-30, stop 65: docs/results-format.md, /space_invalid's `count`).

    scripts/space-runs.py RESULTS.h5

Per mode: units, rows a unit (points: a row's `count`, 1 in older files), runs a unit; then
the file's totals and the table's size on disk.  Read with h5py alone."""
import collections
import os
import sys

import h5py
import numpy as np


def main(path):
    f = h5py.File(path, "r")
    if "space_invalid" not in f:
        sys.exit("space-runs: %s has no /space_invalid" % path)
    units = f["units"][:]
    mode = {int(u["id"]): u["mode"].decode() for u in units}
    d = f["space_invalid"]
    has_count = "count" in d.dtype.names
    rows, points, runs = collections.Counter(), collections.Counter(), collections.Counter()
    prev = None  # the last row of the chunk before: (unit, cell, why, next point)
    step = 1 << 20
    for start in range(0, d.shape[0], step):
        a = d[start:start + step]
        u, c, p, why = a["unit"], a["cell"], a["point"], a["why"]
        n = a["count"] if has_count else np.ones(len(a), dtype=np.int64)
        # a row continues the run before it: same unit, cell and reason, its first point
        # the next one after that run's last
        cont = np.zeros(len(a), dtype=bool)
        cont[1:] = (u[1:] == u[:-1]) & (c[1:] == c[:-1]) & (why[1:] == why[:-1]) & \
            (p[1:] == p[:-1] + n[:-1])
        if prev is not None:
            cont[0] = (u[0], c[0], why[0], p[0]) == prev
        prev = (u[-1], c[-1], why[-1], p[-1] + n[-1])
        for k, v in zip(*np.unique(u, return_counts=True)):
            rows[int(k)] += int(v)
        for k, v in zip(*np.unique(u[~cont], return_counts=True)):
            runs[int(k)] += int(v)
        for k in np.unique(u):
            points[int(k)] += int(n[u == k].sum())
    by = collections.defaultdict(list)
    for u in rows:
        by[mode.get(u, "?")].append(u)
    print("| mode | units | rows a unit | points a unit | runs a unit |")
    print("|---|---|---|---|---|")
    for m in sorted(by):
        us = by[m]
        print("| %s | %d | %d-%d | %d-%d | %d-%d |" % (
            m, len(us), min(rows[u] for u in us), max(rows[u] for u in us),
            min(points[u] for u in us), max(points[u] for u in us),
            min(runs[u] for u in us), max(runs[u] for u in us)))
    print()
    print("%s: %d rows for %d excluded points; as runs %d rows; /space_invalid %.1f MB on disk "
          "of the file's %.1f MB" % (path, sum(rows.values()), sum(points.values()),
                                     sum(runs.values()), d.id.get_storage_size() / 1e6,
                                     os.path.getsize(path) / 1e6))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
