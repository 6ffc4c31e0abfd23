#!/usr/bin/python3
"""make-synthetic.py: writes synthetic.csv, raw timings with known effects for the report
tests (tests/cli/report.sh).  Deterministic (numpy default_rng(20261121)); run it with the
system Python to regenerate:  /usr/bin/python3 make-synthetic.py > synthetic.csv

Values are whole nanoseconds, so the import is exact.
Design: 12 blocks; a shared block effect (slow drift, cancels in paired ratios); three cells
(two op cells and an e2e cell of workload "net"); 7 samples per unit and cell.
  base   the baseline
  fast   0.80 x base          -> FASTER everywhere
  same   1.000 x base, 0.2% unit noise -> SAME within a 2% margin
  noisy  1.03 x base, 25% unit noise   -> INCONCLUSIVE
"""
import numpy as np

rng = np.random.default_rng(20261121)
cells = {"net/sgemm:m=64": 2.385e4, "net/conv2d:c=8": 7.31e4, "net/e2e": 1.9e5}
modes = {"base": (1.0, 0.004), "fast": (0.80, 0.004), "same": (1.0, 0.002), "noisy": (1.03, 0.25)}
print("cell,mode,block,value,unit")
for block in range(12):
    drift = 1.0 + 0.03 * np.sin(block / 2.0)
    order = list(modes)
    rng.shuffle(order)
    for mode in order:
        effect, unit_noise = modes[mode]
        for cell, base in cells.items():
            level = base * drift * effect * np.exp(rng.normal(0.0, unit_noise))
            for _ in range(7):
                v = level * np.exp(rng.normal(0.0, 0.01))
                print("%s,%s,%d,%.0f,ns" % ('"' + cell + '"' if "," in cell else cell, mode, block, v))
