"""Runs test code in a child Python process, so that a regression that crashes
(SIGSEGV, SIGILL, an abort) fails the test instead of killing the test runner.

    out = run_child('''
        import tessel
        print("REFUSED" if ... else "RAN")
        ''', tmp_path)
"""

import os
import subprocess
import sys
import textwrap


def run_child(code: str, cwd, *argv: str, timeout: int = 300) -> str:
    """Runs ``code`` (dedented) with this process's ``sys.path``, in ``cwd``, with
    ``argv`` as ``sys.argv[1:]``; fails the test when the child does not exit 0,
    showing the end of its output. Returns its stdout."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *argv], cwd=cwd, env=env,
                       capture_output=True, text=True, timeout=timeout)
    last = "\n".join(r.stdout.strip().splitlines()[-20:])
    assert r.returncode == 0, f"the child died ({r.returncode}) after:\n{last}\n{r.stderr[-2000:]}"
    return r.stdout
