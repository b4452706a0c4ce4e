"""The layers of architecture.md, as far as net/, ui/ and app/ go: net/ moves bytes (it imports neither ui/ nor
app/ and prints nothing), the fronts in ui/ never touch net/ or app/, and only cli.py imports app/."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "p2pnimmt"


def imports(path: Path) -> set[str]:
    """The p2pnimmt subpackages a module imports (its own included), by their first name under p2pnimmt."""
    parts = path.relative_to(PACKAGE).parts
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(parts[:-1])[: len(parts) - node.level]
                target = base + (node.module.split(".") if node.module else [a.name for a in node.names][:1])
            elif node.module and node.module.startswith("p2pnimmt."):
                target = node.module.split(".")[1:]
            else:
                continue
            found.add(target[0] if target else "")
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[1] for a in node.names if a.name.startswith("p2pnimmt.")}
    return found


def modules(sub: str) -> list[Path]:
    return sorted((PACKAGE / sub).glob("*.py"))


def test_net_imports_neither_ui_nor_app_and_prints_nothing() -> None:
    for path in modules("net"):
        assert not imports(path) & {"ui", "app"}, path.name
        calls = [n for n in ast.walk(ast.parse(path.read_text()))
                 if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("print", "input")]
        assert not calls, f"{path.name} prints or reads for the user (line {calls[0].lineno if calls else 0})"


def test_the_fronts_in_ui_touch_neither_net_nor_app() -> None:
    for path in modules("ui"):
        assert not imports(path) & {"net", "app"}, path.name


def test_only_cli_imports_app() -> None:
    for path in PACKAGE.rglob("*.py"):
        if path.parent.name != "app" and path.name != "cli.py":
            assert "app" not in imports(path), path.relative_to(PACKAGE)
