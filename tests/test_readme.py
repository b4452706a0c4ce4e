"""The README's and the guides' promises: links resolve, the library examples run as shown, every command shown is
real (it parses with the CLI's own parser), every benchmark and test named exists, and .ci/run runs the README's test
command."""

from __future__ import annotations

import argparse
import contextlib
import doctest
import io
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from p2pnimmt.cli import build_parser
from p2pnimmt.net.discovery import parse_join_code
from p2pnimmt.net.invite import looks_like_link

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]

# Placeholders a reader replaces, and the sample value each command is parsed with.
SAMPLES = {
    "CODE": "ABCD",
    "CODE-KEY": "ABCD-WXYZ",
    "FILE": "x.p2pt",
    "TRANSCRIPT": "x.p2pt",
    "PATH": "x.p2pt",
    "N": "2",
    "K": "1",
    "P": "66",
    "R": "3",
    "G": "10",
    "S": "1",
    "SEED": "1",
    "SECONDS": "5",
    "NAME": "ann",
    "IP": "127.0.0.1",
    "ADDR": "127.0.0.1",
    "HOST:PORT": "127.0.0.1:4000",
    "PORT": "4000",
}

# Commands shown on purpose although they do not parse: (page, command) -> why.
NOT_MEANT_TO_PARSE: dict[tuple[str, str], str] = {}

SHELL_LANGUAGES = {"sh", "bash", "shell", "console"}


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the first line inside the fence
    lang: str
    text: str


@dataclass(frozen=True)
class Command:
    page: Path
    line: int
    text: str  # the command as shown (one segment of a shell line)
    tokens: tuple[str, ...]

    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}: `{self.text}`"


def parse_page(page: Path) -> tuple[list[Block], str]:
    """The page's fenced blocks, and its text with every fenced line blanked (line numbers kept)."""
    blocks: list[Block] = []
    prose: list[str] = []
    fence: str | None = None
    lang = ""
    start = 0
    body: list[str] = []
    for number, line in enumerate(page.read_text().splitlines(), 1):
        stripped = line.lstrip()
        if fence is None and stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
            lang = stripped[3:].strip().split(" ")[0].lower()
            start, body = number + 1, []
            prose.append("")
        elif fence is not None and stripped.startswith(fence) and not stripped[3:].strip():
            blocks.append(Block(page, start, lang, "\n".join(body) + "\n"))
            fence = None
            prose.append("")
        elif fence is not None:
            body.append(line)
            prose.append("")
        else:
            prose.append(line)
    assert fence is None, f"{page.relative_to(ROOT)}: a code fence opened at line {start - 1} is never closed"
    return blocks, "\n".join(prose)


_PARSED: dict[Path, tuple[list[Block], str]] = {}


def parsed(page: Path) -> tuple[list[Block], str]:
    if page not in _PARSED:
        _PARSED[page] = parse_page(page)
    return _PARSED[page]


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def inline_spans(page: Path) -> list[tuple[int, str]]:
    """The page's inline `code` spans outside fenced blocks, with their line (a span may wrap a line)."""
    prose = parsed(page)[1]
    return [(line_of(prose, m.start()), " ".join(m.group(1).split()))
            for m in re.finditer(r"(?<!`)`([^`]+)`(?!`)", prose)]


# --- links -------------------------------------------------------------------------------------------------------

def slug(heading: str) -> str:
    """GitHub's anchor for a heading: markup dropped, lowercase, punctuation but hyphens dropped, spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found: set[str] = set()
    counts: dict[str, int] = {}
    for line in parsed(page)[1].splitlines():
        m = re.match(r" {0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            base = slug(m.group(1))
            n = counts.get(base, 0)
            counts[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return found


def links(page: Path) -> list[tuple[int, str]]:
    prose = parsed(page)[1]
    # Inline code is not a link: blank it first, keeping offsets.
    text = re.sub(r"(?<!`)`[^`]+`(?!`)", lambda m: " " * len(m.group(0)), prose)
    return [(line_of(text, m.start()), m.group(1))
            for m in re.finditer(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)", text)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    problems = []
    for line, target in links(page):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        where = f"{page.relative_to(ROOT)}:{line}: link ({target})"
        if not file.exists():
            problems.append(f"{where}: no file {path}")
        elif anchor:
            if file.suffix != ".md":
                problems.append(f"{where}: an anchor into a file that is not markdown")
            elif anchor not in anchors(file):
                problems.append(f"{where}: no heading with anchor #{anchor} in {file.relative_to(ROOT)}")
    assert not problems, "\n".join(problems)


def test_the_guides_are_linked_from_the_readme() -> None:
    linked = {(README.parent / target.partition("#")[0]).resolve() for _, target in links(README)}
    missing = [str(p.relative_to(ROOT)) for p in PAGES[1:] if p.resolve() not in linked]
    assert not missing, f"README.md links to no {', '.join(missing)}"


# --- library examples --------------------------------------------------------------------------------------------

def test_library_examples_run_as_shown() -> None:
    blocks = [block for page in PAGES for block in parsed(page)[0] if block.lang == "pycon"]
    assert blocks, "no pycon example in README.md or docs/"
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for block in blocks:
        name = f"{block.page.relative_to(ROOT)}:{block.line}"
        test = parser.get_doctest(block.text, {}, name, str(block.page), block.line - 1)
        assert test.examples, f"{name}: a pycon block with no examples"
        out = io.StringIO()
        result = runner.run(test, out=out.write)
        assert result.failed == 0, f"{name}: {result.failed} example(s) failed\n{out.getvalue()}"


# --- commands ----------------------------------------------------------------------------------------------------

def segments(page: Path, line: int, text: str) -> list[Command]:
    """One shell line split at &&, ||, ; and |, each part tokenized (comments dropped, VAR=value prefixes too)."""
    commands = []
    for part in re.split(r"&&|\|\||;|\|", text):
        try:
            tokens = shlex.split(part, comments=True)
        except ValueError as error:
            raise AssertionError(f"{page.relative_to(ROOT)}:{line}: `{part.strip()}`: {error}") from None
        while tokens and re.match(r"[A-Z_][A-Z0-9_]*=", tokens[0]):
            tokens = tokens[1:]
        if tokens:
            commands.append(Command(page, line, part.split(" #")[0].strip(), tuple(tokens)))
    return commands


def shown_commands(page: Path) -> list[Command]:
    """Every shell command the page shows: each line of an sh block, each `$ ` line of any other block, and every
    inline span that starts with `p2pnimmt `, `.venv/bin/p2pnimmt ` or names a benchmark script."""
    found: list[Command] = []
    for block in parsed(page)[0]:
        lines = block.text.splitlines()
        i = 0
        while i < len(lines):
            first = i
            line = lines[i]
            while line.endswith("\\") and i + 1 < len(lines):
                i += 1
                line = line[:-1] + " " + lines[i]
            i += 1
            if block.lang in SHELL_LANGUAGES:
                found += segments(page, block.line + first, line.removeprefix("$ "))
            elif line.startswith("$ "):
                found += segments(page, block.line + first, line[2:])
    for number, span in inline_spans(page):
        if span.startswith(("p2pnimmt ", ".venv/bin/p2pnimmt ", ".venv/bin/python ", "python ", "benchmarks/")):
            found += segments(page, number, span)
    return found


def cli_argv(command: Command) -> list[str] | None:
    """The arguments after the program, if the command runs p2pnimmt."""
    tokens = list(command.tokens)
    if Path(tokens[0]).name == "p2pnimmt":
        return tokens[1:]
    if Path(tokens[0]).name.startswith("python") and tokens[1:3] == ["-m", "p2pnimmt"]:
        return tokens[3:]
    return None


def cli_commands() -> dict[str, argparse.ArgumentParser]:
    """The CLI's commands (play, host, ...) and the parser of each."""
    parser = build_parser()
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


def parse_problem(argv: list[str]) -> str | None:
    """argparse's complaint about these arguments, or None if the real parser takes them."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            build_parser().parse_args(argv)
    except SystemExit as exit:
        if exit.code not in (0, None):
            return err.getvalue().strip().splitlines()[-1] if err.getvalue().strip() else f"exit {exit.code}"
    return None


ALL_COMMANDS = [command for page in PAGES for command in shown_commands(page)]
CLI_COMMANDS = [command for command in ALL_COMMANDS if cli_argv(command) is not None]


def test_the_pages_show_p2pnimmt_commands() -> None:
    assert len(CLI_COMMANDS) >= 20, [c.where() for c in CLI_COMMANDS]


def test_every_p2pnimmt_command_shown_parses() -> None:
    names = set(cli_commands())
    problems = []
    for command in CLI_COMMANDS:
        argv = [SAMPLES.get(token, token) for token in cli_argv(command) or []]
        inline = command.text.startswith(("p2pnimmt ", ".venv/bin/p2pnimmt "))
        if inline and len(argv) == 1 and not argv[0].startswith("-"):
            # `p2pnimmt verify` in a sentence names a command: it must be one.
            if argv[0] not in names:
                problems.append(f"{command.where()}: no command {argv[0]!r} (the commands: {', '.join(sorted(names))})")
            continue
        problem = parse_problem(argv)
        key = (str(command.page.relative_to(ROOT)), command.text)
        if key in NOT_MEANT_TO_PARSE:
            if problem is None:
                problems.append(f"{command.where()}: listed as not meant to parse ({NOT_MEANT_TO_PARSE[key]}), "
                                "but it parses")
        elif problem is not None:
            problems.append(f"{command.where()}: the CLI refuses it (as parsed: {shlex.join(argv)}): {problem}")
    assert not problems, "\n".join(problems)


def synopses(page: Path) -> list[tuple[int, str]]:
    """The usage lines of plain blocks (`p2pnimmt play [--bots K] ...`, continued on indented lines)."""
    found: list[tuple[int, str]] = []
    for block in parsed(page)[0]:
        if block.lang in SHELL_LANGUAGES or block.lang == "pycon":
            continue
        for offset, line in enumerate(block.text.splitlines()):
            if line.startswith("p2pnimmt "):
                found.append((block.line + offset, line))
            elif found and found[-1][0] == block.line + offset - 1 and line.startswith(" ") and line.strip():
                found[-1] = (block.line + offset, found[-1][1] + " " + line.strip())
    return found


def test_every_usage_line_names_real_options() -> None:
    """A usage line shows a real command, every option in it is one of that command's options, and one with no
    optional parts ([...], a|b) parses as it is."""
    commands = cli_commands()
    problems = []
    shown = [(page, line, text) for page in PAGES for line, text in synopses(page)]
    assert shown, "no usage line on the pages"
    for page, line, text in shown:
        where = f"{page.relative_to(ROOT)}:{line}: `{text}`"
        name = text.split()[1]
        if name not in commands:
            problems.append(f"{where}: no command {name!r}")
            continue
        known = {option for action in commands[name]._actions for option in action.option_strings}
        for option in re.findall(r"(?<![\w-])--[a-z][\w-]*", text.split("#")[0]):
            if option not in known:
                problems.append(f"{where}: `p2pnimmt {name}` takes no {option}")
        usage = text.split("#")[0]
        if not re.search(r"\[|\||\.\.\.", usage):  # no alternatives or optional parts: a command as it is typed
            argv = [SAMPLES.get(token, token) for token in shlex.split(usage)[1:]]
            problem = parse_problem(argv)
            if problem is not None:
                problems.append(f"{where}: the CLI refuses it (as parsed: {shlex.join(argv)}): {problem}")
    assert not problems, "\n".join(problems)


# What a friend types to take a seat, watch or add a bot: the game's code with its seat key (protocol.md 14).
JOINING = ("join", "watch", "bot")
# Joins shown on purpose without a seat key: (page, command) -> why.
KEYLESS_ON_PURPOSE: dict[tuple[str, str], str] = {
    ("docs/phone.md", "p2pnimmt join CODE"): "what a terminal lobby's TV page encoded once, quoted as it was",
}


def seat_key_problem(typed: str) -> str | None:
    """Why `typed`, as the code of a join, watch or bot, would be refused for lacking its seat key (None: a code
    with its key, or an invite link whose code has its key, or a link left out: `p2pnimmt://...`, LINK)."""
    if typed == "LINK" or typed.endswith("://..."):
        return None
    if looks_like_link(typed):
        path = re.search(r"/([^/#?]*)(?:\?[^#]*)?#", typed)  # p2pnimmt://ADDRESSES/CODE-KEY[?s=SECRET]#HOSTKEY
        if path is None:
            return f"{typed}: not an invite link's shape (/CODE-KEY#HOSTKEY)"
        typed = path.group(1)
    try:
        code, key = parse_join_code(typed)
    except ValueError as error:
        return str(error)
    return None if key is not None else f"{typed} has no seat key: the pages show CODE-KEY (the host's screen)"


def test_every_join_shown_carries_the_seat_key() -> None:
    """`p2pnimmt join|watch|bot` take the code as the host's screen shows it, with its seat key (`join ABCD` alone
    exits 2, a check after argparse's): every such command and usage line on the pages shows a code with a key
    (CODE-KEY, or a sample like 4K7Q-9XYZ) or an invite link."""
    problems = []
    for command in CLI_COMMANDS:
        argv = [SAMPLES.get(token, token) for token in cli_argv(command) or []]
        if not argv or argv[0] not in JOINING or parse_problem(argv) is not None:
            continue  # a command that does not parse is test_every_p2pnimmt_command_shown_parses's
        problem = seat_key_problem(build_parser().parse_args(argv).code)
        if problem is not None and (str(command.page.relative_to(ROOT)), command.text) not in KEYLESS_ON_PURPOSE:
            problems.append(f"{command.where()}: {problem}")
    joins = [(page, line, text) for page in PAGES for line, text in synopses(page) if text.split()[1] in JOINING]
    assert joins, "no usage line of join, watch or bot on the pages"
    for page, line, text in joins:
        for typed in text.split()[2].split("|"):
            problem = seat_key_problem(SAMPLES.get(typed, typed))
            if problem is not None:
                problems.append(f"{page.relative_to(ROOT)}:{line}: `{text}`: {problem}")
    assert not problems, "\n".join(problems)


def test_the_seat_key_check_refuses_a_code_alone() -> None:
    """What the check above stands on: the CLI itself refuses `join ABCD` (exit 2, saying the seat key is missing)
    and not `join ABCD-WXYZ` for the key (it then looks for the game: a short look finds none here)."""
    alone = subprocess.run([sys.executable, "-m", "p2pnimmt", "join", SAMPLES["CODE"], "--headless"],
                           capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert alone.returncode == 2 and "seat key" in alone.stderr, alone.stderr
    assert seat_key_problem(SAMPLES["CODE"]) is not None and seat_key_problem(SAMPLES["CODE-KEY"]) is None
    assert seat_key_problem("p2pnimmt://10.8.0.1:4000/QM5Z#…") is not None
    assert seat_key_problem("p2pnimmt://10.8.0.1:4000/QM5Z-7Q2K#…") is None


# The page that names the V8 flags the node peer runs with, and those tried: node's and V8's own flags are real
# options there only (they are some 1,200, --watch, --test, --check, --log and --trace among them: a p2pnimmt option
# named on another page as one of those must still be found unreal).
NODE_FLAG_PAGES = (ROOT / "docs" / "benchmarks.md",)


def node_flags() -> set[str]:
    """What this node lists as its own and V8's flags, each also as its --no- form, as V8 takes it."""
    told = subprocess.run(["node", "--help"], capture_output=True, text=True, timeout=60).stdout + subprocess.run(
        ["node", "--v8-options"], capture_output=True, text=True, timeout=60).stdout
    flags = set(re.findall(r"(?<![\w-])--[a-z][\w-]*", told))
    return flags | {"--no-" + flag[2:] for flag in flags}


def unreal_options(page: Path, text: str, known: set[str], node: set[str]) -> list[str]:
    """Each `--option` of `text` (the page `page`) that is not in `known`, nor in `node` where the page is one of
    NODE_FLAG_PAGES: where, and which."""
    real = known | node if page in NODE_FLAG_PAGES else known
    return [f"{page.relative_to(ROOT)}:{line_of(text, m.start())}: no command takes {m.group(0)}"
            for m in re.finditer(r"(?<![\w-])--[a-z][\w-]*", text) if m.group(0) not in real]


def test_every_option_named_is_real() -> None:
    """Every `--option` in the text (option tables, sentences) is an option of a p2pnimmt command or of a
    benchmark script (or, on the page that measures the node peer, node's or V8's own)."""
    known = {option for action in build_parser()._actions for option in action.option_strings}
    known |= {option for sub in cli_commands().values() for action in sub._actions for option in action.option_strings}
    for script in (ROOT / "benchmarks").glob("*.py"):
        known |= set(re.findall(r"""["'](--[a-z][\w-]*)["']""", script.read_text()))
    # pytest's own options and its plugins' (the test command runs it with -n, --dist, --durations)
    known |= set(re.findall(r"(?<![\w-])--[a-z][\w-]*", subprocess.run(
        [sys.executable, "-m", "pytest", "--help"], capture_output=True, text=True, cwd=ROOT, timeout=120).stdout))
    node = node_flags()
    problems = [problem for page in PAGES for problem in unreal_options(page, page.read_text(), known, node)]
    assert not problems, "\n".join(problems)


def test_a_node_flag_is_real_only_on_the_page_that_measures_the_node_peer() -> None:
    """A p2pnimmt command named with one of node's flags (`--watch`, `--check`) is no p2pnimmt option: the check
    above finds it on any page but docs/benchmarks.md (session 35 made every node and V8 flag real on every page)."""
    node = node_flags()
    assert {"--watch", "--check", "--max-semi-space-size", "--no-lazy"} <= node
    line = "p2pnimmt host --watch, then node --max-semi-space-size=4 --no-lazy peer.js"
    assert unreal_options(README, line, set(), node) == [
        "README.md:1: no command takes --watch", "README.md:1: no command takes --max-semi-space-size",
        "README.md:1: no command takes --no-lazy"]
    assert unreal_options(NODE_FLAG_PAGES[0], line, set(), node) == []


def benchmark_mentions() -> list[tuple[Path, int, str]]:
    """(page, line, script) for every benchmarks/NAME.py named anywhere on the pages."""
    found = []
    for page in PAGES:
        text = page.read_text()
        for m in re.finditer(r"benchmarks/[\w./-]*\.py", text):
            found.append((page, line_of(text, m.start()), m.group(0)))
    return found


def test_every_benchmark_named_exists_and_takes_the_options_shown() -> None:
    mentions = benchmark_mentions()
    assert mentions, "no benchmark named"
    problems = []
    for page, line, script in mentions:
        if not (ROOT / script).is_file():
            problems.append(f"{page.relative_to(ROOT)}:{line}: {script} does not exist")
    for command in ALL_COMMANDS:
        scripts = [t for t in command.tokens if t.startswith("benchmarks/")]
        if not scripts or not (ROOT / scripts[0]).is_file():
            continue
        source = (ROOT / scripts[0]).read_text()
        for option in re.findall(r"(?<![\w-])--[a-z][\w-]*", command.text):
            if f'"{option}"' not in source:
                problems.append(f"{command.where()}: {scripts[0]} takes no {option}")
    assert not problems, "\n".join(problems)


def test_every_test_path_named_exists() -> None:
    problems = []
    for page in PAGES:
        text = page.read_text()
        for m in re.finditer(r"(?<![\w/])tests/[\w/.-]*[\w/]", text):
            if not (ROOT / m.group(0)).exists():
                problems.append(f"{page.relative_to(ROOT)}:{line_of(text, m.start())}: {m.group(0)} does not exist")
        for m in re.finditer(r"(?<![\w/])((?:tests/[\w/]+/)?test_\w+\.py)::(\w+)(\*?)", text):
            where = f"{page.relative_to(ROOT)}:{line_of(text, m.start())}: {m.group(0)}"
            name = m.group(1)
            files = [ROOT / name] if name.startswith("tests/") else sorted((ROOT / "tests").rglob(name))
            if len(files) != 1 or not files[0].is_file():
                problems.append(f"{where}: {len(files)} files named {name} under tests/")
                continue
            pattern = rf"def {m.group(2)}\w*\(" if m.group(3) else rf"def {m.group(2)}\("
            if not re.search(pattern, files[0].read_text()):
                problems.append(f"{where}: no such test in {files[0].relative_to(ROOT)}")
    assert not problems, "\n".join(problems)


def test_every_module_in_the_map_exists() -> None:
    """Paths like `engine/round.py` or `net/` in the guides name real parts of the package."""
    problems = []
    parts = "|".join(p.name for p in (ROOT / "p2pnimmt").iterdir() if p.is_dir() and not p.name.startswith("_"))
    for page in PAGES:
        for line, span in inline_spans(page):
            for m in re.finditer(rf"^(?:p2pnimmt/)?((?:{parts})/[\w/]*(?:\.py)?)$|^p2pnimmt/([\w/]+\.py)$", span):
                path = m.group(1) or m.group(2)
                if not (ROOT / "p2pnimmt" / path).exists():
                    problems.append(f"{page.relative_to(ROOT)}:{line}: p2pnimmt/{path} does not exist")
    assert not problems, "\n".join(problems)


# --- the test command --------------------------------------------------------------------------------------------

def test_ci_runs_exactly_the_readme_test_command() -> None:
    text = README.read_text()
    marker = text.index("<!-- test-command")
    block = re.search(r"```sh\n(.*?)\n```", text[marker:], re.S)
    assert block, "README.md: no ```sh block after the test-command marker"
    command = block.group(1)
    extracted = subprocess.run(
        ["bash", str(ROOT / ".ci" / "run"), "--print-command"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert extracted == command, f"README.md's test command:\n{command}\n.ci/run --print-command:\n{extracted}"
    assert "pytest" in command
