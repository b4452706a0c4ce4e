"""Finding games: the codes people type, what `games` shows, what a stranger's advertisement can (not) do,
and `join` with a code no game has. Real zeroconf on 127.0.0.1 and real p2pnimmt processes."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import random
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from deadlines import outer
from procs import game_of, seat_key_of
from tmuxpane import needs_tmux
from zeroconf import IPVersion
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

from p2pnimmt.net.discovery import (
    CODE_ALPHABET,
    SERVICE,
    NotAGame,
    closest_codes,
    code_distance,
    game_code,
    parse_ad,
    parse_code,
    service_problem,
    service_type,
)

LO = ["--interface", "127.0.0.1"]
LOOPBACK = "127.0.0.1"


@pytest.fixture(scope="module", autouse=True)
def decoy(tmp_path_factory: pytest.TempPathFactory):
    """Another p2pnimmt game on this machine for the whole module: a real host advertised on 127.0.0.1 under the
    product's own service type, as a developer's game (or another test run) would be. Every test here must
    pass beside it: the tests look under this run's own service type ($P2PNIMMT_SERVICE, tests/conftest.py)."""
    from procs import Proc

    home = tmp_path_factory.mktemp("decoy")
    env = {"P2PNIMMT_SERVICE": "", "HOME": str(home), "XDG_CONFIG_HOME": str(home), "XDG_DATA_HOME": str(home),
           "XDG_RUNTIME_DIR": ""}
    proc = Proc(["host", "--headless", "--seats", "3", "--name", "decoy", *LO, "--transcript",
                 str(home / "decoy.p2pt")], home / "decoy.out", env=env)
    try:
        code = game_of(proc.wait_for(r"code: (\w{4}-\w{4})").group(1))  # the game's code: what `games` lists
        proc.wait_for("listening on")
        yield code, env
    finally:
        proc.stop()


def test_the_decoy_game_is_on_the_lan_but_not_under_this_runs_service_type(decoy) -> None:
    """The decoy is real and seen by anyone who looks under the product's service type; this run's tests never
    see it (and it never sees them)."""
    code, env = decoy
    assert service_type() != SERVICE and service_type() == os.environ["P2PNIMMT_SERVICE"]

    def games(environ: dict) -> str:
        result = subprocess.run([sys.executable, "-m", "p2pnimmt", "games", *LO, "--seconds", "1.5"],
                                capture_output=True, text=True, timeout=60, env={**os.environ, **environ})
        assert result.returncode == 0, result.stderr
        return result.stdout

    assert re.search(rf"^{code}\s+decoy\s", wait_for(lambda: (out if code in (out := games(env)) else None), 30),
                     re.M)
    assert code not in games({}) and "decoy" not in games({})


@pytest.mark.parametrize("value", ["_p2pnimmt._udp.local.", "p2pnimmt._tcp.local.", "_way-too-long-a-name._tcp.local.",
                                   "_-x._tcp.local.", "_123._tcp.local.", "_a b._tcp.local.", "_A._tcp.local."])
def test_a_service_type_that_cannot_be_is_refused_with_a_clear_line(value: str) -> None:
    assert service_problem(value) is not None
    result = subprocess.run([sys.executable, "-m", "p2pnimmt", "games", *LO, "--seconds", "0.1"], capture_output=True,
                            text=True, timeout=60, env={**os.environ, "P2PNIMMT_SERVICE": value})
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"p2pnimmt: P2PNIMMT_SERVICE={value[:40]!r} is not a DNS-SD service type"), \
        result.stderr


def test_good_service_types_are_taken() -> None:
    for value in (SERVICE, "_pnt-1a2b._tcp.local.", "_a._tcp.local.", "_x" + "y" * 14 + "._tcp.local."):
        assert service_problem(value) is None, value


# --- codes ---------------------------------------------------------------------------------------------------

def test_codes_use_digits_and_letters_that_do_not_read_as_digits() -> None:
    assert CODE_ALPHABET == "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base32: no I, L, O, U
    rng = random.Random(13)
    for _ in range(40):  # each code costs a scrypt (protocol.md 14)
        code = game_code(rng.randbytes(16))
        assert len(code) == 4 and set(code) <= set(CODE_ALPHABET) and not set(code) & set("ILOU"), code


def test_code_vectors_of_protocol_md() -> None:
    """The vectors of protocol.md section 14 (read from it): the first 20 bits of scrypt(game id), 5 at a time."""
    text = (Path(__file__).resolve().parents[2] / "protocol.md").read_text()
    vectors = json.loads(re.search(r"```json code-vectors\n(.*?)```", text, re.S).group(1))
    assert len(vectors) >= 5
    for gid, code in vectors.items():
        assert game_code(bytes.fromhex(gid)) == code, gid
    zero = hashlib.scrypt(bytes(16), salt=b"p2pnimmt/code/v1", n=2**15, r=8, p=1, dklen=32, maxmem=2**26)
    assert zero[:4].hex() == "043215be" and "`scrypt(16 zero\nbytes, ...)` above begins `043215be`" in text


@pytest.mark.parametrize("typed,code", [("abcd", "ABCD"), ("ABCD", "ABCD"), ("io2z", "102Z"), ("O1L0", "0110"),
                                        (" ab-cd ", "ABCD"), ("ab cd", "ABCD"), ("y3gx", "Y3GX")])
def test_a_typed_code_is_read_as_a_person_means_it(typed: str, code: str) -> None:
    assert parse_code(typed) == code


@pytest.mark.parametrize("typed,says", [
    ("abc", "a game code is 4 letters and digits, got 'abc'"),
    ("abcde", "a game code is 4 letters and digits, got 'abcde'"),
    ("", "a game code is 4 letters and digits, got ''"),
    ("abcu", "a game code has no 'U' (codes use 0-9 and A-Z without I, L, O, U), got 'abcu'"),
    ("ab!d", "a game code has no '!'"),
    ("x" * 500, "got 'xxxxxxxxxxxxxxxxxxxxxxxx' (and 476 more characters)"),
    ("ab\x1bd", "a game code has no '\\x1b'"),
])
def test_a_code_that_cannot_be_says_what_is_wrong(typed: str, says: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_code(typed)
    assert says in str(caught.value)
    assert "\x1b" not in str(caught.value)


def test_the_closest_codes_are_one_edit_or_a_swap_away() -> None:
    assert code_distance("ABCD", "ABCD") == 0
    assert code_distance("ABCD", "ABCE") == 1
    assert code_distance("ABCD", "BACD") == 1  # two neighbours swapped
    assert code_distance("ABCD", "WXYZ") == 4
    ads = [parse_ad({b"gid": bytes(16).hex().encode()}, (LOOPBACK,), 4000, "a"),  # 0GS1 (the vectors)
           parse_ad({b"gid": (b"\xff" * 16).hex().encode()}, (LOOPBACK,), 4000, "c")]  # SXBF
    assert [ad.code for ad in ads] == ["0GS1", "SXBF"]
    assert [ad.code for ad in closest_codes("0GS2", ads)] == ["0GS1"]
    assert [ad.code for ad in closest_codes("0GBF", ads)] == ["0GS1", "SXBF"]  # a tie: both named
    assert closest_codes("MMMM", ads) == []  # nothing near


def test_join_with_a_code_that_cannot_be_is_a_usage_error() -> None:
    """Since session 34 a code is typed with its seat key (CODE-KEY, protocol.md 14): the code alone says the key
    is missing."""
    for typed, says in [("abcu-7q2k", "a game code has no 'U'"), ("abcd-7q2u", "a game code has no 'U'"),
                        ("abc", "a game code with its seat key is 4 + 4 letters and digits"),
                        ("abcd-7q2", "a game code with its seat key is 4 + 4 letters and digits"),
                        ("abcd", "ABCD needs its seat key: type the code as the host's screen shows it")]:
        result = subprocess.run([sys.executable, "-m", "p2pnimmt", "join", typed, "--headless", *LO],
                                capture_output=True, text=True, timeout=30)
        assert result.returncode == 2 and says in result.stderr and "Traceback" not in result.stderr, result.stderr


# --- what a stranger's advertisement can do --------------------------------------------------------------------

GID = bytes(range(16)).hex().encode()


def props(**extra: bytes | None) -> dict:
    return {b"v": b"1", b"gid": GID, b"host": b"ABCD-EFGH", b"seats": b"1/4", b"state": b"lobby", **{
        k.encode(): v for k, v in extra.items()}}


def test_a_good_advertisement_is_read_whole() -> None:
    ad = parse_ad(props(name=b"ann", variant=b"tactical", deal=b"open", code=game_code(bytes(range(16))).encode()),
                  (LOOPBACK,), 4000, "x")
    assert (ad.code, ad.host_name, ad.variant, ad.deal, ad.seats, ad.state, ad.notes) == \
        (game_code(bytes(range(16))), "ann", "tactical", "open", "1/4", "lobby", ())
    assert ad.summary() == "ann  tactical, open deal  seats 1/4  lobby"


def test_an_advertisement_of_an_older_p2pnimmt_is_still_read() -> None:
    """Before issue 13: no name, variant or deal, and another code (here 'AAEC'): read, but it answers no code
    but its game id's, and not that one either (its advertised code is not it: protocol.md 14)."""
    ad = parse_ad(props(code=b"AAEC"), (LOOPBACK,), 4000, "x")
    assert ad.code == game_code(bytes(range(16))) and ad.who == "host ABCD-EFGH" and ad.seats == "1/4"
    assert ad.advertised == "AAEC" and not ad.answers("AAEC") and not ad.answers(ad.code) and ad.notes == ()
    assert ad.salt is None  # no salt: it cannot be bound to its key, and join dials it only with --peer


@pytest.mark.parametrize("extra,note", [
    ({"name": b"A" * 200}, "name 'AAAAAAAAAAAAAAAAAAAAAAAA' (and 176 more characters) left out (not a name: a name "
                           "is 1 to 40 characters, this one has 200)"),
    ({"name": "\uff41nn".encode()}, "name '\uff41nn' left out (not a name: a name is written plainly"),
    ({"salt": b"nope"}, "salt 'nope' left out"),
    ({"name": b"\x1b[2Jowned"}, "name '\\x1b[2Jowned' left out"),
    ({"name": b""}, "name '' left out"),
    ({"name": b"\xff\xfe"}, "name left out (not UTF-8)"),
    ({"seats": b"99/0"}, "seats '99/0' left out (not taken/total, total 2..10)"),
    ({"seats": b"5/4"}, "seats '5/4' left out"),
    ({"seats": b"1/11"}, "seats '1/11' left out"),
    ({"seats": b"-1/4"}, "seats '-1/4' left out"),
    ({"seats": b"1/" + b"9" * 200}, "seats '1/" + "9" * 22 + "' (and 178 more characters) left out"),
    ({"variant": b"chess"}, "variant 'chess' left out"),
    ({"deal": b"marked"}, "deal 'marked' left out"),
    ({"state": b"hacked"}, "state 'hacked' left out"),
    ({"host": b"rm -rf /"}, "host 'rm -rf /' left out"),
    ({"v": b"9"}, "protocol version '9', this p2pnimmt speaks 1"),
])
def test_a_bad_hint_is_left_out_with_a_note(extra: dict, note: str) -> None:
    ad = parse_ad(props(**extra), (LOOPBACK,), 4000, "x")
    assert any(note in n for n in ad.notes), ad.notes
    assert all(n.isprintable() for n in ad.notes)
    assert ad.line().isprintable()


@pytest.mark.parametrize("changes,why", [
    ({b"gid": None}, "no game id (gid)"),
    ({b"gid": b"zz" * 16}, "game id (gid) 'zzzzzzzzzzzzzzzzzzzzzzzz' (and 8 more characters) is not 32 hex digits"),
    ({b"gid": GID[:30]}, "is not 32 hex digits"),
    ({b"gid": b"\xff" * 32}, "game id (gid) is not UTF-8"),
    ({b"gid": GID + b"00"}, "is not 32 hex digits"),
])
def test_an_advertisement_without_a_game_id_is_not_a_game(changes: dict, why: str) -> None:
    given = {**props(), **changes}
    given = {k: v for k, v in given.items() if not (k == b"gid" and v is None)}
    with pytest.raises(NotAGame, match=re.escape(why)):
        parse_ad(given, (LOOPBACK,), 4000, "x")


def test_an_advertisement_without_an_address_or_port_is_not_a_game() -> None:
    with pytest.raises(NotAGame, match="no IPv4 address"):
        parse_ad(props(), (), 4000, "x")
    with pytest.raises(NotAGame, match="port 0 is not 1..65535"):
        parse_ad(props(), (LOOPBACK,), 0, "x")


# --- on the (loopback) LAN -------------------------------------------------------------------------------------

async def games_output(seconds: float = 2.0) -> tuple[int, str, str]:
    """`p2pnimmt games` as a process (the test's loop keeps answering mDNS meanwhile)."""
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "p2pnimmt", "games", *LO, "--seconds",
                                                str(seconds), stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


def stranger(instance: str, properties: dict, port: int = 4000) -> AsyncServiceInfo:
    service = service_type()
    return AsyncServiceInfo(service, f"{instance}.{service}", addresses=[socket.inet_aton(LOOPBACK)], port=port,
                            properties=properties, server=f"{instance}.local.")


async def test_games_lists_strangers_advertisements_clearly_and_leaves_out_what_is_bad() -> None:
    zc = AsyncZeroconf(interfaces=[LOOPBACK], ip_version=IPVersion.V4Only)
    ads = [
        stranger("good-1", props(name="zoë".encode(), variant=b"draft", deal=b"open", seats=b"2/3")),
        stranger("longname-2", {**props(name=b"B" * 200), b"gid": bytes(range(1, 17)).hex().encode()}),
        stranger("escape-3", {**props(name=b"\x1b[31mred", seats=b"99/0", variant=b"chess"),
                              b"gid": bytes(range(2, 18)).hex().encode()}),
        stranger("nogid-4", {b"v": b"1", b"name": b"mallory"}),
        stranger("badgid-5", {**props(), b"gid": b"not hex at all"}),
    ]
    try:
        for info in ads:
            await (await zc.async_register_service(info, cooperating_responders=True))
        status, out, err = await games_output()
    finally:
        for info in ads:
            await (await zc.async_unregister_service(info))
        await zc.async_close()
    assert status == 0 and "Traceback" not in err, err
    lines = out.splitlines()
    assert lines[0].split() == ["code", "host", "variant", "deal", "seats", "state", "address"], out
    good = game_code(bytes(range(16)))
    assert re.search(rf"^{good}\s+zoë\s+draft\s+open\s+2/3\s+lobby\s+127\.0\.0\.1:4000$", out, re.M), out
    long_code, escape_code = game_code(bytes(range(1, 17))), game_code(bytes(range(2, 18)))
    assert re.search(rf"^{long_code}\s+host ABCD-EFGH\s+\?\s+\?\s+1/4\s+lobby", out, re.M), out
    assert "name 'BBBBBBBBBBBBBBBBBBBBBBBB' (and 176 more characters) left out" in out
    assert re.search(rf"^{escape_code}\s+host ABCD-EFGH\s+\?\s+\?\s+\?\s+lobby", out, re.M), out
    assert "name '\\x1b[31mred' left out" in out and "seats '99/0' left out" in out and "variant 'chess' left out" in out
    assert "\x1b" not in out and "B" * 30 not in out
    assert "not games (left out): 2 advertisements" in out
    assert "'nogid-4': no game id (gid)" in out
    assert "'badgid-5': game id (gid) 'not hex at all' is not 32 hex digits" in out
    assert "mallory" not in out


def test_games_shows_the_hosts_name_variant_deal_and_seats_as_the_lobby_changes(tmp_path: Path) -> None:
    """A real host, typed lobby commands: `games` follows its variant, deal and seats (not its fingerprint)."""
    host = subprocess.Popen([sys.executable, "-m", "p2pnimmt", "host", "--seats", "3", "--name", "ann", *LO,
                             "--variant", "tactical", "--deal", "open", "--lines",
                             "--transcript", str(tmp_path / "h.p2pt")],
                            stdin=subprocess.PIPE, stdout=open(tmp_path / "host.out", "wb"), stderr=subprocess.STDOUT,
                            env={**os.environ})
    try:
        code = wait_for_text(tmp_path / "host.out", r"code: (\w{4}-\w{4})").group(1)
        wait_for_text(tmp_path / "host.out", "lobby> ")

        def listing() -> str:
            result = subprocess.run([sys.executable, "-m", "p2pnimmt", "games", *LO, "--seconds", "1.5"],
                                    capture_output=True, text=True, timeout=30)
            assert result.returncode == 0, result.stderr
            return result.stdout

        out = listing()
        assert re.search(rf"^{game_of(code)}\s+ann\s+tactical\s+open\s+1/3\s+lobby\s+127\.0\.0\.1:\d+$", out, re.M), out
        host.stdin.write(b"variant draft\nbot\n")
        host.stdin.flush()
        wait_for_text(tmp_path / "host.out", "added a heuristic bot")
        wait_for(lambda: re.search(rf"^{game_of(code)}\s+ann\s+draft\s+open\s+2/3\s+lobby", listing(), re.M), 30)
    finally:
        host.kill()
        host.wait()


def wait_for_text(path: Path, pattern: str, timeout: float = 20) -> re.Match:
    found = wait_for(lambda: re.search(pattern, path.read_text(errors="replace")), timeout,
                     lambda: path.read_text(errors="replace"))
    assert isinstance(found, re.Match)
    return found


def wait_for(check, timeout: float, describe=lambda: ""):
    import time

    timeout = outer(timeout)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if result := check():
            return result
        time.sleep(0.1)
    raise AssertionError(f"not within {timeout} s: {describe()}")


def test_join_with_a_code_no_game_has_says_it_is_searching_then_names_the_closest_code(tmp_path: Path,
                                                                                        procs) -> None:
    host = procs(["host", "--headless", "--seats", "2", "--name", "ann", *LO,
                  "--transcript", str(tmp_path / "h.p2pt")], tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    host.wait_for("listening on")
    near = code[:3] + next(ch for ch in CODE_ALPHABET if ch != code[3])  # a typo in the code, the seat key right
    joiner = procs(["join", f"{near}-{seat_key_of(code)}".lower(), "--headless", *LO, "--name", "bob"],
                   tmp_path / "join.out")
    # while it looks, it says so: the code it looks for (as a code is written) and for how long
    joiner.wait_for(rf"looking for game {near} on the LAN on interface 127\.0\.0\.1 \(up to 10 s\)", 10)
    assert joiner.popen.poll() is None, "it said so while it was still looking"
    assert joiner.finish(40) == 1
    text = joiner.text()
    assert f"no game with code {near} found on the LAN on interface 127.0.0.1 (10 s)" in text
    key = host.wait_for(r"host key: (\S+)").group(1)
    assert re.search(rf"the closest live code: {game_of(code)} \(ann, host key {key}, at 127\.0\.0\.1:\d+, seats 1/2, lobby\)",
                     text), text
    # no command to run: a code one typo away is another game, the person checks the host's screen
    assert "if the host's screen shows that code and host key, type it again" in text
    assert f"p2pnimmt join {game_of(code)}" not in text
    assert "Traceback" not in text


def test_join_by_the_code_typed_in_lower_case_with_o_for_zero(tmp_path: Path, procs) -> None:
    """A player who reads the code aloud types it in lower case, maybe with o for 0 and i for 1: it joins."""
    host = procs(["host", "--headless", "--seats", "2", *LO, "--transcript", str(tmp_path / "h.p2pt")],
                 tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    typed = code.lower().replace("0", "o").replace("1", "i")
    joiner = procs(["join", typed, "--headless", *LO, "--transcript", str(tmp_path / "j.p2pt")], tmp_path / "j.out")
    joiner.wait_for(rf"joined {game_of(code)} at 127\.0\.0\.1:\d+ as player")
    assert joiner.finish(90) == 0, joiner.text()
    assert host.finish(60) == 0, host.text()


@needs_tmux
def test_join_on_a_terminal_shows_the_search_not_a_blank_screen(tmp_path: Path, panes) -> None:
    """The real console script under tmux at 80x24: `join` of a code no game has says what it looks for while
    it looks, then why it gave up, every line within 80 columns."""
    pane = panes(f"{sys.executable} -m p2pnimmt join zzzz-7q2k --name bob --interface 127.0.0.1; echo exited-$?; sleep 300",
                 env={"XDG_CONFIG_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path)})

    def showing(text: str):
        return lambda: (shown if text in (shown := pane.screen()) else None)

    shown = wait_for(showing("looking for game ZZZZ"), 10, pane.screen)
    assert "exited-" not in shown and "looking for game ZZZZ on the LAN on interface 127.0.0.1 (up to 10 s)" in shown
    started = time.monotonic()
    shown = wait_for(showing("exited-1"), 30, pane.screen)
    assert time.monotonic() - started > 3  # the line was up while it searched, not only at the end
    lines = shown.splitlines()
    assert "p2pnimmt: no game with code ZZZZ found on the LAN on interface 127.0.0.1 (10 s)" in lines, shown
    assert "  p2pnimmt join ZZZZ-7Q2K --peer HOST:PORT" in lines, shown  # with its seat key: the host needs it


async def test_the_start_menus_list_names_the_host_variant_deal_and_seats_not_the_fingerprint() -> None:
    """menu_games over real zeroconf on 127.0.0.1, against an Advertiser as `host` runs it, as its lobby changes."""
    from p2pnimmt.app.games import menu_games
    from p2pnimmt.net.discovery import Advertiser
    from p2pnimmt.ui.menu import Listed

    gid = bytes(range(5, 21))
    zc = AsyncZeroconf(interfaces=[LOOPBACK], ip_version=IPVersion.V4Only)
    advertiser = Advertiser(zc, gid, "ABCD-EFGH", 4321, [LOOPBACK], host_name="ann")
    try:
        await advertiser.start(1, 4, "lobby", "tactical", "sealed")
        entries = await menu_games(LOOPBACK)
        assert entries == [Listed(game_code(gid), f"{game_code(gid)}  ann  tactical, sealed deal  seats 1/4  lobby")]
        await advertiser.update(3, 4, "lobby", "draft", "open")
        for _ in range(10):  # the update reaches a new look at the LAN
            entries = await menu_games(LOOPBACK)
            if entries and entries[0].text.endswith("draft, open deal  seats 3/4  lobby"):
                break
        assert entries == [Listed(game_code(gid), f"{game_code(gid)}  ann  draft, open deal  seats 3/4  lobby")]
        assert "ABCD-EFGH" not in entries[0].text
        await advertiser.update(4, 4, "playing", "draft", "open")
        for _ in range(10):
            entries = await menu_games(LOOPBACK)
            if entries and entries[0].closed:
                break
        assert entries == [Listed(game_code(gid), f"{game_code(gid)}  ann  draft, open deal  seats 4/4  playing",
                                  "the game has started")]
    finally:
        await advertiser.stop()
        await zc.async_close()


async def test_a_flood_of_advertisements_is_looked_at_up_to_a_bound() -> None:
    """70 advertisements: `games` resolves 64 of them and counts the rest, and still exits 0."""
    from p2pnimmt.net.discovery import LIST_CHECKED, MAX_GAMES

    zc = AsyncZeroconf(interfaces=[LOOPBACK], ip_version=IPVersion.V4Only)
    ads = [stranger(f"flood-{i}", {**props(), b"gid": (bytes([i]) * 16).hex().encode()}) for i in range(MAX_GAMES + 6)]
    try:
        await asyncio.gather(*[(await zc.async_register_service(info, cooperating_responders=True)) for info in ads])
        status, out, err = await games_output(3.0)
    finally:
        await asyncio.gather(*[(await zc.async_unregister_service(info)) for info in ads])
        await zc.async_close()
    assert status == 0 and "Traceback" not in err, err
    rows = [line for line in out.splitlines() if re.match(r"^[0-9A-Z?]{4}\??\s", line)]
    assert len(rows) == MAX_GAMES, out
    assert f"6 more advertisements not looked at (one look takes at most {MAX_GAMES})" in out
    # a flood costs a bounded time: 16 codes drawn from their game ids (a scrypt each), the rest marked unchecked
    assert sum(1 for row in rows if row[4] == "?") == MAX_GAMES - LIST_CHECKED, out
    assert f"codes marked ? are as advertised, not checked (one look checks {LIST_CHECKED}" in out


def test_the_give_up_message_names_the_closest_code_else_the_live_games_else_how_to_dial() -> None:
    from p2pnimmt.app.join import not_found

    def ad(gid: bytes, name: str):
        return parse_ad({**props(name=name.encode()), b"gid": gid.hex().encode()}, (LOOPBACK,), 4000, name)

    zero, ones = ad(bytes(16), "ann"), ad(b"\xff" * 16, "bob")  # 0GS1 and SXBF (protocol.md's vectors)
    text = not_found("0GS2", [zero, ones], "", "watch")
    assert text.splitlines() == ["no game with code 0GS2 found on the LAN (10 s)",
                                 "the closest live code: 0GS1 (ann, host key ABCD-EFGH, at 127.0.0.1:4000, seats 1/4, "
                                 "lobby)",
                                 "if the host's screen shows that code and host key, type it again; else check the "
                                 "code on the host's screen"]
    playing = parse_ad({**props(name=b"ann", state=b"playing"), b"gid": bytes(16).hex().encode()}, (LOOPBACK,), 4000,
                       "p")
    assert not_found("0GS2", [playing], "", "join").splitlines()[2] == \
        "it cannot be joined now (playing or full): check the code on the host's screen"
    text = not_found("MMMM", [zero, ones], " on interface 127.0.0.1", "join")
    assert text.splitlines() == ["no game with code MMMM found on the LAN on interface 127.0.0.1 (10 s)",
                                 "live games: 0GS1 (ann), SXBF (bob)", "see them all:  p2pnimmt games"]
    many = [ad(bytes([i]) * 16, f"p{i}") for i in range(0, 256, 32)]
    assert "and 3 more" in not_found("MMMM", many, "", "join").splitlines()[1]
    assert not_found("MMMM", [], "", "join").splitlines()[1:] == [
        "no game is advertised now; where multicast does not reach, give the host's invite link (`host` prints it) "
        "or dial the host:", "  p2pnimmt join 'p2pnimmt://ADDRESS:PORT/MMMM-KEY?s=SECRET#HOSTKEY'",
        "  p2pnimmt join MMMM-KEY --peer HOST:PORT"]


async def test_a_game_withdrawn_while_it_is_looked_for_is_named_as_ended_not_as_a_wrong_code() -> None:
    """Real zeroconf on 127.0.0.1: a look for a game's code sees its advertisement, which is then withdrawn (its
    game ended, its host left) before the look ends. The look reports it withdrawn, not as a game it holds, and
    `join`/`watch` say so (with the host key seen), not "no game with code ... found" and the multicast advice
    (a spectator that came as a fast game ended was told that, as if it had typed the code wrong)."""
    from p2pnimmt.app.join import answering
    from p2pnimmt.app.options import Options, RoleFailed
    from p2pnimmt.net.discovery import Advertiser, scan

    gid = bytes(range(40, 56))
    code = game_code(gid)
    host_zc = AsyncZeroconf(interfaces=[LOOPBACK], ip_version=IPVersion.V4Only)
    look_zc = AsyncZeroconf(interfaces=[LOOPBACK], ip_version=IPVersion.V4Only)
    advertiser = Advertiser(host_zc, gid, "WXYZ-2345", 4321, [LOOPBACK], host_name="ann")
    seen = asyncio.Event()
    try:
        await advertiser.start(3, 3, "playing", "standard", "open")
        look = asyncio.ensure_future(scan(look_zc, 20, code=code, settle=4,
                                          seen=lambda ad: seen.set() if ad.answers(code) else None))
        await asyncio.wait_for(seen.wait(), 15)
        await advertiser.stop()  # the game is over while the look still waits for a second game of that code
        found = await asyncio.wait_for(look, 20)
    finally:
        await advertiser.stop()
        await look_zc.async_close()
        await host_zc.async_close()
    assert [ad.code for ad in found.ads] == [] and [ad.code for ad in found.withdrawn] == [code]
    with pytest.raises(RoleFailed) as failed:
        answering(code, found, Options(interface=LOOPBACK), " on interface 127.0.0.1", "watch")
    assert str(failed.value) == (f"game {code} (host key WXYZ-2345) stopped advertising while we looked for it: its "
                                 "game is over, or its host left")
    with pytest.raises(RoleFailed) as failed:  # another host's key was asked for: that game's end is not this one
        answering(code, found, Options(interface=LOOPBACK, host_key="AAAA-BBBB"), "", "join")
    assert str(failed.value).startswith(f"no game with code {code} and host key AAAA-BBBB found on the LAN")
