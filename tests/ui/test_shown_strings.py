"""Every string the terminal shows goes through the catalog (issue 23, the game in German).

The German screens are checked for English words (tests/german.py), but a string never marked is caught there only
if a game shows it and it shares a word with the list. This reads the source instead: in the modules a person reads
(the app's use cases, the CLI, the terminal UI, the page's table, simulate), every call that shows or raises a
text (say, print, input, a prompt's read, model.warn, a page's refuse, parser.error, RoleFailed, UsageError,
ArgumentTypeError, ValueError, lines.append, ...) may hold literal words only inside `_()`/`ngettext()`/`said()`:
an English literal there is a line a German session shows in English. The few literals that are not words for a
person (the program's name before an error, commands typed as they are, style classes, benchmark timings) are
named below, each with why.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import p2pnimmt

PACKAGE = Path(p2pnimmt.__file__).parent
MODULES = sorted([*(PACKAGE / "app").glob("*.py"), PACKAGE / "cli.py", *(PACKAGE / "ui").glob("*.py"),
                  PACKAGE / "web" / "table.py", PACKAGE / "simulate.py", PACKAGE / "matrix.py"])
SHOWN = {"say", "print", "input", "read", "warn", "refuse", "error", "append", "RoleFailed", "UsageError",
         "ArgumentTypeError", "ValueError", "ReplayError", "SecretsProblem"}
TRANSLATED = {"_", "ngettext", "pgettext", "N_", "said"}
WORD = re.compile(r"[A-Za-z]{3,}")

# Literal text that is rightly not translated, as (module, the literal): each is no sentence for a person.
NOT_WORDS = {
    ("cli.py", r"p2pnimmt( \w+)?: ?"),  # the program (and command) before an error: a name, not a word
    ("cli.py", r"p2pnimmt "),
    ("cli.py", r"--matrix: "),  # the option named, before its (translated) error
    ("app/front.py", r"again> "),  # the line terminal's prompts name the command typed (typed in English)
    ("app/lobby.py", r"lobby> "),
    ("app/output.py", r"timing \w+ "),  # P2PNIMMT_TIMING's lines for the benchmarks, read by a program
    ("app/join.py", r"  p2pnimmt |p2pnimmt | ?'p2pnimmt://ADDRESS:PORT/|\?s=SECRET#HOSTKEY'| --peer HOST:PORT| --host-key "
                    r"XXXX-XXXX|-?KEY|-"),
    # a command to type, as it is typed
    ("app/evening.py", r"bot"),  # a player's `who` compared, not shown
    ("ui/local.py", r"bot"),  # the bots' names: bot1, bot2 (names are never translated)
    (r"ui/\w+\.py", r"class:[\w:-]+"),  # prompt_toolkit's style classes
    ("simulate.py", r"max"),  # a column headed by the figure's usual short name (p99, max)
    ("simulate.py", r" players need | bots, got |games must be at least 1, got |jobs must be at least 1, got "),
    # simulate()'s own argument checks: the CLI checks (in the catalog) before they can be reached
}


def literals(node: ast.AST) -> list[str]:
    """The literal text in an expression shown, outside the catalog's calls and outside subscripts (t['moves'])."""
    found: list[str] = []

    def walk(n: ast.AST) -> None:
        if isinstance(n, ast.Call):
            name = n.func.id if isinstance(n.func, ast.Name) else n.func.attr if isinstance(n.func, ast.Attribute) else ""
            if name in TRANSLATED:
                return
            if isinstance(n.func, ast.Attribute) and n.func.attr == "format":  # _("...").format(...): its fields
                walk_fields(n)
                return
        if isinstance(n, ast.Subscript):
            walk(n.value)
            return
        if isinstance(n, ast.Compare):  # `do in ("play", "pick")`: compared, not shown
            return
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            found.append(n.value)
            return
        for child in ast.iter_child_nodes(n):
            walk(child)

    def walk_fields(call: ast.Call) -> None:
        if not (isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Call)):
            walk(call.func)
        else:
            walk(call.func.value)
        for arg in [*call.args, *(k.value for k in call.keywords)]:
            walk(arg)

    walk(node)
    return [text for text in found if WORD.search(text)]


def untranslated() -> list[str]:
    problems = []
    for path in MODULES:
        where = path.relative_to(PACKAGE).as_posix()
        allowed = [re.compile(text) for module, text in NOT_WORDS if re.fullmatch(module, where)]
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else \
                node.func.attr if isinstance(node.func, ast.Attribute) else ""
            if name not in SHOWN:
                continue
            for text in literals(node.args[0]):
                if not any(pattern.fullmatch(text) for pattern in allowed):
                    problems.append(f"{where}:{node.lineno}: {name}({text!r} ...)")
    return problems


def test_every_text_shown_goes_through_the_catalog() -> None:
    problems = untranslated()
    assert not problems, ("English shown without the catalog (mark it with _() and translate it, "
                          "docs/development.md, Translations):\n" + "\n".join(problems))


def test_the_check_finds_an_unmarked_line(tmp_path: Path, monkeypatch) -> None:
    """The check itself: a module saying an English line unmarked is found; marked, it is not."""
    module = tmp_path / "app"
    module.mkdir()
    (module / "x.py").write_text('say(f"looking for game {code} ...")\nsay(_("found {code}").format(code=code))\n'
                                 'raise RoleFailed("the host said no: " + why)\n')
    monkeypatch.setattr(__import__(__name__, fromlist=["MODULES"]), "MODULES", [module / "x.py"])
    monkeypatch.setattr(__import__(__name__, fromlist=["PACKAGE"]), "PACKAGE", tmp_path)
    found = untranslated()
    assert found == ["app/x.py:1: say('looking for game ' ...)", "app/x.py:3: RoleFailed('the host said no: ' ...)"], found
