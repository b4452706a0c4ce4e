"""A phone page follows the host's rematch (issue 26): at game over the host's offer reaches the page, "Play again"
takes the seat held for the phone's key in the new game, on the same page (no reload), and the phone plays it to
its end; the TV page of the node that serves the phone follows too. Real processes on 127.0.0.1, chromium."""

from __future__ import annotations

from pathlib import Path

from pages import TV, open_page
from test_web_phone_presence import (
    LO,
    PHONE_URL,
    WAIT,
    download,
    faultless_transcript,
    play_to_the_end,
    results,
    seated_phone,
)
from test_web_tv import URL

from p2pnimmt.protocol.verify import verify_transcript


async def test_a_phone_follows_the_hosts_rematch_and_the_tv_page_too(tmp_path: Path, procs, browser) -> None:
    # A headless host offers one rematch at game over (--rematch 1) and holds the seats; the spectator's node serves
    # the phone page and the TV page, and follows the offer.
    host = procs(["host", "--headless", "--seats", "2", *LO, "--rounds", "1", "--no-points", "--deal", "open",
                  "--rematch", "1", "--name", "ann", "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out",
                 env={"P2PNIMMT_PLACE_DELAY": "0"})
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    tv = procs(["watch", code, *LO, "--peer", f"127.0.0.1:{port}", "--web", "--no-open", "--web-interface", "127.0.0.1",
                "--transcript", str(tmp_path / "tv.p2pt")], tmp_path / "tv.out",
               env={"HOME": str(tmp_path), "P2PNIMMT_PLACE_DELAY": "0"})
    screen, screen_errors = await open_page(browser, tv.wait_for(URL).group(1), "lobby", TV)
    phone, _, errors = await seated_phone(browser, tv.wait_for(PHONE_URL).group(1), "zoe")
    assert await play_to_the_end(phone) == 10
    first = await download(phone, tmp_path / "phone.p2pt")
    # The host's offer reaches the page: "Play again" takes the held seat, on this page.
    await phone.wait_for_selector("#again", state="visible", timeout=WAIT)
    assert await phone.evaluate("document.body.dataset.rematch") == "offered"
    await phone.tap("#again")
    await phone.wait_for_selector("#verdict", state="hidden", timeout=WAIT)
    assert await play_to_the_end(phone) == 10
    verdict = await faultless_transcript(phone, tmp_path / "phone-2.p2pt")
    second = (tmp_path / "phone-2.p2pt").read_bytes()
    assert f"rematch of game {verify_transcript(first).summary.split()[1].rstrip(':')}" in verdict.summary
    assert host.finish(60) == 0, host.text()
    assert results((tmp_path / "host-2.p2pt").read_bytes()) == results(second)
    # The TV page, never reloaded, followed the host into the rematch and to its end.
    await screen.wait_for_function("() => document.body.dataset.over === '1' && "
                                   "!document.getElementById('over-evening').hidden", timeout=WAIT)
    assert await screen.inner_text("#over-evening-title") == "The evening: 2 games"
    assert not errors, errors
    assert not screen_errors, screen_errors
