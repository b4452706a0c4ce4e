"""A stranger who holds a phone relay's token floods the relay with dials of the game's host, then a new honest
phone page joins through the same relay: run inside the relay node's network namespace (the relay's web server is
on that namespace's 127.0.0.1), by benchmarks/attacks/relay_dial_flood.py and tests/lan/test_relay_dial_flood.py.

    ip netns exec NS python tests/lan/relay_flood.py PHONE_URL SEAT_KEY SECONDS

The stranger (127.0.0.2 in the namespace) opens PER_SOURCE tunnels and on each keeps CHANNELS dials going: it holds
the first few open (each waits at the host's door, sending nothing after the host's hello), and closes each other
one as soon as it opened, dialling again at once. Halfway through, the honest page (127.0.0.3, the right key) joins
through the same relay. It prints one JSON line: the stranger's dials by outcome, and the honest page's answer."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import Counter
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parents[1] / "web")]

from tunnel_page import TunnelPage  # noqa: E402

from p2pnimmt.web.relay import CHANNELS, CLOSE, DIAL, OPENED, PER_SOURCE, header, unbatched  # noqa: E402

HELD = 12  # of each tunnel's dials, kept open (waiting at the host's door)


async def flood_one(page: TunnelPage, seconds: float, counts: Counter) -> None:
    host = json.dumps(page.hello["host"]).encode()
    channels = iter(range(1, 1 << 31))
    open_ones: set[int] = set()
    held: set[int] = set()

    async def dial() -> None:
        channel = next(channels)
        open_ones.add(channel)
        counts["dials"] += 1
        await page.ws.send_bytes(header(DIAL, channel) + host)

    for _ in range(CHANNELS):
        await dial()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            message = await page.ws.receive(timeout=max(0.01, deadline - time.monotonic()))
        except TimeoutError:
            break
        if not isinstance(message.data, bytes):
            break
        for data in unbatched(message.data) or ():
            op, channel, rest = data[0], int.from_bytes(data[1:5], "big"), data[5:]
            if channel not in open_ones:
                continue
            if op == OPENED:
                counts["opened"] += 1
                if len(held) < HELD:
                    held.add(channel)
                else:
                    open_ones.discard(channel)
                    await page.ws.send_bytes(header(CLOSE, channel))
                    await dial()
            elif op == CLOSE:
                open_ones.discard(channel)
                held.discard(channel)
                why = rest.decode(errors="replace")
                counts["refused by the relay" if why.startswith("too many") else
                       "no answer" if why.startswith("cannot connect") else "closed"] += 1
                await dial()


async def honest_join(url: str, key: str, after: float) -> tuple[str, float]:
    """A new phone page (127.0.0.3, the right key) joins through the relay `after` seconds from now: its answer
    ("seated", or what it got) and how long it took."""
    await asyncio.sleep(after)
    honest = await TunnelPage.open(url, "127.0.0.3")
    began = time.monotonic()
    try:
        kind, payload = await asyncio.wait_for(honest.join(key, name="cleo"), 30)
        names = [m.get("name") for m in payload.get("members", [])] if kind == "lobby" else []
        return ("seated" if "cleo" in names else f"{kind}: {payload if kind != 'lobby' else names}",
                round(time.monotonic() - began, 1))
    except TimeoutError:
        return "no answer within 30 s", 30.0
    finally:
        await honest.close()


async def main(url: str, key: str, seconds: float) -> dict:
    """The stranger floods for `seconds`; the honest page joins halfway through, while the flood goes on."""
    counts: Counter = Counter()
    pages = [await TunnelPage.open(url, "127.0.0.2") for _ in range(PER_SOURCE)]
    started = time.monotonic()
    try:
        *_, (answer, after) = await asyncio.gather(*(flood_one(page, seconds, counts) for page in pages),
                                                   honest_join(url, key, seconds / 2))
    finally:
        for page in pages:
            await page.close()
    return {"flood_seconds": round(time.monotonic() - started, 1), "stranger": dict(counts), "honest_page": answer,
            "honest_after": after}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1], sys.argv[2], float(sys.argv[3])))), flush=True)


def scenario(lan, env: dict | None = None, seconds: float = 4.0) -> dict:
    """On a Lan of 2 (tests/lan/conftest.py): the host (ann) in namespace 1; bob, a player with a phone relay
    (`join --web`), in namespace 2, where the stranger floods bob's relay and then the honest page joins
    (`main` above); then dave, a new player from bob's address, joins. What happened, as a dict: `shut_out` (the
    host shut bob's address out), `stranger`, `honest_page`, `dave` (whether he was seated within 20 s)."""
    import re
    import subprocess

    from procs import game_of

    host = lan.start(1, ["host", "--headless", "--seats", "5", "--name", "ann", "--rounds", "1", "--no-points",
                         "--give-up", "0"], "host", env)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    host.wait_for(rf"listening on {re.escape(lan.addr(1))}:\d+")
    bob = lan.start(2, ["join", code, "--web", "--no-open", "--name", "bob", "--give-up", "0"], "bob", env)
    url = bob.wait_for(r"phone: (http://127\.0\.0\.1:\d+/phone\?t=\S+)", timeout=30).group(1)
    bob.wait_for(rf"joined {game_of(code)} at {re.escape(lan.addr(1))}:\d+", timeout=30)
    run = subprocess.run(["ip", "netns", "exec", lan.ns(2), sys.executable, __file__, url, code.split("-")[1],
                          str(seconds)], capture_output=True, text=True, timeout=120, env={**__import__("os").environ,
                                                                                           **(env or {})})
    assert run.returncode == 0, f"the stranger's script failed:\n{run.stdout}\n{run.stderr}"
    found = json.loads(run.stdout.strip().splitlines()[-1])
    dave = lan.start(2, ["join", code, "--headless", "--name", "dave", "--give-up", "30"], "dave", env)
    try:
        dave.wait_for(rf"joined {game_of(code)} at {re.escape(lan.addr(1))}:\d+", timeout=20)
        found["dave"] = "seated"
    except AssertionError as exc:
        found["dave"] = f"not seated within 20 s: {str(exc)[-300:]}"
    shut = re.search(rf"shut out {re.escape(lan.addr(2))} .*", host.text())
    found["shut_out"] = shut.group(0) if shut else ""
    found["host_refused"] = re.findall(rf"refused connections from {re.escape(lan.addr(2))}.*", host.text())[:2]
    return found
