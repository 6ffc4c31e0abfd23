# tests/cli/time.sh: `harness time` and command modes with timing = "process" (issue 48),
# the quick part (tests/cli/time-verdicts.sh has the verdicts): setup/prepare/cleanup in
# order and count, harness run of the experiment it wrote, a failing command's unit failed
# with its status and stderr, --ignore-failure, bad options and keys (exit 2, line:col).
. "$top_srcdir/tests/setup"

# ---- setup, prepare and cleanup: order and counts ----------------------------------------
expect_status 0 h time -q --runs 3 --warmup 1 --repeats 2 --setup 'echo setup >> log' \
	--prepare 'echo prepare >> log' --cleanup 'echo cleanup >> log' 'echo run >> log' --results-dir res
# per unit: setup, (prepare, run) x (1 warm-up + 3 runs), cleanup; two units
printf 'setup\nprepare\nrun\nprepare\nrun\nprepare\nrun\nprepare\nrun\ncleanup\n' > unit.txt
cat unit.txt unit.txt > want.txt
check "hooks in order and count" cmp log want.txt
check "the answer: one command, the baseline" grep -Eq '^echo-run-log .* baseline *$' out
# harness run of the experiment it wrote does it again (the file says how it was made)
toml=$(ls res/time-*.toml)
check "the experiment records the command line" grep -q "^description = \"harness time -q --runs 3 " "$toml"
expect_status 0 h run -q "$toml" --results-dir res
check "harness run of the written experiment: the same runs again" 'cat want.txt want.txt | cmp log -'
# results in the folder the commands run in: the sandbox keeps it read-only
expect_status 1 h time -q --runs 1 --repeats 1 'echo x > here' -o here.h5
check "a warning: the commands cannot write where they run" grep -q "warning: the commands run in '.*', which the results folder '.*' holds" err

# ---- a failing command fails its unit, clearly ----------------------------------------------
expect_status 1 h time --runs 2 --repeats 2 'true' 'echo the disk is full >&2; exit 3' -o fail.h5
check "the failure's status and stderr on the terminal" \
	"grep -q \"ended with status 'failed': run 1 of 2: 'sh -c echo the disk is full >&2; exit 3' exited with status 3; its stderr ends: 'the disk is full'\" err"
check "the answer says some units failed" grep -q 'some units failed' out
expect_status 0 h time -q -i --runs 2 --repeats 2 'true' 'exit 3' -o ignored.h5
check "--ignore-failure: timed, not failed" grep -Eq '^exit-3 ' out

# ---- bad options: exit 2, nothing run -------------------------------------------------------
expect_status 2 h time --runs 0 true && check "--runs 0" grep -q "runs: '0' is not a count" err
expect_status 2 h time --repeats x true && check "--repeats x" grep -q "repeats: 'x' is not a count" err
expect_status 2 h time -n a -n b true && check "two names, one command" grep -q '2 names (-n) for 1 commands' err
expect_status 2 h time -n 'a b' true && check "a bad name" grep -q "name 'a b' (command 1) is not a mode name" err
expect_status 2 h time -n x -n x true false && check "two alike" grep -q "two commands are named 'x'" err
expect_status 2 h time --baseline 3 true false && check "--baseline out of range" grep -q "baseline: '3' is neither" err
expect_status 2 h time --setup '' true && check "an empty --setup" grep -q 'setup: an empty command' err
expect_status 2 h time --timeout soon true && check "--timeout soon" grep -q "timeout: 'soon' is not a duration" err
expect_status 2 h time --alpha 2 true && check "--alpha 2" grep -q "alpha" err
expect_status 2 h time && check "no command" grep -q 'usage: harness time' err
expect_status 2 h time -N '  ' && check "--no-shell: an empty command" grep -q 'an empty command' err
check "nothing written by the refusals" '[ ! -e results ]'
touch taken.toml
expect_status 2 h time true -o taken.h5 && check "an experiment file in the way" grep -q "'taken.toml' exists" err

# ---- the experiment file's keys, checked at line:col -----------------------------------------
cat > bad.toml <<'TEOF'
schema = 1
name = "bad"
[[modes]]
name = "a"
command = ["true"]
timing = "process"
runs = 0
TEOF
expect_status 2 h check bad.toml && check "runs = 0 at its line:col" grep -q "'bad.toml':7:8: 'runs' must be between 1" err
sed -i 's/^runs = 0$/workdir = "rel"/' bad.toml
expect_status 2 h check bad.toml && check "a relative workdir" grep -q "'bad.toml':7:11: 'workdir' must be an absolute path" err
sed -i 's/^timing = "process"$/timing = "protocol"/; s/^workdir = "rel"$/setup = "x"/' bad.toml
expect_status 2 h check bad.toml && check "a process key on a protocol mode" grep -q "'bad.toml':7:1: mode 'a': 'setup' is for timing = \"process\"" err

# --aa: the baseline's A/A copy, the same command in the same blocks
expect_status 0 h time -q --aa --runs 2 --repeats 2 -n base -o aa/t.h5 true &&
	check "--aa writes the copy with aa_of" grep -q '^aa_of = "base"$' aa/t.toml &&
	check "and the answer has its row" grep -Eq '^base-aa +[0-9.]+ ' "$SCRATCH/out"
expect_status 2 h time --aa -n x -n x-aa true true &&
	check "--aa: a copy's name taken by a command" grep -q "the A/A copy's name 'x-aa' is a command's" err

exit $FAILS
