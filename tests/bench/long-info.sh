#!/bin/sh
# tests/bench/long-info.sh [HARNESS]: one long info among 24 units (docs/BENCHMARKS.md, the
# long-strings row): 12 blocks of two command modes; unit 0 sends 12 info records of 1 MiB
# of base64 text (random bytes: nothing to compress away), the others none; [limits]
# info_bytes 64 MiB.  Prints the results file's size and the peak RSS and wall time of
# `harness run` and `harness report` (GNU time, Debian package time).  Runs in a temporary folder, removed.
set -eu
H=${1:-harness}
case $H in /*) ;; */*) H=$(pwd)/$H ;; esac
SLOW=$(cd "$(dirname "$0")/../data/writer" && pwd)/slow.sh
d=$(mktemp -d "${TMPDIR:-/tmp}/long-info.XXXXXX")
trap 'rm -rf "$d"' EXIT
cd "$d"
cat >unit.sh <<'EOS'
if [ "$HARNESS_UNIT" = 0 ]; then
	printf '{"type":"hello","protocol":2,"pid":%d,"mode":"%s","unit":0,"backend":"sh"}\n' "$$" "$HARNESS_MODE" >&3
	for _ in 1 2 3 4 5 6 7 8 9 10 11 12; do
		printf '{"type":"info","text":"%s"}\n' "$(head -c 786432 /dev/urandom | base64 -w0)" >&3
	done
	sed '/"type":"hello"/d' "$SLOW" | SLOW_S=0 sh
else
	SLOW_S=0 sh "$SLOW"
fi
EOS
cat >exp.toml <<EOS
schema = 1
name = "long-info"
repeats = 12
seed = 3
unit_timeout = 120
[limits]
info_bytes = 67108864
[[workloads]]
name = "sh"
op = "sgemm"
shape = { m = 8, n = 8, k = 8 }
[[modes]]
name = "a"
command = ["sh", "$d/unit.sh"]
baseline = true
[[modes]]
name = "b"
command = ["sh", "$d/unit.sh"]
[environment]
set = { SLOW = "$SLOW" }
EOS
/usr/bin/time -f 'run: %M KB peak RSS, %e s' "$H" run -q -o r.h5 exp.toml >/dev/null
echo "results file: $(stat -c %s r.h5) bytes"
/usr/bin/time -f 'report: %M KB peak RSS, %e s' "$H" report r.h5 >/dev/null
