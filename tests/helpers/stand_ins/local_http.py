"""A tiny real HTTP server on 127.0.0.1 (a stand-in for a model API) that records what it served,
and a TCP listener that records whether anything connected (a stand-in for a forbidden port)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BODY = b"hello from the model api\n"


@dataclass
class Served:
    port: int
    paths: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextmanager
def http_server() -> Iterator[Served]:
    served = Served(0)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the http.server name)
            served.paths.append(self.path)
            self.send_response(200)
            self.send_header("Content-Length", str(len(BODY)))
            self.end_headers()
            self.wfile.write(BODY)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    served.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        server.shutdown()
        server.server_close()


class Listener:
    """A port that records whether anything connected: the kernel completes a connection
    into the backlog without `accept`, so counting what is queued needs no waiting."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.port: int = sock.getsockname()[1]
        self.seen = 0

    def connections(self) -> int:
        self.sock.setblocking(False)
        while True:
            try:
                conn, _ = self.sock.accept()
            except BlockingIOError:
                return self.seen
            self.seen += 1
            conn.close()


@contextmanager
def tcp_listener() -> Iterator[Listener]:
    sock = socket.create_server(("127.0.0.1", 0), backlog=16)
    try:
        yield Listener(sock)
    finally:
        sock.close()
