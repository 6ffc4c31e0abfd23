#!/bin/bash
# tests/bench/import-cache.sh [HARNESS]: `harness import --kernel-tuner` on a generated cache of
# about 100 MB (8 parameters of 10 values, 10 samples a configuration, Kernel Tuner's layout:
# one entry a line), plain and gzip-compressed: wall time and peak resident memory, against
# the program's own peak (`--version`).  docs/BENCHMARKS.md row 31.
set -eu
H=${1:-harness/harness}
H=$(cd "$(dirname "$H")" && pwd)/$(basename "$H")
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
cd "$D"
/usr/bin/python3 - big.json <<'PYEOF'
import itertools, json, random, sys
rng = random.Random(1)
keys = ["p%d" % i for i in range(8)]
with open(sys.argv[1], "w") as f:
    f.write('{\n"device_name": "synthetic", "kernel_name": "big100", "problem_size": [4096],\n')
    f.write('"tune_params_keys": %s,\n"tune_params": %s,\n"objective": "time",\n"cache": {\n'
            % (json.dumps(keys), json.dumps({k: list(range(1, 11)) for k in keys})))
    size, sep = 0, ""
    for combo in itertools.product(*[range(1, 11)] * 8):
        t = 1 + rng.random()
        e = dict(zip(keys, combo), time=t, times=[t + rng.random() * 0.01 for _ in range(10)],
                 compile_time=100 * rng.random(), benchmark_time=50.0, verification_time=0,
                 framework_time=1.0, strategy_time=0)
        line = sep + json.dumps(",".join(map(str, combo))) + ": " + json.dumps(e)
        f.write(line)
        size, sep = size + len(line), ",\n"
        if size > 100e6:
            break
    f.write("\n}\n}\n")
PYEOF
gzip -k big.json
ls -l big.json big.json.gz | awk '{print $5, $9}'
/usr/bin/time -f "harness --version: %e s, peak %M KB" "$H" --version >/dev/null
/usr/bin/time -f "import (json): %e s, peak %M KB" "$H" import --kernel-tuner big.json -o a.h5
/usr/bin/time -f "import (json.gz): %e s, peak %M KB" "$H" import --kernel-tuner big.json.gz -o b.h5 >/dev/null
ls -l a.h5 | awk '{print "results file:", $5, "bytes"}'
