"""Inside the sandbox: relay 127.0.0.1:PORT to the worker's egress proxy socket, run the agent.

Usage: ``python -I egress_forwarder.py SOCKET PORT -- AGENT_ARGV...``. Stdlib only (it runs
isolated, in a network namespace that has only loopback). It listens before the agent starts,
so the agent's first connection finds it, and exits with the agent's status when the agent
exits (a signal N as 128+N, as bubblewrap reports it).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys

READ_CHUNK = 1 << 16


async def pipe(source: asyncio.StreamReader, target: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError, OSError):
        while data := await source.read(READ_CHUNK):
            target.write(data)
            await target.drain()
        if target.can_write_eof():
            target.write_eof()


async def run(socket_path: str, port: int, argv: list[str]) -> int:
    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_unix_connection(socket_path)
        except OSError as error:
            print(f"codedesk egress forwarder: proxy unreachable: {error}", file=sys.stderr)
            writer.close()
            return
        try:
            await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        finally:
            up_writer.close()
            writer.close()

    server = await asyncio.start_server(relay, "127.0.0.1", port)
    try:
        agent = await asyncio.create_subprocess_exec(*argv)
    except OSError as error:
        print(f"codedesk: could not start {argv[0]!r}: {error}", file=sys.stderr, flush=True)
        return 127
    code = await agent.wait()
    server.close()
    return 128 - code if code < 0 else code


def main(args: list[str]) -> int:
    if len(args) < 4 or args[2] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    return asyncio.run(run(args[0], int(args[1]), args[3:]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
