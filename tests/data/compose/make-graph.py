"""make-graph.py: graph.csv, a workload with two e2e cells as the CUDA backend records them
(tests/cli/compose.sh): "w/e2e" (stream launches: the host's time, 1.5 ms, noisy, the same in
both modes) and "w/e2e:launch=graph" (the forward as one graph: the op cells' count-weighted
sum, 2% more).  Mode "fast" makes both op cells 20% faster, so its graph forward is 20%
faster and its stream forward is not.  The composition and the aggregates must compare the
op cells with the graph forward: interaction 1 (within 1%), e2e ratio 0.8.  Deterministic
(random.Random(5)); run with /usr/bin/python3 in this folder."""
import random

r = random.Random(5)
rows = ["cell,mode,block,value,unit,kind,baseline,count"]
for b in range(8):
    for m, f in (("base", 1.0), ("fast", 0.8)):
        lev = r.lognormvariate(0, 0.003)
        conv, pool = 100000 * f * lev, 50000 * f * lev
        graph = (4 * conv + 2 * pool) * 1.02 * r.lognormvariate(0, 0.002)
        stream = 1500000 * r.lognormvariate(0, 0.05)
        base = "true" if m == "base" else "false"
        for i in range(9):
            for cell, v, kind, n in (("w/conv:c=64", conv, "op", 4), ("w/pool:k=3", pool, "op", 2),
                                     ("w/e2e", stream, "e2e", 1),
                                     ("w/e2e:launch=graph", graph, "e2e", 1)):
                rows.append("%s,%s,%d,%d,ns,%s,%s,%d" % (cell, m, b, v * r.lognormvariate(0, 0.002),
                                                         kind, base, n))
open("graph.csv", "w").write("\n".join(rows) + "\n")
