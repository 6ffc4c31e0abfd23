# tests/cli/dead-ends.sh: no dead ends after a kill (issue 51, finding 2).  A run is
# killed (SIGKILL inside a write, by tests/stress/writefault.so) at each stage of its start
# (the staged run folder's lock, its note of the command, the experiment copy, the
# journal), after its folder is in place, and while it finishes (the journal's last
# metadata, the last assembly).  After each, either `--resume` completes it with no
# finished unit lost, or its message names one command that starts the run again cleanly,
# and that command does.  Then the states a kill cannot reach by a write: a start killed
# between its journal and its rename (promoted by --resume), a run folder without a
# journal (an older harness's), starting again over a run that has a journal.
. "$top_srcdir/tests/setup"
. "$top_srcdir/tests/setup-faults"
cp "$DATA/run/crash.toml" exp.toml
NPLAN=6
START="$HARNESS run -q -o res.h5 exp.toml"

# writes NAME MATCH: how many writes to files whose path holds MATCH a whole run makes
writes() {
	rm -rf res res.h5 res.start-* wlog
	faulty WRITEFAULT_MATCH="$2" WRITEFAULT_LOG="$SCRATCH/wlog" $START >/dev/null 2>&1 ||
		fail "$1: the counting run failed"
	awk '{ s += $2 } END { print s + 0 }' wlog
}

# complete WHAT: res.h5 holds every planned unit, none lost of those the journal held in
# snap.json, and nothing of a start is left beside it
complete() {
	$PY "$CHECK" check res.h5 snap.json $NPLAN >check.out || { fail "$1: $(cat check.out)"; return 1; }
	[ -z "$(ls -d res.start-* 2>/dev/null)" ] || { fail "$1: a staged folder is left: $(ls -d res.start-*)"; return 1; }
	cat check.out >>counts
}

# after_kill WHAT: --resume completes the run, or names one command that starts it again
# cleanly (an explicit one: the generic "the command that started it" only when the kill
# came before the start noted its command: writes 1 and 2 of the stage, its lock and the note), which does
after_kill() {
	if [ -d res/journal ]; then
		$PY "$CHECK" snapshot res >snap.json || { fail "$1: a journal unit file does not open"; return; }
	else
		echo '{}' >snap.json
	fi
	h run -q --resume res.h5 >resume.out 2>resume.err
	st=$?
	if [ "$st" -eq 0 ]; then
		complete "$1: resumed" && echo "$1: resumed" >>ways
		return
	fi
	[ "$st" -eq 2 ] || { fail "$1: --resume exited $st: $(tail -2 resume.err)"; return; }
	cmd=$(sed -n 's/^harness: cannot resume .*; start it again: //p' resume.err)
	if [ -z "$cmd" ]; then
		grep -q "start it again with the command that started it" resume.err ||
			{ fail "$1: --resume names no command: $(tail -2 resume.err)"; return; }
		[ "$2" = generic-ok ] || { fail "$1: a generic message where the command was noted: $(tail -1 resume.err)"; return; }
		cmd=$START
	fi
	case $cmd in *" run -q -o res.h5 exp.toml") ;; *) fail "$1: the named command is not the run's: $cmd"; return ;; esac
	[ -z "$(ls -d res res.start-* 2>/dev/null)" ] || { fail "$1: left in the way of the restart: $(ls -d res res.start-*)"; return; }
	( eval "$cmd" ) >restart.out 2>restart.err || { fail "$1: the named command failed: $(tail -2 restart.err)"; return; }
	complete "$1: restarted by the command named" && echo "$1: restarted" >>ways
}

: >counts
: >ways
# the stage: its lock, its note of the command, the experiment copy, the journal's res.h5
nstage=$(writes stage .start-)
check "a start writes $nstage times into its staged folder" '[ "$nstage" -ge 4 ]'
for n in $(seq 1 "$nstage"); do
	rm -rf res res.h5 res.start-*
	faulty WRITEFAULT_MATCH=.start- WRITEFAULT_KILL_AT="$n" $START >/dev/null 2>kill.err
	st=$?
	[ "$st" -eq 137 ] || { fail "kill at stage write $n: exit $st, wanted 137"; continue; }
	[ ! -e res ] || { fail "kill at stage write $n: the run folder is in place before its journal"; continue; }
	after_kill "kill at stage write $n" "$([ "$n" -le 2 ] && echo generic-ok)"
done
# starting again with the same command, without --resume first, sweeps the stage
rm -rf res res.h5 res.start-*
faulty WRITEFAULT_MATCH=.start- WRITEFAULT_KILL_AT=3 $START >/dev/null 2>&1
check "a start killed in its stage leaves only the stage" '[ ! -e res ] && [ -n "$(ls -d res.start-*)" ]'
check "the same command starts it again, removing the stage" '$START 2>again.err && grep -q "removed, left by a start of this run killed" again.err && [ -z "$(ls -d res.start-* 2>/dev/null)" ]'

# a full disk in the stage: status 1 naming the file, nothing left, the command starts it
for n in 2 3 "$nstage"; do
	rm -rf res res.h5 res.start-*
	faulty WRITEFAULT_MATCH=.start- WRITEFAULT_ENOSPC_AT="$n" $START >/dev/null 2>full.err
	st=$?
	check "a full disk at stage write $n: status 1 naming the file, no folder or stage left" \
		'[ "$st" -eq 1 ] && grep -q "No space left on device" full.err && [ -z "$(ls -d res res.h5 res.start-* 2>/dev/null)" ]'
done
check "then the same command starts it" '$START'

# the folder in place: the results file's first assembly; the finish: the journal's last
# metadata and the last assembly, each with every unit recorded
nh5=$(writes results res.h5.tmp-)
njr=$(writes journal journal/run.h5)
for spec in "res.h5.tmp- 1 first assembly" "journal/run.h5 $njr finish: the journal's status" \
	    "res.h5.tmp- $nh5 finish: the last assembly"; do
	set -- $spec
	m=$1 n=$2
	shift 2
	# the results file is assembled after a unit only while that costs under 1% of the
	# run's time (sched-units.c), so the count of its writes varies with the machine's
	# load: a run that made fewer writes than the counting run finished whole, and its own
	# count is the next try's last write
	for try in 1 2 3; do
		rm -rf res res.h5 res.start-* wlog
		faulty WRITEFAULT_MATCH="$m" WRITEFAULT_KILL_AT="$n" WRITEFAULT_LOG="$SCRATCH/wlog" \
			$START >/dev/null 2>kill.err
		st=$?
		[ "$st" -eq 0 ] && [ "$m" = res.h5.tmp- ] && [ "$n" -gt 1 ] || break
		n=$(awk '{ s += $2 } END { print s + 0 }' wlog)
	done
	[ "$st" -eq 137 ] || { fail "kill at $*: exit $st, wanted 137"; continue; }
	after_kill "kill at $*"
done
check "every kill ends resumed or restarted, nothing lost: $(awk -F': ' '{ print $NF }' ways | sort | uniq -c | awk '{ print $1, $2 }' | paste -sd, -)" \
	'[ "$(wc -l <ways)" -eq $((nstage + 3)) ] && ! grep -v "lost=0 duplicated=0 missing=0 unverified=0" counts'

# a start killed between its journal and its rename (no write falls there: made by hand
# from a start killed just after it): --resume finishes the rename and the run
rm -rf res res.h5 res.start-*
faulty WRITEFAULT_MATCH=res.h5.tmp- WRITEFAULT_KILL_AT=1 $START >/dev/null 2>&1
mv res res.start-abc123
echo '{}' >snap.json
check "--resume of a start killed before its rename finishes it" \
	'h run -q --resume res.h5 >/dev/null 2>resume.err && grep -q "killed before its last step; now" resume.err && complete promoted'

# a run folder without a journal (a harness before the stage): both commands name the
# one command that clears it, and then the run starts
rm -rf res res.h5 res.start-*
mkdir res && : >res/lock && cp exp.toml res/experiment.toml
expect_status 1 $START
check "starting again over a journal-less run folder names the command that clears it" \
	expect_grep "^harness: 'res' already exists and holds no journal .*: rm -r 'res'$" "$SCRATCH/err"
expect_status 2 h run -q --resume res.h5
check "--resume of a journal-less run folder names the same command" \
	expect_grep "remove the folder first: rm -r 'res'$" "$SCRATCH/err"
check "that command, then the run's own, start it" 'eval "$(sed -n "s/.*: \(rm -r .*\)$/\1/p" "$SCRATCH/err")" && $START'

# starting again over a run that has its journal: the message names --resume, which works
rm -rf res res.h5 res.start-*
faulty WRITEFAULT_MATCH=res.h5.tmp- WRITEFAULT_KILL_AT=1 $START >/dev/null 2>&1
expect_status 1 $START
check "starting again over a run with a journal names --resume" \
	expect_grep "^harness: 'res.h5' already exists: its run folder 'res' holds a run; continue it with 'harness run --resume res.h5'" "$SCRATCH/err"
echo '{}' >snap.json
check "and --resume completes it" 'h run -q --resume res.h5 >/dev/null 2>&1 && complete "resumed as named"'

# nothing on disk (killed before the stage): --resume says so, the command starts it
rm -rf res res.h5 res.start-*
expect_status 2 h run -q --resume res.h5
check "--resume with nothing on disk says to start it again" \
	expect_grep "no run folder 'res' .*start it again with the command that started it" "$SCRATCH/err"
finish
