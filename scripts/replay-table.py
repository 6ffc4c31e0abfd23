#!/usr/bin/python3
"""replay-table.py: per op kind, the trials each tuner needs to reach 95% of the best (the
first budget where a cell's mean score over seeds reaches 0.95, docs/replay.md), from
`harness replay -f json` outputs; a Markdown table on stdout (docs/BENCHMARKS.md).

    scripts/replay-table.py rp-r18.json rp-r50.json
"""
import collections
import json
import statistics
import sys


def main(paths):
    rows = collections.defaultdict(list)
    tuners, ops = [], []
    for p in paths:
        rep = json.load(open(p))
        for w in rep["rows"]:
            op = w["cell"].split("/", 1)[1].split(":", 1)[0]
            if w["tuner"] not in tuners:
                tuners.append(w["tuner"])
            if op not in ops:
                ops.append(op)
            rows[(op, w["tuner"])].append(w)
    print("| op (cells, valid configs) | tuner | cells reaching 0.95 | trials to 0.95: median "
          "[max] | trials used (median) | chosen / best (median [max]) |")
    print("|---|---|---|---|---|---|")
    for op in ops:
        for t in tuners:
            ws = rows[(op, t)]
            if not ws:
                continue
            reached = [w["trials_to_095"] for w in ws if w["trials_to_095"] is not None]
            valid = statistics.median(w["valid"] for w in ws)
            ratio = [w["chosen_over_best_median"] for w in ws]
            to95 = ("%g [%d]" % (statistics.median(reached), max(reached))) if reached else "-"
            print("| %s (%d, %g) | `%s` | %d of %d | %s | %g | %.3f [%.3f] |" % (
                op, len(ws), valid, t, len(reached), len(ws), to95,
                statistics.median(w["trials_used_median"] for w in ws),
                statistics.median(ratio), max(ratio)))


if __name__ == "__main__":
    main(sys.argv[1:])
