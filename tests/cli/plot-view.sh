# tests/cli/plot-view.sh: `harness plot`'s figures rendered for real and looked at (issue 48):
# on a run with 34 cells and 5 modes (tests/data/plot/many.csv), the default set is an index
# and at most a dozen figures, --all the rest; each PDF rendered by pdftoppm is not blank;
# the forest plot's rows are the decided and e2e cells, grouped by workload and sorted by
# ratio, on a log axis whose tick labels do not run together (in the script and in the
# pixels); every bar drawn is a CI the report prints; the Pareto figure's front is the
# non-dominated set of what it plots, and a mode on the report's three-way front that the
# two axes hide is marked (in the data and in the pixels).
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
command -v gnuplot >/dev/null 2>&1 || skip "gnuplot is needed (Debian: gnuplot-nox)"
command -v pdftoppm >/dev/null 2>&1 || skip "pdftoppm is needed to render the figures (Debian: poppler-utils)"
[ -x $PY ] || skip "/usr/bin/python3 is needed"
export HARNESS_PLOT_DIR="$top_srcdir/plots"
expect_status 0 h import --csv "$DATA/plot/many.csv" -o many.h5 || exit 1
expect_status 0 h report --baseline base -f json many.h5 && cp "$SCRATCH/out" report.json

# ---- the default set: an index and at most a dozen figures -------------------------------
check "plot -f pdf --data: the default set" expect_status 0 h plot --baseline base -f pdf --data -o v many.h5
n=$(ls v/*.pdf | wc -l)
check "the default set is at most 12 figures ($n)" '[ "$n" -ge 8 ] && [ "$n" -le 12 ]'
check "index.md lists every figure with a line of what it shows" \
	'for f in v/*.pdf; do b=${f#v/}; grep -q "^- \[$b\]($b): [A-Za-z]" v/index.md || exit 1; done'
check "index.md says what the default set left out and how to draw it" \
	grep -q "the cell and Pareto figures of 32 more cells.*harness plot --all\|harness plot --all.*32 more cells" v/index.md

# ---- --all: every figure, the forest plot in pages -----------------------------------------
check "plot --all" expect_status 0 h plot --baseline base --all -f svg --data -o all many.h5
n=$(ls all/*.svg | wc -l)
check "--all draws every cell's figures ($n)" '[ "$n" -gt 70 ]'
check "--all: the forest plot's pages hold every comparison made, at most 40 rows each" \
	$PY - all report.json <<'PYEOF'
import glob, json, sys
d, rep = sys.argv[1], json.load(open(sys.argv[2]))
rows = []
for p in sorted(glob.glob(d + "/forest-all-*.dat")):
    page = [l for l in open(p) if l.split()[4] != "-1"]
    assert 0 < len(page) <= 40, (p, len(page))
    rows += page
made = sum(1 for c in rep["comparisons"] if c["compared"])
assert len(rows) == made, (len(rows), made)
PYEOF

# ---- rendered: no figure is blank -----------------------------------------------------------
# ppm FILE: a rendered page as (width, height, rows of (r, g, b) tuples)
cat >ppm.py <<'PYEOF'
def read(path):
    b = open(path, "rb").read()
    parts, i = [], 0
    while len(parts) < 4:
        while b[i:i + 1].isspace():
            i += 1
        if b[i:i + 1] == b"#":
            i = b.index(b"\n", i)
            continue
        j = i
        while not b[j:j + 1].isspace():
            j += 1
        parts.append(b[i:j])
        i = j
    assert parts[0] == b"P6" and parts[3] == b"255", parts
    w, h = int(parts[1]), int(parts[2])
    px = b[i + 1:]
    rows = []
    for y in range(h):
        o = 3 * w * y
        rows.append(list(zip(px[o:o + 3 * w:3], px[o + 1:o + 3 * w:3], px[o + 2:o + 3 * w:3])))
    return w, h, rows
PYEOF
for f in v/*.pdf; do
	pdftoppm -r 40 -singlefile "$f" "${f%.pdf}" || fail "pdftoppm cannot render $f"
done
for f in forest pareto-bert_e2e pareto-resnet_e2e; do
	pdftoppm -r 100 -singlefile v/$f.pdf v/$f-100 || fail "pdftoppm cannot render v/$f.pdf"
done
check "every figure renders to a page that is not blank (ink on 1% to 60% of it, 3 colours or more)" \
	$PY - v <<'PYEOF'
import glob, sys
sys.path.insert(0, ".")
import ppm
for p in sorted(glob.glob(sys.argv[1] + "/*.ppm")):
    w, h, px = ppm.read(p)
    ink = sum(1 for row in px for c in row if min(c) < 200)
    colours = {c for row in px[::3] for c in row[::3] if min(c) < 200 and max(c) - min(c) > 60}
    assert 0.01 < ink / (w * h) < 0.6, (p, ink / (w * h))
    assert len(colours) >= 3 or "cdf" in p or "drift" in p, (p, len(colours))
PYEOF

# ---- the forest plot ------------------------------------------------------------------------
check "forest: the decided and e2e cells, grouped by workload, sorted by ratio, bars only where the report prints a CI" \
	$PY - v/forest.dat report.json <<'PYEOF'
import json, math, shlex, sys
rep = json.load(open(sys.argv[2]))
cmp = {(c["cell"], c["mode"]): c for c in rep["comparisons"]}
kind = {c["name"]: c["kind"] for c in rep["cells"]}
groups, y_last, nobar = [], None, 0
for line in open(sys.argv[1]):
    y, ratio, lo, hi, verdict, label, ci = shlex.split(line)
    y, ratio, lo, hi, verdict, ci = int(y), float(ratio), float(lo), float(hi), int(verdict), int(ci)
    assert y_last is None or y == y_last - 1, "rows are not consecutive"
    y_last = y
    if verdict == -1:
        groups.append((label, []))
        continue
    cell, mode = label.split(" | ")
    c = cmp[(cell, mode)]
    assert c["verdict"] != "INCONCLUSIVE" or kind[cell] == "e2e", ("undecided op cell", label)
    assert cell.startswith(groups[-1][0].split()[1].rstrip(":") + "/"), ("wrong group", label)
    groups[-1][1].append(ratio)
    if ci:
        assert None not in c["ci"], ("a bar the report does not print", label)
        assert abs(lo - c["ci"][0]) < 1e-6 and abs(hi - c["ci"][1]) < 1e-6, label
    else:
        assert math.isnan(lo) and math.isnan(hi), label
        nobar += 1
assert [g for g, _ in groups] == ["workload resnet:", "workload bert:"], groups
for g, r in groups:
    assert r == sorted(r), ("not sorted by ratio", g)
assert nobar == 1, nobar  # resnet/e2e | once: one block, no CI
PYEOF
# the ticks as the script sets them: on a log axis, each at least an eighth of it from the next
check "forest: a log axis whose ticks are far enough apart for their labels" \
	$PY - v/figures.gp <<'PYEOF'
import math, re, sys
s = open(sys.argv[1]).read()
f = s[s.index("# ---- forest\n"):s.index("# ---- ", s.index("# ---- forest\n") + 5)]
assert "set logscale x" in f
lo = float(re.search(r"^xmin = (\S+)", f, re.M).group(1))
hi = float(re.search(r"^xmax = (\S+)", f, re.M).group(1))
t = sorted(float(v) for v in re.search(r"^array xtic_at\[\d+\] = \[(.*)\]", f, re.M).group(1).split(","))
assert len(t) >= 3 and 1.0 in t, t
assert all(lo <= v <= hi for v in t), (lo, hi, t)
gaps = [math.log(b / a) / math.log(hi / lo) for a, b in zip(t, t[1:])]
assert min(gaps) >= 0.125 - 1e-9, (t, gaps)
print("ticks", t)
PYEOF
# and in the pixels: the row of tick labels under the axis holds as many separate labels as
# there are ticks (labels that ran together would merge)
check "forest: the rendered tick labels stand apart" $PY - v/forest-100.ppm v/figures.gp <<'PYEOF'
import re, sys
sys.path.insert(0, ".")
import ppm
w, h, px = ppm.read(sys.argv[1])
s = open(sys.argv[2]).read()
f = s[s.index("# ---- forest\n"):]
ticks = re.search(r"^array xtic_at\[(\d+)\]", f, re.M).group(1)
dark = lambda c: min(c) < 128
# the x axis: the lowest row that is dark over a third of the width
axis = max(y for y in range(h) if sum(dark(c) for c in px[y]) > w / 3)
x0 = min(x for x in range(w) if dark(px[axis][x]))
x1 = max(x for x in range(w) if dark(px[axis][x]))
y = axis + 1
while y < h and not any(dark(c) for c in px[y][x0 - 20:x1 + 20]):
    y += 1
band = []
while y < h and any(dark(c) for c in px[y][x0 - 20:x1 + 20]):
    band.append(y)
    y += 1
cols = [x for x in range(max(0, x0 - 20), min(w, x1 + 20)) if any(dark(px[y][x]) for y in band)]
labels = 1 + sum(1 for a, b in zip(cols, cols[1:]) if b - a > 6)
assert labels == int(ticks), (labels, ticks)
print("labels", labels)
PYEOF

# ---- the Pareto figure ----------------------------------------------------------------------
check "pareto: the drawn front is the non-dominated set of the plotted medians" \
	$PY - v <<'PYEOF'
import glob, shlex, sys
for p in sorted(glob.glob(sys.argv[1] + "/pareto-*.dat")):
    rows = [shlex.split(l) for l in open(p).read().split("\n\n\n")[0].splitlines() if l.strip()]
    pts = [(float(r[0]), float(r[3]), int(r[6]), r[8]) for r in rows]
    for x, y, on, name in pts:
        dom = any(a <= x and b <= y and (a < x or b < y) for a, b, _, _ in pts)
        assert on == (not dom), (p, name, on, dom)
    line = [tuple(map(float, l.split())) for l in open(p).read().split("\n\n\n")[1].splitlines() if l.strip()]
    assert line == sorted((x, y) for x, y, on, _ in pts if on), (p, line)
PYEOF
check "pareto: bert/e2e's ansor, on the report's three-way front, is marked as hidden by the two axes" \
	$PY - v/pareto-bert_e2e.dat <<'PYEOF'
import shlex, sys
rows = {r[8]: r for r in (shlex.split(l) for l in open(sys.argv[1]).read().split("\n\n\n")[0].splitlines())}
assert rows["ansor"][6] == "0" and rows["ansor"][9] == "1", rows["ansor"]
assert [n for n, r in rows.items() if r[6] == "0" and r[9] == "1"] == ["ansor"], rows
PYEOF
# the hidden member's marker (#e08000) is in the rendered bert figure, and not in resnet's
# (where no mode is hidden)
check "pareto: the hidden member's marker is drawn where there is one, and only there" $PY - v <<'PYEOF'
import sys
sys.path.insert(0, ".")
import ppm
def orange(p):
    w, h, px = ppm.read(p)
    return sum(1 for row in px for c in row if abs(c[0] - 224) < 16 and abs(c[1] - 128) < 12 and c[2] < 40)
b, r = orange(sys.argv[1] + "/pareto-bert_e2e-100.ppm"), orange(sys.argv[1] + "/pareto-resnet_e2e-100.ppm")
assert b > 10 and r == 0, (b, r)
PYEOF

# ---- op-e2e: a CI the report withholds is no bar -------------------------------------------
check "op-e2e: 'once' (one block) has neither CI, and the figure says so" \
	'$PY - v/op-e2e.dat <<EOF
import math, shlex, sys
rows = [shlex.split(l) for l in open(sys.argv[1]) if l.strip()]
once = [r for r in rows if r[6] == "once"]
assert len(once) == 1 and once[0][7:] == ["0", "0"], once
assert all(math.isnan(float(v)) for v in (once[0][1], once[0][2], once[0][4], once[0][5])), once
assert all(r[7:] == ["1", "1"] for r in rows if r[6] != "once"), rows
EOF
grep -q "^note = .without a 95% CI.*1 of 7 points on x, 1 on y" v/figures.gp'

finish
