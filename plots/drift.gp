# drift.gp: each unit's level against its run position, one series per mode.  Set by
# harness (docs/plots.md): fig_title, data, nmodes, baseline, mode_names[], mode_notes[]
# (the mode with Spearman's rho and p).
# data: an index block per mode; columns: run position, level (1: the mode's median).
set title fig_title
set xlabel 'run position (row of the unit in the results file)'
set ylabel 'unit level relative to the mode''s median (geometric mean over cells)'
set grid lc rgb '#dddddd'
set key tmargin center horizontal box
set border 3
set xtics nomirror
set ytics nomirror
plot for [i=1:nmodes] data index (i - 1) using 1:2 with linespoints pt 7 ps 0.9 lc i title mode_notes[i], \
	1 with lines dt 2 lc rgb '#444444' notitle
