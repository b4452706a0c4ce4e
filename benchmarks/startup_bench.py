"""A headless node's start-up: CPU time and memory of the imports `join --headless` runs before it dials, and the
modules it loads. Prints; asserts nothing.

    python benchmarks/startup_bench.py [--runs 5]

Each run is a fresh interpreter that imports what `python -m p2pnimmt join --headless` imports before
dialling (p2pnimmt.cli, then p2pnimmt.app.join, as cli's join handler does) and reports its own CPU time
(user + system) and peak RSS; the best run counts. Printed beside it: the modules loaded, whether aiohttp,
prompt_toolkit or numpy is among them, and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

PROBE = """
import json, resource, sys, time
import p2pnimmt.cli, p2pnimmt.app.join
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"cpu": time.process_time(), "rss": usage.ru_maxrss / 1024, "modules": len(sys.modules),
                  "heavy": [m for m in ("aiohttp", "prompt_toolkit", "numpy") if m in sys.modules]}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    runs = [json.loads(subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True,
                                      timeout=120).stdout) for _ in range(args.runs)]
    best = min(runs, key=lambda r: r["cpu"])
    print(f"join --headless up to dialling: {best['cpu']:.3f} s CPU (best of {args.runs}), "
          f"peak RSS {min(r['rss'] for r in runs):.1f} MB, {best['modules']} modules, "
          f"heavy: {', '.join(best['heavy']) or 'none'}; load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
