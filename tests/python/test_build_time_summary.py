"""tools/scripts/build_time_summary.py: CI's account of where the build's time went,
read from Ninja's log."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "tools", "scripts", "build_time_summary.py")


def summarize(path):
    return subprocess.run([sys.executable, SCRIPT, str(path)], capture_output=True, text=True)


def test_wall_time_job_seconds_per_directory_and_slowest_steps(tmp_path):
    log = tmp_path / ".ninja_log"
    # start, end (ms), mtime, output, hash: two jobs at a time for 10 s.
    log.write_text("# ninja log v5\n"
                   "0\t6000\t1\tir/CMakeFiles/tessel_ir.dir/expr.cc.o\tab\n"
                   "0\t4000\t1\ttests/unit/CMakeFiles/t.dir/a_test.cc.o\tcd\n"
                   "4000\t10000\t1\ttests/unit/CMakeFiles/t.dir/b_test.cc.o\tef\n"
                   "6000\t7000\t1\tbin/tessel-opt\t01\n"
                   "7000\t8000\t1\t/abs/build/CMakeFiles/cmake.verify_globs\t02\n")
    r = summarize(log)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "build: 10.0 s wall, 18.0 job-s over 5 steps (1.8 jobs at a time on average)"
    assert lines[1].split() == ["tests", "10.0", "job-s", "(2", "steps)"]
    assert lines[2].split() == ["ir", "6.0", "job-s", "(1", "steps)"]
    assert any(line.split()[0] == "(cmake)" for line in lines[3:])
    assert lines[-1].startswith("  slowest: 6.0 s ir/CMakeFiles/tessel_ir.dir/expr.cc.o, "
                                "6.0 s tests/unit/CMakeFiles/t.dir/b_test.cc.o")


def test_a_file_that_is_not_a_ninja_log_is_refused_by_name(tmp_path):
    other = tmp_path / "notes.txt"
    other.write_text("hello\n")
    r = summarize(other)
    assert r.returncode != 0
    assert f"{other}: not a Ninja log (first line 'hello')" in r.stderr


def test_an_empty_log_says_so(tmp_path):
    log = tmp_path / ".ninja_log"
    log.write_text("# ninja log v5\n")
    r = summarize(log)
    assert r.returncode == 0 and r.stdout == "build: no steps in the log\n"
