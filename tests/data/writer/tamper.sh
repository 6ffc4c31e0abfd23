#!/bin/sh
# tests/data/writer/tamper.sh HOW: a command unit that tampers with its own run's journal
# once (tests/cli/journal-tamper.sh).  Its cache folder
# is RUN/cache/uNNNN-XXXXXX, so the journal is ../../journal.  HOW "copy": copy the journal's
# first unit file over every other one there; "scale": rewrite the first unit file's samples
# x3 through h5py (which recomputes HDF5's checksums).  Only the first unit to find three
# unit files there and no ../../tampered does it; then it sends slow.sh's records.
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
# then the records of any unit: slow.sh's (beside this file)
exec sh "$(dirname "$0")/slow.sh"
