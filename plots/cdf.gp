# cdf.gp: the within-unit sample distributions of one cell, a step line per unit coloured by
# mode.  Set by harness (docs/plots.md): fig_title, data, nmodes, baseline, mode_names[].
# data: an index block per mode, a curve per unit (curves separated by one blank line);
# columns: sample (us), fraction of the unit's samples <= it.
set title fig_title
set xlabel 'sample (µs)'
set ylabel 'fraction of the unit''s samples <= x'
set yrange [0:1.02]
set grid lc rgb '#dddddd'
set key tmargin center horizontal box
set border 3
set xtics nomirror
set ytics nomirror
plot for [i=1:nmodes] data index (i - 1) using 1:2 with steps lw 1 lc i title mode_names[i]
