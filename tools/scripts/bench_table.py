#!/usr/bin/python3
"""Renders tessel-bench's JSON (stdin) as a table: workload, unscheduled, ours, the reference,
ratio.

    build/bin/tessel-bench --filter=codegen/ | python3 tools/scripts/bench_table.py

A case with `tessel_<unit>` and `<library>_<unit>` fields (tessel_gflops and
openblas_gflops) is a comparison: ours, the library's figure, and the case's
`ratio` (ours / reference; above 1 is faster). The auto/ cases name their
reference in `reference` (its figure in `reference_<unit>`) and carry the
function's figure before default-schedule in `unscheduled_<unit>`; the tuned/
cases show the default-schedule figure (`default_schedule_<unit>`) there instead. A case with
`median_us` is a plain timing (no reference). Stdlib only: runs with Debian's
/usr/bin/python3.
"""
import json
import sys

UNITS = {"gflops": "GFLOP/s", "gbs": "GB/s"}


def row(case):
    name = case.get("name", "?")
    for key, value in case.items():
        if not key.startswith("tessel_"):
            continue
        unit = key[len("tessel_"):]
        label = UNITS.get(unit, unit)
        before = case.get("unscheduled_" + unit)
        before = f"{before:.2f} {label}" if before is not None else "-"
        if "default_schedule_" + unit in case:  # tuned/ rows: the default-schedule result.
            before = f"{case['default_schedule_' + unit]:.1f} {label} (default-schedule)"
        if "reference" in case and "reference_" + unit in case:
            ref, ref_name = "reference_" + unit, case["reference"]
        else:
            refs = [k for k in case if k.endswith("_" + unit) and k != key
                    and not k.startswith(("unscheduled_", "default_schedule_"))]
            if not refs:
                continue
            ref, ref_name = refs[0], refs[0][:-len(unit) - 1]
        ratio = case.get("ratio", value / case[ref] if case[ref] else float("nan"))
        return (name, before, f"{value:.1f} {label}", f"{case[ref]:.1f} {label} ({ref_name})",
                f"{ratio:.2f}")
    if "skipped" in case:
        return (name, "-", "skipped: " + case["skipped"], "-", "-")
    if "median_us" in case:
        return (name, "-", f"{case['median_us'] / 1000:.1f} ms (median)", "-", "-")
    return (name, "-", "?", "-", "-")


def main():
    try:
        data = json.load(sys.stdin)
    except json.JSONDecodeError as e:
        sys.exit(f"bench_table.py: stdin is not tessel-bench JSON: {e}")
    rows = [("workload", "unscheduled", "ours", "reference", "ratio")]
    rows += [row(c) for c in data.get("benchmarks", [])]
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    for r in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip())
    machine = data.get("machine")
    if machine:
        print("machine: " + ", ".join(f"{k} {v}" for k, v in machine.items()))


if __name__ == "__main__":
    main()
