"""FINDING (session 29, redteam9), fixed in session 30: a stranger on the LAN could keep `join CODE` from finding a
game, by answering in its host's place on mDNS. A reproduction and a measure: it prints what each `join CODE` said
and exits 1 if any of them found no game.

Anyone can read a game's advertisement off the LAN (its instance name `CODE-HOSTKEY`, its TXT) and advertise under
the same instance name. mDNS cannot tell whose answer is right (its records are unsigned; an answer's cache-flush
bit even evicts the host's), so the joiner's zeroconf kept one TXT and one SRV for the name, often the stranger's,
and `join CODE` found no game with the code (session 29: 2 of 4 tries). Now a look listens to every answer as it
comes (p2pnimmt/net/answers.py: each TXT, each SRV and each address heard for a name named for the code, kept
apart) and `join` dials every reading whose game id holds the code; the handshake proves which is the game
advertised (the salt binds its game id to the key proved), so the real host wins and a copy is refused. A
stranger who floods the LAN with more answers than a look keeps (net.answers.MAX_READINGS a name, MAX_GAMES names)
can still hide the game: the look says so and points to the invite link, which the host's screen shows as a QR
code too (docs/lan-and-browser.md).

Since session 34 a friend types the code with its seat key (`join CODE-KEY`, protocol.md 14); only the game's code
(CODE) is on mDNS, so the stranger copies what it can read and the join looks for CODE as before.

KIND of stranger's answer under the host's name:
  other  a TXT with another game id (not the code's), a port where nothing listens (the finding);
  copy   the host's own TXT (its game id and salt), a port where nothing listens.

    python benchmarks/attacks/mdns_answer_for_host.py [TRIES] [KIND]
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


async def one_try(folder: Path, n: int, kind: str) -> tuple[bool, str]:
    host = started(["host", "--headless", "--seats", "2", *LO, "--rounds", "1", "--no-points", "--name", "ann",
                    "--transcript", str(folder / f"ann{n}.p2pt")], folder / f"ann{n}.out")
    zc = AsyncZeroconf(interfaces=["127.0.0.1"], ip_version=IPVersion.V4Only)
    twin = None
    try:
        typed = wait_for(folder / f"ann{n}.out", r"code: (\w{4}-\w{4})").group(1)  # what a friend types: CODE-KEY
        code = typed[:4]  # the game's code, all the LAN hears (the seat key is never advertised)
        look = open_zeroconf("127.0.0.1")
        try:
            real = next(ad for ad in (await scan(look, 30, code=code, settle=0)).ads if ad.answers(code))
        finally:
            await look.async_close()
        twin = AsyncServiceInfo(service_type(), real.name, addresses=[socket.inet_aton("127.0.0.1")], port=9,
                                properties={"v": "1", "code": code, "host": real.host, "seats": "1/2", "state": "lobby",
                                            **({"gid": "00" * 16, "salt": "00" * 16} if kind == "other" else
                                               {"gid": real.game_id.hex(), "salt": (real.salt or bytes(16)).hex()})},
                                server="stranger.local.")
        await (await zc.async_register_service(twin, cooperating_responders=True))

        joiner = await asyncio.create_subprocess_exec(sys.executable, "-m", "p2pnimmt", "join", typed, "--headless",
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


async def main(tries: int, kind: str) -> int:
    lost = 0
    with TemporaryDirectory() as folder:
        for n in range(tries):
            joined, last = await one_try(Path(folder), n, kind)
            lost += not joined
            print(f"try {n + 1}: {'joined the real game' if joined else 'found no game'}: {last}")
    print(f"{kind}: {lost} of {tries} joins by code were kept from the real game by a stranger's answer under its name")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 6, sys.argv[2] if len(sys.argv) > 2 else "other")))
