# tests/cli/lut-large.sh: a lookup table of 200,000 entries is checked in seconds (the
# duplicate check hashes each entry's op and shape: comparing every entry with every earlier
# one took over 10 minutes), and a duplicate planted as its last entry is still found, at its
# line, naming the first entry's line.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3

# one mode naming the table (a second would read it again)
sed -e '/^\[\[modes\]\]$/,$d' "$DATA/lut/lut.exp.toml" >big.exp.toml
printf '[[modes]]\nname = "heuristic"\ntuner = "heuristic"\n\n[[modes]]\nname = "lut"\ntuner = "lut"\noptions = { table = "lut.toml" }\n' >>big.exp.toml
# 200,000 distinct sgemm shapes (each entry 4 lines after the 1-line header), written with the
# shape's keys in varying order so the check compares shapes, not spellings
$PY - <<'PYEOF'
n = 200000
keys = ("m = %d, n = %d, k = 64", "k = 64, n = %d, m = %d")
with open("lut.toml", "w") as f:
    f.write("schema = 1\n")
    for i in range(n):
        m, nn = 64 + i % 1000, 64 + i // 1000
        shape = keys[0] % (m, nn) if i % 2 == 0 else keys[1] % (nn, m)
        f.write('[[entries]]\nop = "sgemm"\nshape = { %s }\nconfig = "BM=64,BN=64,BK=32,UNROLL=2"\n' % shape)
PYEOF
check "the table has 200,000 entries" '[ "$(grep -c "^\[\[entries\]\]" lut.toml)" = 200000 ]'
# generous: about 8 s on 2 cores; the quadratic check took over 10 minutes
expect_status 0 timeout 300 $HARNESS_CMD check big.exp.toml && pass "a table of 200,000 entries checks"
expect_grep "^'big.exp.toml': ok \(2 modes" "$SCRATCH/out"

# the first entry's shape again, at the end, its keys in another order: line 800,002 starts it
# (the first entry's config is on line 5)
printf '[[entries]]\nop = "sgemm"\nshape = { n = 64, k = 64, m = 64 }\nconfig = "vendor"\n' >>lut.toml
if expect_status 2 timeout 300 $HARNESS_CMD check big.exp.toml; then
	check "the planted duplicate is found at its line" expect_grep "^harness: 'lut.toml':800002:1: a second entry for op 'sgemm' and this shape \(the first's config is at line 5\)" "$SCRATCH/err"
fi
finish
