"""PROBE (session 35, redteam), HELD, then BOUNDED (below): a stranger without the seat key or any token floods a phone page's port with
handshakes that make the page sign.

A phone page is a peer whose port is at its relay node (web.relay: every connection dialled there is piped over
the page's one WebSocket, and the page runs the handshake in its own JavaScript). The page lets a dialer whose
hello names a member's key on to its signature (`admit`, web/peer/src/page_node.ts), and the host's key is in the
host's own hello, said first to anyone who dials the game's port. The page's port is found by a scan of the relay's
address (each page's port speaks a p2pnimmt hello first); here it is read off the relay process's listening
sockets. The relay's page port has no door of its own but INBOUND (connections at once): a stranger who dials it
again and again, each time naming the host's key and answering the page's signature with a wrong one, costs the
page one Ed25519 signature and one verification in JavaScript per connection (some 2.4 ms on the reference
machine, several times that on a phone), in the one thread where its game runs.

It runs a 1-round sealed game: the host's seat on its laptop page and a phone page (zoe), both in headless
Chromium, a bot; with KIND `none`, or `hello` (THREADS stranger threads at nice 19 from 127.0.0.20 on). It prints
the connections the stranger made, how long the phone's game took and whether the phone played its 10 cards
itself, and exits 1 if the phone lost its seat or its moves (dropped, or a stand-in played for it), 0 otherwise.

What it found (one run each, the stranger at nice 0 on the same two cores, the phone page's CPU throttled 6x as
Chrome's DevTools do for a low-end phone, P2PNIMMT_PHONE_SLOWER=6): none, the phone's game 9.6 s; `hello` from 8
threads, 499 handshakes signed by the page in 14.5 s, the phone's game 14.5 s, its 10 cards its own, 0 faults;
unthrottled (P2PNIMMT_PHONE_SLOWER=1): 871 handshakes, 3.1 s against 2.1 s. The page takes them as fast as it
can, the relay's INBOUND cuts the rest, and the game's own frames still come between them: slower, not lost.
What stays: each such connection costs the page a signature and a verification, so a slower phone or a stranger
with more cores makes its game slower still; a bound on handshakes per address at the relay's page port (as the
node's door counts connections) would lift it. BOUNDED since (session 35, web.dialbound Knocks): from an address
where no player of the game is, a burst of 8 connections then 1 a second reach the page (32 then 4 a second from all
such), the rest closed before the page hears of them; the same run (throttled 6x, 8 threads): 74 handshakes signed,
3,149 dials closed at the relay, the phone's game 11.2 s, its 10 cards its own, 0 faults.

    python benchmarks/attacks/phone_port_flood.py [KIND] [THREADS]
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from tempfile import TemporaryDirectory

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "web")]

from pages import play_by_clicks  # noqa: E402
from procs import Proc  # noqa: E402
from test_web_phone_peer import PHONE, play_phone  # noqa: E402

from p2pnimmt.net.connection import HELLO, frame  # noqa: E402
from p2pnimmt.protocol.codec import decode  # noqa: E402
from p2pnimmt.protocol.identity import Identity  # noqa: E402

NICE = int(os.environ.get("P2PNIMMT_FLOOD_NICE", "19"))
SLOWER = float(os.environ.get("P2PNIMMT_PHONE_SLOWER", "6"))  # the phone page's CPU, this many times slower
LO = ["--interface", "127.0.0.1"]
WHY: list[str] = []  # why the stranger's first failed dials failed


def read_frame(sock: socket.socket) -> object:
    def exactly(n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return data
    return decode(exactly(int.from_bytes(exactly(4), "big")), 1 << 20)


def key_at(port: int) -> bytes:
    """The key a port's hello names: the host's at the game's port (said to anyone who dials it)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        hello = read_frame(sock)
    assert isinstance(hello, list) and hello[0] == HELLO
    return hello[3]


def listening_ports(pid: int) -> set[int]:
    out = subprocess.run(["ss", "-ltnpH"], capture_output=True, text=True).stdout
    return {int(line.split()[3].rsplit(":", 1)[1]) for line in out.splitlines() if f"pid={pid}," in line}


def flood(port: int, key: bytes, source: str, stop: threading.Event, made: list[int]) -> None:
    """Dial the page's port again and again: read its hello, name the host's key, take its signature, answer
    with a wrong one (well formed: a signature of other bytes by another key), hang up."""
    os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICE)
    other = Identity.generate()
    wrong = other.sign(b"not this handshake")
    while not stop.is_set():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0)) as sock:
                hello = read_frame(sock)
                assert isinstance(hello, list)
                sock.sendall(frame([HELLO, 1, hello[2], key, os.urandom(16)]))
                read_frame(sock)  # the page's auth: its signature, made for us
                sock.sendall(frame(["auth", wrong]))
                made[0] += 1
        except (OSError, EOFError, AssertionError) as exc:
            made[1] += 1
            if len(WHY) < 3:
                WHY.append(repr(exc))
            time.sleep(0.01)


async def game(kind: str, threads: int) -> int:
    from playwright.async_api import async_playwright

    with TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        host = Proc(["host", "--web", "--no-open", "--seats", "3", "--bots", "1", *LO, "--rounds", "1",
                     "--no-points", "--name", "ann", "--transcript", str(tmp_path / "host.p2pt")],
                    tmp_path / "host.out", env={"P2PNIMMT_PLACE_DELAY": "0", "HOME": str(tmp_path),
                                                "XDG_DATA_HOME": tmp, "XDG_RUNTIME_DIR": tmp})
        stop = threading.Event()
        made = [0, 0]
        workers: list[threading.Thread] = []
        try:
            url = host.wait_for(r"web: (http://127\.0\.0\.1:\d+/\?t=\S+)", 60).group(1)
            phone_url = host.wait_for(r"phone: (http://127\.0\.0\.1:\d+/phone\?t=\S+)", 60).group(1)
            game_port = int(host.wait_for(r"listening on 127\.0\.0\.1:(\d+)", 60).group(1))
            web_port = int(re.search(r":(\d+)/", url).group(1))  # type: ignore[union-attr]
            async with async_playwright() as p:
                browser = await p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                                  args=["--disable-background-networking", "--no-first-run"]
                                                  + (["--no-sandbox"] if os.geteuid() == 0 else []))
                laptop = await browser.new_page(viewport={"width": 1280, "height": 800})
                laptop.set_default_timeout(300_000)
                await laptop.goto(url)
                phone = await (await browser.new_context(**PHONE)).new_page()
                phone.set_default_timeout(300_000)
                if SLOWER > 1:  # a phone's CPU (Chrome's DevTools: 4x for a mid-tier phone, 6x for a low-end one)
                    cdp = await phone.context.new_cdp_session(phone)
                    await cdp.send("Emulation.setCPUThrottlingRate", {"rate": SLOWER})
                errors: list[str] = []
                phone.on("pageerror", lambda exc: errors.append(str(exc)))
                await phone.goto(phone_url)
                await phone.fill("#name", "zoe")
                await phone.tap("#join")
                await phone.wait_for_selector("#hand .card")
                mine = bytes(await phone.evaluate("Array.from(window.p2pnimmt.identity.publicKey)"))
                ports = [port for port in listening_ports(host.popen.pid) - {game_port, web_port}
                         if key_at(port) == mine]
                print(f"the page's port (read off the relay's sockets, as a scan finds it): {ports}")
                if kind != "none":
                    key = key_at(game_port)
                    for n in range(threads):
                        for page_port in ports:
                            worker = threading.Thread(target=flood, args=(page_port, key, f"127.0.0.{20 + n}",
                                                                          stop, made), daemon=True)
                            worker.start()
                            workers.append(worker)
                began = time.monotonic()
                phone_turns, _ = await asyncio.gather(play_phone(phone), play_by_clicks(laptop, rows_taken=[],
                                                                                         turns=[], keys=True))
                took = time.monotonic() - began
                verdict = await phone.inner_text("#verdict-text")
                await browser.close()
        finally:
            stop.set()
            for worker in workers:
                worker.join(10)
            host.stop()
        text = host.text()
    lost = phone_turns < 10 or "dropped" in text or "stand-in" in text
    print(f"stranger: {kind}, {threads} thread(s): {made[0]} handshakes the page signed, {made[1]} failed dials")
    print(f"the phone's game took {took:.1f} s; it played {phone_turns} of 10 cards itself; its verdict: "
          f"{verdict.strip()[:200]}")
    print(f"page errors: {errors[:3]}; the stranger's failed dials: {WHY}")
    for line in text.splitlines():
        if re.search(r"dropped|stand-in|vote", line):
            print("host: " + line)
    print(f"\nthe phone lost its seat or its moves: {lost}")
    return 1 if lost else 0


def main() -> int:
    kind = sys.argv[1] if len(sys.argv) > 1 else "hello"
    threads = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    return asyncio.run(game(kind, threads))


if __name__ == "__main__":
    sys.exit(main())
