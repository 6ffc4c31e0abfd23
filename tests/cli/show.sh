# tests/cli/show.sh: `harness show` prints a run's metadata and unit table, and rejects files
# that are not harness results.
. "$top_srcdir/tests/setup"
cp "$DATA/run/faults.toml" f.toml
h run -q -o f.h5 f.toml >/dev/null 2>&1
[ -f f.h5 ] || fail "the faults run wrote f.h5"
expect_status 0 h show f.h5 && pass "show exits 0"
expect_grep '^experiment_name: clifaults$' "$SCRATCH/out"
expect_grep "^experiment: .*f\.toml \(sha256 $(sha256sum f.toml | cut -d' ' -f1)" "$SCRATCH/out"
expect_grep '^backend: cpu$' "$SCRATCH/out"
expect_grep '^units: 6 recorded, 6 planned, 0 missing' "$SCRATCH/out"
expect_grep '^ *[0-9]+ +crash +0 +0 +1 +cold +[0-9]+ +crashed +139 +11 ' "$SCRATCH/out"
expect_grep '^ *[0-9]+ +hang +.* timeout ' "$SCRATCH/out"
expect_grep '^ *[0-9]+ +garbage +.* bad-output ' "$SCRATCH/out"
# under the table, why each unit that is not ok failed (its recorded message)
expect_grep "^unit [0-9]+ \(crash, block 0\) crashed: .*signal 11" "$SCRATCH/out"
expect_grep "^unit [0-9]+ \(hang, block 0\) timeout: " "$SCRATCH/out"
grep -Eq "^unit [0-9]+ \((default|after), " "$SCRATCH/out" && fail "an ok unit got a message line"
# unique prefix of the command works; unknown commands suggest
expect_status 0 h sh f.h5 && pass "unique prefix 'sh' runs show"
expect_status 2 h shwo f.h5 && expect_grep "unknown command 'shwo' \(did you mean 'show'\?\)" "$SCRATCH/err"
# bad input: missing file, not HDF5, HDF5 but not ours
expect_status 2 h show missing.h5 && expect_grep "missing.h5" "$SCRATCH/err"
echo "plain text" > text.h5
expect_status 2 h show text.h5 && expect_grep "text.h5" "$SCRATCH/err"
expect_status 2 h show && expect_grep "usage: harness show" "$SCRATCH/err"
expect_status 0 h help show && expect_grep "^usage: harness show" "$SCRATCH/out"
expect_status 0 h --version && expect_grep '^harness [0-9]+\.[0-9]+\.[0-9]+$' "$SCRATCH/out"
expect_status 2 h && expect_grep "usage: harness <command>" "$SCRATCH/err"
finish
