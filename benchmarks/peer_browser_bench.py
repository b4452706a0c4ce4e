"""The TypeScript peer in Chromium with 4x CPU throttling (a mid-range phone, via the DevTools protocol). Prints.

    python benchmarks/peer_browser_bench.py [--seats 10] [--throttle 4] [--repeat 3] [--game open --game sealed] [--bundle F]
    python benchmarks/peer_browser_bench.py --phone open --phone sealed --throttle 1 [--profile DIR --unminified] [--details]

Debian's chromium driven by Playwright (docs: /work/shared/design/testing.md), headless, the shipped bundle
p2pnimmt/web/static/peer.js served on 127.0.0.1 and imported by a page; CDP's Emulation.setCPUThrottlingRate
slows the page's CPU. In the page, with the bundle's own portable code (@noble/curves), best of --repeat:
- a sealed deal at SEATS seats as one seat computes it (issue 25's target <= 1.5 s): its key pair, its shuffle
  step of the deck (17.4), the check on arrival of the other seats' shuffles (N valid, distinct points: run on its
  own deck SEATS - 1 times), its unlock of every dealt position but its hand (17.5), and opening its hand; not
  counted: the others' unlocks' checks and opening the public positions (fewer points), the round-end audit;
- a turn at SEATS seats as one seat computes it (target <= 100 ms): signing its PLAY_COMMIT and PLAY_REVEAL and
  opening (checking the signature of) the other seats' two messages each;
- the seat key's K (protocol.md 14: one scrypt of N 2^15, r 8; the phone page draws it once a game, in its worker);
- with --game DEAL (open, sealed; repeatable), a whole one-round game of SEATS nodes in the page, each a Seat of the
  bundle (its session, transcript, signatures and checks: what the phone page's node runs; the screen and the
  WebSocket not counted), linked in memory as web/peer/test/bench.ts links them, each playing its lowest card: each
  node's calls timed (performance.now, the page throttled), split by the node's phase when the call began. A turn:
  the busiest node's time in the calls begun in turns over the 10 turns (issue 26's "a turn on the phone", target
  <= 100 ms), and the mean; the deal (before the first turn: for a sealed deal its key pair, shuffle, the checks of
  every other shuffle and unlock, its own unlock, opening its hand; target <= 1.5 s) and the round end (a sealed
  deal's audit of every other seat's steps) as the busiest node spent them;
- with --phone DEAL (open, sealed; repeatable), the phone page itself in a real game of SEATS seats on 127.0.0.1: a
  headless `p2pnimmt host` whose own seat and SEATS - 2 added bots (--bot random) are Python nodes, a `watch --web`
  node serving the phone page and relaying its bytes (as tests/web/test_web_phone_table.py), and one phone page
  (static/phone.js over peer.js: its screen, its tunnel, its links, IndexedDB, everything the phone runs); the page
  plays its lowest card and the first row as soon as asked (a MutationObserver on the page's own data-wanted, no
  polling). Read when the page first asks a card, when its round's turns are over and at the game's end: the
  renderer processes' CPU time (CDP SystemInfo.getProcessInfo), their main threads' (/proc), the page's main-thread
  task time (CDP Performance.getMetrics TaskDuration); a turn = the turns' figure / 10. Use --throttle 1 for CPU:
  a throttled renderer spins while it is held back (its CPU grows with the wall time, idle or not), so its CPU time
  is printed only unthrottled, with the figure times --times (4: what a CPU 4 times slower spends, the target's
  phone); throttled, the task time is printed (stretched by the machine's load as well). "The deal" is the page's way
  in: from the tap on join to the first card it asks (its key, its tunnel, the seat key's K, the lobby, the START,
  the deal), with its wall time and its workers' CPU (K's scrypt, in the page's worker, which CDP's throttling does
  not hold back). --profile DIR profiles and traces the way in (CDP Profiler and Tracing) and prints it by step (the
  page's data-phase marks: the tap, the lobby, the START, the deal, the first card asked), each step's wall and
  main-thread busy time and its heaviest functions by self time; then writes the
  turns' CPU profile (CDP Profiler) there and prints its heaviest functions by self time, and their sampled
  allocations (CDP HeapProfiler, garbage included: what keeps V8's collector busy) by the function that allocated; with `--unminified` (both
  bundles built without minifying into a scratch copy of the package) the names read. --details prints, a turn,
  the renderers' CPU by thread (/proc: the main thread, V8's workers "ThreadPoolForeg", the compositor, IO) and
  the page's main-thread figures of CDP Performance.getMetrics (style recalcs, layouts, script and task time, DOM
  nodes and listeners made); --tasks traces the turns and prints the page's main-thread tasks a turn by where the
  browser posted them from (a message of the WebSocket or of IndexedDB, a timer, a frame), and its frames.
  Old against new: run the script from this tree with PYTHONPATH at the other tree (the bundles it serves).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

from playwright.async_api import async_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "web"))
from tunnel_count import COUNT_TUNNEL  # noqa: E402  (a test helper, kept out of p2pnimmt)

STATIC = Path(__file__).resolve().parent.parent / "p2pnimmt" / "web" / "static"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
# The phone page's player: its lowest card or the first row whenever asked (the page's own data-wanted changes), and
# a mark when it first asks a card, when the round's turns are over, at the end.
AUTOPLAY = """
(() => {
  let step = "", marked = "";
  window.__marks = {};  // performance.now() at each mark, and at the tap ("j", set by the script)
  const mark = (what) => {
    if (!marked.includes(what)) { marked += what; window.__marks[what] = performance.now(); window.benchMark(what); }
  };
  const look = () => {
    const d = document.body.dataset;
    if (d.phase === "over" || d.phase === "aborted") { if (marked.includes("t")) mark("e"); mark("o"); return; }
    if (marked.includes("t") && d.phase !== "turn") mark("e");
    if (d.step === step || !["card", "row"].includes(d.wanted)) return;
    step = d.step;
    if (d.wanted === "card") { mark("t"); document.querySelector("#hand .card:enabled")?.click(); }
    else document.querySelector("#rows .take")?.click();
  };
  document.addEventListener("DOMContentLoaded", () => new MutationObserver(look).observe(document.body, { attributes: true }));
})();
"""

# With --profile: a performance.mark at each step of the page's way in (a trace's blink.user_timing events): its
# phase (data-phase: lobby, starting, deal, turn) as it changes, and "seated" when the lobby's list first names it.
WAY_IN = """
(() => {
  let phase = "", seated = false;
  const look = () => {
    const d = document.body.dataset;
    if (d.phase && d.phase !== phase) { phase = d.phase; performance.mark(`way-in ${phase}`); }
    if (!seated && [...document.querySelectorAll("#players li")].some((li) => li.textContent === "phone")) {
      seated = true;
      performance.mark("way-in seated");
    }
  };
  document.addEventListener("DOMContentLoaded", () => new MutationObserver(look).observe(document.body, {
    attributes: true, childList: true, subtree: true }));
})();
"""

# The way in's steps, in their order (WAY_IN's marks), each named by what its time went to.
WAY_IN_STEPS = (("tap", "the tap to the lobby's first render (the key, the tunnel, the relay's hello)"),
                ("lobby", "the lobby's first render to the page seated in it (K, the host's link, join)"),
                ("seated", "seated to the START (the other seats' joins)"),
                ("starting", "the START to the deal (START_ACKs, the mesh's links)"),
                ("deal", "the deal to the first card asked"))

PAGE = """<!doctype html><meta charset="utf-8"><script type="module">
import * as p from "/peer.js";
const rand = (n) => crypto.getRandomValues(new Uint8Array(n));
window.deal = (seats) => {
  const t = performance.now();
  const cards = p.cards.deck("standard", seats);
  const pair = p.sealedGroup.drawKeyPair(() => rand(32));
  const deck = p.sealedGroup.shuffleStep(cards.map(p.sealedGroup.encodingOf), pair.e, rand(32));
  for (let i = 1; i < seats; i++) {  // the check on arrival of every other seat's shuffle (17.8), here on ours
    if (p.sealedDeal.shuffleProblem(deck, cards.length)) throw new Error("not a shuffle");
  }
  const dealt = deck.slice(0, p.sealedDeal.dealtCount(seats));
  const values = p.sealedDeal.unlockValues(dealt, 0, seats, pair.d);
  const hand = p.sealedDeal.handPositions(0).map((q) => p.sealedGroup.X(pair.d, dealt[q]));
  if (values.length + hand.length !== dealt.length) throw new Error("not a whole deal");
  return performance.now() - t;
};
window.turn = (seats) => {
  const ids = Array.from({length: seats}, () => new p.identity.Identity(rand(32)));
  const game = rand(16);
  const wires = [];
  for (const [i, id] of ids.entries()) {
    const commit = p.envelope.seal(id, game, 5, rand(32), "PLAY_COMMIT", new Map([["round", 0], ["turn", 0], ["commit", rand(32)], ["state", rand(32)]]));
    const reveal = p.envelope.seal(id, game, 6, commit.hash, "PLAY_REVEAL", new Map([["round", 0], ["turn", 0], ["card", i + 1], ["nonce", rand(32)], ["commits", rand(32)]]));
    wires.push([commit.wire, id.publicKey], [reveal.wire, id.publicKey]);
  }
  const t = performance.now();
  const me = ids[0];
  p.envelope.seal(me, game, 5, rand(32), "PLAY_COMMIT", new Map([["round", 0], ["turn", 0], ["commit", rand(32)], ["state", rand(32)]]));
  p.envelope.seal(me, game, 6, rand(32), "PLAY_REVEAL", new Map([["round", 0], ["turn", 0], ["card", 1], ["nonce", rand(32)], ["commits", rand(32)]]));
  for (const [wire, key] of wires.slice(2)) {
    if (!p.envelope.signedBy(p.envelope.open(wire), key)) throw new Error("a signature does not verify");
  }
  return performance.now() - t;
};
window.secret = () => {  // the seat key's K (protocol.md 14): one scrypt of N 2^15, as the phone page's worker draws it
  const password = rand(20);
  const t = performance.now();
  if (p.seatKey.drawSecret(password).length !== 32) throw new Error("no K");
  return performance.now() - t;
};
window.game = (seats, deal) => {
  const { cmp, commitStep } = p.steps;
  class Bot extends p.seat.Seat {
    played = new Set();
    due() {  // as web/peer/test/bench.ts's BotSeat: its lowest card, row 0
      const seat = this.seat;
      const at = this.waitsOn();
      if (seat === null || this.phase !== "turn" || !at || !this.missing(at).includes(seat)) return null;
      if (cmp(at, [this.round, commitStep(this.turn), 0]) === 0) {
        const open = this.hands[seat];
        const cards = open ? [...open] : [...(this.hiddenHand(seat)?.keys() ?? [])].filter((c) => !this.played.has(`${this.round}|${c}`));
        return { card: Math.min(...cards) };
      }
      if (cmp(at, [this.round, commitStep(this.turn) + 2, 0]) === 0) return { row: 0 };
      return null;
    }
  }
  const ids = Array.from({length: seats}, () => new p.identity.Identity(rand(32)));
  const nodes = ids.map((id) => new Bot(id, (n) => rand(n)));
  const spent = nodes.map(() => ({ deal: 0, turn: 0, end: 0 }));
  const timed = (i, action) => {
    const phase = nodes[i].phase;
    const t = performance.now();
    const out = action();
    const ms = performance.now() - t;
    const s = spent[i];
    if (phase === "turn") s.turn += ms; else if (phase === "lobby" || phase === "starting" || phase === "deal") s.deal += ms; else s.end += ms;
    return out;
  };
  const same = (a, b) => a.length === b.length && a.every((x, k) => x === b[k]);
  const queue = [];
  const route = (from, out) => { for (const o of out) queue.push([from, o]); };
  const roster = ids.map((id, i) => ({ key: id.publicKey, name: `p${i}`, bot: true }));
  const settings = { variant: "standard", deal, pointLimit: null, maxRounds: 1, clock: null };
  route(0, timed(0, () => nodes[0].hostGame(rand(16), settings, roster)));
  for (let quiet = false; !quiet;) {
    while (queue.length) {
      const [from, o] = queue.shift();
      nodes.forEach((node, i) => {
        if (i === from || o.watchersOnly) return;
        if (o.to !== null && !same(o.to, ids[i].peer)) return;
        if (o.skip.some((s) => same(s, ids[i].peer))) return;
        route(i, timed(i, () => node.deliver(o.wire, ids[from].peer)));
      });
    }
    quiet = true;
    nodes.forEach((node, i) => {
      const move = node.due();
      if (!move) return;
      quiet = false;
      if ("card" in move) node.played.add(`${node.round}|${move.card}`);
      route(i, timed(i, () => ("card" in move ? node.play(move.card) : node.chooseRow(move.row))));
    });
  }
  if (!nodes.every((n) => n.phase === "over")) throw new Error("the game did not end");
  const most = (k) => Math.max(...spent.map((s) => s[k]));
  return { turn: most("turn") / 10, turnMean: spent.reduce((a, s) => a + s.turn, 0) / seats / 10, deal: most("deal"), end: most("end") };
};
// the twin keys' WebAssembly compiled asynchronously, as the phone page does (a bundle since session 40; older ones
// have BigInt's twin keys and no loadField)
await p.sealedGroup.loadField?.();
window.ready = true;
</script>"""


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


async def measure(seats: int, throttle: float, repeat: int, port: int, games: list[str]) -> None:
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
        page = await browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        await page.goto(f"http://127.0.0.1:{port}/bench.html")
        await page.wait_for_function("window.ready === true || false", timeout=60_000)
        cdp = await page.context.new_cdp_session(page)
        await cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
        for name, target in (("deal", 1500), ("turn", 100)):
            times = [await page.evaluate(f"window.{name}({seats})") for _ in range(repeat)]
            print(f"{name} at {seats} seats, CPU throttled {throttle}x: best {min(times):.0f} ms, worst "
                  f"{max(times):.0f} ms (target <= {target} ms: {'met' if min(times) <= target else 'NOT met'})",
                  flush=True)
        times = [await page.evaluate("window.secret()") for _ in range(repeat)]
        print(f"the seat key's K (one scrypt of N 2^15, r 8: a phone page's once a game), CPU throttled {throttle}x: best "
              f"{min(times):.0f} ms, worst {max(times):.0f} ms", flush=True)
        for deal in games:
            for _ in range(repeat):
                r = await page.evaluate(f"window.game({seats}, {deal!r})")
                print(f"a {deal} game at {seats} seats in the page, CPU throttled {throttle}x: a turn {r['turn']:.0f} ms "
                      f"(the busiest node; mean {r['turnMean']:.0f}; target <= 100 ms: "
                      f"{'met' if r['turn'] <= 100 else 'NOT met'}), the deal {r['deal']:.0f} ms, the round end "
                      f"{r['end']:.0f} ms; load average {os.getloadavg()[0]:.1f}", flush=True)
        assert not errors, errors
        await browser.close()


class Proc:
    """A p2pnimmt process; its output lines kept."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path) -> None:
        # cwd: not this tree's root, whose p2pnimmt `-m` would import ahead of $PYTHONPATH's
        self.proc = subprocess.Popen([sys.executable, "-m", "p2pnimmt", *args], stdin=subprocess.DEVNULL, cwd=cwd,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        self.lines: list[str] = []
        self.changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self.changed:
                self.lines.append(line.rstrip("\n"))
                self.changed.notify_all()

    def wait_for(self, pattern: str, seconds: float = 120) -> re.Match[str]:
        end = time.monotonic() + seconds
        with self.changed:
            while True:
                for line in self.lines:
                    if found := re.search(pattern, line):
                        return found
                left = end - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise SystemExit(f"never said /{pattern}/:\n" + "\n".join(self.lines[-40:]))
                self.changed.wait(left)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def allocators(profile: dict, top: int = 15) -> tuple[float, list[tuple[float, str]]]:
    """A sampling heap profile's bytes in all, and its functions by bytes they allocated themselves, most first."""
    sizes: dict[str, float] = defaultdict(float)

    def walk(node: dict) -> None:
        frame = node["callFrame"]
        name = f"{frame['functionName'] or '(anonymous)'} {frame['url'].rsplit('/', 1)[-1]}:{frame['lineNumber'] + 1}"
        sizes[name] += node["selfSize"]
        for child in node.get("children", []):
            walk(child)

    walk(profile["head"])
    return sum(sizes.values()), sorted(((v, k) for k, v in sizes.items()), reverse=True)[:top]


def heaviest(profile: dict, top: int = 25, start: float = float("-inf"), end: float = float("inf")
             ) -> list[tuple[float, str]]:
    """A CPU profile's functions by self time (ms), heaviest first; its samples between `start` and `end` only (the
    profile's clock, microseconds: a trace's)."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    spent: dict[str, float] = defaultdict(float)
    times = profile.get("timeDeltas", [])
    at = profile.get("startTime", 0)
    for sample, before, delta in zip(profile.get("samples", []), times, times[1:] + [0]):
        at += before
        if not start <= at < end:
            continue
        frame = nodes[sample]["callFrame"]
        spent[f"{frame['functionName'] or '(anonymous)'} {Path(frame['url']).name}:{frame['lineNumber'] + 1}"] += delta / 1000
    return sorted(((ms, name) for name, ms in spent.items()), reverse=True)[:top]


def way_in(profile: dict, events: list[dict]) -> list[str]:
    """The page's way in (a CPU profile and a trace of it, from the tap to its first turn) by step (WAY_IN's marks):
    each step's wall time, its main thread's busy time (the trace's top-level events of CrRendererMain, clipped)
    and its heaviest functions by self time; then the whole way in's heaviest functions."""
    marks: dict[str, float] = {}
    for e in events:
        if e.get("cat", "").find("blink.user_timing") >= 0 and str(e.get("name", "")).startswith("way-in "):
            marks.setdefault(e["name"][len("way-in "):], e["ts"])
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    main = {k for k, v in names.items() if v == "CrRendererMain"}
    # the main thread's busy time: the union of its top-level events (its tasks, and the microtask checkpoints and
    # mojo messages the trace shows beside them: a scheduler.yield's continuation runs in a checkpoint)
    tasks: list[tuple[float, float]] = []
    for a, b in sorted((e["ts"], e["ts"] + e.get("dur", 0)) for e in events
                       if (e.get("pid"), e.get("tid")) in main and e.get("ph") == "X"):
        if tasks and a <= tasks[-1][1]:
            tasks[-1] = (tasks[-1][0], max(tasks[-1][1], b))
        else:
            tasks.append((a, b))
    order = [step for step, _ in WAY_IN_STEPS if step in marks] + (["turn"] if "turn" in marks else [])
    lines = []
    for (step, what), end_step in zip([(s, w) for s, w in WAY_IN_STEPS if s in order], order[1:]):
        start, end = marks[step], marks[end_step]
        busy = sum(max(0.0, min(b, end) - max(a, start)) for a, b in tasks) / 1000
        top = heaviest(profile, 5, start, end)
        lines.append(f"  {step} -> {end_step}: {(end - start) / 1000:.0f} ms wall, {busy:.0f} ms main thread busy ({what})")
        lines += [f"    {ms:8.1f} ms  {name}" for ms, name in top]
    if "tap" in marks and "turn" in marks:
        busy = sum(max(0.0, min(b, marks["turn"]) - max(a, marks["tap"])) for a, b in tasks) / 1000
        lines.append(f"  the way in, tap -> first card asked: {(marks['turn'] - marks['tap']) / 1000:.0f} ms wall, "
                     f"{busy:.0f} ms main thread busy; its heaviest functions by self time:")
        lines += [f"    {ms:8.1f} ms  {name}" for ms, name in heaviest(profile, 25, marks["tap"], marks["turn"])]
    return lines


# The page's main-thread figures of CDP Performance.getMetrics that --details prints a turn of (counts; durations in ms).
DETAIL = ("LayoutCount", "RecalcStyleCount", "LayoutDuration", "RecalcStyleDuration", "ScriptDuration", "TaskDuration",
          "TaskOtherDuration", "JSEventListeners", "Nodes", "LayoutObjects")


def tasks_a_turn(events: list[dict]) -> list[str]:
    """A trace's (CDP Tracing, 10 turns) tasks of the page's main thread a turn, by where each was posted from (its
    count, its wall time in ms), and its timeline events a turn (frames: FireAnimationFrame, Commit; style: UpdateLayoutTree)."""
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    main = {k for k, v in names.items() if v == "CrRendererMain"}
    posted: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    timeline: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    for e in events:
        if (e.get("pid"), e.get("tid")) not in main or e.get("ph") != "X":
            continue
        table = posted if e.get("name") == "ThreadControllerImpl::RunTask" else timeline
        key = str(e.get("args", {}).get("src_func") or "?") if table is posted else e["name"]
        table[key][0] += 1
        table[key][1] += e.get("dur", 0) / 1000
    lines = [f"  tasks a turn: {sum(n for n, _ in posted.values()) / 10:.1f} ({sum(ms for _, ms in posted.values()) / 10:.1f} ms)"]
    lines += [f"    {n / 10:5.1f} {ms / 10:6.2f} ms  {k}" for k, (n, ms) in sorted(posted.items(), key=lambda i: -i[1][0])[:10]]
    lines += [f"  {k} a turn: {timeline[k][0] / 10:.1f} ({timeline[k][1] / 10:.2f} ms)"
              for k in ("FireAnimationFrame", "TimerFire", "Commit", "UpdateLayoutTree", "Layout", "Paint")]
    return lines


def threads(pid: int) -> dict[str, float]:
    """A process's CPU (ms, user + system) by thread name (/proc: 10 ms ticks)."""
    spent: dict[str, float] = defaultdict(float)
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            name, fields = (task / "stat").read_text().split("(", 1)[1].rsplit(")", 1)
            ticks = fields.split()
            spent[name] += (int(ticks[11]) + int(ticks[12])) * 1000 / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            pass
    return spent


async def phone_game(seats: int, throttle: float, deal: str, home: Path, profile: Path | None,
                     details: bool = False, tasks: bool = False) -> dict[str, float]:
    """One real game with one phone page; the page's CPU (ms) in its deal, a turn, its round end."""
    env = dict(os.environ, HOME=str(home), P2PNIMMT_PLACE_DELAY="0")
    lo = ["--interface", "127.0.0.1"]
    host = Proc(["host", "--headless", "--seats", str(seats), "--bots", str(seats - 2), "--bot", "random", *lo,
                 "--deal", deal, "--rounds", "1", "--no-points", "--name", "bot", "--transcript", str(home / "host.p2pt")],
                env, home)
    procs = [host]
    try:
        port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
        code = host.wait_for(r"code: (\w{4}(?:-\w{4})?)").group(1)  # (without a seat key before 6c1e064)
        tv = Proc(["watch", code, *lo, "--peer", f"127.0.0.1:{port}", "--web", "--no-open", "--web-interface",
                   "127.0.0.1", "--transcript", str(home / "tv.p2pt")], dict(env, HOME=str(home / "tv")), home)
        procs.append(tv)
        url = tv.wait_for(r"phone: (http://127\.0\.0\.1:\d+/phone\?t=\S+)").group(1)
        async with async_playwright() as pw:
            args = ["--no-sandbox"] if os.geteuid() == 0 else []
            browser = await pw.chromium.launch(executable_path=shutil.which("chromium"), args=args, headless=True)
            context = await browser.new_context(**PHONE)
            page = await context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            system = await browser.new_browser_cdp_session()
            cdp = await context.new_cdp_session(page)
            await cdp.send("Performance.enable")

            async def cpu() -> tuple[float, float, float, float]:
                """The renderers' CPU, their main threads' CPU (/proc), the page's main-thread task time, its workers'
                CPU (/proc: threads named DedicatedWorker; CDP's throttling holds back the main thread only) (ms)."""
                info = await system.send("SystemInfo.getProcessInfo")
                renderers = [p for p in info["processInfo"] if p["type"] == "renderer"]
                main = 0.0
                for p in renderers:
                    try:
                        fields = Path(f"/proc/{p['id']}/task/{p['id']}/stat").read_text().rsplit(")", 1)[1].split()
                        main += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
                    except (OSError, IndexError, ValueError):
                        pass
                metrics = {m["name"]: m["value"] for m in (await cdp.send("Performance.getMetrics"))["metrics"]}
                if detail is not None:  # what the renderers' threads and the page's main thread did, so far
                    now: dict[str, float] = defaultdict(float)
                    for p in renderers:
                        for name, ms in threads(p["id"]).items():
                            now[f"thread {name}"] += ms
                    now.update({k: metrics[k] * (1000 if k.endswith("Duration") else 1) for k in DETAIL})
                    detail.append(now)
                workers = sum(ms for p in renderers for name, ms in threads(p["id"]).items() if name.startswith("DedicatedWorker"))
                return (sum(p["cpuTime"] for p in renderers) * 1000, main * 1000, metrics["TaskDuration"] * 1000,
                        workers)

            marks: dict[str, tuple[float, float, float, float]] = {}
            detail: list[dict[str, float]] | None = [] if details else None
            counts: dict[str, dict[str, int]] = {}
            seen: dict[str, dict[str, float]] = {}
            traced: list[dict] = []
            trace_done = asyncio.Event()
            cdp.on("Tracing.dataCollected", lambda p: traced.extend(p["value"]))
            cdp.on("Tracing.tracingComplete", lambda p: trace_done.set())
            done = asyncio.Event()
            loop = asyncio.get_running_loop()

            async def mark(what: str) -> None:
                marks[what] = await cpu()
                if what == "t" and profile is not None:  # the way in: its profile and trace, by step
                    taken = (await cdp.send("Profiler.stop"))["profile"]
                    await cdp.send("Tracing.end")
                    await trace_done.wait()
                    profile.mkdir(parents=True, exist_ok=True)
                    (profile / f"phone-{deal}-way-in.cpuprofile").write_text(json.dumps(taken))
                    (profile / f"phone-{deal}-way-in.trace.json").write_text(json.dumps(traced))
                    print(f"the phone page's way in ({deal}), by step:", flush=True)
                    print("\n".join(way_in(taken, traced)), flush=True)
                    traced.clear()
                    trace_done.clear()
                if detail is not None:
                    seen[what] = detail[-1]
                counts[what] = await page.evaluate("window.__tunnel")
                if what == "t" and tasks:
                    await cdp.send("Tracing.start", {"traceConfig": {"includedCategories": [
                        "toplevel", "devtools.timeline", "disabled-by-default-devtools.timeline"]},
                                                     "transferMode": "ReportEvents"})
                if what == "e" and tasks:
                    await cdp.send("Tracing.end")
                    await trace_done.wait()
                    print("\n".join(tasks_a_turn(traced)), flush=True)
                if what == "t" and profile is not None:
                    await cdp.send("Profiler.enable")
                    await cdp.send("Profiler.setSamplingInterval", {"interval": 200})
                    await cdp.send("Profiler.start")
                    await cdp.send("HeapProfiler.enable")
                    await cdp.send("HeapProfiler.startSampling", {
                        "samplingInterval": 4096, "includeObjectsCollectedByMajorGC": True,
                        "includeObjectsCollectedByMinorGC": True})
                if what == "e" and profile is not None:
                    allocated = (await cdp.send("HeapProfiler.stopSampling"))["profile"]
                    (profile / f"phone-{deal}.heapprofile").parent.mkdir(parents=True, exist_ok=True)
                    (profile / f"phone-{deal}.heapprofile").write_text(json.dumps(allocated))
                    total, top = allocators(allocated)
                    print(f"  allocated a turn: {total / 10 / 1024:.0f} KiB (sampled; garbage included), by function:")
                    for size, name in top:
                        print(f"  {size / 10 / 1024:8.1f} KiB  {name}", flush=True)
                    taken = (await cdp.send("Profiler.stop"))["profile"]
                    profile.mkdir(parents=True, exist_ok=True)
                    (profile / f"phone-{deal}.cpuprofile").write_text(json.dumps(taken))
                    for ms, name in heaviest(taken):
                        print(f"  {ms:8.1f} ms  {name}", flush=True)
                if what == "o":
                    done.set()

            await page.expose_function("benchMark", lambda what: loop.create_task(mark(what)) and None)
            await page.add_init_script(AUTOPLAY)
            await page.add_init_script(COUNT_TUNNEL)
            if profile is not None:
                await page.add_init_script(WAY_IN)
            await cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
            await page.goto(url)
            await page.fill("#name", "phone")
            marks["j"] = await cpu()
            if profile is not None:  # the way in, from the tap to the first card asked (mark "t")
                await cdp.send("Tracing.start", {"traceConfig": {"includedCategories": ["toplevel", "blink.user_timing"]},
                                                 "transferMode": "ReportEvents"})
                await cdp.send("Profiler.enable")
                await cdp.send("Profiler.setSamplingInterval", {"interval": 200})
                await cdp.send("Profiler.start")
                await page.evaluate("performance.mark('way-in tap')")
            await page.evaluate("window.__marks.j = performance.now()")
            await page.tap("#join")
            await asyncio.wait_for(done.wait(), 1800)
            await asyncio.sleep(0.5)  # the last mark's reads
            assert not errors, errors
            at = await page.evaluate("window.__marks")
            verdict = await page.inner_text("#verdict-text")
            assert "0 faults" in verdict, verdict
            await browser.close()
        if details:  # a turn's share of each figure that moved
            print("  a turn: " + ", ".join(f"{k} {(seen['e'][k] - seen['t'].get(k, 0)) / 10:.1f}" for k in sorted(seen["e"])
                                          if seen["e"][k] != seen["t"].get(k, 0)), flush=True)
        spent = {k: [marks[b][i] - marks[a][i] for i in range(4)] for k, a, b in
                 (("deal", "j", "t"), ("turns", "t", "e"), ("end", "e", "o"))}
        sent, received = ({k: (counts["e"][k] - counts["t"][k]) / 10 for k in (way, way + "Ops")} for way in
                          ("sent", "received"))
        return {"sent": sent["sent"], "sentOps": sent["sentOps"], "received": received["received"],
                "receivedOps": received["receivedOps"], "deal": spent["deal"][0], "turn": spent["turns"][0] / 10, "end": spent["end"][0],
                "turnMain": spent["turns"][1] / 10, "turnTask": spent["turns"][2] / 10, "dealTask": spent["deal"][2],
                "dealWall": at["t"] - at["j"], "dealWorkers": spent["deal"][3], "dealMain": spent["deal"][1]}
    finally:
        for proc in reversed(procs):
            proc.stop()


async def phones(seats: int, throttle: float, times: float, repeat: int, games: list[str], profile: Path | None,
                 details: bool = False, tasks: bool = False) -> None:
    for deal in games:
        for _ in range(repeat):
            home = Path(tempfile.mkdtemp(prefix="phone-cpu-bench-"))
            try:
                r = await phone_game(seats, throttle, deal, home, profile, details, tasks)
            finally:
                shutil.rmtree(home, ignore_errors=True)
            if throttle == 1:  # the page's real CPU, and what a CPU `--times` slower would spend
                print(f"the phone page in a real {deal} game at {seats} seats, CPU not throttled: a turn "
                      f"{r['turn']:.0f} ms of the renderer's CPU ({r['turnMain']:.0f} of its main thread; main-thread "
                      f"task time {r['turnTask']:.0f} ms), x{times:g} = {r['turn'] * times:.0f} ms (target <= 100 ms at "
                      f"4x: {'met' if r['turn'] * times <= 100 else 'NOT met'}); the deal {r['deal']:.0f} ms (its "
                      f"main thread's {r['dealMain']:.0f}, its workers' {r['dealWorkers']:.0f}), the round end {r['end']:.0f} ms of CPU; WebSocket messages a turn: {r['sent']:.1f} sent holding {r['sentOps']:.1f} "
                      f"tunnel messages, {r['received']:.1f} received holding {r['receivedOps']:.1f}; load average "
                      f"{os.getloadavg()[0]:.1f}", flush=True)
            else:  # a throttled renderer spins while it is held back: its CPU time says nothing; its task time does
                print(f"the phone page in a real {deal} game at {seats} seats, CPU throttled {throttle:g}x: a turn's "
                      f"main-thread task time {r['turnTask']:.0f} ms (target <= 100 ms: "
                      f"{'met' if r['turnTask'] <= 100 else 'NOT met'}; stretched by the load too); the deal's "
                      f"{r['dealTask']:.0f} ms (the tap on join to the first card asked: {r['dealWall']:.0f} ms wall; the page's "
                      f"workers' CPU meanwhile {r['dealWorkers']:.0f} ms, not throttled); "
                      f"load average {os.getloadavg()[0]:.1f}", flush=True)


def unminified(folder: Path) -> Path:
    """A copy of the package with both bundles built unminified (names in a profile read); its parent."""
    root = Path(__file__).resolve().parent.parent
    shutil.copytree(root / "p2pnimmt", folder / "p2pnimmt", ignore=shutil.ignore_patterns("__pycache__"))
    script = ("import {build} from 'esbuild'; import {options} from './options.mjs';"
              "for (const [e, n, p] of [['src/main.ts','peer.js','neutral'],['src/page.ts','phone.js','browser']]) {"
              " const o = options(e, n, p); o.outfile = process.argv[1] + '/' + n; o.minify = false;"
              " if (n === 'phone.js') o.plugins = [{name: 'peer.js', setup(b) { b.onResolve({filter: /^\\.\\/main\\.js$/},"
              " () => ({path: './peer.js', external: true})); }}];"
              " await build(o); }")
    subprocess.run(["node", "--input-type=module", "-e", script, str(folder / "p2pnimmt" / "web" / "static")],
                   cwd=root / "web" / "peer", check=True)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=10)
    parser.add_argument("--throttle", type=float, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--bundle", type=Path, default=STATIC / "peer.js", help="the bundle to measure (default: the shipped one)")
    parser.add_argument("--game", action="append", default=[], choices=["open", "sealed"],
                        help="also a whole game of this deal in the page (repeatable)")
    parser.add_argument("--phone", action="append", default=[], choices=["open", "sealed"],
                        help="only the phone page in a real game of this deal (repeatable)")
    parser.add_argument("--times", type=float, default=4,
                        help="with --phone and --throttle 1: the slower CPU the page's CPU is scaled to (default 4)")
    parser.add_argument("--profile", type=Path, help="with --phone: write the way in's CPU profile and trace (the tap "
                        "to the first turn, printed by step) and the turns' CPU profile into this folder")
    parser.add_argument("--unminified", action="store_true", help="with --phone: serve unminified bundles")
    parser.add_argument("--details", action="store_true",
                        help="with --phone: also a turn's CPU by renderer thread (/proc) and main-thread metrics (CDP)")
    parser.add_argument("--tasks", action="store_true",
                        help="with --phone: trace the turns (CDP Tracing): the main thread's tasks a turn by where they "
                             "were posted from, its frames and style recalcs (the trace's own cost in the CPU figures)")
    args = parser.parse_args()
    if args.phone:
        scratch = Path(tempfile.mkdtemp(prefix="phone-bundles-")) if args.unminified else None
        if scratch is not None:
            os.environ["PYTHONPATH"] = str(unminified(scratch))
        try:
            asyncio.run(phones(args.seats, args.throttle, args.times, args.repeat, args.phone, args.profile, args.details,
                               args.tasks))
        finally:
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)
        return
    folder = Path(__import__("tempfile").mkdtemp(prefix="peer-bench-"))
    shutil.copy(args.bundle, folder / "peer.js")
    (folder / "bench.html").write_text(PAGE)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        asyncio.run(measure(args.seats, args.throttle, args.repeat, server.server_address[1], args.game))
    finally:
        server.shutdown()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
