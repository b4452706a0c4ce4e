"""From the QR scan to a seat in the lobby (issue 26's target: <= 2 s on the LAN, the bundle cached after the first
load). Prints figures; asserts nothing about time.

    python benchmarks/phone_join_bench.py [--phones 5] [--throttle 1]

A real `p2pnimmt host --web` on 127.0.0.1 (the loopback stands in for the LAN: no radio's latency in the figure) and
Debian's chromium driven by Playwright, each phone a context of 390x844 with touch. A "scan" is the page opened at the
phone link the host prints (the TV's QR code encodes it). Timed, per phone, from that navigation until the seat is in
the lobby on both sides: the host's own output says the phone's name in a 'lobby:' line (the host sees the seat) and
the phone's page shows itself in the lobby, its name among the players (the person sees the seat: the page's own
clock from its navigation's start, performance.now()); the later of the two is the figure. In between: the page's
load (its bundle, its key made in the browser), then the name typed and 'Join' tapped at once (a person's typing is
not counted), then the relay's tunnel and the JOIN through the mesh, and the host's lobby frame back to the page. The first phone loads the bundle cold; every later phone is a new
person on the same browser (the page's storage cleared, so a new key and no remembered name) with the HTTP cache
warm. --throttle slows the page's CPU (the DevTools protocol), as the phone benchmarks do.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from playwright.async_api import async_playwright

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
# In every page: performance.now() when it first shows itself seated in the lobby (its status says so and its name,
# the one typed, is among the players; or, the last seat, the game it started is under way), in
# window.p2pnimmtSeated (null before).
SEATED = """
window.p2pnimmtSeated = null;
new MutationObserver((_, observer) => {
  const status = document.getElementById("status"), players = document.getElementById("players");
  const name = document.getElementById("name")?.value;
  const phase = document.body?.dataset.phase;
  const started = phase !== undefined && phase !== "lobby";
  if (!started) {
    if (!status || !players || !name || !status.textContent.startsWith("in the lobby:")) return;
    if (![...players.children].some((li) => li.textContent === name)) return;
  }
  window.p2pnimmtSeated = performance.now();
  observer.disconnect();
}).observe(document, { childList: true, subtree: true, characterData: true, attributes: true });
"""


class Host:
    """The host's process; each output line kept with the monotonic time it was read."""

    def __init__(self, seats: int, home: Path) -> None:
        env = dict(os.environ, HOME=str(home), P2PNIMMT_PLACE_DELAY="0")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "p2pnimmt", "host", "--web", "--no-open", "--seats", str(seats), "--rounds", "1",
             "--no-points", "--name", "ann", "--interface", "127.0.0.1", "--web-interface", "127.0.0.1",
             "--transcript", str(home / "host.p2pt")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        self.lines: list[tuple[float, str]] = []
        self.changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self.changed:
                self.lines.append((time.monotonic(), line.rstrip("\n")))
                self.changed.notify_all()

    def wait_for(self, pattern: str, seconds: float = 60) -> tuple[float, re.Match[str]]:
        """The time and match of the first line (ever read) matching `pattern`."""
        end = time.monotonic() + seconds
        with self.changed:
            while True:
                for when, line in self.lines:
                    match = re.search(pattern, line)
                    if match:
                        return when, match
                left = end - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise SystemExit(f"the host never said /{pattern}/:\n" + "\n".join(text for _, text in self.lines))
                self.changed.wait(left)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


async def measure(phones: int, throttle: float, home: Path) -> None:
    host = Host(phones + 1, home)  # the host's seat and one per phone: the game starts with the last phone
    try:
        _, found = await asyncio.to_thread(host.wait_for, r"phone: (http://127\.0\.0\.1:\d+/phone\?t=\S+)")
        link = found.group(1)
        async with async_playwright() as pw:
            args = ["--no-sandbox"] if os.geteuid() == 0 else []
            browser = await pw.chromium.launch(executable_path=shutil.which("chromium"), args=args, headless=True)
            context = await browser.new_context(**PHONE)
            await context.add_init_script(SEATED)
            cold: list[float] = []
            warm: list[float] = []
            for n in range(phones):
                page = await context.new_page()
                sent: list = []  # the static files' requests: their bytes sent, or none when the browser's copy is good
                page.on("requestfinished", lambda r, sent=sent: sent.append(r) if "/static/" in r.url else None)
                if throttle != 1:
                    cdp = await context.new_cdp_session(page)
                    await cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
                name = f"phone{n + 1}"
                scanned = time.monotonic()
                await page.goto(link)
                await page.fill("#name", name)
                loaded = time.monotonic()
                await page.tap("#join")
                seen, _ = await asyncio.to_thread(host.wait_for, rf"lobby: \d+/\d+ seats: .*\b{name}\b")
                await page.wait_for_function("() => window.p2pnimmtSeated !== null", timeout=60000)
                shown = await page.evaluate("window.p2pnimmtSeated") / 1000  # from the navigation's start
                sizes = sum([(await r.sizes())["responseBodySize"] for r in sent])
                took = max(seen - scanned, shown)
                (cold if n == 0 else warm).append(took)
                print(f"{name}: {'cold' if n == 0 else 'cached'} bundle, scan to a seat in the lobby: "
                      f"{took * 1000:.0f} ms (the host sees it at {(seen - scanned) * 1000:.0f} ms, the phone shows it "
                      f"at {shown * 1000:.0f} ms; the page ready for a name {(loaded - scanned) * 1000:.0f} ms; "
                      f"{len(sent)} static files, {sizes} bytes of them over the wire)", flush=True)
                if n < phones - 1:  # the next person on this browser: a new key and no remembered name
                    await page.evaluate("""async () => {
                        localStorage.clear(); sessionStorage.clear();
                        for (const db of await indexedDB.databases()) indexedDB.deleteDatabase(db.name);
                    }""")
                    await page.close()  # its seat stays taken: the tunnel's page is gone, not its seat
            await browser.close()
        target = 2.0
        best = min(warm) if warm else cold[0]
        print(f"scan to seat, {phones} phones, CPU throttle {throttle}x, load {os.getloadavg()[0]:.1f}: cold "
              f"{cold[0] * 1000:.0f} ms; cached best {min(warm) * 1000 if warm else float('nan'):.0f} ms, worst "
              f"{max(warm) * 1000 if warm else float('nan'):.0f} ms (target <= {target * 1000:.0f} ms with the bundle "
              f"cached: {'met' if best <= target and all(w <= target for w in warm) else 'NOT met'})", flush=True)
    finally:
        host.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phones", type=int, default=5)
    parser.add_argument("--throttle", type=float, default=1)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="phone-join-bench-"))
    try:
        asyncio.run(measure(args.phones, args.throttle, home))
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
