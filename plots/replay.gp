# replay.gp: a replay's normalised best-so-far curves (docs/replay.md), one line per tuner:
# the median over the op cells of each cell's mean score over seeds.  Set by harness
# (harness/output/replay-plot.c): fig_title, data, ntuners, tuner_names[].
# data: an index block per tuner; columns: trials, median (over cells) of the mean score, first and third quartile
# of the cells' scores.
set title fig_title
set xlabel 'budget (trials)'
set ylabel 'score (0 = expected best of random search, 1 = best known); median over cells'
set grid lc rgb '#dddddd'
set key bottom right box
set border 3
set xtics nomirror
set ytics nomirror
set yrange [*:1.05]
plot for [i=1:ntuners] data index (i - 1) using 1:3:4 with filledcurves lc i fs transparent solid 0.12 noborder notitle, \
	for [i=1:ntuners] data index (i - 1) using 1:2 with linespoints pt 7 ps 0.5 lc i title tuner_names[i], \
	0 with lines dt 2 lc rgb '#444444' notitle
