"""Run `python -m p2pnimmt ARGS` in this process, then print which of the front's and the search bots' libraries
were ever imported (tests/app/test_headless_imports.py). Started as `python modules_at_exit.py python -m p2pnimmt
ARGS` (the prefix of tests/procs.Proc), so the command line after the prefix is the ordinary one."""

from __future__ import annotations

import atexit
import runpy
import sys

HEAVY = ("aiohttp", "prompt_toolkit", "numpy")


def report() -> None:
    loaded = [name for name in HEAVY if name in sys.modules]
    print(f"modules at exit: {', '.join(loaded) or 'none of ' + ', '.join(HEAVY)}", flush=True)


if __name__ == "__main__":
    assert sys.argv[2:4] == ["-m", "p2pnimmt"], sys.argv
    sys.argv = ["p2pnimmt", *sys.argv[4:]]
    atexit.register(report)
    runpy.run_module("p2pnimmt", run_name="__main__", alter_sys=True)
