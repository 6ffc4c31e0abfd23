# tests/cli/many-cells.sh: what a run's closing summary does (the report, the audit, the
# hypotheses' verdicts) takes time linear in the cells (issue 51, finding 6: a run of 100,000
# cells spent 774 s in it, each cell looking its workload's rows up among all the others).
# 50,000 workloads of an op cell and an e2e cell each (100,000 cells), two modes, three
# blocks, imported, then report, audit and verify each under a generous timeout: the report
# 9-13 s on 2 cores, where e922289's took over 100 s on the same file (the run's closing
# summary at 100,000 cells: 3.6 s against 831 s).  Also checks that every cell reached the
# report.  A sanitizer build, many times slower there (over 6 minutes for the report), takes
# 5,000 workloads under the same timeouts.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
W=50000
sanitized && W=5000

$PY - "$W" <<'PYEOF'
import random, sys
random.seed(51)
with open("many.csv", "w") as f:
    f.write("cell,kind,mode,block,value,unit,baseline\n")
    for w in range(int(sys.argv[1])):
        for cell, kind, base in (("w%05d/sgemm:m=64" % w, "op", 1000.0),
                                 ("w%05d/e2e" % w, "e2e", 1500.0)):
            for mode, scale, bl in (("base", 1.0, "true"), ("fast", 0.8 if w % 2 else 1.0, "")):
                for b in range(3):
                    for _ in range(3):
                        f.write("%s,%s,%s,%d,%.1f,ns,%s\n" % (cell, kind, mode, b,
                                base * scale * random.uniform(0.99, 1.01), bl))
PYEOF
check "the CSV has $((2 * W)) cells" '[ "$(cut -d, -f1 many.csv | sort -u | wc -l)" = $((2 * W + 1)) ]'
expect_status 0 timeout 300 $HARNESS_CMD import --csv many.csv -o many.h5 && pass "$((2 * W)) cells import"
# generous: 9-13 s on 2 cores; the quadratic lookups took over 100 s for the report alone
expect_status 0 timeout 90 $HARNESS_CMD report -f csv many.h5 && pass "the report of $((2 * W)) cells"
check "the report compares fast with base at every cell" \
	'[ "$(grep -c "^\"w[0-9]*/[a-z0-9=:]*\",\"[a-z0-9]*\",\"w[0-9]*\",\"fast\",\"base\"" "$SCRATCH/out")" = $((2 * W)) ]'
expect_status 0 timeout 90 $HARNESS_CMD audit many.h5 && pass "the audit of $((2 * W)) cells"
cat >h.toml <<'EOF'
schema = 1

[[hypotheses]]
id = "fast-wins"
claim = "fast is at least 5% faster than base over the cells (their geometric mean)"
primary = true
mode = "fast"
baseline = "base"
aggregate = "geomean"
prediction = "faster"
min_effect = 0.05
EOF
expect_status 0 timeout 90 $HARNESS_CMD verify --hypotheses h.toml many.h5 &&
	pass "the hypotheses' verdicts over $((2 * W)) cells"
finish
