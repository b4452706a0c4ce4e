"""The full-screen app at a table, for the tests of its screens: my seat's app at a local table (ui.local) without a
terminal (its keys from a pipe, DummyOutput), and full-screen nodes at real terminals (tmux panes) at a headless
host's game on 127.0.0.1."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from prompt_toolkit.input import create_pipe_input
from screens import SizedOutput

from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.transcript import records
from p2pnimmt.ui.app import TableApp
from p2pnimmt.ui.local import LocalSeat, LocalTable
from p2pnimmt.ui.model import TableModel

LO = ["--interface", "127.0.0.1"]


@contextmanager
def seated(model: TableModel, t: LocalTable, tv: TableModel | None = None) -> Iterator[tuple]:
    """My seat's app (`model`) at the local table `t`, and a TV's app (`tv`, where given) reading the same keys,
    from a pipe; the table started and my app's run begun (it is running once `ui.app.is_running`): (my app, the
    TV's app or None, the pipe, my app's task)."""
    with create_pipe_input() as inp:
        ui = TableApp(model, LocalSeat(t), input=inp, output=SizedOutput())
        watch = TableApp(tv, None, input=inp, output=SizedOutput()) if tv is not None else None
        t.start()
        yield ui, watch, inp, asyncio.create_task(ui.app.run_async())


def tv_and_bob(panes, host, tmp_path: Path, env: dict[str, str], *bob: str) -> tuple[str, str, object, object]:
    """At `host`'s game (a headless host's process on 127.0.0.1), each at a terminal of its own: a full-screen TV
    (160x48) watching, once it counts itself among the spectators, then bob's full-screen seat (80x24, with the
    arguments `bob`); their transcripts tv.p2pt and bob.p2pt in `tmp_path`. The game's code (with its seat key), the
    host's port, the TV's pane and bob's."""
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    peer = f"--peer 127.0.0.1:{port}"
    tv = panes(f"{sys.executable} -m p2pnimmt watch {code} {' '.join(LO)} {peer} "
               f"--transcript {tmp_path / 'tv.p2pt'}; sleep 300", 160, 48, env=env)
    tv.wait("Spectators: 1", 20)
    seat = panes(f"{sys.executable} -m p2pnimmt join {code} {' '.join([*LO, peer, '--name', 'bob', *bob])} "
                 f"--transcript {tmp_path / 'bob.p2pt'}; sleep 300", 80, 24, env=env)
    return code, port, tv, seat


def roster(path: Path) -> list[str]:
    """The names of the seats the START of the transcript at `path` lists, in its order."""
    wires = (open_envelope(p) for kind, p in records(path.read_bytes()) if kind == "msg")
    start = next(e for e in wires if e.kind == "START")
    return [seat["name"] for seat in start.body["roster"]]
