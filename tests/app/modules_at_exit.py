"""Run `python -m p2pnimmt ARGS` in this process, then print which of the front's and the search bots' libraries,
and which of the libraries a headless seat loads only when it needs them, were ever imported
(tests/app/test_headless_imports.py). Started as `python modules_at_exit.py python -m p2pnimmt ARGS` (the prefix
of tests/procs.Proc), so the command line after the prefix is the ordinary one."""

from __future__ import annotations

import atexit
import runpy
import sys

HEAVY = ("aiohttp", "prompt_toolkit", "numpy")
# Loaded only when needed (issue 24): OpenSSL's binding when libsodium refuses a signature, wcwidth when a text is
# measured for a screen, ifaddr when a node lists every interface, zeroconf when it advertises or looks for
# games, the browser front with --web.
LAZY = ("cryptography", "wcwidth", "ifaddr", "zeroconf", "p2pnimmt.app.web", "webbrowser")


def report() -> None:
    loaded = [name for name in HEAVY if name in sys.modules]
    print(f"modules at exit: {', '.join(loaded) or 'none of ' + ', '.join(HEAVY)}", flush=True)
    print(f"lazy modules at exit: {', '.join(name for name in LAZY if name in sys.modules) or 'none'}", flush=True)


if __name__ == "__main__":
    assert sys.argv[2:4] == ["-m", "p2pnimmt"], sys.argv
    sys.argv = ["p2pnimmt", *sys.argv[4:]]
    atexit.register(report)
    runpy.run_module("p2pnimmt", run_name="__main__", alter_sys=True)
