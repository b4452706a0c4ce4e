"""web/ is a front like ui/: it reads a model and sends intents; it never imports net/ or app/."""

from __future__ import annotations

from pathlib import Path

from p2pnimmt import web

WEB = Path(web.__file__).parent


def test_web_imports_neither_net_nor_app() -> None:
    for path in WEB.glob("*.py"):
        text = path.read_text()
        for layer in ("net", "app"):
            assert f"from ..{layer}" not in text and f"p2pnimmt.{layer}" not in text, (path.name, layer)


def test_the_page_loads_nothing_from_elsewhere() -> None:
    """No CDN: every script, style and image the page uses is one of its own static files."""
    for path in (WEB / "static").iterdir():
        text = path.read_text()
        assert "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in text, path
