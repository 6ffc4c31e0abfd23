# tests/cli/unit-life.sh: a unit does not outlive what it belongs to (issue 45, item 1 in
# part).  A process a unit leaves running in its process group is killed when the unit is
# recorded; a unit whose harness is killed (kill -9) dies with it (PR_SET_PDEATHSIG), so
# --resume never runs a second copy beside a first.
. "$top_srcdir/tests/setup"
cp "$DATA/writer/straggler.sh" "$DATA/writer/straggler.toml" "$DATA/writer/slow.sh" \
	"$DATA/writer/slow.toml" .
# processes whose command line holds $1, zombies apart (killed, not yet reaped by init)
alive() { ps -eo stat=,args= | grep -v '^Z' | grep -v grep | grep -c -- "$1"; }

expect_status 0 h run -q -o st.h5 straggler.toml
sleep 0.5
n=$(alive "hs-straggler-")
[ "$n" = 0 ] && pass "the processes each unit left behind were killed when it was recorded" ||
	{ fail "$n left-behind process(es) still running"; pkill -9 -f hs-straggler- ; }

SLOW_S=30 $HARNESS run -q -o k.h5 slow.toml >k.out 2>k.err & hp=$!
for _ in $(seq 1 100); do [ "$(alive 'slow.sh')" -gt 0 ] && break; sleep 0.1; done
[ "$(alive 'slow.sh')" -gt 0 ] || fail "the slow unit did not start"
kill -9 $hp
wait $hp 2>/dev/null
for _ in $(seq 1 50); do [ "$(alive 'slow.sh')" = 0 ] && break; sleep 0.1; done
[ "$(alive 'slow.sh')" = 0 ] && pass "kill -9 of the harness: its running unit died with it" ||
	{ fail "the unit outlived its harness"; pkill -9 -f "sh slow.sh"; }
finish
