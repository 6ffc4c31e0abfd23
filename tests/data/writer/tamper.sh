#!/bin/sh
# tests/data/writer/tamper.sh HOW: a command unit that tampers with its own run's journal
# once (tests/cli/journal-tamper.sh), then records one cell as any unit.  Its cache folder
# is RUN/cache/uNNNN-XXXXXX, so the journal is ../../journal.  HOW "copy": copy the journal's
# first unit file over every other one there; "scale": rewrite the first unit file's samples
# x3 through h5py (which recomputes HDF5's checksums).  Only the first unit to find three
# unit files there and no ../../tampered does it.
J=../../journal
if [ ! -e ../../tampered ] && [ "$(ls "$J" | grep -c "^unit-.*\.h5$")" -ge 3 ]; then
	: >../../tampered
	case "$1" in
	copy)
		for f in "$J"/unit-*.h5; do
			[ "$f" = "$J/unit-0000.h5" ] || cp "$J/unit-0000.h5" "$f"
		done ;;
	scale)
		/usr/bin/python3 -c '
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    s = f["samples"][:]
    s["ns"] *= 3
    f["samples"][:] = s
' "$J/unit-0000.h5" ;;
	esac
fi
printf '{"type":"hello","protocol":2,"pid":%d,"mode":"%s","unit":%d,"backend":"sh"}\n' "$$" "$HARNESS_MODE" "$HARNESS_UNIT" >&3
printf '{"type":"cell","id":0,"name":"sh/const","kind":"op","workload":"sh","op":"const","shape":"n=1","count":1,"flops":0.0}\n' >&3
printf '{"type":"samples","cell":0,"first":0,"ns":[20100,20300,19900,20050,20200]}\n' >&3
printf '{"type":"measure","cell":0,"n":5,"stop":"max-samples","warmup_n":0,"warmup_ns":0,"rel_precision":null}\n' >&3
printf '{"type":"setup","compile_ns":0,"tune_ns":0,"search_ns":0,"compiles":0,"cache_hits":0,"benchmarks":0,"expects_work":false}\n' >&3
printf '{"type":"done","status":"ok","message":""}\n' >&3
