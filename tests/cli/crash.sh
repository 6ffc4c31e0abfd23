# tests/cli/crash.sh: crash safety (issue 9, items 1-3 and 5).  A kill -9 inside every write
# of a small run, and a full disk at every write (by tests/stress/writefault.so), each
# followed by --resume: no finished unit lost, none twice, none ok with unverified samples.
# A full disk on a real tmpfs (where it can be mounted); import onto a full disk; a damaged
# results file for every reader command: exit 2, never a crash.
. "$top_srcdir/tests/setup"
. "$top_srcdir/tests/setup-faults"
EXP="$DATA/run/crash.toml"
NPLAN=6

# how many .h5 writes a whole run makes
faulty WRITEFAULT_LOG="$SCRATCH/wlog" $HARNESS run -q -o ref.h5 "$EXP" >/dev/null 2>&1 ||
	fail "the reference run failed"
total=$(awk '{ s += $2 } END { print s + 0 }' wlog)
[ "$total" -ge 8 ] && pass "a run of $NPLAN units makes $total writes of .h5 files" || fail "only $total writes counted"

# after_fault NAME: resume the run in run/ and check it against the journal's snapshot
after_fault() {
	$PY "$CHECK" snapshot run >snap.json 2>snap.err || { fail "$1: a journal unit file does not open: $(tail -1 snap.err)"; return; }
	if ! h run -q --resume run.h5 >resume.out 2>resume.err; then
		fail "$1: --resume failed: $(tail -3 resume.err)"; return
	fi
	ls run/journal | grep -q tmp && fail "$1: temporary files left in the journal"
	ls | grep -q 'run.h5.tmp' && fail "$1: temporary results files left"
	$PY "$CHECK" check run.h5 snap.json $NPLAN >check.out || fail "$1: $(cat check.out)"
	cat check.out >>counts
}

# kill -9 inside every write
: >counts
for n in $(seq 1 "$total"); do
	rm -rf run run.h5
	faulty WRITEFAULT_KILL_AT="$n" $HARNESS run -q -o run.h5 "$EXP" >/dev/null 2>kill.err
	st=$?
	# (assembling after a unit depends on timing: a run may make a write fewer than counted)
	[ "$st" -eq 0 ] && [ "$n" -ge $((total - 1)) ] && continue
	[ "$st" -eq 137 ] || { fail "kill at write $n: exit $st, wanted 137 (SIGKILL)"; continue; }
	if [ ! -d run/journal ]; then # killed before the journal was in place: nothing recorded
		expect_status 2 h run -q --resume run.h5 && expect_grep "start it again" "$SCRATCH/err"
		continue
	fi
	after_fault "kill at write $n"
done
pass "kill -9 inside each of $total writes, then --resume: $(awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); s[kv[1]] += kv[2] } } END { printf "finished-before %d, lost %d, duplicated %d, missing %d, unverified %d", s["finished-before"], s["lost"], s["duplicated"], s["missing"], s["unverified"] }' counts)"

# a full disk from every write on
: >counts
for n in $(seq 1 "$total"); do
	rm -rf run run.h5
	faulty WRITEFAULT_ENOSPC_AT="$n" $HARNESS run -q -o run.h5 "$EXP" >/dev/null 2>full.err
	st=$?
	[ "$st" -eq 0 ] && [ "$n" -ge $((total - 1)) ] && continue
	[ "$st" -eq 1 ] || { fail "full disk at write $n: exit $st, wanted 1"; sed 's/^/  | /' full.err | tail -5 >&2; continue; }
	grep -Eq "^harness: cannot write '[^']*\\.h5': No space left on device$" full.err ||
		fail "full disk at write $n: no message naming the file: $(head -3 full.err)"
	[ -d run/journal ] || continue # the disk was full before the journal had a file
	after_fault "full disk at write $n"
done
pass "a full disk from each of $total writes on: exit 1 naming the file, then --resume: $(awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); s[kv[1]] += kv[2] } } END { printf "lost %d, duplicated %d, missing %d, unverified %d", s["lost"], s["duplicated"], s["missing"], s["unverified"] }' counts)"

# import onto a full disk: exit 1, a message, no output at all
faulty WRITEFAULT_ENOSPC_AT=1 $HARNESS import --csv "$DATA/report/synthetic.csv" -o imp.h5 >/dev/null 2>imp.err
st=$?
[ "$st" -eq 1 ] && grep -q "cannot write 'imp.h5': No space left on device" imp.err && [ -z "$(ls | grep '^imp\.h5')" ] &&
	pass "import onto a full disk: exit 1, the file named, nothing left" || fail "import onto a full disk: exit $st, $(cat imp.err), files: $(ls | grep imp)"

# a real full disk: a 1 MiB tmpfs
mkdir mnt
if mount -t tmpfs -o size=1m tmpfs mnt 2>mount.err; then
	trap 'umount "$SCRATCH/mnt" 2>/dev/null; rm -rf "$SCRATCH"' EXIT
	free_kb=$(df -k mnt | awk 'NR == 2 { print $4 }')
	dd if=/dev/zero of=mnt/fill bs=1k count=$((free_kb - 112)) 2>/dev/null # room for a few units
	h run -q -o mnt/run.h5 "$EXP" >/dev/null 2>tmpfs.err
	st=$?
	[ "$st" -eq 1 ] && grep -q "No space left on device" tmpfs.err &&
		pass "tmpfs filled during the run: exit 1, $(grep -c 'No space' tmpfs.err) message(s) naming files" ||
		fail "tmpfs full: exit $st: $(head -3 tmpfs.err)"
	rm -f mnt/fill
	$PY "$CHECK" snapshot mnt/run >snap.json || fail "tmpfs: the journal does not open"
	expect_status 0 h run -q --resume mnt/run.h5 &&
		$PY "$CHECK" check mnt/run.h5 snap.json $NPLAN >check.out && pass "tmpfs: space back, --resume completes: $(cat check.out)" ||
		fail "tmpfs: resume: $(cat check.out 2>/dev/null)"
	# import onto the full tmpfs
	free_kb=$(df -k mnt | awk 'NR == 2 { print $4 }')
	dd if=/dev/zero of=mnt/fill bs=1k count="$free_kb" 2>/dev/null
	expect_status 1 h import --csv "$DATA/report/synthetic.csv" -o mnt/imp.h5 &&
		expect_grep "cannot write 'mnt/imp.h5'" "$SCRATCH/err" &&
		[ -z "$(ls mnt | grep imp)" ] && pass "import onto a full tmpfs: exit 1, nothing left" ||
	fail "import onto a full tmpfs: exit 1, nothing left"
	umount mnt
else
	echo "note: tmpfs checks skipped: mount failed ($(cat mount.err)); the LD_PRELOAD ones ran"
fi

# a damaged results file, for every command that reads one: exit 2, never a crash
cp ref.h5 good.h5
$PY - good.h5 <<'PYEOF' || fail "cannot make damaged files"
import sys, h5py
data = bytearray(open(sys.argv[1], "rb").read())
with h5py.File(sys.argv[1], "r") as f:
    off = {k: f[k].id.get_chunk_info(0).byte_offset for k in ("samples", "units", "cells")}
for k, o in off.items():
    b = bytearray(data)
    b[o + 7] ^= 0x5a
    open("bad-%s.h5" % k, "wb").write(b)
open("bad-trunc.h5", "wb").write(data[: len(data) // 2])
b = bytearray(data)
b[40] ^= 0x01   # the superblock's checksum
open("bad-super.h5", "wb").write(b)
PYEOF
mkdir -p o
for f in bad-*.h5; do
	for cmd in "show" "report" "report -f json" "report -f csv" "report -f html" "plot -o o/p" "export --csv o/e" "verify" "audit" "compare good.h5"; do
		# show reads the metadata and the unit table, not the samples or cells
		case "$cmd:$f" in show:bad-samples.h5|show:bad-cells.h5) continue;; esac
		h $cmd "$f" >/dev/null 2>cmd.err
		st=$?
		[ "$st" -eq 2 ] || fail "'harness $cmd $f' exited $st, wanted 2: $(head -2 cmd.err)"
		grep -q "'$f'" cmd.err || fail "'harness $cmd $f' does not name the file: $(head -2 cmd.err)"
	done
done
pass "damaged results files: every reader command exits 2 naming the file"
finish
