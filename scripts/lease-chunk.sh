#!/bin/bash
# lease-chunk.sh: one chunk of a long run on a lent machine whose calls last minutes, while
# the run takes hours: the run goes on in the background between calls, and each call brings
# back its journal (docs/studies/torch-resnet.md; docs/torch-worker.md).
#
# Usage, from the checkout's root on the lent machine, once per call:
#
#   scripts/lease-chunk.sh RUN.h5 EXPERIMENT [harness run options...]
#
#   RUN.h5      the run's results file; its folder (RUN/) holds the journal.  Where RUN/journal/
#               exists (committed after an earlier chunk), the chunk resumes it; otherwise it
#               starts the run afresh with -o.
#   EXPERIMENT  the experiment file the run was started from (its SHA-256 must match)
#   options     passed to `harness run` (--gpus, --max-time, --share-split-blocks, ...)
#
# Environment: HARNESS, the harness to run (default .gpu-lead/bundle/run.sh); POLL, the seconds
# a call waits for the run (default 540); PACK_EVERY, the seconds between packs of chunk.tgz
# while it waits (default 30); OUT, where a call leaves chunk.tgz (default .); STATE, the
# machine's own folder for the run (default /tmp/lease-chunk).
#
# The first call on a machine copies RUN/'s journal, logs and experiment.toml into STATE (the
# checkout is replaced at every call, so the run must not write into it; a bundle inside the
# checkout is replaced too, and a run of the harness's own backends, whose units start the
# harness binary, belongs in a copy outside it: a command mode's files are checked before
# each unit starts, and one found gone stops the run, failing no unit) and starts the run
# there, detached; every call then waits up to POLL seconds or until the run exits, and packs
# the run's journal/ and logs/ (never its caches) into $OUT/chunk.tgz, paths relative to RUN/'s
# parent: at its start, every PACK_EVERY seconds and at its end, so a call cut off at its
# time limit still leaves its last pack.  Unpack it over the checkout's copy and commit.  The last line printed is
# "lease-chunk: running (N units in the journal)" or "lease-chunk: exited RC (N units ...)".
# Exit status: 0, or 2 for bad arguments.
set -u
me=lease-chunk.sh
if [ $# -lt 2 ]; then
	echo "usage: $me RUN.h5 EXPERIMENT [harness run options...]" >&2
	exit 2
fi
run=$1 experiment=$2
shift 2
case $run in
*.h5) ;;
*) echo "$me: '$run' is not a results file's name (RUN.h5)" >&2; exit 2 ;;
esac
[ -f "$experiment" ] || { echo "$me: '$experiment': no such experiment file" >&2; exit 2; }
harness=${HARNESS:-.gpu-lead/bundle/run.sh}
state=${STATE:-/tmp/lease-chunk}
out=${OUT:-.}
name=$(basename "$run" .h5)
src=${run%.h5}
local_h5=$state/$name.h5

if [ ! -e "$state/started" ]; then
	mkdir -p "$state" || exit 2
	if [ -d "$src/journal" ]; then
		mkdir -p "$state/$name"
		cp -r "$src/journal" "$state/$name/" || exit 2
		[ -d "$src/logs" ] && cp -r "$src/logs" "$state/$name/"
		[ -f "$src/experiment.toml" ] && cp "$src/experiment.toml" "$state/$name/"
		rm -f "$state/$name/journal/lock"
		set -- --resume "$local_h5" "$@" "$experiment"
		echo "$me: resuming $run ($(ls "$src/journal" | grep -c '^unit-') units in its journal)"
	else
		set -- -o "$local_h5" "$@" "$experiment"
		echo "$me: starting $run afresh"
	fi
	touch "$state/started"
	# Detached (its own session), so that the call's end does not end it.
	setsid bash -c '"$0" run -q "$@" >"'"$state"'/run.out" 2>"'"$state"'/run.err";
		echo $? >"'"$state"'/rc"' "$harness" "$@" </dev/null >/dev/null 2>&1 &
fi

# Pack the journal and logs into $OUT/chunk.tgz (whole or not at all: written aside, then
# renamed).  Done at the call's start, every PACK_EVERY seconds while it waits and at its end,
# so that a call killed at its time limit still brings back what had been recorded by its
# last pack.
pack() {
	local dirs=$name/journal
	[ -d "$state/$name/logs" ] && dirs="$dirs $name/logs"
	# shellcheck disable=SC2086 # two folder names
	# tar's status 1: a file changed while it was read (a unit's log being written): the
	# pack is still whole, that file as it was then
	tar czf "$out/chunk.tgz.part" -C "$state" --exclude=lock $dirs 2>/dev/null
	[ $? -le 1 ] && mv -f "$out/chunk.tgz.part" "$out/chunk.tgz"
}
pack
end=$((SECONDS + ${POLL:-540}))
next=$((SECONDS + ${PACK_EVERY:-30}))
while [ $SECONDS -lt $end ] && [ ! -e "$state/rc" ]; do
	sleep 2
	if [ $SECONDS -ge $next ]; then
		pack
		next=$((SECONDS + ${PACK_EVERY:-30}))
	fi
done
units=$(ls "$state/$name/journal" 2>/dev/null | grep -c '^unit-')
pack
tail -3 "$state/run.err" 2>/dev/null
if [ -e "$state/rc" ]; then
	echo "lease-chunk: exited $(cat "$state/rc") ($units units in the journal)"
else
	echo "lease-chunk: running ($units units in the journal)"
fi
