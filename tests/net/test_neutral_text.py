"""Text from the network never reaches a terminal or a log raw (issue 22 item 6).

A fake host (tests/net/fake_host.py, its own process on 127.0.0.1) answers a real `p2pnimmt join` with a lobby
frame whose fields and a refusal whose text are terminal escapes: `ESC]0;PWNED BEL ESC[2J ESC[H ESC[31m…`, a
right-to-left override, a C1 CSI (U+009B), a line separator and 30 combining marks. Whatever the joiner
prints (its output and its log, at INFO) holds none of those code points, and says what it was refused with,
escaped. A hostile advertisement is read the same way (`p2pnimmt games`).
"""

from __future__ import annotations

import asyncio
import random
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

from attacker import LOOPBACK
from deadlines import outer

from p2pnimmt.net.discovery import game_code, open_zeroconf, service_type
from p2pnimmt.neutral import MAX_MARKS, NeutralFormatter, escaped, neutral, shown
from p2pnimmt.protocol.printable import escape, is_printable, is_printable_mark

FAKE_HOST = Path(__file__).with_name("fake_host.py")
LO = ["--interface", LOOPBACK]
RAW = ["\x1b", "\x07", "\x9b", "\u202e", "\u202c", "\u2028", "\u0301" * (MAX_MARKS + 1)]


def raw_in(text: str) -> list[str]:
    return [repr(r) for r in RAW if r in text]


def test_a_fake_hosts_escapes_reach_neither_the_terminal_nor_the_log(procs, tmp_path: Path):
    out = open(tmp_path / "fake.out", "wb")
    gid = "5e" * 16
    fake = subprocess.Popen([sys.executable, str(FAKE_HOST), "--gid", gid], stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + outer(20)
        while not (match := re.search(r"port (\d+)", (tmp_path / "fake.out").read_text())):
            assert time.monotonic() < deadline and fake.poll() is None, (tmp_path / "fake.out").read_text()
            time.sleep(0.05)
        # any seat key: the fake host checks no proof (protocol.md 14); what it answers is the test
        joiner = procs(["join", f"{game_code(bytes.fromhex(gid))}-7Q2K", "--lines", "--peer", f"{LOOPBACK}:{match[1]}", *LO,
                        "--name", "bob"], tmp_path / "bob.out", env={"P2PNIMMT_LOG": "INFO"})
        assert joiner.finish() == 1
        printed = (tmp_path / "bob.out").read_bytes().decode("utf-8")  # its stdout and stderr, as a terminal gets it
        assert "sent" in (tmp_path / "fake.out").read_text()
    finally:
        if fake.poll() is None:
            fake.kill()
        fake.wait()
        out.close()
    assert raw_in(printed) == [], printed
    assert "refused by the host: \\x1b]0;PWNED\\x07\\x1b[2J\\x1b[H\\x1b[31mYOU WIN" in printed, printed
    assert "\\u202eniw uoy\\u202c \\x9b2J \\u2028fake line" in printed
    assert "unknown frame kind" in printed  # the hostile frame kind was logged, escaped


def test_neutral_escapes_what_moves_or_paints_and_keeps_what_reads():
    assert neutral("ann ✓ Zoë 李") == "ann ✓ Zoë 李"
    assert neutral("\x1b[2J\x07") == "\\x1b[2J\\x07"
    assert neutral("a\u202eb\u2066c\x9bd\u00ade") == "a\\u202eb\\u2066c\\x9bd\\xade"
    assert neutral("x" + "\u0301" * 5) == "x" + "\u0301" * MAX_MARKS + "\\u0301" * 2
    assert neutral("\U000e0001tag") == "\\U000e0001tag"
    assert neutral("long text", 4) == "long…"
    assert neutral(b"\x1b") == "b'\\x1b'"
    assert shown("it's\x1b", 4) == "'it\\'s' (and 1 more characters)"


def by_the_table(text: str) -> str:
    """neutral's words with every code point asked of the table (protocol/printable.py), no shortcut."""
    out, marks = [], 0
    for ch in text:
        cp = ord(ch)
        if not is_printable(cp):
            out.append(escape(cp))
            marks = 0
        elif is_printable_mark(cp):
            marks += 1
            out.append(ch if marks <= MAX_MARKS else escape(cp))
        else:
            marks = 0
            out.append(ch)
    return "".join(out)


def test_neutrals_ascii_shortcuts_say_what_the_table_says():
    """neutral takes printable ASCII without the table twice: a whole text str.isascii and str.isprintable pass
    (C, 4,300 instructions for an 83-character log line against 704,000 through the table), and a printable ASCII
    character inside other text (U+0020..U+007E). Both give the table's words: on every ASCII code point, alone
    and beside others, on all of ASCII at once, and on mixed text with marks, controls and bidi overrides."""
    for cp in range(128):
        ch = chr(cp)
        assert ch.isprintable() == is_printable(cp) == (0x20 <= cp < 0x7F), cp
        assert not is_printable_mark(cp), cp
        for text in (ch, ch * 3, "ë" + ch, ch + "\u0301" * (MAX_MARKS + 2), "\u202e" + ch + "\x9b"):
            assert neutral(text) == escaped(text) == by_the_table(text), text
    ascii_all = "".join(map(chr, range(128)))
    assert neutral(ascii_all) == by_the_table(ascii_all)
    printable = ascii_all[0x20:0x7F]
    assert neutral(printable) == escaped(printable) == by_the_table(printable) == printable
    rng = random.Random(24)
    alphabet = [chr(cp) for cp in range(128)] + list("ëß李✓\u0301\u0308\u20dd\u00ad\u202e\u2066\u2028\x9b\ufeff") + \
        ["\U000e0001", "\U0001f600", "\ud800", "\U0010ffff"]
    for _ in range(500):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 40)))
        assert neutral(text) == escaped(text) == by_the_table(text), repr(text)


def test_a_log_line_is_neutralised_whatever_its_arguments():
    import logging

    record = logging.LogRecord("p2pnimmt.net", logging.WARNING, __file__, 1, "ignored %s from %s",
                               ("\x1b]0;PWNED\x07", "\u202eevil"), None)
    line = NeutralFormatter("%(levelname)s %(name)s: %(message)s").format(record)
    assert line == "WARNING p2pnimmt.net: ignored \\x1b]0;PWNED\\x07 from \\u202eevil"


def test_a_hostile_advertisement_is_listed_escaped(procs, tmp_path: Path):
    from zeroconf.asyncio import AsyncServiceInfo

    evil = "\x1b]0;PWNED\x07\x1b[2J\u202e\x9b"

    async def advertise() -> None:
        zc = open_zeroconf(LOOPBACK)
        service = service_type()
        info = AsyncServiceInfo(service, f"evil\u202e\x9b.{service}", addresses=[socket.inet_aton(LOOPBACK)],
                                port=9, properties={"gid": "ab" * 16, "name": evil, "variant": evil, "seats": evil,
                                                    "state": evil, "host": evil, "code": evil, "v": evil})
        await (await zc.async_register_service(info))
        try:
            games = procs(["games", "--seconds", "3", *LO], tmp_path / "games.out")
            deadline = time.monotonic() + outer(30)
            while games.popen.poll() is None:
                assert time.monotonic() < deadline
                await asyncio.sleep(0.1)
        finally:
            await (await zc.async_unregister_service(info))
            await zc.async_close()

    asyncio.run(advertise())
    printed = (tmp_path / "games.out").read_bytes().decode("utf-8")
    assert game_code(bytes.fromhex("ab" * 16)) in printed, printed
    assert raw_in(printed) == [], printed
    assert "name '\\x1b]0;PWNED\\x07\\x1b[2J\\u202e\\x9b' left out" in printed, printed


def test_a_fault_whose_detail_carries_escapes_reaches_the_table_screen_neutralised():
    """The full-screen table's model and the line console show a fault's detail (it may quote what a peer
    sent) through the same neutralising."""
    from types import SimpleNamespace

    from p2pnimmt.protocol.events import Fault, GameAborted
    from p2pnimmt.ui.model import TableModel

    peer = bytes(16)
    session = SimpleNamespace(game=None, roster=[peer], names=["ann"], bots=[False])
    model = TableModel()
    said: list[str] = []
    model.say = said.append  # what the model writes to its log
    model.update(session, Fault(peer, "bad-body", "field 'x' is \x1b]0;PWNED\x07\u202e", False))
    model.update(session, GameAborted(Fault(peer, "equivocation", "\x9b2J\x1b[31m", True)))
    assert raw_in(model.message + model.aborted + "".join(said)) == [], (model.message, model.aborted, said)
    assert "\\x1b]0;PWNED\\x07\\u202e" in model.message and "\\x9b2J\\x1b[31m" in model.aborted
