"""A hostile seat floods a phone page's link for 30 s (red team, session 44): the page's heap and CPU, as Chromium's
DevTools protocol counts them (Performance.getMetrics: JSHeapUsedSize, TaskDuration, ScriptDuration, Nodes).

ann hosts a 4-seat game headless (her seat a bot), a TV's node serves the phone page, zoe takes a seat on the page in
headless Chromium, and mallory (a raw-socket player of tests/attacker.py, with the seat key: a friend who misbehaves)
joins, reads zoe's port at her relay off the lobby frame, links to the page there (as any seat does) and sends, for
DURATION seconds, as fast as the link takes them, one KIND of frame:

- `none`: nothing (the page idle in the lobby, linked to mallory);
- `ahead`: `msg` frames of her own, valid-signed, each new, of seqs far ahead (from 10^6 on), about 1 KB each;
- `junk`: `msg` frames whose bytes are no message (random bytes, each new);
- `small`: frames of a kind nobody knows (`["zz", n]`), 8 bytes each, written 256 at a time;
- `faulty`: `msg` frames of her key whose signature is wrong (each a fault the page records);
- `bye`: `["bye", nil]` frames, a kind the page knows, written 256 at a time (since session 45 every frame but a
  `msg` is an ask of its link: protocol.md 14);
- `replay`: one valid-signed `msg` of her own (seq 0, about 1 KB), the same bytes again and again.

The lobby never fills (a fourth seat is free): the flood meets the page before the START, where it waits longest.
It prints, for the page, its heap used at the start and end of the flood and its most, the CPU its main thread spent
(task and script time) over the flood, and the DOM nodes, with what mallory sent and whether her link was cut; no
assert on a figure. A bound that fails shows as a heap that grows with the flood's length.

    python benchmarks/attacks/phone_seat_flood.py [KIND ...] [--seconds N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import sys
import threading
import time
from pathlib import Path
from tempfile import TemporaryDirectory

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "web")]

from attacker import Attacker  # noqa: E402
from procs import Proc, seat_key_of  # noqa: E402
from test_web_phone_presence import seated_phone  # noqa: E402

from p2pnimmt.net.connection import frame  # noqa: E402

LO = ["--interface", "127.0.0.1"]
KINDS = ("none", "ahead", "junk", "small", "faulty", "bye", "replay")


def flood(a: Attacker, kind: str, stop: threading.Event, sent: list[int]) -> None:
    """Send KIND frames on `a` until `stop` or the page hangs up; sent[0]: frames, sent[1]: bytes, sent[2]: 1 if cut."""
    n = 0
    pad = {"pad": b"\x00" * 900}
    same = frame(["msg", a.signed("PLAY_COMMIT", pad, 0)]) * 64
    try:
        while not stop.is_set():
            if kind == "none":
                stop.wait(0.5)
                continue
            if kind == "ahead":
                chunk = frame(["msg", a.signed("PLAY_COMMIT", pad, 10**6 + n)])
                n += 1
            elif kind == "junk":
                chunk = frame(["msg", secrets.token_bytes(200)])
                n += 1
            elif kind == "faulty":
                chunk = frame(["msg", a.forged(a.identity.peer, 10**6 + n, 900)])
                n += 1
            elif kind == "replay":
                chunk = same
                n += 64
            elif kind == "bye":
                chunk = b"".join(frame(["bye", None]) for _ in range(256))
                n += 256
            else:  # small
                chunk = b"".join(frame(["zz", n + i]) for i in range(256))
                n += 256
            a.sock.sendall(chunk)
            sent[0] = n
            sent[1] += len(chunk)
    except OSError:
        sent[2] = 1


async def metrics(cdp) -> dict[str, float]:
    got = await cdp.send("Performance.getMetrics")
    return {m["name"]: m["value"] for m in got["metrics"]}


async def run(kind: str, seconds: float) -> None:
    from playwright.async_api import async_playwright

    with TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        env = {"P2PNIMMT_PLACE_DELAY": "0", "XDG_DATA_HOME": tmp, "XDG_RUNTIME_DIR": tmp}
        host = Proc(["host", "--headless", "--seats", "4", *LO, "--rounds", "1", "--no-points", "--name", "ann",
                     "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out",
                    env={**env, "HOME": str(tmp_path / "ann")})
        tv = None
        stop = threading.Event()
        sent = [0, 0, 0]
        try:
            port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)", 60).group(1)
            code = host.wait_for(r"code: (\w{4}-\w{4})", 60).group(1)
            tv = Proc(["watch", code, *LO, "--peer", f"127.0.0.1:{port}", "--web", "--no-open", "--web-interface",
                       "127.0.0.1", "--transcript", str(tmp_path / "tv.p2pt")], tmp_path / "tv.out",
                      env={**env, "HOME": str(tmp_path / "tv")})
            phone_url = tv.wait_for(r"phone: (http://127\.0\.0\.1:\d+/phone\?t=\S+)", 60).group(1)
            async with async_playwright() as p:
                browser = await p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                                  args=["--disable-background-networking", "--no-first-run"]
                                                  + (["--no-sandbox"] if os.geteuid() == 0 else []))
                phone, _, errors = await seated_phone(browser, phone_url, "zoe")
                mallory = Attacker.dial(int(port))
                mallory.join("player", name="mallory", seat_key=seat_key_of(code))
                zoe = None
                deadline = time.monotonic() + 90
                while zoe is None and time.monotonic() < deadline:  # a lobby frame that lists zoe, with her port
                    lobby = await asyncio.to_thread(mallory.lobby, 30)
                    zoe = next((m for m in lobby.get("members", []) if m.get("name") == "zoe" and m.get("port")), None)
                assert zoe is not None, "zoe never showed in the lobby"
                await phone.wait_for_function(  # (the page admits a link of a member it knows)
                    "() => window.p2pnimmt && window.p2pnimmt.node.members.some((m) => m.name === 'mallory')")
                try:
                    link = await asyncio.to_thread(Attacker.dial, int(zoe["port"]), mallory.identity)
                except EOFError:
                    raise AssertionError(await phone.evaluate("window.p2pnimmt.node.notes")) from None
                cdp = await phone.context.new_cdp_session(phone)
                await cdp.send("Performance.enable")
                await cdp.send("HeapProfiler.collectGarbage")
                before = await metrics(cdp)
                worker = threading.Thread(target=flood, args=(link, kind, stop, sent), daemon=True)
                worker.start()
                peak = before["JSHeapUsedSize"]
                began = time.monotonic()
                while time.monotonic() - began < seconds:
                    await asyncio.sleep(1)
                    peak = max(peak, (await metrics(cdp))["JSHeapUsedSize"])
                stop.set()
                await asyncio.to_thread(worker.join, 10)
                during = await metrics(cdp)
                held = await phone.evaluate("""() => { const n = window.p2pnimmt.node; return {
                    faults: n.seat.faults.length, notes: n.notes.length, links: n.links.size,
                    remembered: [...n.links.values()].reduce((a, l) => a + l.sent.size, 0) }; }""")
                await cdp.send("HeapProfiler.collectGarbage")
                after = await metrics(cdp)
                await browser.close()
        finally:
            stop.set()
            if tv is not None:
                tv.stop()
            host.stop()
    mb = 1 / (1 << 20)
    print(f"{kind:7s} {seconds:.0f} s: mallory sent {sent[0]} frames, {sent[1] * mb:.1f} MB"
          f"{', her link cut' if sent[2] else ''}; the page's heap {before['JSHeapUsedSize'] * mb:.1f} MB before, "
          f"at most {peak * mb:.1f} MB, {after['JSHeapUsedSize'] * mb:.1f} MB after (gc); its main thread "
          f"{during['TaskDuration'] - before['TaskDuration']:.1f} s busy ({during['ScriptDuration'] - before['ScriptDuration']:.1f} s "
          f"script); DOM nodes {before['Nodes']:.0f} -> {after['Nodes']:.0f}; held at the end {held}; page errors "
          f"{errors[:2]}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kinds", nargs="*", help=f"of {', '.join(KINDS)} (all by default)")
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}", flush=True)
    for kind in args.kinds or KINDS:
        if kind not in KINDS:
            parser.error(f"no flood {kind!r}: one of {', '.join(KINDS)}")
        asyncio.run(run(kind, args.seconds))
    print(f"load average {os.getloadavg()[0]:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
