"""A phone page follows a game after its own on its relays' word only to its host's next game (red team, session 44;
protocol.md 14, "Rematch", "A new start"). A page whose game moved on while its tunnel was down (a rematch, a new
start) follows the game that two relays name in their hellos (page_host.movedOn); it took whatever answered at the
address they named as that game's host, and that game's START as it came, so two relays colluding with a stranger
led it, mid-game, into the stranger's game: its seat in its own was voted out. Now the key that answers there must be
the host's of the game it played, and the new game's START that game's next one (its host the same, its `previous`
the game played, or a new start's carry the page's own record): the page leaves such a relay, as one whose host is
no host of its game, for the next. Real processes on 127.0.0.1: ann hosts (headless, her seat a bot), a TV's node
(tv) serves the phone page, sam hosts a game of his own (the stranger; his TV's relay says its id), mal and max watch ann's game and
serve relays of tests/net/cheat_node.py (`stranger-game-relay`: their hellos name sam's game and address), a second
TV (tv2) watches and serves an honest relay, listed after them; chromium at 390x844 with touch. tv is killed after
the phone's second card: the page tries mal's relay (one relay's word: left), max's (the second word: it follows, and
finds sam, not ann, at the host's address: left) and plays all its cards through tv2's, its seat never dropped."""

from __future__ import annotations

import json
from pathlib import Path

import aiohttp
from deadlines import OUTER
from phonerelay import RELAY, CheatRelay, ann_hosts, played_through_tv2, relay_node, seat_kept
from test_web_phone_presence import LO, PHONE_URL

from p2pnimmt.protocol.verify import verify_transcript


async def relay_hello(phone_url: str) -> dict:
    """The hello of the relay behind a phone link (its game's id, where its host listens)."""
    address, token = phone_url.split("/")[2], phone_url.split("?t=")[1].split("&")[0].split("#")[0]
    async with aiohttp.ClientSession() as http, http.ws_connect(f"ws://{address}/relay?t={token}", origin=f"http://{address}") as ws:
        return json.loads((await ws.receive(timeout=OUTER)).data)


async def test_two_relays_and_a_stranger_do_not_lead_a_phone_out_of_its_game(tmp_path: Path, procs, browser) -> None:
    env = {"P2PNIMMT_PLACE_DELAY": "0"}
    host, code, peer = ann_hosts(procs, tmp_path, 2, env)
    tv = relay_node(procs, tmp_path, "tv", "watch", code, *LO, *peer, env=env)
    phone_url = tv.wait_for(PHONE_URL).group(1)
    sam = procs(["host", "--headless", "--seats", "2", *LO, "--name", "sam", "--transcript", str(tmp_path / "sam.p2pt")],
                tmp_path / "sam.out", env={**env, "HOME": str(tmp_path / "sam")})
    sams = ["--peer", "127.0.0.1:" + sam.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)]
    sam_tv = relay_node(procs, tmp_path, "samtv", "watch", sam.wait_for(r"code: (\w{4}-\w{4})").group(1), *LO, *sams,
                        env=env)
    stranger = await relay_hello(sam_tv.wait_for(PHONE_URL).group(1))  # (its game's id, sam's address)
    lure = {"P2PNIMMT_CHEAT_GAME": stranger["game"], "P2PNIMMT_CHEAT_HOST": "{}:{}".format(*stranger["host"])}
    mal = CheatRelay("stranger-game-relay", tmp_path, "mal", "watch", code, *LO, *peer, env=lure)
    mal_relay = mal.wait_for(RELAY).group(1)
    max_ = CheatRelay("stranger-game-relay", tmp_path, "max", "watch", code, *LO, *peer, env=lure)
    try:
        max_relay = max_.wait_for(RELAY).group(1)
        phone, errors, cards, tried, served = await played_through_tv2(procs, tmp_path, browser, code, peer, env,
                                                                       phone_url, tv)
        # both lying relays were tried before the honest one (else nothing was attacked), the second left for its host
        assert mal_relay in tried and max_relay in tried and served in tried, tried
        assert tried.index(mal_relay) < tried.index(served) and tried.index(max_relay) < tried.index(served), tried
        assert await phone.evaluate("document.body.dataset.refusedHost") in (mal_relay, max_relay)
        assert await phone.evaluate("document.body.dataset.relay") == served
        assert cards == 10
        await seat_kept(phone, host, tmp_path)
        assert verify_transcript((tmp_path / "host.p2pt").read_bytes()).ok
        assert not errors, errors
        assert "cheat: a hello naming the stranger's game" in max_.text()
        assert "zoe" not in sam.text(), sam.text()  # the page's join never went to the stranger
    finally:
        mal.stop()
        max_.stop()
