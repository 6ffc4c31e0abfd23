# cell.gp: one cell's unit medians by mode: a box per mode and a point per unit, over the
# baseline's IQR band and median.  Set by harness (docs/plots.md): fig_title, data, nmodes,
# baseline, mode_names[], base_q1, base_med, base_q3 (us; NaN when the baseline has no unit),
# box_modes (the numbers of the modes with a unit in the cell, space-separated: a box only
# for those, as gnuplot's boxplot fails on a data block with no defined point).
# data: an index block per mode; columns: mode number, unit median (us), jittered x.
set title fig_title
set xlabel 'mode'
set ylabel 'unit median (µs)'
set xrange [0.4:nmodes + 0.6]
set xtics () scale 0
set for [i=1:nmodes] xtics add (mode_names[i] i)
set grid ytics lc rgb '#dddddd'
set key tmargin center horizontal box
set border 3
set ytics nomirror
set style boxplot nooutliers
if (base_q1 == base_q1) {
	set object 1 rect from graph 0, first base_q1 to graph 1, first base_q3 behind fc rgb '#dde6f0' fs solid 1.0 noborder
	set arrow 1 from graph 0, first base_med to graph 1, first base_med nohead dt 2 lc rgb '#4060a0'
}
plot for [k=1:words(box_modes)] data index (word(box_modes, k) - 1) using (word(box_modes, k) + 0):2:(0.5) with boxplot lc (word(box_modes, k) + 0) fs transparent solid 0.15 notitle, \
	for [i=1:nmodes] data index (i - 1) using 3:2 with points pt 7 ps 0.9 lc i title mode_names[i], \
	NaN with boxes fs solid 1.0 fc rgb '#dde6f0' title sprintf('baseline %s: IQR, median dashed', mode_names[baseline])
