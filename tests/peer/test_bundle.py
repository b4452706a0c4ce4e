"""The browser bundle shipped in the Python package (p2pnimmt/web/static/peer.js) is exactly what web/peer/ builds:
a pip install needs no node, and nobody can commit a bundle that differs from its sources."""

from __future__ import annotations

import subprocess
from pathlib import Path

from nodepeer import BUNDLE, PEER, run, tool


def test_committed_bundle_is_the_build_of_the_sources(node_modules: Path, tmp_path: Path) -> None:
    rebuilt = tmp_path / "peer.js"
    run([tool("node"), "build.mjs", str(rebuilt)])
    assert rebuilt.read_bytes() == BUNDLE.read_bytes(), (
        "p2pnimmt/web/static/peer.js differs from a fresh build of web/peer/src: run `node build.mjs` in web/peer")


def test_bundle_is_an_es_module_with_the_peer(node_modules: Path) -> None:
    script = f"import('{BUNDLE.as_uri()}').then(m => console.log(m.PROTOCOL_VERSION, typeof m.bytes.hex))"
    done = subprocess.run([tool("node"), "-e", script], cwd=PEER, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "function"]
