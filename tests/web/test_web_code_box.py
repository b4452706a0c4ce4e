"""The game's code beside the host's table in the browser (`host --web`, 1280x800 and narrower): one line, inside
its box. At 1280x800 it broke after the hyphen ("6E56-" over "3HXZ"), the 9 letter-spaced characters of 3.2rem
being wider than the side column."""

from __future__ import annotations

from pathlib import Path

import pytest
from pages import open_page

LO = ["--interface", "127.0.0.1"]


@pytest.mark.parametrize("width, height", [(1280, 800), (1024, 700), (600, 900)])
async def test_the_code_beside_the_table_is_one_line_inside_its_box(tmp_path: Path, procs, browser, width,
                                                                    height) -> None:
    host = procs(["host", "--web", "--no-open", "--seats", "2", "--bots", "1", *LO, "--name", "ann"],
                 tmp_path / "host.out", env={"XDG_DATA_HOME": str(tmp_path / "data")})
    url = host.wait_for(r"web: (http://127\.0\.0\.1:\d+/\?t=\S+)").group(1)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    page, errors = await open_page(browser, url, "table", {"width": width, "height": height})
    await page.wait_for_function("() => !document.getElementById('code-box').hidden")
    shown = await page.evaluate("""() => {
        const big = document.querySelector('#code-box .bigcode'), box = document.getElementById('code-box');
        const range = document.createRange(); range.selectNodeContents(big);
        const text = big.getBoundingClientRect(), inner = box.getBoundingClientRect();
        return {text: big.textContent, lines: new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size,
                inside: text.left >= inner.left - 0.5 && text.right <= inner.right + 0.5,
                px: parseFloat(getComputedStyle(big).fontSize)}; }""")
    assert shown["text"] == code and shown["lines"] == 1 and shown["inside"], shown
    assert shown["px"] >= 20, shown  # still a code to read across the room, not shrunk to nothing
    assert not errors, errors
