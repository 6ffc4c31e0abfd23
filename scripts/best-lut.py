#!/usr/bin/python3
"""best-lut.py: a lookup table (docs/kernels.md, the `lut` tuner) of the fastest template
config a tuning mode found at each op cell of a run, so that a forward can be run with each
layer's best config without searching again (experiments/gpu-pdl.toml's table).

    scripts/best-lut.py RESULTS.h5 [TUNED_MODE] > TABLE.toml

Per op cell: each template config's trial medians (ns) over TUNED_MODE's (default
"exhaustive") cold ok units, the median over units, and the config with the lowest; the
entry is the cell's op and shape with that config (exact for the cell's shape; the `lut`
tuner serves other shapes of the op by nearest match).  Read with h5py only; needs the
results format of docs/results-format.md."""
import collections
import statistics
import sys

import h5py


def s(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def main(path, tuned="exhaustive"):
    f = h5py.File(path, "r")
    cells, units, trials = f["cells"][:], f["units"][:], f["trials"][:]
    ok = {int(u["id"]) for u in units
          if s(u["mode"]) == tuned and not u["warm"] and s(u["status"]) == "ok"}
    if not ok:
        sys.exit("best-lut: no ok cold '%s' unit in %s" % (tuned, path))
    times = collections.defaultdict(list)  # (cell, config) -> medians over units
    for t in trials:
        cfg = s(t["config"])
        if (int(t["unit"]) in ok and s(t["status"]) == "ok" and t["median_ns"] > 0
                and not cfg.startswith("vendor")):
            times[(int(t["cell"]), cfg)].append(float(t["median_ns"]))
    best = {}  # cell -> (median ns, config)
    for (c, cfg), v in times.items():
        m = statistics.median(v)
        if c not in best or (m, cfg) < best[c]:  # (ties: the config text decides)
            best[c] = (m, cfg)
    print("# made by scripts/best-lut.py %s %s: the fastest template config of each op cell"
          % (path.rsplit("/", 1)[-1], tuned))
    print("schema = 1")
    print('description = "%s\'s best template configs (%s)"' % (path.rsplit("/", 1)[-1], tuned))
    for c in sorted(best):
        shape = ", ".join("%s = %s" % tuple(kv.split("=", 1))
                          for kv in s(cells[c]["shape"]).split(","))
        print()
        print("# %s: %.2f us" % (s(cells[c]["name"]), best[c][0] / 1e3))
        print("[[entries]]")
        print('op = "%s"' % s(cells[c]["op"]))
        print("shape = { %s }" % shape)
        print('config = "%s"' % best[c][1])


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    main(*sys.argv[1:])
