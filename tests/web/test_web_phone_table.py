"""A table of five (issue 26, Tests): three phone pages (chromium, each its own browser context, 390x844 with touch),
a terminal player (`p2pnimmt join --lines`, its cards typed at the line terminal) and a bot (the headless host's own seat)
play a sealed game to the end; the phones' page is served, and their bytes relayed, by a spectator's node
(`watch --web`). All five transcripts -- each phone's downloaded one, the host's and the joiner's -- verify with
both implementations (`p2pnimmt verify` and `node peer.js verify`, the same report) and agree on the final scores. With $P2PNIMMT_SCREENSHOTS (=docs) it saves the phone's join screen, its hand mid-game and its
verdict (docs/phone-join.png, docs/phone-turn.png, docs/phone-verdict.png; docs/phone-hand.png is the laptop-held
guest seat's, made by test_web_guest). The TV page's QR code is decoded in test_web_qr_decode."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path

from deadlines import OUTER, outer
from dom_count import COUNT_DOM
from procs import Terminal, final_scores
from test_web_phone_presence import PHONE, PHONE_URL, download
from tunnel_count import COUNT_TUNNEL

from p2pnimmt.protocol.verify import verify_transcript

sys.path.insert(0, str(Path(__file__).parents[1] / "peer"))
from nodepeer import BUNDLE, tool  # noqa: E402

LO = ["--interface", "127.0.0.1"]
WAIT = OUTER * 1000


async def play(phone, shot: Path | None = None) -> int:
    """Tap the lowest card whenever a card is asked, the first row when a row is; the turns played. `shot`: where to
    save a screenshot of the hand at the fourth card asked."""
    turns = 0
    step = ""
    while True:
        await phone.wait_for_function(
            "before => document.body.dataset.phase === 'over' || (document.body.dataset.step !== before "
            "&& ['card', 'row'].includes(document.body.dataset.wanted))", arg=step, timeout=WAIT)
        if await phone.evaluate("document.body.dataset.phase") == "over":
            return turns
        step = await phone.evaluate("document.body.dataset.step")
        if await phone.evaluate("document.body.dataset.wanted") == "card":
            if shot is not None and turns == 3:
                await phone.screenshot(path=str(shot))
            await phone.locator("#hand .card:enabled").first.tap()
            turns += 1
        else:
            await phone.locator("#rows .take").first.tap()


def both_verify(node: str, path: Path) -> str:
    """`p2pnimmt verify` and `node peer.js verify` accept the transcript with the same report; the report."""
    python = subprocess.run([sys.executable, "-m", "p2pnimmt", "verify", str(path)], capture_output=True, text=True,
                            timeout=OUTER)
    assert python.returncode == 0, (path, python.stdout, python.stderr)
    typescript = subprocess.run([node, str(BUNDLE), "verify", str(path)], capture_output=True, text=True, timeout=OUTER)
    assert typescript.returncode == 0, (path, typescript.stdout, typescript.stderr)
    assert typescript.stdout.strip() == python.stdout.strip(), (path, typescript.stdout, python.stdout)
    assert python.stdout.strip(), path
    return python.stdout


async def test_three_phones_a_terminal_player_and_a_bot_play_a_sealed_game_and_all_five_transcripts_agree(
        tmp_path: Path, procs, browser) -> None:
    # The headless host holds the table (its own seat played by its bot); a spectator's node serves the phone page
    # (a headless node serves no pages) and relays the phones' bytes, as in test_web_phone_rematch.
    host = procs(["host", "--headless", "--seats", "5", *LO,
                  "--rounds", "1", "--no-points", "--name", "bot", "--transcript", str(tmp_path / "host.p2pt")],
                 tmp_path / "host.out", env={"P2PNIMMT_PLACE_DELAY": "0", "HOME": str(tmp_path)})
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    tv = procs(["watch", code, *LO, "--peer", f"127.0.0.1:{port}", "--web", "--no-open", "--web-interface",
                "127.0.0.1", "--transcript", str(tmp_path / "tv.p2pt")], tmp_path / "tv.out",
               env={"HOME": str(tmp_path / "tv"), "P2PNIMMT_PLACE_DELAY": "0"})
    joiner = Terminal(["join", code, "--lines", "--peer", f"127.0.0.1:{port}", *LO, "--name", "tom",
                       "--transcript", str(tmp_path / "tom.p2pt")], env={"P2PNIMMT_PLACE_DELAY": "0",
                                                                           "HOME": str(tmp_path / "tom")})
    try:
        await table(tmp_path, browser, host, joiner, tv.wait_for(PHONE_URL).group(1))
    finally:
        (tmp_path / "tom.out").write_text(joiner.text)
        joiner.stop()


async def table(tmp_path: Path, browser, host, joiner: Terminal, phone_url: str) -> None:
    node = tool("node")
    shots = os.environ.get("P2PNIMMT_SCREENSHOTS")
    where = Path(shots) if shots else None
    phones = []
    errors: list[str] = []
    for name in ("zoe", "max", "eva"):
        context = await browser.new_context(**PHONE)
        await context.add_init_script(COUNT_TUNNEL)
        await context.add_init_script(COUNT_DOM)
        phone = await context.new_page()
        phone.on("pageerror", lambda exc: errors.append(str(exc)))
        await phone.goto(phone_url)
        await phone.fill("#name", name)
        if where and name == "zoe":
            await phone.screenshot(path=str(where / "phone-join.png"))
        await phone.tap("#join")
        phones.append(phone)
    # tom types the highest card of his hand at each `your card>` (row 4 when asked) while the phones tap.
    typed = asyncio.to_thread(joiner.play_lines)
    turns = await asyncio.gather(*(play(phone, where / "phone-turn.png" if where and n == 0 else None)
                                   for n, phone in enumerate(phones)), typed)
    assert turns[:3] == [10, 10, 10]  # every card of each phone's hand played by a tap on that phone
    # The tunnel carries a burst of frames in one WebSocket message (issue 26: the browser's cost is per message):
    # what one step of the page's session sends to its 4 peers goes as one, and the relay gathers what it has.
    for phone in phones:
        count = await phone.evaluate("window.__tunnel")
        print("tunnel", count)
        assert count["sentOps"] >= 2 * count["sent"] and count["receivedOps"] > count["received"], count
    # The page changes its document only where what it shows changed (issue 26: every change is style, layout and a
    # frame of the browser's): the hand and the rows drawn anew once a turn (their cards), not at each step of it
    # (a card tapped, the reveals, the row asked: what is enabled, chosen or shown is set in place), and no write
    # leaves things as they were.
    for phone in phones:
        dom = await phone.evaluate("window.__dom")
        print("dom", dom)
        assert dom["draws"]["hand"] <= 12 and dom["draws"]["rows"] <= 12 and not dom["idle"], dom
    assert len(re.findall(r"committed \d+; waiting for the others", joiner.text)) == 10, joiner.text  # tom's, typed
    reports = []
    for n, phone in enumerate(phones):
        await phone.wait_for_selector("#verdict:not([hidden])", timeout=WAIT)
        said = await phone.inner_text("#verdict-text")
        assert "0 faults" in said, said
        if where and n == 0:
            await phone.screenshot(path=str(where / "phone-verdict.png"))
        mine = tmp_path / f"phone{n}.p2pt"
        await download(phone, mine)
        reports.append(both_verify(node, mine))
    assert host.finish(60) == 0, host.text()
    # The host left with no rematch offered: the line terminal says so and ends too.
    assert joiner.popen.wait(outer(60)) == 0, joiner.text
    for path in (tmp_path / "host.p2pt", tmp_path / "tom.p2pt"):
        reports.append(both_verify(node, path))
    # They agree: each transcript's summary has the same final scores, those the two Python nodes printed.
    summaries = [verify_transcript(path.read_bytes()).summary for path in
                 [tmp_path / f"phone{n}.p2pt" for n in range(3)] + [tmp_path / "host.p2pt", tmp_path / "tom.p2pt"]]
    final = [line for line in summaries[-2].splitlines() if "final" in line.lower() or "scores" in line.lower()]
    assert final, summaries[-2]
    for summary in summaries:
        assert [line for line in summary.splitlines() if line in final] == final, (summary, summaries[-2])
    for name in ("bot", "tom", "zoe", "max", "eva"):
        assert name in summaries[0], summaries[0]
    assert re.search(r"tom \([A-Z2-7]{4}-[A-Z2-7]{4}\)", summaries[0]), summaries[0]  # a person's seat, no bot's
    assert final_scores(host.text()) == final_scores(joiner.text)
    assert not errors, errors
