"""The whole test suite with every core busy: does it still pass, and how long does it take?

    python benchmarks/loaded_suite.py [--runs 3] [--hogs N] [--hog-seconds S] [-- PYTEST ARGS]

Starts N CPU hogs (default: one per core; each a process that spins until told to stop, and never longer than
--hog-seconds, 3,600 by default), runs the pytest of the README's test command (its options as the README
gives them, read with `.ci/run --print-command`; or the options given after `--`) --runs times in a row from
the already installed .venv or the running Python, stops the hogs (by their pid)
and prints, per run: passed or failed, the counts pytest printed, wall seconds. Exit status 0 only when every
run passed. The hogs run at normal priority: the tests compete for the cores as they would beside a real game
or a bot tournament. Prints figures; asserts nothing else.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def hog(stop_at: float) -> None:
    """Spin on one core until the deadline (or until killed)."""
    x = 0
    while time.monotonic() < stop_at:
        for _ in range(100_000):
            x = (x * 31 + 7) % 1_000_003


def readme_pytest_args() -> list[str]:
    """The options of `python -m pytest` in the README's test command."""
    command = subprocess.run(["bash", str(ROOT / ".ci" / "run"), "--print-command"], capture_output=True, text=True,
                             check=True).stdout
    words = shlex.split(command.split("-m pytest", 1)[1].split("&&", 1)[0])
    return words


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--hogs", type=int, default=os.cpu_count() or 2, help="busy processes (default: one per core)")
    parser.add_argument("--hog-seconds", type=float, default=3600.0, help="a hog's longest life (a bound)")
    parser.add_argument("pytest_args", nargs="*", help="after --: passed to pytest")
    args = parser.parse_args()
    ctx = multiprocessing.get_context("spawn")
    hogs = [ctx.Process(target=hog, args=(time.monotonic() + args.hog_seconds,), daemon=True)
            for _ in range(args.hogs)]
    for process in hogs:
        process.start()
    print(f"{args.hogs} CPU hogs started (pids {', '.join(str(p.pid) for p in hogs)}); "
          f"{os.cpu_count()} cores", flush=True)
    results = []
    try:
        for run in range(1, args.runs + 1):
            started = time.monotonic()
            done = subprocess.run([sys.executable, "-m", "pytest", *(args.pytest_args or readme_pytest_args()),
                                   "-p", "no:cacheprovider"],
                                  cwd=ROOT, capture_output=True, text=True)
            wall = time.monotonic() - started
            tail = [line for line in done.stdout.splitlines() if re.search(r"\d+ (passed|failed|error)", line)]
            summary = tail[-1].strip("= ") if tail else "(no summary)"
            results.append(done.returncode == 0)
            print(f"run {run}: {'passed' if done.returncode == 0 else 'FAILED'}  {wall:7.1f} s wall  {summary}",
                  flush=True)
            if done.returncode != 0:
                failures = [line for line in done.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))]
                print("\n".join(failures or done.stdout.splitlines()[-40:]), flush=True)
    finally:
        for process in hogs:
            process.kill()
            process.join()
        print("CPU hogs stopped", flush=True)
    print(f"{sum(results)} of {len(results)} runs passed under load")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
