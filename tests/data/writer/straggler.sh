#!/bin/sh
# tests/data/writer/straggler.sh: a command unit that leaves a process behind (a copy of
# sleep named hs-straggler-<unit> in its cache folder, in the background), then sends
# slow.sh's records (tests/cli/unit-life.sh)
cp "$(command -v sleep)" "./hs-straggler-$HARNESS_UNIT"
"./hs-straggler-$HARNESS_UNIT" 300 </dev/null >/dev/null 2>&1 &
# then the records of any unit: slow.sh's (beside this file)
exec sh "$(dirname "$0")/slow.sh"
