# tests/cli/readers.sh: every command that reads a results file refuses a bad one the same
# way (issue 9, item 5): exit status 2 and a message naming the file, nothing written.  Bad
# files: not HDF5, empty, a results file cut short, an HDF5 file that is not a results file,
# and a results file whose /trials (read only by the figures) is damaged: `report -f html`
# and `plot` read it before drawing, so it is a bad input there too, never gnuplot's error.
# A damaged version 1 file (issue 45, item 7): never a crash.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
export HARNESS_PLOT_DIR="$top_srcdir/plots"

expect_status 0 h import --csv "$DATA/report/synthetic.csv" -o good.h5 || finish
echo "not a results file" >text.h5
: >empty.h5
size=$(wc -c <good.h5)
head -c $((size / 2)) good.h5 >cut.h5
BAD="text.h5 empty.h5 cut.h5"
# a version 1 file damaged where libhdf5 follows a variable-length string's pointer into the
# global heap without checking it: every reader segfaulted (issue 45, item 7); the byte was
# found by flipping every 1999th byte of the committed file
$PY -c '
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[205897] ^= 0xff
open("v1-heap.h5", "wb").write(b)
' "$DATA/v1/v1.h5" && BAD="$BAD v1-heap.h5"
if $PY -c 'import h5py' 2>/dev/null; then
	$PY - <<'PYEOF' || fail "cannot write the HDF5 test files"
import shutil, h5py, numpy as np
with h5py.File("other.h5", "w") as f:
    f["x"] = np.arange(10)
shutil.copy("good.h5", "trials.h5")
with h5py.File("trials.h5", "r+") as f:
    del f["trials"]
    f["trials"] = np.zeros(3)
PYEOF
	BAD="$BAD other.h5"
else
	echo "note: no h5py for $PY: the HDF5-but-not-results and damaged /trials checks are skipped"
fi

# check_bad FILE CMD...: CMD exits 2 naming FILE, and writes nothing on stdout
check_bad() {
	f=$1
	shift
	if expect_status 2 h "$@"; then
		grep -q "'$f'" "$SCRATCH/err" || fail "'$*': the message does not name '$f': $(head -2 "$SCRATCH/err")"
		[ ! -s "$SCRATCH/out" ] || fail "'$*' wrote to stdout"
	fi
}

for f in $BAD; do
	check_bad $f show $f
	for fmt in md json csv html; do
		check_bad $f report -f $fmt $f
	done
	check_bad $f compare $f good.h5
	check_bad $f compare good.h5 $f
	check_bad $f export --csv "exp-$f" $f
	[ -z "$(ls -A "exp-$f" 2>/dev/null)" ] || fail "export of $f left files in exp-$f"
	check_bad $f plot -o "plot-$f" $f
	[ -z "$(ls -A "plot-$f" 2>/dev/null)" ] || fail "plot of $f left files in plot-$f"
	check_bad $f verify $f
	check_bad $f audit $f
done
pass "show, report (md, json, csv, html), compare, export, plot, verify, audit: exit 2 naming the file ($BAD)"
if [ -f v1-heap.h5 ]; then
	# in an --enable-asan build the child's bad read is AddressSanitizer's report, which
	# ends in an exit (status 1) unless told to abort: a signal, as libhdf5's own segfault
	o=${ASAN_OPTIONS-}
	export ASAN_OPTIONS="${o:+$o:}abort_on_error=1"
	expect_status 2 h show v1-heap.h5 &&
		expect_grep "^harness: 'v1-heap.h5': damaged: reading /units killed the reader \(signal (11|6)" "$SCRATCH/err" &&
		pass "a version 1 file whose string heap is damaged: read in a child first, its death reported naming /units"
	ASAN_OPTIONS=$o
fi

# damage of the hidden kind replayed: every 3001st byte of the committed version 1 file
# flipped, and the file cut at 16 lengths; show and report read each: exit 0 or 2, never a
# crash or a hang
$PY - "$DATA/v1/v1.h5" "$HARNESS" <<'PYEOF' && pass "a version 1 file flipped at every 3001st byte and cut at 16 lengths: show and report exit 0 or 2" || fail "a damaged version 1 file crashed a reader"
import collections, subprocess, sys
data = open(sys.argv[1], "rb").read()
n = len(data)
variants = [("flip", o) for o in range(0, n, 3001)] + [("cut", c) for c in range(0, n, n // 16)]
bad, seen = [], collections.Counter()
for kind, at in variants:
    b = bytearray(data)
    if kind == "flip":
        b[at] ^= 0xFF
    else:
        b = b[:at]
    open("v1-replay.h5", "wb").write(b)
    for cmd in (["show"], ["report"]):
        try:
            rc = subprocess.run([sys.argv[2]] + cmd + ["v1-replay.h5"], capture_output=True,
                                timeout=120).returncode
        except subprocess.TimeoutExpired:
            rc = "hang"
        seen[rc] += 1
        if rc not in (0, 2):
            bad.append((kind, at, cmd[0], rc))
print("exit statuses:", dict(seen))
assert not bad, bad
PYEOF

if [ -f trials.h5 ]; then
	if command -v gnuplot >/dev/null 2>&1; then
		check_bad trials.h5 report -f html trials.h5
		check_bad trials.h5 plot -o plot-trials trials.h5
		expect_grep "cannot read /trials" "$SCRATCH/err"
		[ -z "$(ls -A plot-trials 2>/dev/null)" ] || fail "plot of trials.h5 left files"
		pass "report -f html and plot: a damaged /trials is a bad input (2), read before drawing"
	else
		echo "note: no gnuplot: the damaged /trials checks are skipped"
	fi
fi
finish
