#!/usr/bin/python3
"""Where a build's time went, from Ninja's log: the wall time, the job-seconds per
top-level directory, and the slowest steps. CI prints it after a clean build
(tools/scripts/build.sh with TESSEL_CI=1), so every CI log shows the build's trend.

    build_time_summary.py build/.ninja_log
    build: 1349.7 s wall, 4110.3 job-s over 522 steps (3.0 jobs at a time on average)
      tests          1173.6 job-s  (155 steps)
      ir              ...
      slowest: 110.9 s codegen/CMakeFiles/tessel_codegen.dir/cmake_pch.hxx.gch, ...

Job-seconds are each step's wall time: with more jobs than cores they are longer
than its CPU time. The log keeps the latest run of each output, so on a build
directory built more than once the figures mix builds; a clean build is exact.
"""
import collections
import sys


def read_log(path):
    steps = []
    with open(path) as f:
        header = f.readline()
        if not header.startswith("# ninja log v"):
            raise SystemExit(f"{path}: not a Ninja log (first line {header.strip()!r})")
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 4:
                continue
            start_ms, end_ms, output = int(parts[0]), int(parts[1]), parts[3]
            steps.append((start_ms, end_ms, output))
    return steps


def main(argv):
    if len(argv) != 2:
        raise SystemExit("usage: build_time_summary.py BUILD_DIR/.ninja_log")
    steps = read_log(argv[1])
    if not steps:
        print("build: no steps in the log")
        return
    wall = (max(e for _, e, _ in steps) - min(s for s, _, _ in steps)) / 1000
    total = sum(e - s for s, e, _ in steps) / 1000
    per_dir = collections.defaultdict(lambda: [0.0, 0])
    for s, e, out in steps:
        # Links land in bin/ and lib/; steps named by absolute path are CMake's.
        top = "(cmake)" if out.startswith("/") else out.split("/", 1)[0] if "/" in out else "(top)"
        per_dir[top][0] += (e - s) / 1000
        per_dir[top][1] += 1
    print(f"build: {wall:.1f} s wall, {total:.1f} job-s over {len(steps)} steps "
          f"({total / max(wall, 0.001):.1f} jobs at a time on average)")
    for top, (secs, n) in sorted(per_dir.items(), key=lambda kv: -kv[1][0]):
        print(f"  {top:<14} {secs:8.1f} job-s  ({n} steps)")
    slowest = sorted(steps, key=lambda st: st[0] - st[1])[:5]
    print("  slowest: " + ", ".join(f"{(e - s) / 1000:.1f} s {out}" for s, e, out in slowest))


if __name__ == "__main__":
    main(sys.argv)
