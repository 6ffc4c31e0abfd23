#!/bin/bash
# tests/gpu/annealing-run.sh: the simulated-annealing tuner live on the CUDA backend (issue 47,
# stop 56): tests/gpu/tuners-run.sh with simulated annealing alone, 3 blocks, and a replay of
# random, simulated annealing and coordinate descent on the exhaustive unit.  (Stop 56 ran its
# own copy of that script, whose mode was named "sa".)  Files to $OUT.
TUNERS=simulated-annealing BLOCKS=3 REPLAY=random,simulated-annealing,coordinate-descent \
	exec bash "$(dirname "$0")/tuners-run.sh"
