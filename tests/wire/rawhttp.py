"""Raw HTTP/1.1 over a socket, for the wire tests that need what clients
libraries hide: keep-alive sockets held open, partial requests, exact
headers and bodies as sent."""
import socket
from urllib.parse import urlparse


def connect(endpoint, timeout=10):
    url = urlparse(endpoint)
    return socket.create_connection((url.hostname, url.port), timeout=timeout)


def read_response(sock):
    """One response from a keep-alive socket: (status, headers lower-cased,
    body bytes as sent)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed before a response")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = {k.lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:])}
    while len(body) < int(headers.get("content-length", 0)):
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed mid-body")
        body += chunk
    return int(lines[0].split()[1]), headers, body


def raw(endpoint, request, timeout=30):
    """Sends raw HTTP bytes on a new connection; returns read_response()."""
    with connect(endpoint, timeout) as s:
        s.sendall(request)
        return read_response(s)
