# tests/cli/unit-life.sh: a unit does not outlive what it belongs to (issue 45, item 1 in
# part).  A process a unit leaves running in its process group is killed when the unit is
# recorded; a unit whose harness is killed (kill -9) dies with it (PR_SET_PDEATHSIG), so
# --resume never runs a second copy beside a first.
. "$top_srcdir/tests/setup"
cp "$DATA/writer/straggler.sh" "$DATA/writer/straggler.toml" "$DATA/writer/slow.sh" \
	"$DATA/writer/slow.toml" .

expect_status 0 h run -q -o st.h5 straggler.toml
sleep 0.5
n=$(alive "hs-straggler-")
[ "$n" = 0 ] && pass "the processes each unit left behind were killed when it was recorded" ||
	{ fail "$n left-behind process(es) still running"; pkill -9 -f hs-straggler- ; }

# slow.sh under a name of this test's own: make check runs other tests of slow.sh beside it
cp slow.sh life-slow.sh
sed 's/"slow.sh"/"life-slow.sh"/' slow.toml >life.toml
SLOW_S=30 kill_harness_while life-slow.sh run -q -o k.h5 life.toml
case $? in
0) pass "kill -9 of the harness: its running unit died with it" ;;
2) fail "the slow unit did not start" ;;
*) fail "the unit outlived its harness"; pkill -9 -f "sh life-slow.sh" ;;
esac
finish
