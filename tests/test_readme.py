"""README's promises: the library example runs as shown, and .ci/run runs the README's test command."""

from __future__ import annotations

import doctest
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def test_library_example_runs_as_shown() -> None:
    blocks = re.findall(r"```pycon\n(.*?)```", README, re.S)
    assert blocks, "README has no pycon example"
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for i, block in enumerate(blocks):
        test = parser.get_doctest(block, {}, f"README block {i}", "README.md", 0)
        assert test.examples, f"README block {i} has no examples"
        result = runner.run(test)
        assert result.failed == 0, f"README block {i}: {result.failed} example(s) failed"


def test_ci_runs_exactly_the_readme_test_command() -> None:
    marker = README.index("<!-- test-command")
    command = re.search(r"```sh\n(.*?)\n```", README[marker:], re.S).group(1)
    extracted = subprocess.run(
        ["bash", str(ROOT / ".ci" / "run"), "--print-command"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert extracted == command
    assert "pytest" in command
