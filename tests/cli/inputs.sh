#!/bin/sh
# tests/cli/inputs.sh: inputs that cannot hang, leak or slip past `check` (issue 9, items 6
# and 11).  A FIFO, /dev/zero, a directory, /proc/self/environ and /etc/passwd, named as the
# experiment or as a hypothesis file: `check` and `run` exit 2 promptly with a message that
# names the file (line:col for a parse error), and `run` creates nothing.  A hypothesis
# naming a mode or workload the experiment lacks is refused by `check` at its line:col, not
# by `run` after every unit.  A name at the length limit runs.
. "${top_srcdir:?run through make check (top_srcdir is not set)}/tests/setup"

OUT=$SCRATCH/out
ERR=$SCRATCH/err

# A one-unit experiment that runs in a moment; hypotheses = [$1] when $1 is given.
make_exp() {
	{
		printf 'schema = 1\nname = "%s"\nrepeats = 1\n' "${2:-inputs}"
		[ -n "$1" ] && printf 'hypotheses = ["%s"]\n' "$1"
		printf '[measure]\nwarmup_time = 0.0\nwarmup_count = 1\nmin_samples = 3\n'
		printf 'max_samples = 3\nflush = false\n'
		printf '[[workloads]]\nname = "g"\nop = "sgemm"\nshape = { m = 8, n = 8, k = 8 }\n'
		printf '[[modes]]\nname = "default"\ntuner = "vendor"\n'
	}
}

mkfifo fifo || skip "cannot make a FIFO here"
mkdir folder

# refused CMD WHAT PATTERN: CMD exits 2 within 10 s with a line matching PATTERN on stderr
refused() {
	cmd=$1 what=$2 pat=$3
	shift 3
	if expect_status 2 timeout 10 $HARNESS_CMD $cmd "$@"; then
		expect_grep "$pat" "$ERR" && pass "$cmd: $what refused"
	fi
}

# nothing_made: run created no results folder (and nothing in it)
nothing_made() {
	if [ -e res ]; then
		fail "$1: run created $(find res | head -5 | tr '\n' ' ')"
		rm -rf res
	fi
}

# ---- as the experiment -------------------------------------------------------------------
refused check "a FIFO as the experiment" "^harness: 'fifo' is not a regular file \\(a FIFO\\)\$" fifo
refused run "a FIFO as the experiment" "'fifo' is not a regular file" --results-dir res fifo
nothing_made "a FIFO as the experiment"
refused check "/dev/zero as the experiment" "'/dev/zero' is not a regular file \\(a character device\\)" /dev/zero
refused run "/dev/zero as the experiment" "'/dev/zero' is not a regular file" --results-dir res /dev/zero
nothing_made "/dev/zero as the experiment"
refused check "a directory as the experiment" "'folder' is not a regular file \\(a directory\\)" folder
refused run "a directory as the experiment" "'folder' is not a regular file" --results-dir res folder
nothing_made "a directory as the experiment"
refused check "/proc/self/environ as the experiment" "^harness: '/proc/self/environ' changed size while it was read, or is not a plain file" /proc/self/environ
refused run "/proc/self/environ as the experiment" "'/proc/self/environ' changed size" --results-dir res /proc/self/environ
nothing_made "/proc/self/environ as the experiment"
if [ -r /etc/passwd ] && [ -s /etc/passwd ]; then
	refused check "/etc/passwd as the experiment" "^harness: '/etc/passwd':1:[0-9]+: " /etc/passwd
	refused run "/etc/passwd as the experiment" "^harness: '/etc/passwd':1:[0-9]+: " --results-dir res /etc/passwd
	nothing_made "/etc/passwd as the experiment"
fi

# ---- as a hypothesis file (relative to the experiment's folder, or absolute) -------------
hyp() {
	make_exp "$1" >e.toml
	refused check "$2 as a hypothesis file" "$3" e.toml
	refused run "$2 as a hypothesis file" "$3" -q --results-dir res e.toml
	nothing_made "$2 as a hypothesis file"
}
hyp fifo "a FIFO" "^harness: 'e\\.toml':4:15: hypothesis file '\\./fifo' is not a regular file\$"
hyp /dev/zero "/dev/zero" "^harness: 'e\\.toml':4:15: hypothesis file '/dev/zero' is not a regular file\$"
hyp folder "a directory" "^harness: 'e\\.toml':4:15: hypothesis file '\\./folder' is not a regular file\$"
hyp /proc/self/environ "/proc/self/environ" "^harness: '/proc/self/environ' changed size while it was read, or is not a plain file"
if [ -r /etc/passwd ] && [ -s /etc/passwd ]; then
	hyp /etc/passwd "/etc/passwd" "^harness: '/etc/passwd':1:[0-9]+: "
fi
# invalid UTF-8 in a hypothesis file, in a string and in a comment: toml++ refuses both
printf 'schema = 1\n[[hypotheses]]\nid = "x"\nclaim = "caf\xff"\nmode = "default"\nprediction = "faster"\n' >bad-utf8.toml
hyp bad-utf8.toml "invalid UTF-8 in a hypothesis string" "^harness: 'bad-utf8\\.toml':4:12: encountered invalid utf-8 sequence\$"
printf 'schema = 1 # caf\xff\n[[hypotheses]]\nid = "x"\nclaim = "x"\nmode = "default"\nprediction = "faster"\n' >bad-utf8.toml
hyp bad-utf8.toml "invalid UTF-8 in a hypothesis comment" "^harness: 'bad-utf8\\.toml':1:16: encountered invalid utf-8 sequence\$"

# ---- a hypothesis about names the experiment lacks: check says so at line:col ------------
printf 'schema = 1\n[[hypotheses]]\nid = "h1"\nclaim = "x"\nmode = "fast"\nprediction = "faster"\n' >h-mode.toml
hyp h-mode.toml "a hypothesis naming an unknown mode" "^harness: 'h-mode\\.toml':5:8: hypothesis 'h1': no mode 'fast' in experiment 'e\\.toml' \\(modes: 'default'\\)\$"
printf 'schema = 1\n[[hypotheses]]\nid = "h2"\nclaim = "x"\nmode = "default"\nbaseline = "vendor"\nprediction = "faster"\n' >h-base.toml
hyp h-base.toml "a hypothesis naming an unknown baseline" "^harness: 'h-base\\.toml':6:12: hypothesis 'h2': no mode 'vendor' in experiment 'e\\.toml' \\(modes: 'default'\\)\$"
printf 'schema = 1\n[[hypotheses]]\nid = "h3"\nclaim = "x"\nmode = "default"\nworkload = "resnet"\nprediction = "faster"\n' >h-wl.toml
hyp h-wl.toml "a hypothesis naming an unknown workload" "^harness: 'h-wl\\.toml':6:12: hypothesis 'h3': no workload 'resnet' in experiment 'e\\.toml' \\(workloads: 'g'\\)\$"

# ---- the experiment's name: the longest allowed one runs; one more character is refused --
long=$(printf '%0200d' 0 | tr 0 n)
make_exp "" "$long" >long.toml
if expect_status 0 h check long.toml && expect_status 0 h run -q --results-dir res long.toml; then
	set -- res/"$long"-*.h5
	[ -f "$1" ] && pass "a 200-character name runs" || fail "no results file for a 200-character name"
fi
rm -rf res
make_exp "" "${long}n" >long.toml
refused check "a 201-character name" "^harness: 'long\\.toml':2:8: 'name' must be at most 200 characters" long.toml
refused run "a 201-character name" "^harness: 'long\\.toml':2:8: 'name' must be at most 200 characters" --results-dir res long.toml
nothing_made "a 201-character name"

finish
