#!/bin/sh
# tests/cli/import.sh: `harness import` turns the CSV files in tests/data/import into results
# files that `harness show` and h5py read back exactly (units, blocks, positions, cells,
# every sample converted to ns, setup times, baseline, the source file verbatim); every
# bad-*.csv exits 2 with exactly the stderr line in its bad-*.err (extra arguments, if any,
# in its bad-*.args) and leaves neither the output nor a temporary file behind; an existing
# output is never overwritten.
. "${top_srcdir:?run through make check (top_srcdir is not set)}/tests/setup"

cp -R "$DATA/import" import || { fail "cannot copy $DATA/import"; finish; }
OUT=$SCRATCH/out
ERR=$SCRATCH/err

# nothing_left NAME: neither NAME nor a temporary file of it exists
nothing_left() {
	set -- "$1" "$1".tmp*
	for left in "$@"; do
		if [ -e "$left" ]; then
			fail "'$left' was left behind"
			return 1
		fi
	done
	return 0
}

# ---- good.csv: columns in another order, a unit per row, setup, baseline column ----------
if expect_status 0 h import --csv import/good.csv -o good.h5; then
	echo "'good.h5': 12 units (3 modes), 2 cells, 120 samples; baseline 'vendor'" >want
	cmp -s want "$OUT" && pass "good.csv imported" || fail "good.csv: stdout is $(cat "$OUT")"
	[ -s "$ERR" ] && fail "good.csv: something was printed on stderr"
fi
[ -f good.h5 ] || fail "good.h5 was not written"
set -- good.h5.tmp*
[ -e "$1" ] && fail "a temporary file was left next to good.h5: $*"

sha=$(sha256sum import/good.csv | cut -d' ' -f1)
size=$(wc -c <import/good.csv | tr -d ' ')
if expect_status 0 h show good.h5; then
	expect_grep '^experiment_name: good$' "$OUT"
	expect_grep '^source: import$' "$OUT"
	expect_grep '^source_path: import/good\.csv$' "$OUT"
	expect_grep "^source_sha256: $sha\$" "$OUT"
	expect_grep '^source_unit: us,ms,s,ns$' "$OUT"
	expect_grep '^baseline: vendor$' "$OUT"
	expect_grep '^backend: imported$' "$OUT"
	expect_grep '^status: complete$' "$OUT"
	expect_grep "^import-source: import/good\\.csv \\(sha256 $sha, $size bytes\\)\$" "$OUT"
	expect_grep '^units: 12 recorded, 12 planned, 0 missing$' "$OUT"
	expect_grep '^samples: 120$' "$OUT"
	expect_grep '^ *0 +tuned +0 +0 +0 +cold +0 +ok +0 +0 +1\.5 +0\.0 +0\.0 +0\.000 +-$' "$OUT" &&
		pass "show reads the imported file"
fi

PY=/usr/bin/python3
if ! $PY -c 'import h5py' 2>/dev/null; then
	echo "note: h5py for /usr/bin/python3 is not installed (Debian: python3-h5py): file checks skipped"
else
	export PYTHONPATH="$top_srcdir/tests/cli"
	# check.py H5 CSV UNIT NAME: the results file holds exactly what the CSV says,
	# worked out here from the CSV with Python's csv module and exact decimals.
	cat >check.py <<'PYEOF'
import csv, hashlib, re, sys, h5py
from decimal import Decimal, ROUND_HALF_UP
from h5util import table, meta, Checker
h5, src, opt_unit, name = sys.argv[1:5]
c = Checker("import %s" % src)
raw = open(src, "rb").read()
text = raw.decode("utf-8-sig")
rows = list(csv.DictReader(text.splitlines(keepends=True)))
scale = {"ns": 1, "us": 10**3, "ms": 10**6, "s": 10**9}
def ns(v, unit):
    return int((Decimal(v) * scale[unit]).quantize(Decimal(1), rounding=ROUND_HALF_UP))
units, modes, cells = {}, [], {}
baseline = None
for r in rows:
    unit = r.get("unit") or opt_unit
    block = int(r["block"] if "block" in r else r["repeat"])
    key = (r["mode"], block)
    if r["mode"] not in modes:
        modes.append(r["mode"])
    u = units.setdefault(key, {"samples": {}, "setup": ns(r.get("setup", "0"), unit)})
    u["samples"].setdefault(r["cell"], []).append(ns(r["value"], unit))
    kind = r.get("kind") or ("e2e" if r["cell"].endswith("/e2e") else "op")
    cells.setdefault(r["cell"], kind)
    if r.get("baseline", "").lower() == "true":
        baseline = r["mode"]
order = list(units)                      # first appearance = plan order
position = {}
for key in order:
    same = [k for k in order if k[1] == key[1]]
    position[key] = same.index(key)
with h5py.File(h5, "r") as f:
    m = meta(f)
    plan, got_units = table(f, "plan"), table(f, "units")
    got_cells, samples = table(f, "cells"), table(f, "samples")
    trials, choices, measures = table(f, "trials"), table(f, "choices"), table(f, "measures")
    files = f["run/files"]
    dec = lambda v: v.decode() if isinstance(v, bytes) else v
    recorded = [(dec(files[k].attrs["role"]), dec(files[k].attrs["path"]), dec(files[k].attrs["sha256"]), files[k][()]) for k in sorted(files)]
c.check(m.get("source") == "import" and m.get("backend") == "imported" and m.get("status") == "complete", "meta: source import, backend imported, status complete")
c.check(m.get("experiment_name") == name, "meta: experiment_name %r" % m.get("experiment_name"))
c.check(m.get("source_path") == src and m.get("source_sha256") == hashlib.sha256(raw).hexdigest(), "meta: source path and SHA-256")
c.check(m.get("baseline") == (baseline or modes[0]), "meta: baseline %r" % m.get("baseline"))
c.check(m.get("source_rows") == str(len(rows)), "meta: source_rows %r" % m.get("source_rows"))
c.check(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", m.get("imported_utc", "")) is not None, "meta: imported_utc")
c.check(m.get("harness_version", "") != "", "meta: harness_version")
c.check(len(recorded) == 1 and recorded[0][0] == "import-source" and recorded[0][1] == src, "the CSV is recorded as import-source")
c.check(len(recorded) == 1 and recorded[0][3] == raw, "the CSV is recorded verbatim")
c.check(len(recorded) == 1 and recorded[0][2] == hashlib.sha256(raw).hexdigest(), "the recorded file's SHA-256")
c.check(len(plan) == len(order) == len(got_units), "%d units planned and recorded" % len(order))
c.check([p["id"] for p in plan] == list(range(len(order))) and [u["id"] for u in got_units] == list(range(len(order))), "plan ids in order of first appearance")
c.check([(p["mode"], p["block"]) for p in plan] == order, "plan: (mode, block) per unit in order of first appearance")
c.check(all(p["repeat"] == p["block"] and p["warm"] == 0 and p["warm_of"] == -1 for p in plan), "plan: repeat = block, cold units")
c.check([p["position"] for p in plan] == [position[k] for k in order], "plan: positions within blocks")
c.check([(u["mode"], u["block"], u["position"]) for u in got_units] == [(p["mode"], p["block"], p["position"]) for p in plan], "units match the plan")
c.check(all(u["status"] == "ok" and u["pid"] == 0 and u["cache_dir"] == "" and u["exit_code"] == 0 and u["signal"] == 0 and u["warm"] == 0 for u in got_units), "units: ok, pid 0, no cache dir, exit 0")
c.check([u["compile_ns"] for u in got_units] == [units[k]["setup"] for k in order], "units: setup time as compile_ns, exactly")
c.check(all(u["tune_ns"] == 0 and u["search_ns"] == 0 and u["cache_leak"] == 0 for u in got_units), "units: tune_ns, search_ns 0, no cache leak")
c.check({x["name"]: x["kind"] for x in got_cells} == cells, "cells and kinds: %s" % [(x["name"], x["kind"]) for x in got_cells])
c.check(len(got_cells) == len(cells), "one row per cell")
names = [x["name"] for x in got_cells]
ok = True
for row, key in enumerate(order):
    u = got_units[row]
    mine = samples[u["sample_first"]:u["sample_first"] + u["sample_count"]]
    ok &= all(s["unit"] == row for s in mine)
    per = {}
    for s in mine:
        per.setdefault(names[s["cell"]], []).append((s["index"], s["ns"]))
    want = units[key]["samples"]
    ok &= sorted(per) == sorted(want)
    for cell, got in per.items():
        ok &= [i for i, _ in got] == list(range(len(got)))
        ok &= [v for _, v in got] == want.get(cell)
c.check(ok and len(samples) == len(rows), "every sample in its unit and cell, in file order, indexed 0..k-1, converted to ns exactly")
c.check(len(trials) == 0 and len(measures) == 0, "no trials, no measures")
op_cells = sum(1 for k in order for cell in units[k]["samples"] if cells[cell] == "op")
c.check(len(choices) == op_cells and all(x["config"] == "imported" and x["reason"] == "imported" and got_cells[x["cell"]]["kind"] == "op" for x in choices), "a choice 'imported' per unit and op cell (%d)" % len(choices))
c.exit()
PYEOF
	$PY check.py good.h5 import/good.csv "" good || fail "good.h5 does not hold what good.csv says"
fi

# ---- good-option.csv: --unit, 'repeat', 'kind', CR LF, a BOM, blank lines, a cell name
# with a line break; no baseline column: the first mode seen is the baseline ----------
if expect_status 0 h import --csv import/good-option.csv --output opt.h5 --unit ms --name bert; then
	echo "'opt.h5': 6 units (2 modes), 2 cells, 36 samples; baseline 'heuristic'" >want
	cmp -s want "$OUT" && pass "good-option.csv imported" || fail "good-option.csv: stdout is $(cat "$OUT")"
	if expect_status 0 h show opt.h5; then
		expect_grep '^experiment_name: bert$' "$OUT"
		expect_grep '^source_unit: ms$' "$OUT"
		expect_grep '^source_unit_from: option$' "$OUT"
		expect_grep '^baseline: heuristic$' "$OUT"
	fi
	if [ -f check.py ]; then
		$PY check.py opt.h5 import/good-option.csv ms bert || fail "opt.h5 does not hold what good-option.csv says"
	fi
fi

# ---- an existing output is never overwritten ----------------------------------------------
cp good.h5 before.h5
if expect_status 2 h import --csv import/good-option.csv -o good.h5 --unit ms; then
	echo "harness: 'good.h5': already exists; not overwriting it" >want
	cmp -s want "$ERR" && pass "an existing output is refused" || fail "existing output: stderr is $(cat "$ERR")"
fi
cmp -s before.h5 good.h5 || fail "good.h5 changed"
set -- good.h5.tmp*
[ -e "$1" ] && fail "a temporary file was left next to good.h5: $*"

# ---- every bad file: exit 2, exactly its message, nothing on stdout, nothing left ---------
nbad=0
for f in import/bad-*.csv; do
	want=${f%.csv}.err
	nbad=$((nbad + 1))
	if [ ! -f "$want" ]; then
		fail "$f has no $(basename "$want")"
		continue
	fi
	args=
	[ -f "${f%.csv}.args" ] && args=$(cat "${f%.csv}.args")
	# shellcheck disable=SC2086 # the .args file holds whole words
	expect_status 2 h import --csv "$f" -o bad.h5 $args || continue
	if ! cmp -s "$want" "$ERR"; then
		fail "$f: stderr is not $(basename "$want")"
		diff "$want" "$ERR" | sed 's/^/  /' >&2
	elif [ -s "$OUT" ]; then
		fail "$f: something was printed on stdout"
	elif nothing_left bad.h5; then
		pass "$f"
	fi
done
for want in import/bad-*.err; do
	[ -f "${want%.err}.csv" ] || fail "$want has no $(basename "${want%.err}").csv"
done
[ "$nbad" -ge 30 ] || fail "only $nbad bad-*.csv files found in $DATA/import"

# ---- SIGTERM inside the file's first write (tests/stress/writefault.so), deterministic ----
SO="$top_builddir/tests/stress/writefault.so"
if [ -f "$SO" ] && [ "${HARNESS_VALGRIND:-0}" != 1 ]; then
	rm -f term.h5
	# the shim loads before the sanitizer runtime in an --enable-asan build
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	WRITEFAULT_TERM_AT=1 LD_PRELOAD="$SO" $HARNESS import --csv import/good.csv -o term.h5 \
		>/dev/null 2>term.err
	st=$?
	[ $st -eq 143 ] || fail "SIGTERM inside the write: exit $st, not 143"
	check "SIGTERM inside the write leaves nothing behind" 'nothing_left term.h5'
	grep -q "^harness: interrupted; 'term.h5' was not written\$" term.err ||
		fail "SIGTERM inside the write: stderr is $(cat term.err)"
else
	echo "skip: SIGTERM inside the write (no writefault.so, or under valgrind)"
fi

# ---- SIGTERM while writing (1200 units): the whole file, or nothing and 143 ---------------
awk 'BEGIN { print "cell,mode,block,value"; srand(5)
	for (b = 0; b < 400; b++) for (m = 0; m < 3; m++) for (i = 0; i < 50; i++)
		printf "x/op:n=%d,m%d,%d,%.3f\n", i % 3, m, b, 10 + rand() }' >big.csv
$HARNESS_CMD import --csv big.csv -o big.h5 --unit us >/dev/null 2>big.err &
pid=$!
# the file is built in memory and written whole at the end: stop it while it is building,
# i.e. once the writer has caught SIGTERM (/proc/PID/status: bit 15 of SigCgt, once the
# process is harness: the shell forked for it may catch SIGTERM itself until it execs); a
# SIGTERM during start-up or parsing kills it silently, which says nothing about the writer
term_held() {
	awk '$1 == "Name:" && $2 == "harness" { h = 1 }
	     $1 == "SigCgt:" { v = $2; d = 0
		for (k = length(v) - 3; k <= length(v); k++) d = d * 16 + index("0123456789abcdef", substr(v, k, 1)) - 1
		if (int(d / 16384) % 2) f = 1 } END { exit !(h && f) }' "/proc/$1/status" 2>/dev/null
}
i=0
while [ $i -lt 3000 ] && kill -0 $pid 2>/dev/null; do
	if [ -d /proc/$pid ]; then
		term_held $pid && break
	elif [ $i -ge 30 ]; then
		break # no /proc: the old guess, 0.3 s
	fi
	sleep 0.01
	i=$((i + 1))
done
kill -TERM $pid 2>/dev/null
wait $pid
st=$?
if [ $st -eq 143 ] && [ -f big.h5 ] && [ ! -s big.err ]; then
	# the signal came after the file was complete and in place, before the process exited
	# (a window no program can close): the file must then be whole
	set -- big.h5.tmp*
	h show big.h5 >/dev/null 2>&1 && [ ! -e "$1" ] && pass "SIGTERM after the file was complete: the whole file" ||
		fail "exit 143 with an incomplete big.h5"
elif [ $st -eq 143 ]; then
	check "SIGTERM while writing leaves nothing behind" 'nothing_left big.h5'
	grep -q "^harness: interrupted; 'big.h5' was not written\$" big.err ||
		fail "SIGTERM while writing: stderr is $(cat big.err)"
elif [ $st -eq 0 ]; then
	set -- big.h5.tmp*
	[ -f big.h5 ] && [ ! -e "$1" ] && pass "the import finished before SIGTERM" ||
		fail "exit 0 without a complete big.h5"
else
	fail "SIGTERM while writing: exit status $st"
fi

# ---- many distinct cells (issue 9, item 14): every sample under its own cell --------------
# 20000 distinct cells in two modes whose rows come in different orders, values in ns:
# export must give back exactly the rows imported (cell, mode, block, value).  Correctness
# only; the time this takes is in docs/BENCHMARKS.md.
/usr/bin/python3 - many.csv <<'PYEOF' || fail "cannot generate many.csv"
import sys
with open(sys.argv[1], "w") as f:
    f.write("cell,mode,block,value,unit\n")
    for i in range(20000):
        f.write("w%d/op:n=%d,a,0,%d,ns\n" % (i % 7, i, 1000 + i))
    for i in reversed(range(20000)):
        f.write("w%d/op:n=%d,b,0,%d,ns\n" % (i % 7, i, 3000 + 7 * i))
PYEOF
if expect_status 0 h import --csv many.csv -o many.h5; then
	expect_grep "^'many\\.h5': 2 units \\(2 modes\\), 20000 cells, 40000 samples; baseline 'a'\$" "$OUT"
	if expect_status 0 h export --csv many-out many.h5; then
		/usr/bin/python3 - many.csv many-out/samples.csv <<'PYEOF'
import csv, sys
rows = lambda p: sorted((r["cell"], r["mode"], r["block"], r["value"]) for r in csv.DictReader(open(p, newline="")))
sys.exit(0 if rows(sys.argv[1]) == rows(sys.argv[2]) else 1)
PYEOF
		[ $? -eq 0 ] && pass "20000 distinct cells: every sample back under its own cell" ||
			fail "20000 distinct cells: export differs from the imported rows"
	fi
fi

# ---- the command line ---------------------------------------------------------------------
if expect_status 2 h import --csv import/good.csv -o u.h5 --unit sec; then
	expect_grep "^harness: --unit 'sec' is not a time unit \\(ns, us, ms or s\\)\$" "$ERR"
	expect_grep '^usage: harness import ' "$ERR"
fi
nothing_left u.h5
if expect_status 2 h import -o u.h5; then
	expect_grep "^harness: 'import' needs one of --csv FILE, --kernel-tuner CACHE and --t4 FILE\$" "$ERR"
fi
if expect_status 2 h import --csv import/good.csv; then
	expect_grep "needs -o FILE" "$ERR"
fi
expect_status 2 h import --csv import/good.csv -o u.h5 extra.csv &&
	expect_grep '^usage: harness import ' "$ERR"
expect_status 2 h import --csv import/good.csv -o u.h5 --name "" &&
	expect_grep "^harness: --name must not be empty\$" "$ERR"
expect_status 2 h import --csv import/good.csv -o u.h5 -o v.h5 &&
	expect_grep "given once" "$ERR"
expect_status 2 h import --csv import/good.csv -o u.h5 --bogus
nothing_left u.h5
nothing_left v.h5
if expect_status 2 h import --csv no-such.csv -o u.h5; then
	expect_grep "^harness: cannot open 'no-such.csv': No such file or directory\$" "$ERR"
fi
nothing_left u.h5
# An output folder that does not exist: the file cannot be written (1), nothing left.
if expect_status 1 h import --csv import/good.csv -o no-such-dir/u.h5; then
	expect_grep "^harness: cannot write 'no-such-dir/u\\.h5' \\(create a temporary file\\): " "$ERR"
fi
[ -e no-such-dir ] && fail "no-such-dir was created"
# Read in pieces of 1 MiB: a line end that falls on a piece's last byte (a CR LF split
# between two pieces, a lone CR that the next piece must not join) ends the line once.  The
# same 60,000 rows with LF, CR LF and CR line ends, padded so a line end is byte 1048575.
/usr/bin/python3 - <<'PYEOF'
for eol, name in (("\n", "lf.csv"), ("\r\n", "crlf.csv"), ("\r", "cr.csv")):
    rows = ["cell,mode,block,value,unit"] + ["w/op:s=%d,%s,%d,%d.5,ns" % (k % 7, "ab"[k % 2], k % 3, 1000 + k % 97) for k in range(60000)]
    t = eol.join(rows) + eol
    pad = 1048575 - t.find(eol, 1048575 - 60)
    rows[1] = rows[1].replace(",", "," + " " * pad, 1) # blanks before an unquoted field are dropped
    t = eol.join(rows) + eol
    assert t[1048575] == eol[0], name
    open(name, "w", newline="").write(t)
    # the row after that line end with a bad value: its line number must be right
    n = t[:1048575 + len(eol)].count(eol) # lines ended there (the header is line 1)
    rows[n] = rows[n].replace(".5,ns", ".5x,ns")
    open("bad-" + name, "w", newline="").write(eol.join(rows) + eol)
    open("line-" + name, "w").write("%d\n" % (n + 1))
PYEOF
for x in lf crlf cr; do
	expect_status 0 h import --csv $x.csv -o $x.h5 &&
		expect_grep "^'$x.h5': 6 units \(2 modes\), 7 cells, 60000 samples; baseline 'a'\$" "$OUT"
	h report -f json $x.h5 >$x.json 2>/dev/null
done
check "a line end on a piece's boundary: LF, CR LF and CR import alike" /usr/bin/python3 -c '
import json, sys
k = lambda p: (lambda r: (r["cells"], r["comparisons"]))(json.load(open(p)))
sys.exit(not (k("lf.json") == k("crlf.json") == k("cr.json") and len(k("lf.json")[0]) == 7))'
for x in lf crlf cr; do
	expect_status 2 h import --csv bad-$x.csv -o bad-$x.h5 &&
		expect_grep "^harness: 'bad-$x.csv':$(cat line-$x.csv): column 'value': '[0-9]+\.5x' is not a number\$" "$ERR"
done

if expect_status 0 h import -h; then
	expect_grep '^usage: harness import \(--csv FILE ' "$OUT"
fi
if expect_status 0 h help import; then
	expect_grep '^usage: harness import ' "$OUT"
fi

finish
