"""The READMEs' examples, run: so that none can go stale.

A fenced block whose info string is `sh runnable` (or `python runnable`) is
run, in order (README.md first, then the READMEs beside the code), in a
scratch directory where `build/` is the build under test and
`fleet-demo.db/` the fleet demo's database (README command 1's), and must
succeed. Then a block marked `sh runnable served` (or `python runnable
served`) runs while `dynarock serve --data-dir fleet-demo.db --s3-dir s3`
answers: its `http://127.0.0.1:8000` is the server's address, and AWS_*
variables name local credentials, as the server README's set-up does. A
comment `<!-- demo-output: "text" ... -->` claims that the demo prints each
quoted text: the prose's figures are checked against the demo's actual
output.

    DYNAROCK_BUILD_DIR=build python3 -m pytest tests/readme_test.py
"""
import os
import re
import subprocess
import sys

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(TOP, "README.md")
READMES = ["README.md", "engine/README.md", "engine/bulk/README.md", "tools/README.md",
           "tools/server/README.md"]
BLOCK = re.compile(r"^```(sh|python) runnable( served)?\n(.*?)^```", re.M | re.S)
CLAIM = re.compile(r"<!-- demo-output: (.*?) -->", re.S)


def readme(name="README.md"):
    with open(os.path.join(TOP, name), encoding="utf-8") as f:
        return f.read()


def blocks(served):
    """(file, language, body) of every runnable block, README.md's first."""
    return [(name, lang, body) for name in READMES
            for lang, on_server, body in BLOCK.findall(readme(name))
            if bool(on_server) == served]


def run_block(d, name, lang, body, env=None):
    command = ["bash", "-euo", "pipefail", "-c", body] if lang == "sh" else \
        [sys.executable, "-c", body]
    r = subprocess.run(command, cwd=d, capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0, f"{name}: block failed:\n{body}\n--- stderr:\n{r.stderr}"


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


def test_the_readmes_mark_examples_to_run():
    # The test guards something: the front door's dump/restore and browse
    # examples, and the server's and the bulk tools' client examples, are
    # marked.
    offline = [body for _, _, body in blocks(served=False)]
    served = [body for _, _, body in blocks(served=True)]
    assert any("dynarock dump" in b for b in offline)
    assert any("telemetry-table.json" in b for b in offline)
    assert any("import-table" in b for b in served)
    assert any("dynamodbstreams" in b for b in served)
    assert any("execute-statement" in b for b in served)


def test_every_runnable_block_succeeds(scratch):
    d, _ = scratch
    for name, lang, body in blocks(served=False):
        run_block(d, name, lang, body)
    # Then the blocks that talk to a server, on the demo's database.
    (d / "s3" / "backups").mkdir(parents=True)
    server = subprocess.Popen([str(d / "build" / "tools" / "dynarock"), "serve", "--data-dir",
                               "fleet-demo.db", "--s3-dir", "s3", "--port", "0"],
                              cwd=d, stdout=subprocess.PIPE, text=True)
    try:
        endpoint = server.stdout.readline().split(" ")[4]  # "dynarock serving DynamoDB on URL ..."
        env = dict(os.environ, AWS_ACCESS_KEY_ID="local", AWS_SECRET_ACCESS_KEY="local",
                   AWS_DEFAULT_REGION="us-east-1", AWS_PAGER="", AWS_EC2_METADATA_DISABLED="true")
        for name, lang, body in blocks(served=True):
            run_block(d, name, lang, body.replace("http://127.0.0.1:8000", endpoint), env)
    finally:
        server.terminate()
        server.wait(timeout=60)


def test_the_demo_prints_what_the_prose_says(scratch):
    _, out = scratch
    claims = [c for group in CLAIM.findall(readme()) for c in re.findall(r'"([^"]+)"', group)]
    assert claims, "no demo-output claims in the README"
    for claim in claims:
        assert claim in out, f"the README says the demo prints {claim!r}; it does not"
