#!/bin/sh
# tests/fuzz/run.sh: `make fuzz`: builds every fuzz target with clang's libFuzzer, ASan and
# UBSan, and runs each for FUZZ_SECONDS (default 60) from a seed corpus made of tests/data
# (and tests/fuzz/seeds/).  An input that crashes is written to tests/fuzz/crashes/<target>/,
# which `make check` replays (tests/cli/fuzz-replay.sh) under the ordinary build: commit it
# with the fix.  The summary (execs, coverage, crashes per target) goes to stdout.
#
# Set by the Makefile: FUZZ_SOURCES (libharness's sources), FUZZ_CPPFLAGS, FUZZ_LIBS,
# top_srcdir, top_builddir.  Optional: FUZZ_SECONDS, FUZZ_ONLY (a subset: "csv cache"),
# CC/CXX (clang).  (Not FUZZ_TARGETS: the Makefile's own list of the programs has that name.)
set -eu
: "${FUZZ_SOURCES:?run through make fuzz}"
src=$(cd "$top_srcdir" && pwd)
out="$top_builddir/fuzz-build"
secs=${FUZZ_SECONDS:-60}
targets=${FUZZ_ONLY:-"experiment hypothesis csv proto results cache"}
cc=${FUZZ_CC:-clang}
cxx=${FUZZ_CXX:-clang++}
command -v "$cc" >/dev/null || { echo "fuzz: '$cc' not found (Debian: apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1"
# An allocation past a limit fails (NULL) as in the ordinary build, rather than ASan ending the
# process: the version 1 probe's child caps its address space (recorder-open.c) and must see
# libhdf5's allocation fail, not die with a report written to the working folder.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1"
mkdir -p "$out/obj"
# AM_CPPFLAGS's quoted path macros are spelled here (they do not survive the trip through
# make's environment); $FUZZ_CPPFLAGS carries the libraries' flags.

# The library, instrumented for coverage (fuzzer-no-link) as well as the sanitizers.
objs=
for f in $FUZZ_SOURCES; do
	case $f in
	*.c) o="$out/obj/$(echo "$f" | tr / _).o"
	     [ "$o" -nt "$src/$f" ] || $cc -std=c11 $san -fsanitize=fuzzer-no-link $FUZZ_CPPFLAGS "-DPKGDATADIR=\"/nonexistent\"" "-DHARNESS_ABS_SRCDIR=\"$src\"" "-DHARNESS_ABS_BUILDDIR=\"$top_builddir\"" -I"$src" -I"$top_builddir" -c "$src/$f" -o "$o"
	     objs="$objs $o" ;;
	*.cc) o="$out/obj/$(echo "$f" | tr / _).o"
	     [ "$o" -nt "$src/$f" ] || $cxx -std=c++17 $san -fsanitize=fuzzer-no-link $FUZZ_CPPFLAGS "-DPKGDATADIR=\"/nonexistent\"" "-DHARNESS_ABS_SRCDIR=\"$src\"" "-DHARNESS_ABS_BUILDDIR=\"$top_builddir\"" -I"$src" -I"$top_builddir" -c "$src/$f" -o "$o"
	     objs="$objs $o" ;;
	esac
done

# Seed corpora, made fresh from the test data.
seed() {
	d="$out/corpus/$1"; rm -rf "$d"; mkdir -p "$d"
	case $1 in
	experiment) cp "$src"/tests/data/experiments/*.toml "$src"/experiments/*.toml "$src"/tests/data/audit/*.toml "$d"/ ;;
	hypothesis) cp "$src"/hypotheses/*.toml "$src"/tests/data/hypotheses/*.toml "$d"/ ;;
	csv) cp "$src"/tests/data/import/*.csv "$src"/tests/data/report/*.csv "$d"/ 2>/dev/null || true ;;
	proto) cp "$src"/tests/fuzz/seeds/proto/* "$d"/ ;;
	cache) cp "$src"/tests/fuzz/seeds/cache/* "$d"/ ;; # (the .json.gz caches of tests/data are too large to mutate)
	results)
		for c in "$src"/tests/data/import/good*.csv "$src"/tests/data/report/*.csv; do
			[ -f "$c" ] || continue
			"$top_builddir/harness/harness" import --csv "$c" --unit us -o "$d/$(basename "$c" .csv).h5" >/dev/null 2>&1 || true
		done
		# a version 1 file too: its variable-length strings are read in a child first;
		# and one with a long string (/long_strings, /long_bytes)
		cp "$src"/tests/data/v1/v1.h5 "$src"/tests/data/v2/long.h5 "$d"/ ;;
	esac
	cp "$src/tests/fuzz/crashes/$1"/* "$d"/ 2>/dev/null || true
}

for t in $targets; do
	bin="$out/fuzz-$t"
	$cxx $san -fsanitize=fuzzer -I"$src" -I"$top_builddir" $FUZZ_CPPFLAGS -x c "$src/tests/fuzz/fuzz-$t.c" -x none $objs $FUZZ_LIBS -o "$bin"
	seed "$t"
	mkdir -p "$src/tests/fuzz/crashes/$t"
	echo "fuzz: $t for $secs s"
	# -close_fd_mask=2: the parsers' error messages are expected output, not findings.
	if "$bin" -max_total_time="$secs" -close_fd_mask=2 -rss_limit_mb=4096 -timeout=10 \
		-artifact_prefix="$src/tests/fuzz/crashes/$t/" "$out/corpus/$t" >"$out/$t.log" 2>&1; then
		echo "fuzz: $t: no crash; $(grep -E '^#[0-9]+.*(DONE|pulse)' "$out/$t.log" | tail -1)"
	else
		echo "fuzz: $t: CRASH, input saved under tests/fuzz/crashes/$t/ (log: $out/$t.log)"
		grep -m3 -E 'ERROR|SUMMARY' "$out/$t.log" || true
	fi
done
