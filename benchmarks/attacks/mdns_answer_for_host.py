"""FINDING (session 29, redteam9), not fixed: a stranger on the LAN can keep `join CODE` from finding a game, by
answering in its host's place on mDNS. A reproduction, not a test: it prints what each `join CODE` said and exits 1
while any of them found no game.

Anyone can read a game's advertisement off the LAN (its instance name `CODE-HOSTKEY`, its TXT) and advertise under
the same instance name: a TXT with another game id, a port where nothing listens. mDNS has no way to tell whose
answer is right (its records are unsigned; an answer's cache-flush bit even evicts the host's): the joiner's
zeroconf keeps one TXT for the name, often the stranger's, and `join CODE` finds no game with the code. The same
for a stranger who streams made-up advertisements named for the code (`CODE-...`, as fast as it likes): a look
takes at most 64 of them (protocol.md 14), and the real one may come after. Since session 29 a look that finds
nothing says so and points to the invite link ("1 advertisement named for game CODE does not hold it: someone on
this network may be answering in its host's place or flooding it; ask the host for its invite link ..."), and a
stream of made-up names that are not named for the code hides nothing (tests/net/test_zeroconf_strangers.py);
the invite link (or --peer) joins, and the handshake proves the host's key. Nobody can take a seat or learn a
name this way: it costs the people the code's convenience, not the game.

Why it matters: the LAN promise says no stranger can lock anyone out. Here one can, out of the code (not out of
the game: the link works).

Candidate fixes: (1) the joiner asks the host's own address (the A record of `p2pnimmt-HOSTKEY.local.`, and
every address that answered for the name) and dials every game id any answer gave, instead of the one TXT its
cache kept: the handshake tells the real one (a copy pointing elsewhere is already refused there); (2) the host's
screen shows the invite link as a QR code beside the code, so joining by the link is no harder than typing the code;
(3) a unicast question (QU) to each address that answered, so each answer is read apart.

    python benchmarks/attacks/mdns_answer_for_host.py [TRIES]
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import socket
import subprocess
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT)]
os.environ["P2PNIMMT_SERVICE"] = f"_pnt-r9{secrets.token_hex(3)}._tcp.local."  # this run's own: no other game seen

from zeroconf import IPVersion  # noqa: E402
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf  # noqa: E402

from p2pnimmt.net.discovery import open_zeroconf, scan, service_type  # noqa: E402

LO = ["--interface", "127.0.0.1"]


def started(args: list[str], out: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "p2pnimmt", *args], stdout=open(out, "wb"),
                            stderr=subprocess.STDOUT, env={**os.environ, "PYTHONPATH": str(ROOT)})


def wait_for(out: Path, pattern: str, timeout: float = 60.0) -> re.Match:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        match = re.search(pattern, out.read_text(errors="replace"))
        if match:
            return match
        time.sleep(0.05)
    raise SystemExit(f"no {pattern!r} in {out}:\n{out.read_text(errors='replace')}")


async def one_try(folder: Path, n: int) -> tuple[bool, str]:
    host = started(["host", "--headless", "--seats", "2", *LO, "--rounds", "1", "--no-points", "--name", "ann",
                    "--transcript", str(folder / f"ann{n}.p2pt")], folder / f"ann{n}.out")
    zc = AsyncZeroconf(interfaces=["127.0.0.1"], ip_version=IPVersion.V4Only)
    twin = None
    try:
        code = wait_for(folder / f"ann{n}.out", r"code: (\w{4})").group(1)
        look = open_zeroconf("127.0.0.1")
        try:
            real = next(ad for ad in (await scan(look, 30, code=code, settle=0)).ads if ad.answers(code))
        finally:
            await look.async_close()
        twin = AsyncServiceInfo(service_type(), real.name, addresses=[socket.inet_aton("127.0.0.1")], port=9,
                                properties={"v": "1", "code": code, "gid": "00" * 16, "host": real.host,
                                            "seats": "1/2", "state": "lobby", "salt": "00" * 16},
                                server="stranger.local.")
        await (await zc.async_register_service(twin, cooperating_responders=True))

        joiner = await asyncio.create_subprocess_exec(sys.executable, "-m", "p2pnimmt", "join", code, "--headless",
                                                      *LO, "--name", "bob", stdout=asyncio.subprocess.PIPE,
                                                      stderr=asyncio.subprocess.STDOUT)
        said = (await asyncio.wait_for(joiner.communicate(), 120))[0].decode(errors="replace")
        return joiner.returncode == 0, said.strip().splitlines()[-1] if said.strip() else "(nothing)"
    finally:
        if twin is not None:
            await (await zc.async_unregister_service(twin))
        await zc.async_close()
        if host.poll() is None:
            host.kill()  # by pid
        host.wait()


async def main(tries: int) -> int:
    lost = 0
    with TemporaryDirectory() as folder:
        for n in range(tries):
            joined, last = await one_try(Path(folder), n)
            lost += not joined
            print(f"try {n + 1}: {'joined the real game' if joined else 'found no game'}: {last}")
    print(f"{lost} of {tries} joins by code were kept from the real game by a stranger's answer under its name")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 6)))
