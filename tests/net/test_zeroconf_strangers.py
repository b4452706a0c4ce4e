"""Strangers' mDNS on the LAN cannot keep players from the real game (red team, session 29; the answers for the host's
name kept apart since session 30). Real processes, real
zeroconf on 127.0.0.1 under the test's own service type; the stranger is this test's own zeroconf, advertising
what anyone on the LAN can."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from deadlines import outer
from procs import final_scores, game_of
from zeroconf import DNSAddress, DNSOutgoing, DNSPointer, DNSService, DNSText, IPVersion, RecordUpdate, const
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

from p2pnimmt.app.join import interference
from p2pnimmt.net.answers import Heard
from p2pnimmt.net.discovery import (
    MAX_GAMES,
    GameAd,
    Scan,
    game_code,
    named_for,
    open_zeroconf,
    parse_ad,
    readings,
    scan,
    service_type,
)
from p2pnimmt.protocol.verify import verify_transcript

LO = ["--interface", "127.0.0.1"]
SHORT = ["--rounds", "1", "--no-points", "--deal", "open"]


def fake(instance: str, gid: bytes, code: str, port: int = 4000, host: str = "ABCD-EFGH",
         salt: bytes = bytes(16)) -> AsyncServiceInfo:
    service = service_type()
    return AsyncServiceInfo(service, f"{instance}.{service}", addresses=[socket.inet_aton("127.0.0.1")], port=port,
                            properties={"v": "1", "code": code, "gid": gid.hex(), "host": host, "seats": "1/2",
                                        "state": "lobby", "salt": salt.hex()},
                            server=f"{instance.lower()}.local.")


def ann_hosting(procs, tmp_path: Path):
    """ann hosts a one-round open game of two, headless on 127.0.0.1: (its process, the code a friend types: CODE-KEY)."""
    host = procs(["host", "--headless", "--seats", "2", *LO, *SHORT, "--name", "ann", "--transcript",
                  str(tmp_path / "ann.p2pt")], tmp_path / "ann.out")
    return host, host.wait_for(r"code: (\w{4}-\w{4})").group(1)


async def real_ad(code: str):
    zc = open_zeroconf("127.0.0.1")
    try:
        return next(ad for ad in (await scan(zc, outer(20), code=code, settle=0)).ads if ad.answers(code))
    finally:
        await zc.async_close()


def play_through(procs, tmp_path: Path, host, code: str) -> None:
    """`join CODE` finds the real host, and the game is played out and verifies."""
    joiner = procs(["join", code, "--headless", *LO, "--name", "bob", "--transcript", str(tmp_path / "bob.p2pt")],
                   tmp_path / "bob.out")
    assert joiner.finish(120) == 0, joiner.text()
    assert host.finish(60) == 0, host.text()
    assert final_scores(joiner.text()) == final_scores(host.text())
    verdict = verify_transcript((tmp_path / "bob.p2pt").read_bytes())
    assert verdict.ok, verdict.report()


async def test_a_flood_of_advertisements_claiming_the_code_does_not_hide_the_real_game(tmp_path: Path, procs) -> None:
    """MAX_GAMES + 6 advertisements, all claiming the real game's code (anyone reads it off the LAN), advertised
    before a joiner looks: `join CODE` still finds the real host among them and plays."""
    host, code = ann_hosting(procs, tmp_path)
    await real_ad(game_of(code))
    zc = AsyncZeroconf(interfaces=["127.0.0.1"], ip_version=IPVersion.V4Only)
    ads = [fake(f"FLOOD{i:03d}", bytes([i + 1]) * 16, game_of(code)) for i in range(2 * MAX_GAMES)]
    try:
        await asyncio.gather(*[(await zc.async_register_service(info, cooperating_responders=True)) for info in ads])
        await asyncio.to_thread(play_through, procs, tmp_path, host, code)
    finally:
        await asyncio.gather(*[(await zc.async_unregister_service(info)) for info in ads])
        await zc.async_close()


def pointers(zc: AsyncZeroconf, names: list[str]) -> None:
    """One unsolicited mDNS answer naming `names` as games (PTR records only: what a stranger's few lines of raw
    mDNS can send as fast as it likes; each name looks like a game until asked for its details)."""
    service = service_type()
    out = DNSOutgoing(const._FLAGS_QR_RESPONSE | const._FLAGS_AA)
    for name in names:
        out.add_answer_at_time(DNSPointer(service, const._TYPE_PTR, const._CLASS_IN, 4500, f"{name}.{service}"), 0)
    zc.zeroconf.async_send(out)


@contextlib.asynccontextmanager
async def flooding(name: Callable[[int], str]) -> AsyncIterator[None]:
    """The stranger's zeroconf names made-up games, name(n) for n = 0, 1, 2, ..., 20 new ones every 20 ms, from half a
    second before the block until it is done."""
    zc = AsyncZeroconf(interfaces=["127.0.0.1"], ip_version=IPVersion.V4Only)
    await zc.zeroconf.async_wait_for_start()
    stop = asyncio.Event()

    async def flood() -> None:
        n = 0
        while not stop.is_set():
            pointers(zc, [name(n + i) for i in range(20)])
            n += 20
            await asyncio.sleep(0.02)

    task = asyncio.ensure_future(flood())
    try:
        await asyncio.sleep(0.5)
        yield
    finally:
        stop.set()
        await task
        await zc.async_close()


async def test_a_stream_of_made_up_advertisements_does_not_hide_the_real_game(tmp_path: Path, procs) -> None:
    """A stranger who does not know the code names made-up games as fast as it likes (20 new names every 20 ms,
    from before the joiner looks until it is done): `join CODE` still finds the real host and plays."""
    host, code = ann_hosting(procs, tmp_path)
    await real_ad(game_of(code))
    async with flooding(lambda n: f"MADE-UP-{n}"):
        await asyncio.to_thread(play_through, procs, tmp_path, host, code)


def joined_anyway(procs, tmp_path: Path, host, code: str) -> str:
    """`join CODE`: either it finds the real host (the stranger lost the race of answers) and plays, or it finds no
    game (mDNS cannot tell the stranger's answer from the host's) and then the invite link the host printed joins
    and plays; what `join CODE` said."""
    joiner = procs(["join", code, "--headless", *LO, "--name", "bob", "--transcript", str(tmp_path / "bob.p2pt")],
                   tmp_path / "lost.out")
    if joiner.finish(120) == 0:
        assert host.finish(60) == 0, host.text()
        return joiner.text()
    link = host.wait_for(r"(p2pnimmt://\S+)").group(1)
    play_through(procs, tmp_path, host, link)
    return joiner.text()


@pytest.mark.parametrize("copy", [False, True], ids=["another-game", "the-hosts-txt"])
async def test_a_stranger_answering_for_the_real_host_does_not_keep_join_from_the_game(tmp_path: Path, procs,
                                                                                      copy: bool) -> None:
    """The real advertisement's instance name (`CODE-HOSTKEY`) taken by a stranger too: with a game id that is not
    the real one (or the host's own TXT, its game id and salt), a port where nothing listens. The joiner's mDNS
    keeps one answer for the name, often the stranger's (session 29: `join CODE` found no game then); the look now
    keeps every answer apart (net.answers) and `join CODE` dials each that holds the code: it joins the real game."""
    host, code = ann_hosting(procs, tmp_path)
    real = await real_ad(game_of(code))
    assert game_code(real.game_id) == game_of(code) and real.salt is not None
    zc = AsyncZeroconf(interfaces=["127.0.0.1"], ip_version=IPVersion.V4Only)
    twin = fake(real.name.removesuffix("." + service_type()), real.game_id if copy else bytes(16), game_of(code), port=9,
                host=real.host, salt=real.salt if copy else bytes(16))
    try:
        await (await zc.async_register_service(twin, cooperating_responders=True))
        await asyncio.to_thread(play_through, procs, tmp_path, host, code)
    finally:
        await (await zc.async_unregister_service(twin))
        await zc.async_close()


def record(kind: type, name: str, *args) -> RecordUpdate:
    return RecordUpdate(kind(name, *args), None)


def test_every_answer_for_a_name_named_for_the_code_is_kept_apart() -> None:
    """Heard keeps each TXT, each SRV and each host name's addresses heard for a name named for the code, whatever
    the cache would keep; a reading is made of every TXT claiming the code with every SRV (at the addresses heard
    for its host name); answers for names not named for the code are not kept."""
    service = service_type()
    gid, other = bytes(range(16)), bytes(16)
    code = game_code(gid)
    name = f"{code}-ABCD-EFGH.{service}"

    def txt(game_id: bytes) -> bytes:
        items = [b"v=1", b"code=" + code.encode(), b"gid=" + game_id.hex().encode(), b"salt=" + b"00" * 16]
        return b"".join(bytes([len(item)]) + item for item in items)

    heard = Heard(code, service, lambda n: named_for(n, code))
    host, stranger = "p2pnimmt-abcd-efgh.local.", "stranger.local."
    heard.async_update_records(None, 0, [  # the host's answer
        record(DNSText, name, const._TYPE_TXT, const._CLASS_IN | const._CLASS_UNIQUE, 4500, txt(gid)),
        record(DNSService, name, const._TYPE_SRV, const._CLASS_IN | const._CLASS_UNIQUE, 120, 0, 0, 4000, host),
        record(DNSAddress, host, const._TYPE_A, const._CLASS_IN | const._CLASS_UNIQUE, 120,
               socket.inet_aton("127.0.0.1"))])
    heard.async_update_records(None, 0, [  # the stranger's, under the same name; and a name not named for the code
        record(DNSText, name, const._TYPE_TXT, const._CLASS_IN | const._CLASS_UNIQUE, 4500, txt(other)),
        record(DNSService, name, const._TYPE_SRV, const._CLASS_IN | const._CLASS_UNIQUE, 120, 0, 0, 9, stranger),
        record(DNSAddress, stranger, const._TYPE_A, const._CLASS_IN | const._CLASS_UNIQUE, 120,
               socket.inet_aton("127.0.0.9")),
        record(DNSText, f"OTHER-ABCD-EFGH.{service}", const._TYPE_TXT, const._CLASS_IN, 4500, txt(gid))])
    assert heard.game_ids(name) == [gid, other]
    games = {(ad.game_id, ad.addresses, ad.port) for ad in readings(heard, name)}
    assert games == {(gid, ("127.0.0.1",), 4000), (gid, ("127.0.0.9",), 9),
                        (other, ("127.0.0.1",), 4000), (other, ("127.0.0.9",), 9)}
    assert list(heard.names.values()) == [name]


async def test_a_stream_of_advertisements_named_for_the_code_is_named(tmp_path: Path, procs) -> None:
    """A stranger who read the code names made-up games under it (`CODE-...`) as fast as it likes: the real one may
    be among those a look does not take (a limit: docs/lan-and-browser.md); a `join` that finds no
    game says so and points to the invite link, which joins."""
    host, code = ann_hosting(procs, tmp_path)
    await real_ad(game_of(code))
    async with flooding(lambda n: f"{game_of(code)}-MADE{n:05d}"):
        text = await asyncio.to_thread(joined_anyway, procs, tmp_path, host, code)
    assert f"joined {game_of(code)}" in text or "more advertisements were not looked at: someone on this network may be answering in its host's place " \
           "or flooding it; ask the host for its invite link" in text, text


def ad_named(instance: str, gid: bytes, code: str) -> GameAd:
    return parse_ad({b"v": b"1", b"code": code.encode(), b"gid": gid.hex().encode(), b"salt": b"00" * 16},
                    ("127.0.0.1",), 4000, f"{instance}.{service_type()}")


def test_only_an_advertisement_named_for_the_code_answers_it_and_a_failed_look_names_what_it_saw() -> None:
    """An advertisement answers a code only when named for it (`CODE-HOSTKEY`, as every host names its own): one
    named otherwise that claims the code costs no scrypt and answers nothing. A look that found no game names the
    advertisements named for the code that do not hold it and those it did not look at, and points to the invite
    link; a look that saw neither adds nothing."""
    gid = bytes(range(16))
    code = game_code(gid)
    assert ad_named(f"{code}-ABCD-EFGH", gid, code).answers(code)
    assert not ad_named(f"x{code}-ABCD-EFGH", gid, code).answers(code)
    assert not ad_named("FLOOD-1", gid, code).answers(code)
    other = bytes(16)
    assert game_code(other) != code
    assert interference(code, Scan([ad_named("FLOOD-1", other, code)])) == ""
    text = interference(code, Scan([ad_named(f"{code.lower()}-ABCD-EFGH", other, code)],
                                   {f"{code}-WXYZ-2345.{service_type()}": "no game id (gid)"}, unresolved=3))
    assert text == (f"\n2 advertisements named for game {code} do not hold it; 3 more advertisements were not looked "
                    "at: someone on this network may be answering in its host's place or flooding it; ask the host "
                    "for its invite link (`host` prints it) and join with it"), text
