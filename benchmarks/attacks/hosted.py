"""A real headless host on 127.0.0.1 for an attack script (tests/procs.Proc: its output in a file, stopped by its
pid): `with headless_host(tmp, "--seats", "3") as (host, seat_key, port): ...`; the host's answer to a join, and a
stranger's joins with a wrong seat key, from many addresses at once."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from attacker import Attacker
from procs import Proc

from p2pnimmt.protocol.identity import Identity

ROOT = Path(__file__).resolve().parents[2]
THREADS = 4


@contextmanager
def headless_host(tmp: str | Path, *args: str) -> Iterator[tuple[Proc, str, int]]:
    """ann hosting headless on 127.0.0.1 (with `args`), its data in `tmp`: yields the process, the seat key its
    screen shows and the port it listens on; stopped when the block ends."""
    tmp = Path(tmp)
    env = {"PYTHONPATH": str(ROOT), "XDG_DATA_HOME": str(tmp), "XDG_RUNTIME_DIR": str(tmp)}
    host = Proc(["host", "--headless", "--name", "ann", "--interface", "127.0.0.1", "--give-up", "0", *args],
                tmp / "host.log", env=env)
    try:
        found = host.wait_for(r"code: \w{4}-(\w{4})[\s\S]*listening on 127\.0\.0\.1:(\d+)", 60)
        yield host, found.group(1), int(found.group(2))
    finally:
        host.stop()


def answer(link: Attacker) -> tuple[str, object]:
    """The host's answer to a join: ("lobby", the lobby frame) or ("refuse", why)."""
    link.sock.settimeout(20)
    while True:
        kind, payload = link.read_frame()[:2]
        if kind in ("lobby", "refuse"):
            return kind, payload


def wrong_seat_key(port: int, source: str, identity: Identity | None = None) -> str:
    """One join from `source` (as `identity`, a new one unless given) with a proof that holds for no key (random
    bytes: to the host, a guess): `wrong` (the host checked it), `unchecked` (refused without checking), or what
    else the host said."""
    try:
        link = Attacker.dial(port, identity, source=source)
    except (OSError, EOFError, AssertionError) as exc:
        return f"no handshake: {exc}"
    try:
        link.send("join", {"name": "mallory", "role": "spectator", "bot": False, "port": 1,
                           "proof": secrets.token_bytes(32)})
        kind, payload = answer(link)
    except (OSError, EOFError) as exc:
        return f"no answer: {exc}"
    finally:
        link.close()
    if kind == "refuse" and str(payload).startswith("wrong seat key"):
        return "wrong"
    if kind == "refuse" and str(payload).startswith("too many wrong seat keys"):
        return "unchecked"
    return f"{kind}: {str(payload)[:80]}"


def from_every(sources: list[str], each: Callable[[str], None]) -> None:
    """each(source) for every address of `sources`, in THREADS threads at once (each thread a share of them)."""
    def run(part: list[str]) -> None:
        for source in part:
            each(source)
    threads = [threading.Thread(target=run, args=(sources[i::THREADS],)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
