"""Two nodes run with different --link-timeout stay linked through a quiet lobby (protocol.md 14, "The link timeout",
since session 46): each side's pings say its link timeout, and each pings every quarter of the shorter of the two.
Before, each pinged every quarter of its own, so a host run with --link-timeout 90 pinged its joiner every 22.5 s and
a joiner run with 4 ended its link to the host after 4 s of a lobby where nothing else is sent, and dialled it again,
over and over (the phone page's side: tests/web/test_web_phone_link_timeout.py). Real processes on 127.0.0.1, their
INFO lines read (P2PNIMMT_LOG: a link's end is said there)."""

from __future__ import annotations

import time
from pathlib import Path

LO = ["--interface", "127.0.0.1"]
INFO = {"P2PNIMMT_LOG": "INFO"}
LASTS = 12.0  # seconds the quiet lobby is watched: three times the joiner's timeout (before, its link ended 4 s after
# the lobby's last frame)


def test_a_joiner_with_a_short_link_timeout_keeps_its_link_to_a_host_with_a_long_one(tmp_path: Path, procs) -> None:
    host = procs(["host", "--headless", "--seats", "3", *LO, "--link-timeout", "90", "--name", "ann",
                  "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out", env=INFO)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    joiner = procs(["join", code, "--headless", *LO, "--link-timeout", "4", "--name", "bob",
                    "--transcript", str(tmp_path / "j.p2pt")], tmp_path / "j.out", env=INFO)
    host.wait_for("lobby: 2/3")
    # The lobby is quiet from here (nobody else comes): the link must last, each side heard within its timeout.
    since = time.monotonic()
    while time.monotonic() - since < LASTS:
        for node in (host, joiner):
            assert " ended: " not in node.text(), node.text()  # (fails at once where a link ends)
        time.sleep(0.2)
    for node in (host, joiner):
        assert " ended: " not in node.text() and "Traceback" not in node.text(), node.text()
