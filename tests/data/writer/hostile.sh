#!/bin/sh
# tests/data/writer/hostile.sh: a command unit that tries to reach the record
# (tests/cli/sandbox.sh).  Its cache folder is RESULTS/RUN/cache/uNNNN-XXXXXX: it tries to
# write the journal, the results folder, the run's check folder (the harness's own worker's
# alone) and its own cache folder; to read the harness's
# environment (every /proc/PID/environ it can see, for HS_SECRET); to undo a read-only mount;
# and leaves a process behind outside its process group (setsid) that would live 300 s.
# Each attempt's outcome goes to its stderr log as "NAME: yes|no"; then it sends slow.sh's
# records.
R=../..
try() { name=$1; shift; if "$@" 2>/dev/null; then echo "$name: yes"; else echo "$name: no"; fi; }
{
	try journal-write sh -c ": > $R/journal/evil"
	try results-write sh -c ": > $R/../evil-results"
	try check-write sh -c "mkdir -p $HARNESS_CHECK_DIR && : > $HARNESS_CHECK_DIR/evil"
	try own-cache sh -c ": > ./mine"
	found=no
	for e in /proc/[0-9]*/environ; do
		tr '\0' '\n' <"$e" 2>/dev/null | grep -q '^HS_SECRET=' && found=yes
	done
	echo "environ: $found"
	try remount mount -o remount,rw "$R/.."
	try journal-write-after sh -c ": > $R/journal/evil2"
	setsid sh -c 'sleep 300; : hs-orphan-marker' </dev/null >/dev/null 2>&1 &
	echo "orphan: started"
} >&2
exec sh "$(dirname "$0")/slow.sh"
