# bench/charts.gp: the report's charts, drawn by bench/run with gnuplot from the tab-separated
# data it exports (views bench_chart_* of report.sql and report_backfill.sql). Called once per
# chart:  gnuplot -e "chart='cost'; data='FILE'; out='FILE.png'; ..." bench/charts.gp
#   cost     horizontal bars of ns per call (name, median, lo, hi, color 0/1/2, the median of
#            the case's bare loop); also: rows, n (rows per query, as text)
#   scaling  millions of ids/s against clients, one block per case (a header line, then
#            name, clients, ids, lo, hi); also: cases (the number of blocks), n (rows per query)
#   keys     index and WAL megabytes per key generator, side by side (name, index_mb, wal_mb);
#            also: rows, n (keys, as text)
set datafile separator "\t"
set grid
font = "DejaVu Sans,10"
bar = 0.35          # half the height of a horizontal bar

if (chart eq 'cost') {
    set terminal pngcairo noenhanced size 1000, 160 + 22 * rows font font
    set output out
    set title sprintf("Cost per call: SELECT count(f) FROM generate_series(1, N) or a table of N rows, N = %s;\nmedian of the rounds, whiskers min..max", n)
    set logscale x 10
    set xrange [10:*]
    set xlabel "ns per call, whole query (log scale); the light part of each bar is the same query without the function"
    set yrange [rows:-1]
    set ytics scale 0
    set key outside top center horizontal
    set style fill solid 0.75 noborder
    color(c) = c == 0 ? 0x999999 : (c == 1 ? 0x1f77b4 : 0xff7f0e)
    plot data using (10):0:(10):6:($0 - bar):($0 + bar):ytic(1) with boxxyerror lc rgb "#dddddd" notitle, \
         '' using 2:0:6:2:($0 - bar):($0 + bar):(color($5)) with boxxyerror lc rgb variable notitle, \
         '' using 2:0:3:4 with xerrorbars pointtype -1 linecolor rgb "black" notitle, \
         '' using ($4 * 1.08):0:(sprintf("%.0f", $2)) with labels left font ",8" notitle, \
         NaN with boxes lc rgb "#1f77b4" title "idgen", \
         NaN with boxes lc rgb "#999999" title "anchors", \
         NaN with boxes lc rgb "#ff7f0e" title "PL/pgSQL, SQL functions idgen replaces", \
         NaN with boxes lc rgb "#dddddd" title "bare loop"
}

if (chart eq 'scaling') {
    set terminal pngcairo noenhanced size 1000, 600 font font
    set output out
    set title sprintf("Bulk throughput: each client runs SELECT count(f) FROM generate_series(1, %s) once;\nmedian of the rounds, whiskers min..max", n)
    set logscale x 2
    set xrange [0.8:10]
    set xtics (1, 2, 4, 8)
    set xlabel "clients at once (the machine has 2 cores)"
    set ylabel "million ids per second, all clients together"
    set yrange [0:*]
    set key outside right top
    # Ten distinct colours (the default cycle has eight); past ten the point types still differ.
    palette = "#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b #e377c2 #7f7f7f #bcbd22 #17becf"
    plot for [i = 0:cases - 1] data index i using 2:3:4:5 with yerrorlines linewidth 2 pointsize 1 \
         linecolor rgb word(palette, i % 10 + 1) pointtype (i + 1) title columnheader(1)
}

if (chart eq 'keys') {
    set terminal pngcairo noenhanced size 1000, 140 + 28 * rows font font
    set output out
    set multiplot layout 1, 2 title sprintf("%s keys in one INSERT into a table with a primary key (medians)", n)
    set yrange [rows:-1]
    set ytics scale 0
    set xrange [0:*]
    set style fill solid 0.8 noborder
    set offsets 0, graph 0.15, 0, 0
    set title "index size, MB (pg_relation_size)"
    plot data using (0):0:(0):2:($0 - bar):($0 + bar):ytic(1) with boxxyerror lc rgb "#1f77b4" notitle, \
         '' using 2:0:(sprintf(" %.1f", $2)) with labels left font ",8" notitle
    set title "WAL written, MB (pg_current_wal_insert_lsn difference)"
    set format y ""
    plot data using (0):0:(0):3:($0 - bar):($0 + bar) with boxxyerror lc rgb "#ff7f0e" notitle, \
         '' using 3:0:(sprintf(" %.1f", $3)) with labels left font ",8" notitle
    unset multiplot
}
