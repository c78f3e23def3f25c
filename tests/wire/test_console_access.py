"""Where the web console is served: on a loopback address by default; on
any other --host only with --console, since it shows the data."""
import os
import signal
import subprocess
import urllib.error
import urllib.request

import pytest

from conftest import get_json


def serve(*flags):
    proc = subprocess.Popen([os.environ["DYNAROCK_BIN"], "serve", "--in-memory", "--port", "0",
                             *flags], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert "serving" in line, proc.stderr.read()
    port = line.split()[4].rsplit(":", 1)[1]
    return proc, f"http://127.0.0.1:{port}"


@pytest.mark.parametrize("flags, served", [((), True), (("--host", "0.0.0.0"), False),
                                           (("--host", "0.0.0.0", "--console"), True)])
def test_the_console_is_off_off_loopback_unless_asked_for(flags, served):
    proc, endpoint = serve(*flags)
    try:
        status, config = get_json(endpoint + "/console/api/config")
        try:
            with urllib.request.urlopen(endpoint + "/console/", timeout=30) as r:
                page_status, page = r.status, r.read()
        except urllib.error.HTTPError as e:
            page_status, page = e.code, e.read()
        if served:
            # The start-up lines say where (a second line, only when served).
            second = proc.stdout.readline()
            assert second.startswith("console: http://") and second.endswith(
                "/console/ (read-only: --console-writes lets it write)\n")
            assert status == 200 and config["Writes"] is False
            assert page.startswith(b"<!doctype html>")
        else:
            assert status == 404 and "--console" in config["message"]
            # Only / is the health check: the console's path is unknown.
            assert (page_status, page) == (404, b"<UnknownOperationException/>\n")
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
