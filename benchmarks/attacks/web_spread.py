"""FINDING (session 35, redteam), fixed in session 35: a stranger with as many addresses as the page's server has places
(web.guard: TOTAL, 256, or a quarter of the process's open-file limit) holds one connection from each and keeps
every new page out: the TV's page, a phone scanning the TV's QR code, a seat's page reloaded.

The guard counts connections by address; with every place taken, a newcomer takes the place of the oldest of the
address holding the most only when that address holds more than the newcomer's would (`len(biggest) <=
len(mine) + 1`: refused). One connection from each of ADDRESSES addresses is thus never shed, and a connection
that asks for a static file (no token needed) before its IDLE seconds are up and again after each answer
(keep-alive) is never closed either: 256 / IDLE requests a second hold them all.

A reproduction: `host --web` on 127.0.0.1 (the page's server, a sealed lobby), the stranger's ADDRESSES
connections (127.6.0.1 on, as many machines of a large LAN), each asking for /static/table.css every 2 s; then,
for SECONDS, the host's own page (with its token) is fetched every half second from 127.0.0.1 (which fetched it
before the attack) and from an address new to the page each time (127.7.0.1 on: a phone's first look). It prints
how many of those fetches got the page and exits 1 if fewer than half of either did.

Before: 300 addresses, the page 0 of 14 fetches from 127.0.0.1 and 0 of 14 from new addresses (each reset); 240
addresses (fewer than the places) kept nothing out. Now an address that showed a page's token is known, and while
addresses that never did hold places a newcomer takes the oldest place of the one of them holding the most: from
a known address whatever that one holds, from a new one when it holds as many as the newcomer's would
(p2pnimmt/web/guard.py, Gate.admit): 19 of 19 and 19 of 19. tests/web/test_front_attacks.py keeps it so. What
stays: someone who has a page's token (the TV's is on the TV) makes its addresses known, and among known addresses
the rule is as before.

    python benchmarks/attacks/web_spread.py [ADDRESSES] [SECONDS]
"""

from __future__ import annotations

import asyncio
import re
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "web")]

from procs import Proc  # noqa: E402
from slowloris import KeptAlive, fetch  # noqa: E402

LO = ["--interface", "127.0.0.1"]


async def run(addresses: int, seconds: float) -> int:
    with TemporaryDirectory() as tmp:
        host = Proc(["host", "--web", "--no-open", "--seats", "3", *LO, "--name", "ann"], Path(tmp) / "host.out",
                    env={"HOME": tmp, "XDG_DATA_HOME": tmp, "XDG_RUNTIME_DIR": tmp})
        holder = None
        try:
            url = host.wait_for(r"web: (http://127\.0\.0\.1:\d+/\?t=\S+)", 60).group(1)
            port = int(re.search(r":(\d+)/", url).group(1))  # type: ignore[union-attr]
            print("before:", await fetch(url))
            holder = KeptAlive(port, [f"127.6.{i // 250}.{1 + i % 250}" for i in range(addresses)])
            holder.start()
            await asyncio.sleep(5)  # every place taken
            results, fresh = [], []
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                results.append(await fetch(url))  # the host's own browser, which had the page before
                fresh.append(await fetch(url, f"127.7.0.{1 + len(fresh)}"))  # a phone's first look at the page
                await asyncio.sleep(0.5)
            got = sum(r.startswith("HTTP/1.1 200") for r in results)
            new = sum(r.startswith("HTTP/1.1 200") for r in fresh)
            print(f"the stranger: {addresses} addresses, {holder.opened} connections opened, {holder.answers} "
                  f"static files answered, {holder.cut} connections cut by the server")
            print(f"the host's page from 127.0.0.1 (which had it before) while it held them: {got} of {len(results)} "
                  f"fetches answered 200; the others: {sorted(set(r for r in results if not r.startswith('HTTP/1.1')))}")
            print(f"from an address new to the page each time (127.7.0.x): {new} of {len(fresh)}; the others: "
                  f"{sorted(set(r for r in fresh if not r.startswith('HTTP/1.1')))}")
        finally:
            if holder is not None:
                await holder.end()
            host.stop()
    kept_out = got < len(results) / 2 or new < len(fresh) / 2
    print(f"\nthe page was kept out: {kept_out}")
    return 1 if kept_out else 0


def main() -> int:
    addresses = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
    return asyncio.run(run(addresses, seconds))


if __name__ == "__main__":
    sys.exit(main())
