"""A host's evening of two games (a rematch) in real processes on 127.0.0.1: its terminal said the seat key, the host
key and the address it listens on again at every game, with the new code and link. Now each of those lines is said
once in the evening and again only when it changes (the seat key and the host key stay; the rematch listens on a
new port, so the address is said again, the new one); the code and the invite link, new with each game, are said
each time."""

from __future__ import annotations

import re
from pathlib import Path

from test_rematch import LO, SHORT

ENV = {"P2PNIMMT_PLACE_DELAY": "0"}


def test_the_hosts_door_lines_are_said_once_an_evening_and_again_only_when_they_change(tmp_path: Path, procs) -> None:
    host = procs(["host", "--headless", "--seats", "3", "--bots", "1", *LO, *SHORT, "--rematch", "1",
                  "--name", "ann"], tmp_path / "ann.out", env=ENV)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    bob = procs(["join", code, "--headless", *LO, "--rematch", "1", "--name", "bob"], tmp_path / "bob.out", env=ENV)
    for proc in (host, bob):
        assert proc.finish(120) == 0, proc.text()
    text = host.text()
    assert len(re.findall(r"(?m)^rematch of \w{4}: ", text)) == 1, text  # the evening had its second game
    codes = re.findall(r"(?m)^code: (\w{4}-\w{4})$", text)
    links = re.findall(r"(?m)^invite link: (\S+)", text)
    assert len(codes) == 2 and len(set(codes)) == 2 and len(links) == 2 and len(set(links)) == 2, text
    assert len(re.findall(r"(?m)^seat key: ", text)) == 1, text
    assert len(re.findall(r"(?m)^host key: ", text)) == 1, text
    addresses = re.findall(r"(?m)^listening on (\S+)$", text)
    assert len(addresses) == len(set(addresses)) >= 1, text  # said again only for a new address
