"""A real headless host on 127.0.0.1 for an attack script (tests/procs.Proc: its output in a file, stopped by its
pid): `with headless_host(tmp, "--seats", "3") as (host, seat_key, port): ...`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from procs import Proc

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def headless_host(tmp: str | Path, *args: str) -> Iterator[tuple[Proc, str, int]]:
    """ann hosting headless on 127.0.0.1 (with `args`), its data in `tmp`: yields the process, the seat key its
    screen shows and the port it listens on; stopped when the block ends."""
    tmp = Path(tmp)
    env = {"PYTHONPATH": str(ROOT), "XDG_DATA_HOME": str(tmp), "XDG_RUNTIME_DIR": str(tmp)}
    host = Proc(["host", "--headless", "--name", "ann", "--interface", "127.0.0.1", "--give-up", "0", *args],
                tmp / "host.log", env=env)
    try:
        found = host.wait_for(r"code: \w{4}-(\w{4})[\s\S]*listening on 127\.0\.0\.1:(\d+)", 60)
        yield host, found.group(1), int(found.group(2))
    finally:
        host.stop()
