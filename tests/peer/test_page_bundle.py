"""The phone page's bundle (p2pnimmt/web/static/phone.js, issue 26) and its worker's (page_worker.js) are exactly what
web/peer/build-page.mjs builds from web/peer/src/page.ts and page_worker.ts: a pip install needs no node, and no
committed page differs from its sources."""

from __future__ import annotations

from pathlib import Path

from nodepeer import BUNDLE, run, tool

PAGE = BUNDLE.with_name("phone.js")
WORKER = BUNDLE.with_name("page_worker.js")


def test_committed_page_bundle_is_the_build_of_the_sources(node_modules: Path, tmp_path: Path) -> None:
    rebuilt = tmp_path / "phone.js"
    run([tool("node"), "build-page.mjs", str(rebuilt)])
    assert rebuilt.read_bytes() == PAGE.read_bytes(), (
        "p2pnimmt/web/static/phone.js differs from a fresh build of web/peer/src: run `node build-page.mjs` in web/peer")
    assert (tmp_path / "page_worker.js").read_bytes() == WORKER.read_bytes(), (
        "p2pnimmt/web/static/page_worker.js differs from a fresh build of web/peer/src: run `node build-page.mjs` in web/peer")
