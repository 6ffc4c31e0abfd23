# pareto.gp: one cell's median latency against median setup time per mode, IQR bars over
# units; the Pareto front of these two axes circled and joined; modes on the report's front
# over latency, spread and setup that these two axes hide marked apart.  Set by harness
# (docs/plots.md): fig_title, data, nmodes, baseline, mode_names[], nhidden (how many modes
# are on the report's front and dominated here).
# data index 0: setup median, q1, q3 (s), latency median, q1, q3 (us), on this front (0/1),
# mode number, "mode", on the report's three-way front (0/1); index 1: this front's points
# in setup order.
set title fig_title
set xlabel 'setup time per unit (s): compile + tuning + search (median, IQR)'
set ylabel 'latency: median of unit medians (µs), IQR'
set grid lc rgb '#dddddd'
set xrange [0:*]
set key tmargin center horizontal box
set border 3
set xtics nomirror
set ytics nomirror
set offsets 0, graph 0.12, graph 0.08, graph 0.08
plot data index 0 using 1:4:2:3:5:6:8 with xyerrorbars pt 7 ps 1.2 lc variable title 'mode (median, IQR bars)', \
	data index 1 using 1:2 with lines dt 2 lw 1.5 lc rgb '#555555' title 'Pareto front (latency, setup)', \
	data index 0 using ($7 > 0 ? $1 : NaN):4 with points pt 6 ps 3 lw 2 lc rgb '#000000' notitle, \
	data index 0 using ($10 > 0 && $7 == 0 ? $1 : NaN):4 with points pt 12 ps 3 lw 2 lc rgb '#e08000' title (nhidden > 0 ? 'on the front over latency, spread and setup; dominated on these two axes' : ''), \
	data index 0 using 1:4:9 with labels offset char 1.5, char 1 left notitle
