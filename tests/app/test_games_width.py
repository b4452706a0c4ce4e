"""`p2pnimmt games` (real processes, mDNS on 127.0.0.1) with a host whose name is long (names may have 40
characters): its line ran past 80 columns (84 with a name of 21, 103 with 40). Now the host's column is cut with
"…" where the line would run past 80, the rest of the line (the code, the seats, the address) whole; in German too."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

NAME = "Maximiliane-Alexandra-Wilhelmina-Schmitz"  # 40 characters


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_long_host_name_is_cut_to_fit_80_columns(tmp_path: Path, procs, lang: str) -> None:
    host = procs(["host", "--headless", "--seats", "4", "--interface", "127.0.0.1", "--name", NAME,
                  "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4})-\w{4}").group(1)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    for _look in range(3):  # a look of 3 s may miss a host that has just begun to advertise: look again
        out = subprocess.run([sys.executable, "-m", "p2pnimmt", "--lang", lang, "games", "--interface", "127.0.0.1",
                              "--seconds", "3"], capture_output=True, text=True, timeout=60,
                             env={**os.environ, "LANG": "C.UTF-8"})
        line = next((line for line in out.stdout.splitlines() if line.startswith(code)), None)
        if line is not None:
            break
    assert line is not None, out.stdout + out.stderr
    assert all(len(shown) <= 80 for shown in out.stdout.splitlines()), out.stdout
    assert "Maximiliane-Ale" in line and "…" in line and line.endswith(f"127.0.0.1:{port}"), out.stdout
