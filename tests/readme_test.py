"""The README's examples, run: so that none can go stale.

A fenced block whose info string is `sh runnable` (or `python runnable`) is
run, in order, in a scratch directory where `build/` is the build under
test and `fleet-demo.db/` the fleet demo's database (README command 1's),
and must succeed. A comment `<!-- demo-output: "text" ... -->` claims that
the demo prints each quoted text: the prose's figures are checked against
the demo's actual output.

    DYNAROCK_BUILD_DIR=build python3 -m pytest tests/readme_test.py
"""
import os
import re
import subprocess
import sys

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(TOP, "README.md")
BLOCK = re.compile(r"^```(sh|python) runnable\n(.*?)^```", re.M | re.S)
CLAIM = re.compile(r"<!-- demo-output: (.*?) -->", re.S)


def readme():
    with open(README, encoding="utf-8") as f:
        return f.read()


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """The scratch directory, with the demo run in it; and its output."""
    build = os.path.abspath(os.environ.get("DYNAROCK_BUILD_DIR", os.path.join(TOP, "build")))
    d = tmp_path_factory.mktemp("readme")
    os.symlink(build, d / "build")
    demo = subprocess.run([os.path.join(build, "tools", "fleet_demo")], cwd=d,
                          capture_output=True, text=True, timeout=600)
    assert demo.returncode == 0, demo.stderr
    return d, demo.stdout


def test_the_readme_marks_examples_to_run():
    # The test guards something: the front door's dump/restore and browse
    # examples are marked.
    blocks = BLOCK.findall(readme())
    assert len(blocks) >= 2
    assert any("dynarock dump" in b for _, b in blocks)


def test_every_runnable_block_succeeds(scratch):
    d, _ = scratch
    for lang, body in BLOCK.findall(readme()):
        command = ["bash", "-euo", "pipefail", "-c", body] if lang == "sh" else \
            [sys.executable, "-c", body]
        r = subprocess.run(command, cwd=d, capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, f"README block failed:\n{body}\n--- stderr:\n{r.stderr}"


def test_the_demo_prints_what_the_prose_says(scratch):
    _, out = scratch
    claims = [c for group in CLAIM.findall(readme()) for c in re.findall(r'"([^"]+)"', group)]
    assert claims, "no demo-output claims in the README"
    for claim in claims:
        assert claim in out, f"the README says the demo prints {claim!r}; it does not"
