# tests/cli/export-large.sh: export then import at a size past the 64 MiB an import used to
# refuse: a generated CSV of 2.4 million samples (over 64 MiB) imported, exported (samples.csv
# over 64 MiB), the export imported back, and `harness report`'s statistics of the two results
# files identical.  Import reads in pieces: its memory is the samples (16 bytes each), not
# the file; a source over 64 MiB is recorded by size and SHA-256, not verbatim.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || skip "h5py for /usr/bin/python3 is not installed (Debian: python3-h5py)"

# 2 modes x 12 blocks x 10 cells x 10,000 samples, values in us with a fraction
$PY - <<'PYEOF'
import random
random.seed(2385)
cells = ["big/sgemm:m=%d,n=%d,k=64" % (64 * (i + 1), 48 + i) for i in range(9)] + ["big/e2e"]
with open("big.csv", "w") as f:
    f.write("cell,mode,block,value,unit,baseline,count\n")
    for b in range(12):
        for m, scale in (("vendor", 1.0), ("tuned", 0.97)):
            base = "true" if m == "vendor" else "false"
            for ci, c in enumerate(cells):
                q = '"%s"' % c if "," in c else c
                mu = (12.5 + 3.25 * ci) * scale * (1 + 0.01 * ((b * 7 + ci) % 5))
                f.write("".join("%s,%s,%d,%.4f,us,%s,%d\n" % (q, m, b, mu * (1 + 0.05 * random.random()), base, 1 + ci % 3)
                                for _ in range(10000)))
PYEOF
size=$(stat -c %s big.csv)
check "the generated CSV is over 64 MiB ($size bytes)" '[ "$size" -gt 67108864 ]'

expect_status 0 h import --csv big.csv -o big.h5 && pass "a CSV over 64 MiB imports" &&
	expect_grep "^'big.h5': 24 units \(2 modes\), 10 cells, 2400000 samples; baseline 'vendor'" "$SCRATCH/out"
if expect_status 0 h export --csv set big.h5; then
	ssize=$(stat -c %s set/samples.csv)
	check "the exported samples.csv is over 64 MiB ($ssize bytes)" '[ "$ssize" -gt 67108864 ]'
fi
expect_status 0 h import --csv set/samples.csv -o back.h5 && pass "the export imports back, its manifest checked"

# what the results files record of a source over 64 MiB: its size and hash, not its bytes
check "a large source is recorded by size and SHA-256" $PY - big.h5 big.csv "$(sha256sum big.csv | cut -d' ' -f1)" <<'PYEOF'
import h5py, os, sys
f = h5py.File(sys.argv[1], "r")
run = f["run"].attrs
get = lambda k: run[k].decode() if isinstance(run[k], bytes) else run[k]
assert get("source_sha256") == sys.argv[3], get("source_sha256")
assert int(get("source_bytes")) == os.path.getsize(sys.argv[2]), get("source_bytes")
assert len(f["run/files"]) == 0, list(f["run/files"])
PYEOF

h report --margin 0.05 -f json big.h5 > a.json 2>/dev/null
h report --margin 0.05 -f json back.h5 > b.json 2>/dev/null
check "export then import: identical comparisons, summaries and spread" $PY - a.json b.json <<'PYEOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda rep: {(x["cell"], x["mode"]): x for x in rep["comparisons"] if x["compared"]}
assert key(a) == key(b) and len(key(a)) == 10, "comparisons differ"
cells = lambda rep: {x["name"]: {m["mode"]: m["unit_medians_ns"] for m in x["modes"]} for x in rep["cells"]}
assert cells(a) == cells(b), "per-cell summaries differ"
assert a["composition"] == b["composition"] and a["op_vs_e2e"] == b["op_vs_e2e"], "composition differs"
spread = lambda rep: {(x["name"], m["mode"]): (m["unit_rel_se"], m["log_variance"]) for x in rep["cells"] for m in x["modes"]}
assert spread(a) == spread(b), "unit SE or variance decomposition differs"
PYEOF
finish
