# tests/cli/readers.sh: every command that reads a results file refuses a bad one the same
# way (issue 9, item 5): exit status 2 and a message naming the file, nothing written.  Bad
# files: not HDF5, empty, a results file cut short, an HDF5 file that is not a results file,
# and a results file whose /trials (read only by the figures) is damaged: `report -f html`
# and `plot` read it before drawing, so it is a bad input there too, never gnuplot's error.
. "$top_srcdir/tests/setup"
PY=/usr/bin/python3
export HARNESS_PLOT_DIR="$top_srcdir/plots"

expect_status 0 h import --csv "$DATA/report/synthetic.csv" -o good.h5 || finish
echo "not a results file" >text.h5
: >empty.h5
size=$(wc -c <good.h5)
head -c $((size / 2)) good.h5 >cut.h5
BAD="text.h5 empty.h5 cut.h5"
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
