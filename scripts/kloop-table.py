#!/usr/bin/env python3
"""kloop-table.py RESULTS [MODE [SMS [ELEM_BYTES]]]: what a conv.cu k-tile costs against how many
SMs are busy, from a results file whose cells are one convolution at several batch sizes
(experiments/gpu-kloop.toml): issue 49's question whether the k-loop is bounded by what one
SM takes in (one rate an SM, whatever the SMs busy) or by L2's delivery over the chip (a
rate an SM that falls as more SMs load).

For each cold, ok unit of MODE (default exhaustive) and each config that runs whole tiles,
one a block (STREAM_K 0, SPLIT_K 1, CLUSTER 1, CLUSTER_K 1, and no more tiles than SMS,
default 132):
the cell's M from its flops (2 M N K, N the output channels, K = r r c), its tiles
ceil(M / BLOCK_M) ceil(N / BLOCK_N), its k-tiles ceil(K / BLOCK_K), and a k-tile's operand
bytes (BLOCK_M + BLOCK_N) BLOCK_K ELEM_BYTES (default 2: 16 bits).  A row per (shape,
config) present at two batch sizes or more; per batch: the tiles (= SMs busy), the time a
k-tile (the trials' median over units, whole kernel / k-tiles: an upper bound) and the
bytes a second an SM; then the spread of those rates (highest / lowest).  Then a row per
shape of the vendor's best time a batch.  Needs h5py (Debian: python3-h5py)."""
import collections
import math
import re
import statistics
import sys

import h5py


def col(rows, name):
    v = rows[name]
    return v.decode() if isinstance(v, bytes) else v


def shape_of(text):
    return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", text)}


def main():
    a = sys.argv[1:]
    if not a or len(a) > 4:
        sys.exit("usage: kloop-table.py RESULTS [MODE [SMS [ELEM_BYTES]]]")
    mode = a[1] if len(a) > 1 else "exhaustive"
    sms = int(a[2]) if len(a) > 2 else 132
    elem = int(a[3]) if len(a) > 3 else 2
    with h5py.File(a[0], "r") as f:
        units, cells, trials = f["units"][:], f["cells"][:], f["trials"][:]
    cold = {int(u["id"]) for u in units
            if col(u, "mode") == mode and not u["warm"] and col(u, "status") == "ok"}
    if not cold:
        sys.exit("kloop-table.py: no ok cold '%s' unit in %s" % (mode, a[0]))
    per = collections.defaultdict(list)  # (cell, config) -> medians over units
    for t in trials:
        if int(t["unit"]) in cold and col(t, "status") == "ok" and t["median_ns"] > 0:
            per[(int(t["cell"]), col(t, "config"))].append(float(t["median_ns"]))
    rows = collections.defaultdict(dict)  # (shape text, config) -> batch -> (tiles, us, GB/s)
    vendor = collections.defaultdict(dict)  # shape text -> batch -> us
    for (ci, cfg), v in per.items():
        cell = cells[ci]
        s = shape_of(col(cell, "shape"))
        if not {"c", "h", "w", "k", "r", "stride", "pad"} <= s.keys():
            continue
        kk = s["r"] * s["r"] * s["c"]
        m = round(float(cell["flops"]) / (2.0 * s["k"] * kk))
        p = (s["h"] + 2 * s["pad"] - s["r"]) // s["stride"] + 1
        q = (s["w"] + 2 * s["pad"] - s["r"]) // s["stride"] + 1
        batch = m // (p * q) if p * q else 0
        key = "%s %s" % (col(cell, "op"), col(cell, "shape"))
        us = statistics.median(v) / 1e3
        if cfg.startswith("vendor"):
            vendor[key][batch] = min(us, vendor[key].get(batch, math.inf))
            continue
        c = dict(kv.split("=", 1) for kv in cfg.split(",") if "=" in kv)
        try:
            bm, bn, bk = int(c["BLOCK_M"]), int(c["BLOCK_N"]), int(c["BLOCK_K"])
        except (KeyError, ValueError):
            continue
        if c.get("STREAM_K", "0") != "0" or c.get("SPLIT_K", "1") != "1" or \
                c.get("CLUSTER", "1") != "1" or c.get("CLUSTER_K", "1") != "1":
            continue
        tiles = math.ceil(m / bm) * math.ceil(s["k"] / bn)
        if tiles > sms:
            continue
        per_k = us / math.ceil(kk / bk)
        gbs = (bm + bn) * bk * elem / (per_k * 1e3)  # bytes / us / 1e3 = GB/s
        short = ",".join("%s=%s" % (f, c[f]) for f in ("BLOCK_M", "BLOCK_N", "BLOCK_K", "WARPS",
                                                       "STAGES") if f in c)
        rows[(key, short)][batch] = (tiles, per_k, gbs)
    print("| shape | config | per batch: tiles (SMs busy), us a k-tile, GB/s an SM | "
          "rate spread (highest / lowest) |")
    print("|---|---|---|---|")
    n = 0
    for (key, short) in sorted(rows):
        r = rows[(key, short)]
        if len(r) < 2:
            continue
        n += 1
        cells_txt = "; ".join("batch %d: %d, %.3f, %.1f" % (b, t, u, g)
                              for b, (t, u, g) in sorted(r.items()))
        rates = [g for _, _, g in r.values()]
        print("| `%s` | `%s` | %s | %.3f |" % (key, short, cells_txt, max(rates) / min(rates)))
    for key in sorted(vendor):
        print("| `%s` | vendor (best) | %s | |" % (key, "; ".join(
            "batch %d: %.2f us" % (b, u) for b, u in sorted(vendor[key].items()))))
    if not n:
        sys.exit("kloop-table.py: no config ran whole tiles at two batch sizes or more")


if __name__ == "__main__":
    main()
