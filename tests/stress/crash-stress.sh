#!/bin/sh
# tests/stress/crash-stress.sh: crash-safety stress (make stress; issues 9 and 50).  Runs an
# experiment (by default the small tests/data/run/crash.toml) again and again, each time
# SIGKILLed inside a random write, or out of disk space from a random write on
# (tests/stress/writefault.so), or SIGKILLed at a random moment of the run; then resumes it,
# the resumes themselves faulted at random points too, until a resume completes; then checks
# the results against the journal as it was after the first fault (tests/stress/check-run.py).
# Prints the totals; exits 1 if any finished unit was lost, any unit recorded twice or
# missing, or any unit ok with unverified samples.
#
# usage: crash-stress.sh [TRIALS [EXPERIMENT [RUN OPTION...]]]
#        (default 200 trials of crash.toml; `make stress` also runs the main job,
#        experiments/resnet.toml --backend cpu, STRESS_MAIN_TRIALS times; run from the build
#        tree, or set HARNESS, top_srcdir and top_builddir)
set -u
TRIALS=${1:-200}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-.}
HARNESS=${HARNESS:-$top_builddir/harness/harness}
export HARNESS_KERNEL_DIR=${HARNESS_KERNEL_DIR:-$top_srcdir/kernels}
SO=$(cd "$top_builddir" && pwd)/tests/stress/writefault.so
CHECK=$top_srcdir/tests/stress/check-run.py
EXP=${2:-$top_srcdir/tests/data/run/crash.toml}
case $EXP in /*) ;; *) EXP=$(pwd)/$EXP ;; esac
[ $# -ge 2 ] && shift 2 || set --
PY=/usr/bin/python3
export LC_ALL=C TZ=UTC ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
W=$(mktemp -d "${TMPDIR:-/tmp}/crash-stress.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1

ref_start=$(date +%s%N)
env LD_PRELOAD="$SO" WRITEFAULT_LOG="$W/wlog" "$HARNESS" run -q "$@" -o ref.h5 "$EXP" >/dev/null 2>&1 ||
	{ echo "crash-stress: the reference run failed" >&2; exit 1; }
# a random moment lies within the reference run's length (in ms)
REF_MS=$(( ($(date +%s%N) - ref_start) / 1000000 + 1 ))
RUN_OPTS="$*"
WRITES=$(awk '{ s += $2 } END { print s + 0 }' wlog)
NPLAN=$($PY -c 'import sys, h5py; print(len(h5py.File(sys.argv[1], "r")["plan"]))' ref.h5)
rnd() { od -An -N4 -tu4 /dev/urandom | tr -d ' '; }

# one faulted attempt: run or resume ($1: "run" or "resume"); prints what was injected
attempt() {
	r=$(rnd)
	kind=$((r % 3))
	at=$(( (r / 3) % (WRITES + 2) + 1 ))
	if [ "$1" = run ]; then set -- run -q $RUN_OPTS -o run.h5 "$EXP"; else set -- run -q --resume run.h5; fi
	case $kind in
	0) env LD_PRELOAD="$SO" WRITEFAULT_KILL_AT=$at "$HARNESS" "$@" >/dev/null 2>>log; st=$?; echo "kill $st" ;;
	1) env LD_PRELOAD="$SO" WRITEFAULT_ENOSPC_AT=$at "$HARNESS" "$@" >/dev/null 2>>log; st=$?; echo "enospc $st" ;;
	2) "$HARNESS" "$@" >/dev/null 2>>log &
	   pid=$!
	   ms=$((r % REF_MS))
	   sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
	   kill -9 $pid 2>/dev/null
	   wait $pid; st=$?; echo "timer $st" ;;
	esac
}

kills=0 fulls=0 timers=0 crashes=0 trials=0 bad=0
# count KIND STATUS: a fault that took effect (the fault point may lie past the last write)
count() {
	case $1:$2 in
	kill:137) kills=$((kills + 1));;
	enospc:1) fulls=$((fulls + 1));;
	timer:137) timers=$((timers + 1));;
	esac
}
: >totals
start=$(date +%s)
while [ $trials -lt "$TRIALS" ]; do
	trials=$((trials + 1))
	rm -rf run run.h5 run.h5.tmp-* log
	set -- $(attempt run)
	count "$1" "$2"
	# a crash is a signal other than our own SIGKILL, or an exit status other than 0, 1, 137
	case $2 in 0|1|137) ;; *) crashes=$((crashes + 1)); echo "trial $trials: $1: exit $2" >&2; tail -3 log >&2;; esac
	[ -d run/journal ] || continue # stopped before anything was recorded
	$PY "$CHECK" snapshot run >snap.json || { bad=$((bad + 1)); echo "trial $trials: journal unreadable" >&2; continue; }
	# resumes, faulted half the time, until one completes
	for _ in 1 2 3 4 5 6 7 8; do
		if [ $(( $(rnd) % 2 )) -eq 0 ]; then
			set -- $(attempt resume)
			count "$1" "$2"
			case $2 in 0|1|137) ;; *) crashes=$((crashes + 1)); echo "trial $trials: resume $1: exit $2" >&2;; esac
		fi
		"$HARNESS" run -q --resume run.h5 >/dev/null 2>>log && break
	done
	if ! $PY "$CHECK" check run.h5 snap.json $NPLAN >>totals; then
		bad=$((bad + 1))
		echo "trial $trials: $(tail -1 totals)" >&2
		tail -5 log >&2
	fi
done
secs=$(( $(date +%s) - start ))
awk -v e="$(basename "$EXP")" -v t="$trials" -v k="$kills" -v f="$fulls" -v ti="$timers" -v c="$crashes" -v s="$secs" '
	{ for (i = 1; i <= NF; i++) { split($i, kv, "="); n[kv[1]] += kv[2] } }
	END { printf "crash-stress: %s: %d trials in %d s: %d SIGKILLs inside writes, %d full disks, %d SIGKILLs at random moments; %d crashes; finished units before the first fault %d: lost %d, duplicated %d, missing %d, ok with unverified samples %d\n", e, t, s, k, f, ti, c, n["finished-before"], n["lost"], n["duplicated"], n["missing"], n["unverified"] }' totals
[ $bad -eq 0 ] && [ $crashes -eq 0 ]
