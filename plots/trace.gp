# trace.gp: the tuning trace of one op cell: best-so-far latency of the candidates a tuner has
# benchmarked, against the tuning time spent so far (compile + benchmark), one series per
# mode (its first cold unit that benchmarked candidates).  Set by harness (docs/plots.md):
# fig_title, data, nseries, series_names[].
# data: an index block per series; columns: tuning time so far (s), best median so far (us).
set title fig_title
set xlabel 'tuning time so far: compile + benchmark (s)'
set ylabel 'best candidate so far: median latency (us)'
set grid lc rgb '#dddddd'
set key tmargin center horizontal box
set border 3
set xtics nomirror
set ytics nomirror
plot for [i=1:nseries] data index (i - 1) using 1:2 with steps lw 2 lc i title series_names[i], \
	for [i=1:nseries] data index (i - 1) using 1:2 with points pt 7 ps 0.6 lc i notitle
