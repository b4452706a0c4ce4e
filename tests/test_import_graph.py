"""The layers of the package (architecture: dependencies point down only), checked on the source's imports.

Every import counts: at module level, inside functions, and under
TYPE_CHECKING. Imports of a package's own submodules are edges to those
submodules; `from ..engine import Game` is an edge to the package
p2pnimmt.engine (its __init__).
"""

from __future__ import annotations

import ast
from pathlib import Path

import p2pnimmt

ROOT = Path(p2pnimmt.__file__).parent

# The parts a Session owns: none of them may import session.py (they see a view and return effects).
SESSION_PARTS = {"deal", "sealed_deal", "deals", "inbox", "steps", "slots", "table", "tableview", "effects",
                 "phase", "journal", "transcript", "errors", "sealed", "sealed_group", "standin", "commitments",
                 "messages", "codec", "envelope", "events", "identity"}
# layer -> layers it must never import
FORBIDDEN = {
    "engine": {"protocol", "net", "ui", "web", "app", "bots", "cli", "simulate"},
    "protocol": {"net", "ui", "web", "app", "bots", "cli", "simulate"},
    "bots": {"net", "ui", "web", "app", "cli"},
    "net": {"ui", "web", "app", "cli"},
    "ui": {"app", "cli"},
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in ROOT.rglob("*.py")}


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in known else target)
    return {m for m in found if m in known and m != name}


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imports_of(name, path, known) for name, path in mods.items()}


def layer(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_the_walk_sees_the_real_imports() -> None:
    edges = graph()
    assert "p2pnimmt.protocol.inbox" in edges["p2pnimmt.protocol.session"]
    assert "p2pnimmt.engine" in edges["p2pnimmt.protocol.deal"]
    assert "p2pnimmt.protocol.session" in edges["p2pnimmt.protocol.verify"]  # verify drives a session from outside


def find_cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every cycle a depth-first walk meets, each as the path that closes it."""
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(name: str) -> None:
        state[name] = 1
        stack.append(name)
        for nxt in sorted(edges.get(name, ())):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[name] = 2

    for name in sorted(edges):
        if name not in state:
            visit(name)
    return cycles


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle() -> None:
    assert find_cycles(graph()) == []


def test_no_part_of_the_session_imports_the_session() -> None:
    edges = graph()
    offenders = sorted(f"p2pnimmt.protocol.{part}" for part in SESSION_PARTS
                       if "p2pnimmt.protocol.session" in edges.get(f"p2pnimmt.protocol.{part}", set()))
    assert offenders == []
    assert set(edges) >= {f"p2pnimmt.protocol.{part}" for part in SESSION_PARTS}  # every part named exists


def test_dependencies_point_down() -> None:
    edges = graph()
    wrong = sorted(f"{src} -> {dst}" for src, dsts in edges.items() for dst in dsts
                   if layer(dst) in FORBIDDEN.get(layer(src), set()))
    assert wrong == []
