"""The draft variant on the phone page (issue 26 item 4): the cards lie open and the phone picks its hand in turn by
taps (DRAFT_PICK signed in the page), then plays it; its transcript verifies with the host's results."""

from __future__ import annotations

from pathlib import Path

from test_web_phone_presence import WAIT, download, messages_of, results, seated_phone, tap_move, two_seats_and_a_tv


async def test_a_phone_picks_its_draft_hand_by_taps_and_plays_it(tmp_path: Path, procs, browser) -> None:
    host, phone_url = two_seats_and_a_tv(procs, tmp_path, "--rounds", "1", "--variant", "draft")
    phone, _, errors = await seated_phone(browser, phone_url, "zoe")
    step, picked, cards = "", [], 0
    while True:
        await phone.wait_for_function(
            "before => document.body.dataset.phase === 'over' || (document.body.dataset.step !== before "
            "&& ['pick', 'card', 'row'].includes(document.body.dataset.wanted))", arg=step, timeout=WAIT)
        if await phone.evaluate("document.body.dataset.phase") == "over":
            break
        step = await phone.evaluate("document.body.dataset.step")
        if await phone.evaluate("document.body.dataset.wanted") == "pick":
            assert "Pick a card" in await phone.inner_text("#status")
            open_cards = phone.locator("#rows .open .card:enabled")
            card = int(await open_cards.last.inner_text())  # the highest open card: not the stand-in's pick
            await open_cards.last.tap()
            await phone.wait_for_function("card => [...document.querySelectorAll('#hand .card')]"
                                          ".some((b) => b.dataset.card === String(card))", arg=card)
            picked.append(card)
        else:
            cards += await tap_move(phone) == "card"
    assert len(picked) == 10 and cards == 10, (picked, cards)
    said = await phone.inner_text("#verdict-text")
    assert "0 faults" in said, said
    mine = await download(phone, tmp_path / "phone.p2pt")
    assert [p["card"] for p in messages_of(mine, "zoe", "DRAFT_PICK")] == picked
    assert host.finish(30) == 0, host.text()
    assert results((tmp_path / "host.p2pt").read_bytes()) == results(mine)
    assert not errors, errors
