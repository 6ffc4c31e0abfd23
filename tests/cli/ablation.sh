# tests/cli/ablation.sh: scripts/ablation.py on a real CPU run (tests/data/ablation/model.toml:
# ResNet-18, the vendor path against the heuristic): the cells it swaps are the --top N by
# count x |heuristic's op time - the vendor's| (recomputed here from the raw samples), each
# only-K table gives the heuristic's recorded config to its cell and the vendor's to every
# other; the written experiment passes harness check, runs, and its units chose exactly what
# the tables say (from the ablation run's /choices); bad input exits 2 with a message.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
$PY -c 'import h5py' 2>/dev/null || skip "h5py for /usr/bin/python3 is needed (Debian: python3-h5py)"
AB="$top_srcdir/scripts/ablation.py"
expect_status 0 h run -q -o m.h5 "$DATA/ablation/model.toml" || finish
expect_status 0 $PY "$AB" m.h5 --mode heuristic --top 3 -o abl &&
	expect_grep "3 cell\(s\) swapped, 6 mode\(s\)" "$SCRATCH/out" && pass "ablation.py: 3 cells, 6 modes" || finish
expect_status 0 h check abl/ablation.toml && pass "the written experiment passes harness check"
export PYTHONPATH="$top_srcdir/tests/cli"
$PY - m.h5 abl <<'PYEOF' && pass "the top 3 cells by count x |time difference|, each table as said" || fail "swapped cells or tables"
import glob, re, statistics, sys, tomllib, h5py
from h5util import table
with h5py.File(sys.argv[1], "r") as f:
    units, cells, choices = table(f, "units"), table(f, "cells"), table(f, "choices")
    samples = f["samples"][:]
def ids(m):
    return {u["id"] for u in units if u["mode"] == m and not u["warm"] and u["status"] == "ok"}
def med(m, c):
    v = []
    for u in units:
        if u["id"] in ids(m):
            rows = samples[u["sample_first"]:u["sample_first"] + u["sample_count"]]
            v.append(float(statistics.median(rows["ns"][rows["cell"] == c])))
    return statistics.median(v)
def cfg(m, c):
    v = [x["config"] for x in choices if x["unit"] in ids(m) and x["cell"] == c]
    assert len(set(v)) == 1, v  # deterministic tuners: one config per cell
    return v[0]
ops = [i for i, c in enumerate(cells) if c["kind"] == "op"]
diff = [i for i in ops if cfg("heuristic", i) != cfg("default", i)]
w = {i: abs(med("heuristic", i) - med("default", i)) * cells[i]["count"] for i in diff}
top = sorted(sorted(diff, key=lambda i: -w[i])[:3])
exp = tomllib.load(open(sys.argv[2] + "/ablation.toml", "rb"))
assert [m["name"] for m in exp["modes"]] == ["default", "default-aa", "all", "only-0", "only-1", "only-2"], exp["modes"]
assert exp["modes"][1]["aa_of"] == "default" and exp["backend"] == "cpu", exp
def entries(name):
    t = tomllib.load(open("%s/tables/%s.toml" % (sys.argv[2], name), "rb"))
    return {(e["op"], ",".join("%s=%d" % kv for kv in e["shape"].items())): e["config"] for e in t["entries"]}
key = lambda i: (cells[i]["op"], cells[i]["shape"])
a = entries("all")
assert a == {key(i): cfg("heuristic", i) for i in ops}, a
for k, c in enumerate(top):
    e = entries("only-%d" % k)
    assert e == {key(i): cfg("heuristic" if i == c else "default", i) for i in ops}, (k, c)
open("top.txt", "w").write(" ".join(cells[i]["name"] for i in top))
PYEOF
sed -i 's/^repeats = 2$/repeats = 1/' abl/ablation.toml
expect_status 0 h run -q -o abl/a.h5 abl/ablation.toml || fail "the ablation run"
$PY - abl/a.h5 m.h5 <<'PYEOF' && pass "its units chose what the tables say: one cell of the heuristic's each" || fail "the ablation run's choices"
import sys, h5py
from h5util import table
with h5py.File(sys.argv[1], "r") as f:
    units, cells, choices = table(f, "units"), table(f, "cells"), table(f, "choices")
with h5py.File(sys.argv[2], "r") as f:
    u0, c0, ch0 = table(f, "units"), table(f, "cells"), table(f, "choices")
orig = {}
for x in ch0:
    m = [u for u in u0 if u["id"] == x["unit"]][0]["mode"]
    orig[m, c0[x["cell"]]["name"]] = x["config"]
top = open("top.txt").read().split()
mode = {u["id"]: u["mode"] for u in units if not u["warm"]}
for x in choices:
    m, name = mode[x["unit"]], cells[x["cell"]]["name"]
    if m == "all":
        want = orig["heuristic", name]
    elif m.startswith("only-"):
        want = orig["heuristic" if name == top[int(m[5:])] else "default", name]
    else:
        want = orig["default", name]
    assert x["config"] == want, (m, name, x["config"], want)
PYEOF
expect_status 2 $PY "$AB" m.h5 --mode nosuch -o bad && expect_grep "has no mode 'nosuch'" "$SCRATCH/err" &&
	pass "an unknown mode: exit 2, the modes listed"
expect_status 2 $PY "$AB" m.h5 --mode default -o bad && expect_grep "both 'default'" "$SCRATCH/err" &&
	pass "the mode is the baseline: exit 2"
expect_status 0 $PY "$AB" m.h5 --mode heuristic --top 1 --repeats 3 -o abl3 &&
	$PY -c 'import sys, tomllib; e = tomllib.load(open("abl3/ablation.toml", "rb")); sys.exit(not (e["repeats"] == 3 and e["on"]["cpu"]["repeats"] == 3))' &&
	pass "--repeats sets the top level's and each backend's own repeats" || fail "--repeats left a backend's repeats as recorded"
echo "not a folder" >afile
expect_status 2 $PY "$AB" m.h5 --mode heuristic -o afile && expect_grep "cannot make 'afile/tables'" "$SCRATCH/err" &&
	pass "an output that is a file: exit 2 naming it"
echo "not hdf5" >bogus.h5
expect_status 2 $PY "$AB" bogus.h5 --mode heuristic -o bad && expect_grep "not a results file" "$SCRATCH/err" &&
	pass "not a results file: exit 2"
finish
