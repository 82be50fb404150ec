"""Inside the sandbox: relay 127.0.0.1:PORT to the worker's egress proxy socket, run the agent.

Usage: ``python -I -S egress_forwarder.py SOCKET PORT -- AGENT_ARGV...``. Stdlib only (it runs
isolated, in a network namespace that has only loopback), and it imports next to nothing: it
stands between bubblewrap and every agent, so its start is part of every job's cost. It listens
before the agent starts, so the agent's first connection finds it, leaves the relay to a
detached grandchild and then becomes the agent (exec): bubblewrap sees the agent's own exit, and
the relay, which is no child of the agent (an agent that waits for all its children does not
wait for it), dies with the sandbox's PID namespace when the agent exits.
"""

from __future__ import annotations

import _socket as socket  # the C module: `socket` imports enum and selectors, ~10 ms
import os
import sys

READ_CHUNK = 1 << 16
NOT_STARTED = 127


def pipe(source: socket.socket, target: socket.socket) -> None:
    """Copy `source` to `target` until `source` ends, then end `target`'s writing side."""
    try:
        while data := source.recv(READ_CHUNK):
            target.sendall(data)
        target.shutdown(socket.SHUT_WR)
    except OSError:
        for end in (source, target):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def relay(conn: socket.socket, socket_path: str) -> None:
    """One connection of the agent, relayed both ways to the proxy socket."""
    import threading

    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(socket_path)
    except OSError as error:
        print(f"codedesk egress forwarder: proxy unreachable: {error}", file=sys.stderr)
        upstream.close()
        conn.close()
        return
    back = threading.Thread(target=pipe, args=(upstream, conn), daemon=True)
    back.start()
    pipe(conn, upstream)
    back.join()
    upstream.close()
    conn.close()


def serve(listener: socket.socket, socket_path: str) -> None:
    """Accept the agent's connections for as long as the sandbox lives."""
    while True:
        descriptor, _ = listener._accept()  # type: ignore[attr-defined]
        conn = socket.socket(fileno=descriptor)
        # Imported only once the agent connects: it would compete with the agent's start.
        import threading

        threading.Thread(target=relay, args=(conn, socket_path), daemon=True).start()


def detach_relay(listener: socket.socket, socket_path: str) -> None:
    """Run `serve` in a grandchild (double fork) and return once the middle child has gone."""
    middle = os.fork()
    if middle == 0:
        try:
            if os.fork() == 0:
                serve(listener, socket_path)
        finally:
            os._exit(0)
    os.waitpid(middle, 0)


def main(args: list[str]) -> int:
    if len(args) < 4 or args[2] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    socket_path, port, argv = args[0], int(args[1]), args[3:]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    sys.stdout.flush()
    sys.stderr.flush()
    detach_relay(listener, socket_path)
    listener.close()  # the agent never holds the listener (nor would exec pass it: not inheritable)
    try:
        os.execvp(argv[0], argv)
    except OSError as error:
        print(f"codedesk: could not start {argv[0]!r}: {error}", file=sys.stderr, flush=True)
    return NOT_STARTED


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
