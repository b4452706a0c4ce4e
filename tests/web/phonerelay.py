"""A phone page's relay killed mid-game, and a spectator whose relay cheats (tests/net/cheat_node.py), for the tests
of how the page picks its relay and leaves one (test_web_phone_relay_pick.py, test_web_phone_relay_withhold.py):
real processes on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

from procs import CHEAT_NODE, Proc
from test_web_phone_presence import LO, download, messages_of, play_to_the_end, seated_phone

# Every node's drop time (the page takes its relay's): above the page's time away (its relay's kill, a cheating
# relay's SERVE_WITHIN of 5 s, a new link), so that an honest page that moves on in time keeps its seat, and short
# enough that a page held by the cheating relay is voted out within the test.
DROP = ["--drop-after", "12"]
# The phone page's own timers (SERVE_WITHIN, PROBE_EVERY, HELLO_WITHIN, LOBBY_GIVE_UP, ...: web/peer/src/page_timings.ts)
# at PAGE_SCALE of the product's, in the page a node serves with PAGE_TIMINGS in its environment (web/timings.py): these
# tests are about the order of those timers (a relay that serves nothing is left after SERVE_WITHIN, ...), which the
# scale keeps, not their length. A person's pace that must outlast SERVE_WITHIN is scaled with it.
PAGE_SCALE = 0.5
PAGE_TIMINGS = {"P2PNIMMT_PAGE_TIMINGS": str(PAGE_SCALE)}
WEB = ["--web", "--no-open", "--web-interface", "127.0.0.1"]
RELAY = r"phone: http://(127\.0\.0\.1:\d+)/phone"


def ann_hosts(procs, tmp_path: Path, seats: int, env: dict[str, str]) -> tuple[Proc, str, list[str]]:
    """ann hosts a game of `seats` seats on 127.0.0.1 (headless: her seat a bot; one round, no points, a 10 s clock,
    DROP, her transcript host.p2pt): her node, the game's code and the `--peer` arguments that reach her."""
    host = procs(["host", "--headless", "--seats", str(seats), *LO, "--rounds", "1", "--no-points", "--clock", "10",
                  *DROP, "--name", "ann", "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out", env=env)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    return host, code, ["--peer", f"127.0.0.1:{port}"]


def relay_args(tmp_path: Path, name: str, *args: str) -> list[str]:
    """`name`'s node (`args`: it watches or joins the game) serving the phone page and its relay on 127.0.0.1, with
    DROP, its transcript NAME.p2pt."""
    return [*args, *WEB, *DROP, "--transcript", str(tmp_path / f"{name}.p2pt")]


def relay_node(procs, tmp_path: Path, name: str, *args: str, env: dict[str, str]) -> Proc:
    """`name`'s honest node (relay_args), started by the test's `procs` with `env`, its HOME its own."""
    return procs(relay_args(tmp_path, name, *args), tmp_path / f"{name}.out", env={**env, "HOME": str(tmp_path / name)})


class CheatRelay(Proc):
    """A spectator's node run by cheat_node.py with a relay that withholds the game (`cheat`), its HOME its own."""

    def __init__(self, cheat: str, tmp_path: Path, name: str, *args: str, env: dict[str, str] | None = None) -> None:
        super().__init__(relay_args(tmp_path, name, *args), tmp_path / f"{name}.out",
                         env={**(env or {}), "HOME": str(tmp_path / name)}, program=(str(CHEAT_NODE), cheat, "0"))


def killed(node: Proc) -> None:
    """`node` killed (SIGKILL, by pid: no word to it) and gone."""
    node.popen.kill()
    assert node.popen.wait() != 0


async def seat_kept(phone, host: Proc, tmp_path: Path) -> None:
    """zoe's seat was never dropped: each of its 10 reveals in the page's transcript is its own card, none the
    stand-in's; the host finished its game, and no seat voted it out."""
    mine = await download(phone, tmp_path / "phone.p2pt")
    reveals = [r.get("auto") is True for r in messages_of(mine, "zoe", "PLAY_REVEAL")]
    assert reveals == [False] * 10, reveals
    assert host.finish(30) == 0, host.text()
    assert not messages_of((tmp_path / "host.p2pt").read_bytes(), "ann", "DROP")


async def played_through_tv2(procs, tmp_path: Path, browser, code: str, peer: list[str], env: dict[str, str],
                             phone_url: str, tv: Proc):
    """tv2 watches and serves an honest relay (listed after the relays started before it); zoe's phone, seated at
    `phone_url`, plays its cards, `tv` killed after its second: (the phone, its page errors, the cards it played, the
    relays it tried in order, tv2's)."""
    tv2 = relay_node(procs, tmp_path, "tv2", "watch", code, *LO, *peer, env=env)
    served = tv2.wait_for(RELAY).group(1)
    sockets: list = []
    phone, _, errors = await seated_phone(browser, phone_url, "zoe", sockets=sockets)
    # The phone plays its cards; after its second, its relay's node is killed (SIGKILL, by pid: no word to it).
    cards = await play_to_the_end(phone, lambda: killed(tv))
    return phone, errors, cards, [s.url.split("/")[2] for s in sockets], served
