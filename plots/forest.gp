# forest.gp: ratios to the baseline with 95% CIs, one row per (cell, mode), coloured by
# verdict, over the equivalence margin.  Set by harness (docs/plots.md): fig_title, data,
# nmodes, baseline, mode_names[], nrows, margin, verdict_names[4].
# data columns: row, ratio, CI low, CI high, verdict (0 FASTER, 1 SLOWER, 2 SAME,
# 3 INCONCLUSIVE), "cell | mode".
array verdict_colors[4] = ['#1a9850', '#d73027', '#4575b4', '#888888']
set title fig_title
set xlabel 'ratio to the baseline (mode / baseline; < 1: faster), with its 95% CI'
set ylabel ''
set yrange [0.4:nrows + 0.6]
set ytics scale 0 font ',10'
set grid xtics lc rgb '#dddddd'
set key outside right top vertical box
set border 3
set xtics nomirror
if (margin == margin) {
	set object 1 rect from first 1 - margin, graph 0 to first 1 + margin, graph 1 behind fc rgb '#e6f2e6' fs solid 1.0 noborder
}
set arrow 1 from first 1, graph 0 to first 1, graph 1 nohead lc rgb '#444444' dt 2
plot for [v=0:3] data using ($5 == v ? $2 : NaN):1:3:4 with xerrorbars pt 7 ps 1.1 lw 1.5 lc rgb verdict_colors[v + 1] title verdict_names[v + 1], \
	data using 2:1:ytic(6) with points ps 0 lc rgb '#ffffffff' notitle, \
	NaN with boxes fs solid 1.0 fc rgb '#e6f2e6' title sprintf('SAME band +-%.2f%% (the declared margin, else the median noise floor)', 100 * margin)
