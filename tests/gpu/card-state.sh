# tests/gpu/card-state.sh: sourced from the repository root by the lease scripts
# (cluster-run.sh, main-job.sh, res-tma-run.sh, sk-probe.sh, stream-forward.sh, time-run.sh,
# tuners-run.sh; sandbox-run.sh and spec-run.sh, which run from tests/, keep a copy): q
# prints one line of the card's state as docs/BENCHMARKS.md's GPU sections record it (name,
# UUID, driver, SM and memory clocks, temperature, power and its limit, the active
# clock-event reasons), read-only: nothing here changes a setting.
q() {
	nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw,power.limit,clocks_event_reasons.active \
		--format=csv,noheader
}
