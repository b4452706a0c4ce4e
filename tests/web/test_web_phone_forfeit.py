"""A phone that left a sealed round and made it void is told so, on its page, once it is back (protocol.md 17.9,
"Leaving never pays"): it forfeited, it cannot win, and its hand is dealt open from then on, which every player sees
(page.ts: the note while the game goes on). The page is closed after its first card of a sealed round; the host
votes it out (--drop-after 2), which voids the round (the phone's layers of the deck never unlock); opened again,
the page shows the note before and after it takes its seat back, and its game ends as the host's, forfeit and all."""

from __future__ import annotations

from pathlib import Path

from test_web_phone_presence import (
    WAIT,
    closed_and_opened_again,
    download,
    next_ask,
    results,
    seated_phone,
    tap_move,
    two_seats_and_a_tv,
)

FORFEIT = ("You forfeited this game by making a round void: you cannot win, and your hand is dealt open from "
           "now on (every player sees it)")


async def notes(page) -> list[str]:
    return await page.locator("#notes li").all_inner_texts()


async def test_a_phone_that_made_a_sealed_round_void_is_told_it_forfeited_and_plays_on_with_an_open_hand(
        tmp_path: Path, procs, browser) -> None:
    host, phone_url = two_seats_and_a_tv(procs, tmp_path, "--rounds", "3", "--deal", "sealed", "--bot-delay", "1",
                                         "--drop-after", "2")
    phone, context, errors = await seated_phone(browser, phone_url, "zoe")
    await phone.wait_for_function("() => document.body.dataset.wanted === 'card'", timeout=WAIT)
    assert FORFEIT not in await notes(phone)  # nothing forfeited yet
    again = await closed_and_opened_again(phone, context, phone_url, host, errors)
    host.wait_for(r"round 1 is void \(nobody scores it\)")
    await again.wait_for_function("said => [...document.querySelectorAll('#notes li')].some((li) => "
                                  "li.textContent === said)", arg=FORFEIT, timeout=WAIT)
    await again.tap("#back")
    back = int(host.wait_for(r"zoe is back in the game from round (\d)").group(1))
    await again.wait_for_selector("#presence", state="hidden", timeout=WAIT)
    step, cards = "", 0
    while step := await next_ask(again, step):
        assert FORFEIT in await notes(again)  # said while the game goes on, its own cards played again
        cards += await tap_move(again) == "card"
    assert cards == 10 * (3 - back + 1), (back, cards)
    assert FORFEIT not in await notes(again)  # the game is over: the verdict says it
    mine = await download(again, tmp_path / "phone.p2pt")
    assert host.finish(30) == 0, host.text()
    said = results(mine)
    assert "forfeited (made a round void, so cannot win): zoe" in said, said
    assert results((tmp_path / "host.p2pt").read_bytes()) == said
    assert not errors, errors
