#!/bin/bash
# tests/gpu/res-tma-run.sh: the residual by TMA (conv.cu's RES_TMA, templates/wgmma.cuh's
# wg_res; issue 49's second item) on a lent machine, from the checkout with the bundle at
# .gpu/bundle.txz (docs/BENCHMARKS.md): the card's state; experiments/gpu-res-tma.toml
# (ResNet-50's four residual convolutions, conv.cu's space with RES_TMA 0 and 1 against
# cuDNN) and its tables (scripts/field-pairs.py RES_TMA 0 1, scripts/layer-table.py over
# each value); the GPU tests cuda-conv.sh and cuda-model.sh on the bundle; then
# experiments/gpu-cluster.toml's 24 convolutions with its `exhaustive` mode alone (conv.cu's
# whole space, RES_TMA included; TMA-only modules wherever X has a map) and, unless
# RUN_GATHER=0, again as mode exhaustive-gather with HARNESS_CUDA_CONV_TMA_ONLY=0 (every
# module keeps the gather: the A/B, blocks interleaved), and scripts/layer-table.py's table
# of each (STEPS="ab tests run" by default; any subset).  EXP, FIELD and VALUES (default experiments/gpu-res-tma.toml, RES_TMA,
# "0 1") set the ab step's experiment and the field whose values it compares (each value
# against the first, and the best at each; with experiments/gpu-kloop.toml,
# scripts/kloop-table.py's table too).  OLD_TEMPLATES (a folder of conv.cu, wgmma.cuh and the
# rest of kernels/cuda/templates, e.g. `git archive` of an earlier commit's, carried in .gpu):
# the run step adds mode exhaustive-old, the bundle's kernels with those templates
# (HARNESS_KERNEL_DIR), and tables.md its layer table and scripts/config-shift.py's shift
# from it (a template change A/B in the same blocks); unless RUN_NOPDL=0, mode
# exhaustive-nopdl (HARNESS_CUDA_PDL=0: no launch a programmatic dependent) and its tables.
# RUN_PAIRS (default "RES_TMA:0:1"): the run step's field pairs, FIELD:A:B words, e.g.
# "CLUSTER:1:2 CLUSTER:1:4 CLUSTER:1:8 BLOCK_N:128:112 STAGES:8:10" (stop 66's reading).
# Files under $OUT: host.txt, ab.txt, ab.md, tests.txt, run.txt, tables.md, ab.h5, run.h5.
set -u
cd "$(dirname "$0")/../.."
[ -d bundle ] || tar -xJf .gpu/bundle.txz
B=$PWD/bundle/run.sh
R=/root/gpures
mkdir -p $R
STEPS=${STEPS:-ab tests run}
EXP=${EXP:-experiments/gpu-res-tma.toml}
FIELD=${FIELD:-RES_TMA}
VALUES=${VALUES:-0 1}
. "$PWD/tests/gpu/card-state.sh" # q: the card's state
{ date -u +%FT%TZ; q; nproc; } > $OUT/host.txt 2>&1
cat $OUT/host.txt
if [[ " $STEPS " == *" ab "* ]]; then
	/usr/bin/time -f "wall %e s" timeout ${AB_LIMIT:-200} $B run -o $R/ab.h5 \
		$EXP > $OUT/ab.txt 2>&1
	echo "ab exit $?"; tail -2 $OUT/ab.txt
	set -- $VALUES
	{
		for v in "${@:2}"; do
			echo "## pairs: $FIELD $v over $1"; python3 scripts/field-pairs.py $R/ab.h5 $FIELD $1 $v; echo
		done
		for v in "$@"; do
			echo "## $FIELD=$v alone"; python3 scripts/layer-table.py $R/ab.h5 - exhaustive $FIELD=$v; echo
		done
		echo "## all"; python3 scripts/layer-table.py $R/ab.h5 - exhaustive
		echo; echo "## the k-loop against the SMs busy (experiments/gpu-kloop.toml's cells)"
		python3 scripts/kloop-table.py $R/ab.h5
	} > $OUT/ab.md 2>&1
	cat $OUT/ab.md
	cp $R/ab.h5 $OUT/
	q >> $OUT/host.txt
fi
if [[ " $STEPS " == *" tests "* ]]; then
	TEST_LIMIT=${TEST_LIMIT:-300} bash tests/gpu/bundle-tests.sh
fi
if [[ " $STEPS " == *" run "* ]]; then
	sed -e '/^name = "exhaustive-m"/,$d' experiments/gpu-cluster.toml | sed -e '$d' > $R/run.toml
	# mode NAME: the exhaustive tuner with one variable VAR set to VALUE (the A/B's other arm)
	add_mode() {
		printf '%s\n' '[[modes]]' "name = \"$1\"" 'tuner = "exhaustive"' \
			'[modes.environment]' "$2 = \"$3\"" >> $R/run.toml
	}
	[ "${RUN_GATHER:-1}" = 1 ] && add_mode exhaustive-gather HARNESS_CUDA_CONV_TMA_ONLY 0
	[ "${RUN_NOPDL:-1}" = 1 ] && add_mode exhaustive-nopdl HARNESS_CUDA_PDL 0
	if [ -n "${OLD_TEMPLATES:-}" ]; then
		rm -rf $R/oldk && cp -r bundle/kernels $R/oldk && cp "$OLD_TEMPLATES"/* $R/oldk/cuda/templates/
		add_mode exhaustive-old HARNESS_KERNEL_DIR $R/oldk
	fi
	/usr/bin/time -f "wall %e s, maxrss %M KB" timeout ${RUN_LIMIT:-330} $B run -o $R/run.h5 \
		$R/run.toml > $OUT/run.txt 2>&1
	echo "run exit $?"; tail -2 $OUT/run.txt
	q >> $OUT/host.txt
	{
		echo "## all templates"; python3 scripts/layer-table.py $R/run.h5 - exhaustive
		echo; echo "## the gather kept (HARNESS_CUDA_CONV_TMA_ONLY=0)"
		python3 scripts/layer-table.py $R/run.h5 - exhaustive-gather
		# RUN_PAIRS: FIELD:A:B words, each field's B over A (scripts/field-pairs.py)
		for fp in ${RUN_PAIRS:-RES_TMA:0:1}; do
			IFS=: read -r f a v <<< "$fp"
			echo; echo "## pairs: $f $v over $a"; python3 scripts/field-pairs.py $R/run.h5 $f $a $v
		done
		# an A/B mode's layer table, and each config's shift from it to exhaustive
		ab_tables() {
			echo; echo "## $2"; python3 scripts/layer-table.py $R/run.h5 - $1
			echo; echo "## config shift: exhaustive over $1"
			python3 scripts/config-shift.py $R/run.h5:$1 $R/run.h5:exhaustive cell
		}
		[ "${RUN_NOPDL:-1}" = 1 ] &&
			ab_tables exhaustive-nopdl "without programmatic dependent launch (HARNESS_CUDA_PDL=0)"
		[ -n "${OLD_TEMPLATES:-}" ] && ab_tables exhaustive-old "the templates of $OLD_TEMPLATES"
	} > $OUT/tables.md 2>&1
	tail -8 $OUT/tables.md
	cp $R/run.h5 $OUT/
fi
{ date -u +%FT%TZ; q; } >> $OUT/host.txt
