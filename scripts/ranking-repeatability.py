#!/usr/bin/env python3
"""ranking-repeatability.py — how often the harness repeats its own order of the schemes.

    scripts/ranking-repeatability.py docs/predict/runs-10mbit-pass{8,9,10}.csv ... \
        [docs/predict/predict-10mbit-pass{8,9,10}.txt ...]

Reads the runs of several validation passes (the runs-RATE-passN.csv files
scripts/predict-validate.sh leaves, saved in docs/predict) and, for every
problem size and node count of 8 nodes or more, orders the schemes by the
median wall time of each pass's runs, as `gridtui bench predict` does. It
prints per configuration how often two passes agree on that order, and how
often one pass gives the order of all passes' runs pooled: directly, and
resampled with k runs per scheme (k = 3, 5, 7, 9, drawn with replacement
from the pooled runs). The mean over configurations is the share of
rankings a prediction that always gave the pooled order could expect to
get right against one pass with k runs per case: a ceiling the runs'
spread sets on the ranking criterion, whatever the model. Given the
passes' `gridtui bench predict` outputs (predict-RATE-passN.txt) too, it
counts how often the prediction gave the pooled order.
Standard library only; the resampling is seeded.
"""
import csv
import itertools
import random
import re
import statistics
import sys
from collections import Counter, defaultdict

MIN_NODES = 8
DRAWS = 4000


def order(times):
    """The schemes fastest first by the median of their runs."""
    return tuple(sorted(times, key=lambda s: statistics.median(times[s])))


def main(paths):
    # (rate, n, nodes) -> pass -> scheme -> [wall seconds]
    runs = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    predicted = defaultdict(dict)  # (rate, n, nodes) -> pass -> order
    for path in paths:
        m = re.search(r"(runs|predict)-(\w+?)-pass(\d+)", path)
        if not m:
            sys.exit(f"{path}: want a name like runs-10mbit-pass12.csv or predict-10mbit-pass12.txt")
        kind, rate, p = m.group(1), m.group(2), int(m.group(3))
        if kind == "predict":
            with open(path) as f:
                for line in f:
                    r = re.match(r"ranking \S+ n = (\d+), (\d+) nodes: predicted (.+?), measured", line)
                    if r:
                        predicted[(rate, int(r.group(1)), int(r.group(2)))][p] = tuple(r.group(3).split(" < "))
            continue
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if r["outcome"] != "ok" or int(r["nodes"]) < MIN_NODES:
                    continue
                runs[(rate, int(r["n"]), int(r["nodes"]))][p][r["scheme"]].append(float(r["wall_seconds"]))
    rng = random.Random(1)
    ks = (3, 5, 7, 9)
    agree = total = 0
    modal_hits = passes = 0
    resampled = defaultdict(float)
    model_hits = model_passes = 0
    print("| link | n | nodes | orders over the passes | passes agreeing, pairs | pooled order | " +
          " | ".join(f"P(pooled), {k} runs" for k in ks) + " | predicted the pooled order |")
    print("|---|---:|---:|---|---:|---|" + "---:|" * (len(ks) + 1))
    for key in sorted(runs):
        by_pass = runs[key]
        orders = {p: order(t) for p, t in by_pass.items()}
        pairs = list(itertools.combinations(sorted(orders), 2))
        a = sum(orders[x] == orders[y] for x, y in pairs)
        agree, total = agree + a, total + len(pairs)
        pooled = defaultdict(list)
        for t in by_pass.values():
            for s, xs in t.items():
                pooled[s].extend(xs)
        best = order(pooled)
        modal_hits += sum(o == best for o in orders.values())
        passes += len(orders)
        probs = []
        for k in ks:
            hit = sum(order({s: rng.choices(xs, k=k) for s, xs in pooled.items()}) == best for _ in range(DRAWS))
            probs.append(hit / DRAWS)
            resampled[k] += hit / DRAWS
        pred = predicted.get(key, {})
        hits = sum(o == best for o in pred.values())
        model_hits, model_passes = model_hits + hits, model_passes + len(pred)
        counts = ", ".join(f"{' < '.join(o)} ×{c}" for o, c in Counter(orders.values()).most_common())
        print(f"| {key[0]} | {key[1]} | {key[2]} | {counts} | {a}/{len(pairs)} | {' < '.join(best)} | " +
              " | ".join(f"{x:.2f}" for x in probs) + (f" | {hits} of {len(pred)} |" if pred else " | |"))
    n = len(runs)
    print()
    print(f"two passes agree on the order: {agree} of {total} pairs ({100 * agree / max(1, total):.0f} %)")
    print(f"a pass gives the pooled order: {modal_hits} of {passes} ({100 * modal_hits / max(1, passes):.0f} %)")
    if model_passes:
        print(f"the prediction gave the pooled order: {model_hits} of {model_passes} "
              f"({100 * model_hits / model_passes:.0f} %)")
    for k in ks:
        print(f"resampled, {k} runs per scheme: a pass gives the pooled order in {100 * resampled[k] / max(1, n):.0f} % "
              f"of configurations on average")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
