#!/bin/sh
# scripts/study-data.sh: bring a finished (or paused) study's journal and logs back into
# results/ from the commit that last held them in the tree.  The repository holds code, not
# a study's data (issue 46): the torch-resnet study (docs/studies/torch-resnet.md) and its
# controls (docs/studies/torch-controls.md) were committed chunk by chunk while they ran and
# left the tree at 75f30d6; git keeps every byte, and this is their documented download.
#
# usage: scripts/study-data.sh [STUDY...]     STUDY: torch-resnet, torch-controls (default: both)
# Needs a clone with that commit (a shallow clone: `git fetch --unshallow` first).  Writes
# results/STUDY/STUDY/ (experiment.toml, journal/, logs/); refuses to overwrite one that is
# there.  Then assemble and read as the study's page says, e.g.
#   harness run -q --resume results/torch-resnet/torch-resnet.h5 --max-time 1s \
#       experiments/torch-resnet.toml
set -eu
COMMIT=75f30d600e108e0fa6576bb2209c366df32dac0f
me=scripts/study-data.sh
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- torch-resnet torch-controls
if ! git cat-file -e "$COMMIT^{commit}" 2>/dev/null; then
	echo "$me: this clone lacks commit $COMMIT (shallow? run 'git fetch --unshallow')" >&2
	exit 1
fi
for s in "$@"; do
	case "$s" in
	torch-resnet|torch-controls) ;;
	*) echo "$me: no study '$s' (torch-resnet, torch-controls)" >&2; exit 2 ;;
	esac
	if [ -e "results/$s/$s" ]; then
		echo "$me: results/$s/$s is there already; move it away first" >&2
		exit 1
	fi
	mkdir -p "results/$s"
	git archive --format=tar "$COMMIT" "results/$s/$s" | tar -xf -
	n=$(ls "results/$s/$s/journal" | grep -c '^unit-.*\.h5$' || true)
	echo "$me: results/$s/$s: $n unit(s) in its journal (from $COMMIT)"
done
