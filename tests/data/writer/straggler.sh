#!/bin/sh
# tests/data/writer/straggler.sh: a command unit that leaves a process behind (a copy of
# sleep named hs-straggler-<unit> in its cache folder, in the background) and reports done
# (tests/cli/unit-life.sh)
cp "$(command -v sleep)" "./hs-straggler-$HARNESS_UNIT"
"./hs-straggler-$HARNESS_UNIT" 300 </dev/null >/dev/null 2>&1 &
printf '{"type":"hello","protocol":2,"pid":%d,"mode":"%s","unit":%d,"backend":"sh"}\n' "$$" "$HARNESS_MODE" "$HARNESS_UNIT" >&3
printf '{"type":"cell","id":0,"name":"sh/const","kind":"op","workload":"sh","op":"const","shape":"n=1","count":1,"flops":0.0}\n' >&3
printf '{"type":"samples","cell":0,"first":0,"ns":[20100,20300,19900,20050,20200]}\n' >&3
printf '{"type":"measure","cell":0,"n":5,"stop":"max-samples","warmup_n":0,"warmup_ns":0,"rel_precision":null}\n' >&3
printf '{"type":"setup","compile_ns":0,"tune_ns":0,"search_ns":0,"compiles":0,"cache_hits":0,"benchmarks":0,"expects_work":false}\n' >&3
printf '{"type":"done","status":"ok","message":""}\n' >&3
