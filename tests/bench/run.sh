echo no benchmarks yet
