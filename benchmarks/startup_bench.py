"""A headless node's start-up: CPU time and memory of `join --headless` up to dialling, and the modules it loads.
Prints; asserts nothing.

    python benchmarks/startup_bench.py [--runs 5]

Two measures, each the best of --runs fresh interpreters:

- imports: a process that imports what `python -m p2pnimmt join --headless` imports before dialling
  (p2pnimmt.cli, then p2pnimmt.app.join, as cli's join handler does) reports its own CPU time (user + system)
  and peak RSS, the modules loaded, and whether aiohttp, prompt_toolkit or numpy is among them;
- dialling: the real command, `python -m p2pnimmt join CODE-KEY --headless --peer 127.0.0.1:PORT` (its own
  HOME, everything on 127.0.0.1), dials a listener of this script; when that listener accepts the connection,
  the joiner's CPU time so far (/proc/PID/schedstat) and RSS (VmRSS) are read, and the joiner is ended.

The package's bytecode is compiled first (as pip does when it installs): the source is not compiled again in
every run, whatever PYTHONDONTWRITEBYTECODE says (with it set and no bytecode, each run would compile every
module, about 0.15 s more). The load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import p2pnimmt

PROBE = """
import json, resource, sys, time
import p2pnimmt.cli, p2pnimmt.app.join
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"cpu": time.process_time(), "rss": usage.ru_maxrss / 1024, "modules": len(sys.modules),
                  "heavy": [m for m in ("aiohttp", "prompt_toolkit", "numpy") if m in sys.modules]}))
"""


def dial_once(home: Path) -> tuple[float, float]:
    """(CPU seconds, RSS MB) of a headless joiner when its dial reaches a listener on 127.0.0.1."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(120)
    port = listener.getsockname()[1]
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
           "XDG_CONFIG_HOME": str(home / "config"), "XDG_STATE_HOME": str(home / "state")}
    proc = subprocess.Popen([sys.executable, "-m", "p2pnimmt", "join", "ABCD-WXYZ", "--headless", "--interface",
                             "127.0.0.1", "--peer", f"127.0.0.1:{port}"], env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        conn, _ = listener.accept()
        cpu = int(Path(f"/proc/{proc.pid}/schedstat").read_text().split()[0]) / 1e9
        rss = int(Path(f"/proc/{proc.pid}/status").read_text().split("VmRSS:")[1].split()[0]) / 1024
        conn.close()
    finally:
        proc.kill()
        proc.wait(30)
        listener.close()
    return cpu, rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    compileall.compile_dir(str(Path(p2pnimmt.__file__).parent), quiet=1)
    runs = [json.loads(subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True,
                                      timeout=120).stdout) for _ in range(args.runs)]
    best = min(runs, key=lambda r: r["cpu"])
    print(f"imports of join --headless: {best['cpu']:.3f} s CPU (best of {args.runs}), "
          f"peak RSS {min(r['rss'] for r in runs):.1f} MB, {best['modules']} modules, "
          f"heavy: {', '.join(best['heavy']) or 'none'}; load average {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        dial_once(Path(tmp))  # the first run makes the seat's key: not counted
        dials = [dial_once(Path(tmp)) for _ in range(args.runs)]
    cpu = sorted(c for c, _ in dials)
    print(f"join --headless --peer up to dialling: {cpu[0]:.3f} s CPU (best of {args.runs}; median "
          f"{cpu[len(cpu) // 2]:.3f}), RSS {min(r for _, r in dials):.1f} MB; "
          f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
