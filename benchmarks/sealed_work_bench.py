"""A sealed deal's curve work per node per round, by what asks for it. Prints; asserts nothing.

    python benchmarks/sealed_work_bench.py [--seats 10] [--rounds 2]

Plays one seeded in-memory sealed game (turn_cpu_bench's: tests/protocol/harness.py, random bots, every peer its
own X25519 work, the batches not shared between peers) and counts, per node per round, the points each X25519 batch
(`sealed_group._apply_all`) and each list of the arrival checks (`sealed_group.twin_keys`, protocol.md 17.1's small-order
twins; `eightfolds` in a tree older than issue 24's eighteenth sitting) takes, by the chain of sealed.py / sealed_deal.py functions that asked (the deal's own shuffle and unlock, the
opening of its hand, every received list's check, the round-end audit), with the CPU each took in this process.
The counts do not depend on the machine's load; the milliseconds do.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "protocol"))

from harness import Net  # noqa: E402

from p2pnimmt.engine import Settings  # noqa: E402
from p2pnimmt.protocol import sealed_group  # noqa: E402

COUNTED = ("sealed.py", "sealed_deal.py")


def asker() -> str:
    """The sealed.py / sealed_deal.py functions on the stack, outermost first (at most three)."""
    frame = sys._getframe(2)
    names: list[str] = []
    while frame is not None and len(names) < 3:
        if frame.f_code.co_filename.endswith(COUNTED):
            names.append(frame.f_code.co_name)
        frame = frame.f_back
    return "/".join(reversed(names)) or "?"


class Counted:
    """Points and CPU seconds per asker of one sealed_group function."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.original: Callable[..., Any] = getattr(sealed_group, name)
        self.points: collections.Counter[str] = collections.Counter()
        self.cpu: collections.Counter[str] = collections.Counter()
        setattr(sealed_group, name, self)

    def __call__(self, *args: Any) -> Any:
        values: Sequence[bytes] = args[-1]
        who = asker()
        self.points[who] += len(values)
        t = time.process_time()
        try:
            return self.original(*args)
        finally:
            self.cpu[who] += time.process_time() - t

    def restore(self) -> None:
        setattr(sealed_group, self.name, self.original)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    sealed_group.layers_memo = False  # each peer its own batches, as separate processes
    x25519 = Counted("_apply_all")
    # the arrival checks' classes: twin keys since the eighteenth sitting of issue 24, eightfolds in older trees
    eightfolds = Counted("twin_keys" if hasattr(sealed_group, "twin_keys") else "eightfolds")
    settings = Settings(players=args.seats, max_rounds=args.rounds, point_limit=None, deal="sealed")
    net = Net(args.seats, settings=settings, bots="random", seed=0, spectators=0, shuffle_delivery=False)
    try:
        net.start()
        net.run()
    finally:
        x25519.restore()
        eightfolds.restore()
        sealed_group.clear_layers_memo()
    per = args.seats * args.rounds
    print(f"sealed deal, {args.seats} seats, {args.rounds} rounds, per node per round; load average "
          f"{os.getloadavg()[0]:.1f}")
    for title, counted in (("X25519 points", x25519), (f"{eightfolds.name} values (17.1)", eightfolds)):
        print(f"  {title}: {sum(counted.points.values()) / per:.0f}, {sum(counted.cpu.values()) / per * 1e3:.1f} ms")
        for who, points in counted.points.most_common():
            print(f"    {points / per:7.1f}  {counted.cpu[who] / per * 1e3:5.2f} ms  {who}")


if __name__ == "__main__":
    main()
