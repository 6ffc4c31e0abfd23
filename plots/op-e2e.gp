# op-e2e.gp: per workload and mode, the geometric mean of the op-cell ratios against the
# end-to-end ratio, with 95% CIs, against the diagonal.  Set by harness (docs/plots.md):
# fig_title, data, nmodes, baseline, mode_names[], nwork, workload_names[], note (the
# points drawn without a bar because the report gives no CI there; empty: none).
# data: an index block per workload; columns: op geomean, lo, hi, e2e ratio, lo, hi, "mode", has an x CI,
# has a y CI (0/1: a CI the report withholds is NaN and drawn as no bar; the baseline
# first, at 1, 1).
set title fig_title
set xlabel 'per-op: geometric mean of op-cell ratios to the baseline (95% CI)'
set ylabel 'end to end: e2e cell ratio to the baseline (95% CI)'
set grid lc rgb '#dddddd'
set key tmargin center horizontal box
set border 3
set xtics nomirror
set ytics nomirror
if (strlen(note) > 0) {
	set label 1 note at character 1, character 1 left tc rgb '#444444'
	set bmargin 6
}
set offsets graph 0.08, graph 0.12, graph 0.08, graph 0.08
plot for [w=1:nwork] data index (w - 1) using ($8 > 0 && $9 > 0 ? $1 : NaN):4:2:3:5:6 with xyerrorbars pt 7 ps 1.2 lc w title workload_names[w], \
	for [w=1:nwork] data index (w - 1) using ($8 > 0 && $9 == 0 ? $1 : NaN):4:2:3 with xerrorbars pt 7 ps 1.2 lc w notitle, \
	for [w=1:nwork] data index (w - 1) using ($8 == 0 && $9 > 0 ? $1 : NaN):4:5:6 with yerrorbars pt 7 ps 1.2 lc w notitle, \
	for [w=1:nwork] data index (w - 1) using ($8 == 0 && $9 == 0 ? $1 : NaN):4 with points pt 7 ps 1.2 lc w notitle, \
	for [w=1:nwork] data index (w - 1) using 1:4:7 with labels offset char 1.5, char 1 left notitle, \
	x with lines dt 2 lc rgb '#444444' title 'per-op = end to end'
