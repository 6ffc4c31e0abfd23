# tests/cli/kloop-table.sh: scripts/kloop-table.py (issue 49: is conv.cu's k-loop bounded by
# what one SM takes in, or by L2 over the chip?) on a results file with planted times: one
# config at a fixed 70 GB/s an SM (the rate spread 1.000 at every batch), one whose rate an SM
# falls with the SMs busy (a chip-wide 4 TB/s: spread 52 / 16 tiles = 3.250), a stream-K
# config, a pair splitting k (CLUSTER_K 2) and one whose tiles outnumber the SMs (left out), the vendor's best a batch, and the
# unit medians taken over the cold units alone (a warm unit's trials planted far off).
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py, numpy' 2>/dev/null || PY=python3
$PY -c 'import h5py, numpy' 2>/dev/null || { pass "h5py missing: kloop-table.py not run"; finish; }
$PY - k.h5 <<'PYEOF' || { fail "writing the planted results file"; finish; }
import sys, math, h5py, numpy as np
S = b"c=512,h=7,w=7,k=512,r=3,stride=1,pad=1"
base = b",SPLIT_K=1,GROUP_M=8,STREAM_K=%d,CLUSTER=1,RES_TMA=0"
cfgs = {b"BLOCK_M=64,BLOCK_N=128,BLOCK_K=64,WARPS=4,STAGES=8" + base % 0: ("flat", 64, 128),
        b"BLOCK_M=128,BLOCK_N=128,BLOCK_K=64,WARPS=8,STAGES=4" + base % 0: ("chip", 128, 128),
        b"BLOCK_M=64,BLOCK_N=128,BLOCK_K=64,WARPS=4,STAGES=8" + base % 1: ("sk", 64, 128),
        b"BLOCK_M=64,BLOCK_N=64,BLOCK_K=64,WARPS=4,STAGES=4" + base % 0: ("flat", 64, 64),
        b"BLOCK_M=128,BLOCK_N=128,BLOCK_K=64,WARPS=8,STAGES=4" + base % 0 + b",CLUSTER_K=2":
            ("ck", 128, 128)}
units = [(0, b"exhaustive", 0, b"ok"), (1, b"exhaustive", 0, b"ok"), (2, b"exhaustive", 1, b"ok"),
         (3, b"default", 0, b"ok")]
cells, trials = [], []
for ci, b in enumerate((8, 16, 32)):
    m = b * 49
    cells.append((b"b%02d/conv2d_bias_relu:" % b + S, b"op", b"b%02d" % b, b"conv2d_bias_relu", S,
                  1, 2.0 * m * 512 * 4608))
    for cfg, (kind, bm, bn) in cfgs.items():
        tiles = math.ceil(m / bm) * math.ceil(512 / bn)
        rate = 70e9 if kind != "chip" else 4.0e12 / tiles  # bytes a second an SM
        ns = math.ceil(4608 / 64) * (bm + bn) * 64 * 2 / rate * 1e9
        if kind in ("sk", "ck"):
            ns *= 3  # stream-K, a pair splitting k: no one rate an SM to read
        for u in (0, 1, 2):  # unit 2 is warm: its trials must not count
            trials.append((u, ci, cfg, b"ok", ns * (5.0 if u == 2 else 1.0)))
    for u in (0, 1):
        trials.append((u, ci, b"vendor:engine=41,rank=0,fused=1", b"ok", 1000.0 * (10 + b)))
        trials.append((u, ci, b"vendor:engine=39,rank=0,fused=1", b"ok", 1000.0 * (12 + b)))
with h5py.File(sys.argv[1], "w") as f:
    f["units"] = np.array(units, dtype=[("id", "<i8"), ("mode", "S11"), ("warm", "i1"), ("status", "S3")])
    f["cells"] = np.array(cells, dtype=[("name", "S80"), ("kind", "S3"), ("workload", "S10"),
                                        ("op", "S21"), ("shape", "S43"), ("count", "<i8"),
                                        ("flops", "<f8")])
    f["trials"] = np.array(trials, dtype=[("unit", "<i8"), ("cell", "<i8"), ("config", "S120"),
                                          ("status", "S3"), ("median_ns", "<f8")])
PYEOF
expect_status 0 $PY "$top_srcdir/scripts/kloop-table.py" k.h5 && cp "$SCRATCH/out" t.md ||
	{ fail "kloop-table.py runs"; finish; }
export PYTHONPATH="$top_srcdir/tests/cli"
$PY - t.md <<'PYEOF' || fail "kloop-table.py's rows against the planted rates"
import re, sys
from h5util import Checker
c = Checker("kloop-table")
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"\| `[^`]+` \| `?([^`|]+)`? \| ([^|]+) \| ([\d.]*) ?\|", line)
    if m:
        rows[m.group(1).strip()] = (m.group(2).strip(), m.group(3))
flat = rows.get("BLOCK_M=64,BLOCK_N=128,BLOCK_K=64,WARPS=4,STAGES=8")
c.check(flat is not None and flat[1] == "1.000" and flat[0].count(", 70.0") == 3,
        "64 x 128 at 70 GB/s an SM at 28, 52 and 100 tiles, spread 1.000: %s" % (flat,))
c.check(flat is not None and "batch 8: 28," in flat[0] and "batch 32: 100," in flat[0],
        "its tiles from the flops: %s" % (flat,))
chip = rows.get("BLOCK_M=128,BLOCK_N=128,BLOCK_K=64,WARPS=8,STAGES=4")
c.check(chip is not None and chip[1] == "3.250" and "batch 8: 16, " in chip[0] and ", 250.0" in chip[0],
        "128 x 128: the rate falls with the SMs busy, spread 3.250: %s" % (chip,))
small = rows.get("BLOCK_M=64,BLOCK_N=64,BLOCK_K=64,WARPS=4,STAGES=4")
c.check(small is not None and "batch 32" not in small[0] and small[1] == "1.000",
        "64 x 64: batch 32's 200 tiles (over 132 SMs) left out: %s" % (small,))
c.check(len(rows) == 4, "three configs (stream-K's and the pair's left out) and the vendor: %s" % sorted(rows))
v = rows.get("vendor (best)")
c.check(v is not None and v[0] == "batch 8: 18.00 us; batch 16: 26.00 us; batch 32: 42.00 us",
        "the vendor's best a batch: %s" % (v,))
c.exit()
PYEOF
expect_status 1 $PY "$top_srcdir/scripts/kloop-table.py" k.h5 no-such-mode &&
	grep -q "no ok cold 'no-such-mode' unit" "$SCRATCH/err" &&
	pass "a mode without cold units is refused, naming it" || fail "kloop-table.py on a missing mode"
finish
