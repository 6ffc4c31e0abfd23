#!/bin/sh
# tests/data/limits/flood.sh WHAT: a command unit that sends more than a unit may
# (tests/cli/limits.sh).  WHAT: "samples" streams sample records without end; "info" sends
# info records of 64 KiB without end; "ok" behaves; "big" behaves after 48 info records of
# 64 KiB (3 MiB, the last ending in a line "big_tail=é" that a cut would lose).
printf '{"type":"hello","protocol":2,"pid":%d,"mode":"%s","unit":%d,"backend":"sh"}\n' "$$" "$HARNESS_MODE" "$HARNESS_UNIT" >&3
printf '{"type":"cell","id":0,"name":"sh/const","kind":"op","workload":"sh","op":"const","shape":"n=1","count":1,"flops":0.0}\n' >&3
case "$1" in
samples)
	line='{"type":"samples","cell":0,"first":0,"ns":[20100,20300,19900,20050,20200,20100,20300,19900,20050,20200]}'
	while :; do printf '%s\n%s\n%s\n%s\n%s\n' "$line" "$line" "$line" "$line" "$line" >&3 || exit 0; done ;;
info)
	pad=$(head -c 65536 /dev/zero | tr '\0' x)
	while :; do printf '{"type":"info","text":"%s"}\n' "$pad" >&3 || exit 0; done ;;
big)
	pad=$(head -c 65536 /dev/zero | tr '\0' y)
	i=0
	while [ $i -lt 47 ]; do printf '{"type":"info","text":"%s"}\n' "$pad" >&3; i=$((i + 1)); done
	printf '{"type":"info","text":"%s\\nbig_tail=\\u00e9\\n"}\n' "$pad" >&3 ;;
esac
printf '{"type":"samples","cell":0,"first":0,"ns":[20100,20300,19900,20050,20200]}\n' >&3
printf '{"type":"measure","cell":0,"n":5,"stop":"max-samples","warmup_n":0,"warmup_ns":0,"rel_precision":null}\n' >&3
printf '{"type":"setup","compile_ns":0,"tune_ns":0,"search_ns":0,"compiles":0,"cache_hits":0,"benchmarks":0,"expects_work":false}\n' >&3
printf '{"type":"done","status":"ok","message":""}\n' >&3
