"""Scoring a call graph's edges against a suite's, for the benches that
read published call-graph ground truth (`pycg_micro.py`, `js_callgraph.py`).

A row is `(expected, found)`: expected edges as tuples, and evident's edges
as the same tuples with evident's confidence appended.
"""


def score(rows, with_guesses):
    """Precision, recall, and the counts behind them; `with_guesses=False`
    leaves evident's `name_only` edges out."""
    tp = fp = fn = 0
    for expected, found in rows:
        found = {e[:-1] for e in found if with_guesses or e[-1] != "name_only"}
        tp += len(expected & found)
        fp += len(found - expected)
        fn += len(expected - found)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return precision, recall, tp, fp, fn


def misses(expected, found):
    """What evident missed and got wrong against `expected`, as one line;
    None when they agree (`found` carries the confidence last)."""
    plain = {e[:-1] for e in found}
    if plain == expected:
        return None
    return f"missed {sorted(expected - plain)} wrong {sorted(plain - expected)}"


def report(rows, unit):
    """Prints each half's and both halves' figures; `rows` maps "A" and "B" to rows."""
    print(f"{'half':8}{unit:>6}  {'precision':>9} {'recall':>7}  (tp fp fn)   without name_only")
    for half in ("A", "B", "A+B"):
        chosen = rows["A"] + rows["B"] if half == "A+B" else rows[half]
        if not chosen:
            continue
        p, r, tp, fp, fn = score(chosen, True)
        p2, r2, *_ = score(chosen, False)
        print(f"{half:8}{len(chosen):>6}  {p:9.3f} {r:7.3f}  ({tp} {fp} {fn})   {p2:.3f} {r2:.3f}")
