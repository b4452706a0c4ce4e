"""The phone page in German (issue 23): `host --web --lang de` gives the phone a link that names the host's language
(&lang=de); the page (static/phone.html, web/peer/src/page.ts) takes its words from /static/strings.js, the compiled
catalog, as the TV page does. In chromium, from the welcome screen through a whole sealed game to its verdict, it
shows none of the UI's English words (tests/german.py). With $P2PNIMMT_SCREENSHOTS (=docs) it saves
docs/phone-de.png (390x844, a hand and the rows). Its words agree with the terminal's: the winner's score in points
(not bull heads), "Gehen" for leaving (q: gehen), "Punktgrenze" for the lobby's limit (fail on main)."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

from deadlines import OUTER
from german import english_on
from pages import play_by_clicks
from test_web_phone_peer import PHONE, play_phone

LO = ["--interface", "127.0.0.1"]


async def german(page, where: str) -> str:
    text = await page.evaluate("document.body.innerText")
    found = english_on(re.sub(r"\b[A-Z2-7]{4}(-[A-Z2-7]{4})+\b", " ", text), ("ann", "zoe", "bot1"))
    assert not found, f"English on the German phone page ({where}): {sorted(found)}\n{text}"
    return text


async def test_the_phone_page_in_german_from_its_welcome_to_its_verdict(tmp_path: Path, procs, browser) -> None:
    host = procs(["host", "--web", "--no-open", "--lang", "de", "--seats", "3", "--bots", "1", *LO, "--rounds", "1",
                  "--no-points", "--name", "ann", "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out",
                 env={"P2PNIMMT_PLACE_DELAY": "0", "HOME": str(tmp_path)})
    url = host.wait_for(r"Web: (http://127\.0\.0\.1:\d+/\?t=\S+)").group(1)
    phone_url = host.wait_for(r"Handy: (http://127\.0\.0\.1:\d+/phone\?t=\S+)").group(1)
    assert phone_url.partition("#")[0].endswith("&lang=de"), phone_url  # in the query, before the seat key's #
    laptop = await browser.new_page(viewport={"width": 1280, "height": 800})
    await laptop.goto(url)
    await laptop.wait_for_function("() => document.documentElement.lang === 'de'")
    # the lobby's limit as the terminal's lobby names it (p: Punktgrenze), not "Punkte", the evening's score
    assert await laptop.inner_text("label:has(#set-points) span") == "Punktgrenze"
    context = await browser.new_context(**PHONE)
    phone = await context.new_page()
    errors: list[str] = []
    phone.on("pageerror", lambda exc: errors.append(str(exc)))
    await phone.goto(phone_url)
    await phone.wait_for_function("() => document.documentElement.lang === 'de'")
    welcome = await german(phone, "welcome")
    assert "Dein Platz wird in diesem Browser gespielt" in welcome and "Platz nehmen" in welcome, welcome
    await phone.fill("#name", "zoe")
    await phone.tap("#join")
    await phone.wait_for_selector("#hand .card", timeout=OUTER * 1000)
    await phone.wait_for_function("() => document.body.dataset.wanted === 'card'", timeout=OUTER * 1000)
    table = await german(phone, "the table")
    assert "Runde 1, Zug 1: du bist dran" in table, table
    where = os.environ.get("P2PNIMMT_SCREENSHOTS")
    if where:
        await phone.screenshot(path=str(Path(where) / "phone-de.png"))
    phone_turns, _ = await asyncio.gather(play_phone(phone), play_by_clicks(laptop, rows_taken=[], turns=[]))
    assert phone_turns == 10
    await phone.wait_for_selector("#verdict:not([hidden])")
    over = await german(phone, "the verdict")
    assert "Gewinner:" in over and "hier in diesem Browser geprüft" in over and "0 Fehler" in over, over
    # the winner's score in points, as the seat page's results and the terminal say it (it said "(1 Hornochse)")
    verdict = await phone.inner_text("#verdict-text")
    assert re.search(r"Gewinner: .+ \(\d+ Punkte?\)\n", verdict) and "Hornochse" not in verdict, verdict
    assert await laptop.inner_text("#leave") == "Gehen"  # the terminal's word for q: q: gehen
    await laptop.click("#leave")
    assert host.finish(30) == 0, host.text()
    # its node closed as asked: the page says so, not "Verbindung verloren, verbinde neu …" for ever (fails on main)
    await laptop.wait_for_function("() => document.getElementById('conn').textContent.startsWith('du bist gegangen')")
    assert "lost" not in (await laptop.get_attribute("body", "class") or "")
    assert not errors, errors


async def test_an_english_host_gives_the_phone_an_english_link(tmp_path: Path, procs, browser) -> None:
    host = procs(["host", "--web", "--no-open", "--lang", "en", "--seats", "3", "--bots", "1", *LO, "--name", "ann",
                  "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out", env={"HOME": str(tmp_path)})
    phone_url = host.wait_for(r"phone: (http://127\.0\.0\.1:\d+/phone\?t=\S+)").group(1)
    assert "lang=" not in phone_url, phone_url
    phone = await (await browser.new_context(**PHONE)).new_page()
    await phone.goto(phone_url)
    await phone.wait_for_selector("#join")
    assert await phone.evaluate("document.documentElement.lang") == "en"
    assert await phone.inner_text("#join") == "Take a seat"
