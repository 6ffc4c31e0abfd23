# forest.gp: ratios to the baseline with 95% CIs on a log axis, one row per (cell, mode),
# grouped by workload (a header row each) and sorted by ratio within it, coloured by
# verdict, over the equivalence margin.  Set by harness (docs/plots.md): fig_title, data,
# nmodes, baseline, mode_names[], nrows, margin, xmin, xmax, xtic_at[] (the ticks, chosen so
# that no two labels run together), noci (rows without a CI), note (what the figure leaves out, and the points that
# have no CI), verdict_names[4].
# data columns: y, ratio, CI low, CI high (NaN: the report gives no CI), verdict (0 FASTER,
# 1 SLOWER, 2 SAME, 3 INCONCLUSIVE; -1 a workload's header row), "cell | mode" or
# "workload:", has a CI (0/1).
array verdict_colors[4] = ['#1a9850', '#d73027', '#4575b4', '#888888']
# the long cell labels push the plot to the right: the title, the key and the note are
# placed from the canvas's left edge, where they fit, not centred over the plot
set label 2 fig_title at screen 0, screen 1 offset character 1, character -1 left front
set tmargin 3
set xlabel 'mode / baseline (< 1: faster), log scale, 95% CI'
# the key as a line of coloured words: gnuplot fits a key into the plot's width, which
# the labels leave narrow
unset key
array key_at[4] = [1, 9, 17, 23]
do for [v=1:4] {
	set label 2 + v verdict_names[v] at screen 0, screen 0 offset character key_at[v], character 1.2 left tc rgb verdict_colors[v]
}
set label 7 sprintf('hollow: no 95%% CI; shaded: SAME band +-%.2f%% (margin, else median floor)', 100 * margin) at screen 0, screen 0 offset character 37, character 1.2 left tc rgb '#444444'
set label 1 note at screen 0, screen 0 offset character 1, character 3 left tc rgb '#444444'
set bmargin 7
set ylabel ''
set yrange [0.4:nrows + 0.6]
set ytics scale 0
set logscale x
set xrange [xmin:xmax]
set xtics () nomirror
do for [i=1:|xtic_at|] {
	set xtics add (sprintf('%g', xtic_at[i]) xtic_at[i])
}
set mxtics default
set grid xtics lc rgb '#dddddd'
set border 3
if (margin == margin) {
	set object 1 rect from first 1 - margin, graph 0 to first 1 + margin, graph 1 behind fc rgb '#e6f2e6' fs solid 1.0 noborder
}
set arrow 1 from first 1, graph 0 to first 1, graph 1 nohead lc rgb '#444444' dt 2
plot for [v=0:3] data using ($5 == v && $7 > 0 ? $2 : NaN):1:3:4 with xerrorbars pt 7 ps 1.1 lw 1.5 lc rgb verdict_colors[v + 1] title verdict_names[v + 1], \
	for [v=0:3] data using ($5 == v && $7 == 0 ? $2 : NaN):1 with points pt 6 ps 1.3 lw 1.5 lc rgb verdict_colors[v + 1] notitle, \
	data using (1):1:ytic(6) with points ps 0 lc rgb '#ffffffff' notitle, \
	NaN with points pt 6 ps 1.3 lc rgb '#444444' title (noci > 0 ? 'no 95% CI (too few blocks)' : ''), \
	NaN with boxes fs solid 1.0 fc rgb '#e6f2e6' title sprintf('SAME band +-%.2f%% (declared margin, else median noise floor)', 100 * margin)
