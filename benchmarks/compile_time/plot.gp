# Compile time against node count, one line per compiler x shape, from the files that
# report.py writes next to summary.csv (in measure.sh's results folder). Called by measure.sh:
#   gnuplot -e "summary='build/bench-results/compile_time/summary.csv'; out='docs/img/compile_time.png'" plot.gp
# A shape that was not measured has an empty file and draws nothing.
dir = system("dirname '" . summary . "'")
set terminal pngcairo size 1100,460 font "sans,10"
set output out
set multiplot layout 1,2 title "stategraph: compiling one graph (g++ 12 / clang++ 14, -O2 -std=c++20 -c; medians)"
set key top left
set grid
set xlabel "nodes"
set xrange [0:*]
set yrange [0:*]

set ylabel "CPU seconds"
# Wall time is in the table; on the shared machine it is mostly time spent waiting for a core.
set title "CPU time, user + system"
plot dir."/plot-gcc-chain.dat"   using 1:5 with linespoints lw 2 pt 7 lc rgb "#1f77b4" title "g++ chain CPU", \
     dir."/plot-gcc-dag.dat"     using 1:5 with linespoints lw 2 pt 5 lc rgb "#2ca02c" title "g++ dag CPU", \
     dir."/plot-clang-chain.dat" using 1:5 with linespoints lw 2 pt 7 lc rgb "#d62728" title "clang++ chain CPU", \
     dir."/plot-clang-dag.dat"   using 1:5 with linespoints lw 2 pt 5 lc rgb "#ff7f0e" title "clang++ dag CPU", \
     dir."/plot-gcc-loop.dat"    using 1:5 with linespoints lw 2 pt 9 lc rgb "#9467bd" title "g++ loop CPU", \
     dir."/plot-clang-loop.dat"  using 1:5 with linespoints lw 2 pt 9 lc rgb "#8c564b" title "clang++ loop CPU", \
     dir."/plot-gcc-chain.dat"   using 1:($7 == 1 ? $5 : 1/0) with points pt 6 ps 2.5 lc rgb "black" \
       title "needs the constexpr cap raised", \
     dir."/plot-gcc-dag.dat"     using 1:($7 == 1 ? $5 : 1/0) with points pt 6 ps 2.5 lc rgb "black" notitle, \
     dir."/plot-clang-chain.dat" using 1:($7 == 1 ? $5 : 1/0) with points pt 6 ps 2.5 lc rgb "black" notitle, \
     dir."/plot-clang-dag.dat"   using 1:($7 == 1 ? $5 : 1/0) with points pt 6 ps 2.5 lc rgb "black" notitle, \
     dir."/plot-gcc-loop.dat"    using 1:($7 == 1 ? $5 : 1/0) with points pt 6 ps 2.5 lc rgb "black" notitle, \
     dir."/plot-clang-loop.dat"  using 1:($7 == 1 ? $5 : 1/0) with points pt 6 ps 2.5 lc rgb "black" notitle, \
     10 with lines dt 2 lc rgb "gray" title "goal: 10 s at 200 nodes"

set ylabel "MiB"
set title "peak memory (max RSS)"
plot dir."/plot-gcc-chain.dat"   using 1:6 with linespoints lw 2 pt 7 lc rgb "#1f77b4" title "g++ chain", \
     dir."/plot-gcc-dag.dat"     using 1:6 with linespoints lw 2 pt 5 lc rgb "#2ca02c" title "g++ dag", \
     dir."/plot-clang-chain.dat" using 1:6 with linespoints lw 2 pt 7 lc rgb "#d62728" title "clang++ chain", \
     dir."/plot-clang-dag.dat"   using 1:6 with linespoints lw 2 pt 5 lc rgb "#ff7f0e" title "clang++ dag", \
     dir."/plot-gcc-loop.dat"    using 1:6 with linespoints lw 2 pt 9 lc rgb "#9467bd" title "g++ loop", \
     dir."/plot-clang-loop.dat"  using 1:6 with linespoints lw 2 pt 9 lc rgb "#8c564b" title "clang++ loop", \
     1024 with lines dt 2 lc rgb "gray" title "goal: 1 GiB"
unset multiplot
