# tests/cli/layer-table.sh: scripts/layer-table.py (docs/BENCHMARKS.md's per-layer tables) on a
# real CPU run whose exhaustive units benchmarked the vendor and the templates: each row's
# vendor and template times and their ratio agree with the run's raw trials (recomputed here
# from the trials and space_vendors tables with h5util, as the script's docstring defines
# them), each row's count of units where the template was faster agrees with the pairs
# within each unit, the summary counts agree with the rows, and a run without the tuned mode
# is refused; one field's values read apart (layer-table.py's FIELD=VALUE, field-pairs.py)
# agree with the trials too; config-shift.py finds a planted 1.25x on the templates alone;
# the vendor's kernels planted in a copy's units are named, each cell's most common;
# best-lut.py's table and space-runs.py's counts agree with the raw tables.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || PY=python3
$PY -c 'import h5py' 2>/dev/null || { pass "h5py missing: layer-table.py not run"; finish; }
expect_status 0 h run -q -o tiny.h5 "$DATA/run/tiny.toml" || finish
expect_status 0 $PY "$top_srcdir/scripts/layer-table.py" tiny.h5 && pass "layer-table.py runs" || finish
cp "$SCRATCH/out" table.md
export PYTHONPATH="$top_srcdir/tests/cli"
$PY - tiny.h5 table.md <<'PYEOF' || fail "the table against the raw trials"
import re, statistics, sys, h5py
from h5util import table, Checker
c = Checker("layer-table")
with h5py.File(sys.argv[1], "r") as f:
    units, cells = table(f, "units"), table(f, "cells")
    trials, vendors = table(f, "trials"), table(f, "space_vendors")
tuned = {u["id"] for u in units if u["mode"] == "exhaustive" and not u["warm"] and u["status"] == "ok"}
first = {(v["unit"], v["cell"]): v["config"] for v in vendors if v["candidate"] == 0}
want, won = {}, {}
for i, cell in enumerate(cells):
    if cell["kind"] != "op":
        continue
    vend, tmpl, pairs = [], [], []
    for u in sorted(tuned):
        ok = [t for t in trials if t["unit"] == u and t["cell"] == i and t["status"] == "ok" and t["median_ns"] > 0]
        uv = [t["median_ns"] for t in ok if t["config"] == first.get((u, i))]
        vend += uv
        own = [t["median_ns"] for t in ok if not t["config"].startswith("vendor")]
        if own:
            tmpl.append(min(own))
        if uv and own:
            pairs.append(min(own) < uv[0])
    if vend and tmpl:
        want[cell["name"]] = (statistics.median(vend), statistics.median(tmpl))
        won[cell["name"]] = (sum(pairs), len(pairs))
rows, wins = {}, {}
for line in open(sys.argv[2]):
    m = re.match(r"\| `(.+)` \((\d+)\) \| ([\d.]+)[^|]*\| ([\d.]+)[^|]*\| ([\d.]+) \|[^|]*\| (\d+) of (\d+) \|", line)
    if m:
        rows[m.group(1)] = (float(m.group(3)), float(m.group(4)), float(m.group(5)))
        wins[m.group(1)] = (int(m.group(6)), int(m.group(7)))
c.check(len(tuned) == 3, "three cold exhaustive units: %d" % len(tuned))
c.check(set(rows) == set(want) and len(rows) == 2, "a row for each op cell with both trials: %s" % sorted(rows))
for name, (v, t) in want.items():
    rv, rt, rr = rows.get(name, (0, 0, 0))
    c.check(abs(rv - v / 1e3) < 0.006 and abs(rt - t / 1e3) < 0.006, "%s: vendor %.2f us, template %.2f us as in the trials (%.3f, %.3f)" % (name, rv, rt, v / 1e3, t / 1e3))
    c.check(abs(rr - t / v) < 0.0006, "%s: time ratio %.3f = template / vendor %.4f" % (name, rr, t / v))
    c.check(wins.get(name) == won[name], "%s: template faster in %s units, the pairs say %s" % (name, wins.get(name), won[name]))
summary = open(sys.argv[2]).read()
faster = sum(1 for n, (v, t) in want.items() if t < v and "gemm" not in n)
nongemm = sum(1 for n in want if "gemm" not in n)
c.check("template faster than the vendor on %d of %d non-GEMM cells" % (faster, nongemm) in summary, "the summary counts the rows (%d of %d faster)" % (faster, nongemm))
every = sum(1 for n, (k, m) in won.items() if m and k == m and "gemm" not in n)
c.check("(in every unit: %d;" % every in summary, "the summary counts the cells faster in every unit (%d)" % every)
c.exit()
PYEOF
# one field's values apart (issue 49's clusters: scripts/layer-table.py ... CLUSTER=2 and
# scripts/field-pairs.py RESULTS CLUSTER 1 2): here the CPU space's UNROLL, 2 against 4
expect_status 0 $PY "$top_srcdir/scripts/layer-table.py" tiny.h5 - exhaustive UNROLL=2 &&
	cp "$SCRATCH/out" only2.md || fail "layer-table.py with a field's value"
expect_status 0 $PY "$top_srcdir/scripts/field-pairs.py" tiny.h5 UNROLL 2 4 &&
	cp "$SCRATCH/out" pairs.md || fail "field-pairs.py runs"
$PY - tiny.h5 only2.md pairs.md <<'PYEOF' || fail "one field apart, against the raw trials"
import re, statistics, sys, h5py
from h5util import table, Checker
c = Checker("layer-table")
with h5py.File(sys.argv[1], "r") as f:
    units, cells, trials = table(f, "units"), table(f, "cells"), table(f, "trials")
tuned = sorted(u["id"] for u in units if u["mode"] == "exhaustive" and not u["warm"] and u["status"] == "ok")
def fields(cfg):
    return dict(kv.split("=", 1) for kv in cfg.split(","))
only, pairs = {}, {}
for line in open(sys.argv[2]):
    m = re.match(r"\| `(.+)` \((\d+)\) \| [\d.]+[^|]*\| ([\d.]+)", line)
    if m:
        only[m.group(1)] = float(m.group(3))
for line in open(sys.argv[3]):
    m = re.match(r"\| `(.+)` \| (\d+) \| ([\d.]+) \(([\d.]+), ([\d.]+)\) \| ([\d.]+) \|", line)
    if m:
        pairs[m.group(1)] = (int(m.group(2)), float(m.group(3)), float(m.group(6)))
n2 = 0
for i, cell in enumerate(cells):
    if cell["kind"] != "op":
        continue
    ok = [t for t in trials if t["unit"] in tuned and t["cell"] == i and t["status"] == "ok" and t["median_ns"] > 0 and not t["config"].startswith("vendor")]
    at2 = [min(t["median_ns"] for t in ok if t["unit"] == u and fields(t["config"]).get("UNROLL") == "2") for u in tuned if any(t["unit"] == u and fields(t["config"]).get("UNROLL") == "2" for t in ok)]
    if at2:
        n2 += 1
        want = statistics.median(at2) / 1e3
        c.check(abs(only.get(cell["name"], -1) - want) < 0.006, "%s: best UNROLL=2 template %.2f us as in the trials (%.3f)" % (cell["name"], only.get(cell["name"], -1), want))
    rest = lambda t: tuple(sorted((k, v) for k, v in fields(t["config"]).items() if k != "UNROLL"))
    rs = []
    for u in tuned:
        by = {}
        for t in ok:
            if t["unit"] == u and fields(t["config"]).get("UNROLL") in ("2", "4"):
                by.setdefault(rest(t), {})[fields(t["config"])["UNROLL"]] = t["median_ns"]
        rs += [d["4"] / d["2"] for d in by.values() if "2" in d and "4" in d]
    if rs:
        got = pairs.get(cell["name"])
        c.check(got is not None and got[0] == len(rs) and abs(got[1] - statistics.median(rs)) < 0.0006, "%s: %s pairs, median UNROLL=4 / UNROLL=2 %s; the trials: %d, %.4f" % (cell["name"], got and got[0], got and got[1], len(rs), statistics.median(rs)))
c.check(n2 >= 1 and len(only) == n2, "a row for each cell with an UNROLL=2 trial: %d rows, %d cells" % (len(only), n2))
c.check(len(pairs) >= 1, "field-pairs.py found pairs: %d cells" % len(pairs))
c.exit()
PYEOF
# a set of values (FIELD=V1|V2): the best template among them
expect_status 0 $PY "$top_srcdir/scripts/layer-table.py" tiny.h5 - exhaustive "UNROLL=2|4" &&
	cp "$SCRATCH/out" only24.md || fail "layer-table.py with a set of a field's values"
$PY - tiny.h5 only24.md <<'PYEOF' || fail "a set of values, against the raw trials"
import re, statistics, sys, h5py
from h5util import table, Checker
c = Checker("layer-table")
with h5py.File(sys.argv[1], "r") as f:
    units, cells, trials = table(f, "units"), table(f, "cells"), table(f, "trials")
tuned = sorted(u["id"] for u in units if u["mode"] == "exhaustive" and not u["warm"] and u["status"] == "ok")
got = {}
for line in open(sys.argv[2]):
    m = re.match(r"\| `(.+)` \((\d+)\) \| [\d.]+[^|]*\| ([\d.]+)", line)
    if m:
        got[m.group(1)] = float(m.group(3))
n = 0
for i, cell in enumerate(cells):
    ok = [t for t in trials if t["unit"] in tuned and t["cell"] == i and t["status"] == "ok" and t["median_ns"] > 0 and not t["config"].startswith("vendor") and dict(kv.split("=", 1) for kv in t["config"].split(",")).get("UNROLL") in ("2", "4")]
    per = [min(t["median_ns"] for t in ok if t["unit"] == u) for u in tuned if any(t["unit"] == u for t in ok)]
    if cell["kind"] == "op" and per:
        n += 1
        want = statistics.median(per) / 1e3
        c.check(abs(got.get(cell["name"], -1) - want) < 0.006, "%s: best of UNROLL 2 or 4 %.2f us as in the trials (%.3f)" % (cell["name"], got.get(cell["name"], -1), want))
c.check(n >= 1 and len(got) == n, "a row for each cell with an UNROLL 2 or 4 trial: %d rows, %d cells" % (len(got), n))
c.exit()
PYEOF
expect_status 1 $PY "$top_srcdir/scripts/field-pairs.py" tiny.h5 UNROLL 2 3 &&
	grep -q "no cell has a pair of configs at UNROLL=2 and UNROLL=3" "$SCRATCH/err" &&
	pass "field-pairs.py refuses values that make no pair, naming them" ||
	fail "field-pairs.py on values without pairs"
# config-shift.py: every template trial of a copy 1.25x slower, the vendor's as they were
cp tiny.h5 slow.h5
$PY - slow.h5 <<'PYEOF' || fail "scaling the copy's template trials"
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    t = f["trials"][:]
    for i in range(len(t)):
        if not t[i]["config"].startswith(b"vendor"):
            t[i]["median_ns"] *= 1.25
    f["trials"][...] = t
PYEOF
expect_status 0 $PY "$top_srcdir/scripts/config-shift.py" tiny.h5 slow.h5 &&
	cp "$SCRATCH/out" shift.md || fail "config-shift.py runs"
$PY - shift.md <<'PYEOF' || fail "config-shift.py's ratios"
import re, sys
from h5util import Checker
c = Checker("config-shift")
rows = [re.match(r"\| (\S+) (\S+) \| (\d+) \| ([\d.]+) ", l) for l in open(sys.argv[1])]
rows = [m for m in rows if m]
vend = [m for m in rows if m.group(2) == "vendor"]
tmpl = [m for m in rows if m.group(2) != "vendor"]
c.check(len(tmpl) >= 1 and all(m.group(4) == "1.250" for m in tmpl), "template groups at 1.250: %s" % [m.group(4) for m in tmpl])
c.check(len(vend) >= 1 and all(m.group(4) == "1.000" for m in vend), "vendor groups at 1.000: %s" % [m.group(4) for m in vend])
c.exit()
PYEOF
# FILE:MODE: one mode's units alone (an A/B of a switch in the same blocks): the copy's
# exhaustive trials against the original's again; a mode the file lacks is refused
expect_status 0 $PY "$top_srcdir/scripts/config-shift.py" tiny.h5:exhaustive slow.h5:exhaustive tile &&
	grep -q "| vendor | [0-9]* | 1.000 " "$SCRATCH/out" &&
	! grep -v vendor "$SCRATCH/out" | grep -q "| [0-9]* | 1.000 " &&
	pass "config-shift.py FILE:MODE compares one mode's trials" ||
	fail "config-shift.py FILE:MODE"
expect_status 1 $PY "$top_srcdir/scripts/config-shift.py" tiny.h5:no-such-mode slow.h5 &&
	grep -q "has no unit of mode 'no-such-mode'" "$SCRATCH/err" &&
	pass "config-shift.py refuses a mode the file lacks, naming it" ||
	fail "config-shift.py on a missing mode"
# what the vendor ran (the CUDA backend's vendor_kernels lines, planted here in a copy's
# exhaustive units: kernel a in two units and b in one at the first op cell): the section
# names each cell's most common line; the CPU run's own table has no such section
$PY - tiny.h5 vk.h5 <<'PYEOF' || fail "planting vendor_kernels"
import shutil, sys, h5py, numpy as np
shutil.copy(sys.argv[1], sys.argv[2])
f = h5py.File(sys.argv[2], "r+")
u = f["units"][:]
info = [x.decode() for x in u["info"]]
ex = [i for i, x in enumerate(u) if x["mode"] == b"exhaustive" and not x["warm"]]
for n, i in enumerate(ex):
    info[i] += "vendor_kernels.0=vendor: %s\n" % ("kernel_b x" if n == 0 else "kernel_a")
dt = np.dtype([(n, u.dtype[n] if n != "info" else "S%d" % (max(map(len, info)) + 1)) for n in u.dtype.names])
t = np.zeros(len(u), dt)
for n in u.dtype.names:
    t[n] = u[n] if n != "info" else [x.encode() for x in info]
del f["units"]
f.create_dataset("units", data=t, maxshape=(None,), chunks=True)
f.close()
PYEOF
! grep -q "What the vendor ran" table.md && pass "no vendor section on the CPU run" ||
	fail "a vendor section on the CPU run"
expect_status 0 $PY "$top_srcdir/scripts/layer-table.py" vk.h5 &&
	grep -q "What the vendor ran" "$SCRATCH/out" &&
	grep -Eq '^\| `[^`]+` \| `vendor: kernel_a` \|$' "$SCRATCH/out" &&
	! grep -q "kernel_b" "$SCRATCH/out" &&
	pass "layer-table.py names the vendor's most common kernels at a cell" ||
	fail "layer-table.py's vendor kernels"
# best-lut.py: each op cell's fastest template config over the exhaustive units' trials (the
# median over units of each config's trial medians), as a lookup table the lut tuner reads;
# space-runs.py: the excluded points the spaces record, as runs of rows
expect_status 0 $PY "$top_srcdir/scripts/best-lut.py" tiny.h5 && cp "$SCRATCH/out" best.toml &&
	expect_status 0 $PY "$top_srcdir/scripts/space-runs.py" tiny.h5 && cp "$SCRATCH/out" runs.md ||
	fail "best-lut.py and space-runs.py run"
$PY - tiny.h5 best.toml runs.md <<'PYEOF' || fail "best-lut.py and space-runs.py against the raw tables"
import re, statistics, sys, tomllib, h5py, numpy as np
from h5util import table, Checker
c = Checker("best-lut")
with h5py.File(sys.argv[1], "r") as f:
    units, cells, trials = table(f, "units"), table(f, "cells"), table(f, "trials")
    sp, inv = f["spaces"][:], f["space_invalid"][:]
tuned = {u["id"] for u in units if u["mode"] == "exhaustive" and not u["warm"] and u["status"] == "ok"}
best = {}
for i, cell in enumerate(cells):
    by = {}
    for t in trials:
        if t["unit"] in tuned and t["cell"] == i and t["status"] == "ok" and t["median_ns"] > 0 and not t["config"].startswith("vendor"):
            by.setdefault(t["config"], []).append(t["median_ns"])
    if by:
        best[(cell["op"], cell["shape"])] = min(by, key=lambda k: (statistics.median(by[k]), k))
lut = tomllib.load(open(sys.argv[2], "rb"))
got = {(e["op"], ",".join("%s=%s" % kv for kv in e["shape"].items())): e["config"] for e in lut["entries"]}
c.check(got == best and len(got) == 2, "best-lut.py's entries are each cell's fastest config: %s" % got)
text = open(sys.argv[3]).read()
excluded = int(np.sum(sp["grid"] - sp["nvalid"]))
m = re.search(r": (\d+) rows for (\d+) excluded points; as runs (\d+) rows", text)
c.check(m and int(m.group(1)) == len(inv) and int(m.group(2)) == excluded and int(m.group(3)) == len(inv) < excluded,
        "space-runs.py: %d rows, %d points (the grids less the valid), the rows already runs: %s" % (len(inv), excluded, m and m.groups()))
c.exit()
PYEOF
expect_status 1 $PY "$top_srcdir/scripts/layer-table.py" tiny.h5 "" no-such-mode &&
	grep -q "no ok cold 'no-such-mode' unit" "$SCRATCH/err" &&
	pass "a run without the tuned mode is refused, naming it" ||
	fail "layer-table.py on a missing mode"
finish
