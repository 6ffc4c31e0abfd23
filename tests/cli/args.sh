# tests/cli/args.sh: the command line as researchers type it.  Options may come before or
# after the positional arguments (same output either way), "--" ends the options (a file
# named "-x" can be given), the global options still work, the exact usage messages and
# exit statuses stay, the command line is recorded as given (not permuted), and stdout is
# checked on close on every exit path (`harness help > /dev/full` fails with a message).
. "$top_srcdir/tests/setup"
SYN="$DATA/report/synthetic.csv"
HYP="$DATA/hypotheses/synthetic.toml"

expect_status 0 h import --csv "$SYN" -o syn.h5 && pass "import the synthetic raw timings"
expect_status 0 h import -o syn2.h5 --name other --csv "$SYN" && pass "import: options in any order"

# same_out NAME CMD1 -- CMD2: both exit 0 with byte-identical stdout
same_out() {
	local name=$1; shift
	local first=() second=()
	while [ "$1" != "::" ]; do first+=("$1"); shift; done
	shift
	second=("$@")
	expect_status 0 "${first[@]}" || return 1
	cp "$SCRATCH/out" "$SCRATCH/out.first"
	expect_status 0 "${second[@]}" || return 1
	if cmp -s "$SCRATCH/out" "$SCRATCH/out.first"; then
		pass "$name"
	else
		fail "$name: the two orders print different output"
	fi
}

# ---- options after the positional arguments -------------------------------------------
same_out "report FILE --format json (docs' order)" \
	h report --format json --baseline base syn.h5 :: h report syn.h5 --format json --baseline base
same_out "report: options on both sides of the file" \
	h report -f csv --baseline base syn.h5 :: h report --baseline base syn.h5 -f csv
same_out "compare A --format json B" \
	h compare --format json syn.h5 syn2.h5 :: h compare syn.h5 --format json syn2.h5
same_out "compare A B -f csv" \
	h compare -f csv syn.h5 syn2.h5 :: h compare syn.h5 syn2.h5 -f csv
same_out "verify RESULTS.h5 --hypotheses H.toml (docs/hypothesis-format.md's order)" \
	h verify --baseline base --hypotheses "$HYP" syn.h5 :: h verify syn.h5 --hypotheses "$HYP" --baseline base
same_out "audit RESULTS.h5 -f json" \
	h audit --baseline base -f json syn.h5 :: h audit syn.h5 -f json --baseline base
same_out "show: -- before the file" h show syn.h5 :: h show -- syn.h5
same_out "help COMMAND" h help report :: h help -- report

expect_status 0 h export syn.h5 --csv csvout && [ -f csvout/samples.csv ] && pass "export RESULTS.h5 --csv DIR" ||
	fail "export RESULTS.h5 --csv DIR"
if command -v gnuplot >/dev/null 2>&1; then
	expect_status 0 h plot syn.h5 --baseline base -f svg -o plots && [ -s plots/forest.svg ] &&
		pass "plot RESULTS.h5 --format svg -o DIR"
fi

# POSIXLY_CORRECT (which stops GNU getopt at the first non-option) changes nothing
same_out "POSIXLY_CORRECT does not change the parse" \
	h report syn.h5 --format json :: env POSIXLY_CORRECT=1 $HARNESS_CMD report syn.h5 --format json

# -h after a positional: the usage on stdout, exit 0, nothing run
expect_status 0 h report nosuch.h5 -h && expect_grep '^usage: harness report' "$SCRATCH/out" &&
	[ ! -s "$SCRATCH/err" ] && pass "report FILE -h: usage on stdout, exit 0" ||
	fail "report FILE -h: usage on stdout, exit 0"
expect_status 0 h check nosuch.toml --help && expect_grep '^usage: harness check' "$SCRATCH/out" &&
	pass "check FILE --help"

# ---- "--" ends the options ------------------------------------------------------------
cp syn.h5 ./-syn.h5
expect_status 0 h report --format json syn.h5 && sed 's/"syn\.h5"/"FILE"/' "$SCRATCH/out" >plain.json
expect_status 0 h report --format json -- -syn.h5 && sed 's/"-syn\.h5"/"FILE"/' "$SCRATCH/out" >dash.json &&
	cmp -s plain.json dash.json && pass "report -- -syn.h5: a file whose name starts with '-'" ||
	fail "report -- -syn.h5"
expect_status 0 h report -f json -- ./-syn.h5 && sed 's|"\./-syn\.h5"|"FILE"|' "$SCRATCH/out" >dot.json &&
	cmp -s plain.json dot.json && pass "options before --, file after" || fail "report -f json -- ./-syn.h5"
expect_status 2 h report -syn.h5 && expect_grep "^harness: unknown option '-s'$" "$SCRATCH/err" &&
	expect_grep '^usage: harness report \[options\] RESULTS.h5$' "$SCRATCH/err" &&
	pass "without --, -syn.h5 is an (unknown) option"
expect_status 2 h report -- syn.h5 --format json &&
	expect_grep "^harness: 'report' takes at most 1 argument$" "$SCRATCH/err" &&
	pass "after --, --format is an argument"
expect_status 2 h show -- && expect_grep "^harness: 'show' needs 1 argument$" "$SCRATCH/err" &&
	pass "a lone -- is no argument"
expect_status 2 h check -- -nosuch.toml && expect_grep "'-nosuch.toml'" "$SCRATCH/err" &&
	pass "check -- -FILE reads -FILE"

# ---- usage errors: the same messages and statuses, wherever the option is -------------
expect_status 2 h report syn.h5 --bogus && expect_grep "^harness: unknown option '--bogus'$" "$SCRATCH/err" &&
	expect_grep '^usage: harness report' "$SCRATCH/err" && [ ! -s "$SCRATCH/out" ] &&
	pass "unknown long option after the file"
expect_status 2 h report syn.h5 -z && expect_grep "^harness: unknown option '-z'$" "$SCRATCH/err" &&
	pass "unknown short option after the file"
expect_status 2 h report syn.h5 --format && expect_grep "^harness: option '--format' needs a value$" "$SCRATCH/err" &&
	pass "a missing value at the end"
expect_status 2 h report syn.h5 -f && expect_grep "^harness: option '-f' needs a value$" "$SCRATCH/err" &&
	pass "a missing short value at the end"
expect_status 2 h report syn.h5 syn.h5 -f json && expect_grep "^harness: 'report' takes at most 1 argument$" "$SCRATCH/err" &&
	pass "arity counts positionals on both sides of the options"
expect_status 2 h compare syn.h5 -f json && expect_grep "^harness: 'compare' needs 2 arguments$" "$SCRATCH/err" &&
	pass "compare with one file"
expect_status 2 h import syn.h5 --csv "$SYN" -o x.h5 && expect_grep "^harness: 'import' takes at most 0 arguments$" "$SCRATCH/err" &&
	pass "import takes no positional"

# ---- global options -------------------------------------------------------------------
expect_status 0 h --version && expect_grep '^harness [0-9]' "$SCRATCH/out" && pass "--version"
expect_status 0 h -V && expect_grep '^harness [0-9]' "$SCRATCH/out" && pass "-V"
expect_status 0 h --help && expect_grep '^commands:' "$SCRATCH/out" && pass "--help"
# one column of summaries, however long a name; every exit status named
awk '/^commands:/ { on = 1; next } /^$/ { on = 0 } on { match($0, /^  [a-z-]+ +/); print RLENGTH }' \
	"$SCRATCH/out" >cols.txt
[ "$(grep -c . cols.txt)" -ge 14 ] && [ "$(sort -u cols.txt | wc -l)" -eq 1 ] &&
	pass "--help: the summaries start in one column" || fail "--help: summaries not aligned: $(sort -u cols.txt | tr '\n' ' ')"
grep -q "75 stopped by" "$SCRATCH/out" && grep -q "130 interrupted" "$SCRATCH/out" &&
	pass "--help names exit statuses 75 and 130" || fail "--help: exit status 75 or 130 missing"
expect_status 2 h --bogus report && expect_grep "^harness: unknown option '--bogus'; see 'harness help'$" "$SCRATCH/err" &&
	pass "an unknown global option"
expect_status 2 h && expect_grep '^usage: harness <command>' "$SCRATCH/err" && pass "no command"

# ---- the command line is recorded as given --------------------------------------------
cp "$DATA/run/tiny.toml" tiny.toml
expect_status 0 h run tiny.toml -q -o order.h5 && pass "run EXPERIMENT -q -o FILE"
if /usr/bin/python3 -c 'import h5py' 2>/dev/null; then
	PYTHONPATH="$top_srcdir/tests/cli" /usr/bin/python3 - order.h5 "$HARNESS" <<'PYEOF' || fail "recorded argv"
import json, sys, h5py
from h5util import meta, Checker
c = Checker("args")
with h5py.File(sys.argv[1], "r") as f:
    argv = json.loads(meta(f)["harness_argv"])
c.check(argv[1:] == ["run", "tiny.toml", "-q", "-o", "order.h5"], "harness_argv is the command line in the order given: %s" % argv)
sys.exit(c.fails != 0)
PYEOF
fi

# ---- stdout is checked on close, on every exit path -----------------------------------
if [ -w /dev/full ]; then
	full() { # full STATUS CMD...: stdout to /dev/full; exit STATUS with the message
		local want=$1; shift
		"$@" >/dev/full 2>"$SCRATCH/err"
		local got=$?
		if [ "$got" -ne "$want" ]; then
			fail "'$* > /dev/full' exited $got, wanted $want"
		elif ! grep -q "^harness: cannot write to standard output: No space left on device$" "$SCRATCH/err"; then
			fail "'$* > /dev/full': no message"; sed 's/^/  | /' "$SCRATCH/err" >&2
		else
			pass "$* > /dev/full: exit $want with a message"
		fi
	}
	full 1 h help
	full 1 h --help
	full 1 h --version
	full 1 h help report
	full 1 h report syn.h5
	full 1 h report syn.h5 --format json
	full 1 h show syn.h5
	full 1 h compare syn.h5 syn2.h5
	for cmd in $(h help | sed -n '/^commands:/,/^$/s/^  \([a-z-]*\) .*/\1/p'); do
		full 1 h "$cmd" -h
	done
	# a usage error keeps its status (2); nothing was written to stdout
	h report >/dev/full 2>"$SCRATCH/err"
	[ $? -eq 2 ] && ! grep -q "standard output" "$SCRATCH/err" && pass "usage error with stdout full: exit 2, no stdout message" ||
		fail "usage error with stdout full"
	# a failing command keeps its own status and still reports the lost output
	h report nosuch.h5 >/dev/full 2>"$SCRATCH/err"
	[ $? -eq 2 ] && pass "report nosuch.h5 > /dev/full: exit 2" || fail "report nosuch.h5 > /dev/full"
fi
# a closed stdout that nothing was written to is not an error; one that was written to is
h >&- 2>"$SCRATCH/err"
[ $? -eq 2 ] && ! grep -q "standard output" "$SCRATCH/err" && pass "no command, stdout closed: exit 2, no stdout message" ||
	fail "no command with stdout closed"
h help >&- 2>"$SCRATCH/err"
[ $? -eq 1 ] && grep -q "cannot write to standard output" "$SCRATCH/err" && pass "help with stdout closed: exit 1" ||
	fail "help with stdout closed"

finish
