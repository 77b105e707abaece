"""A proxy in front of the object store that counts what a read costs and adds a network's latency.

``python -m dsib.s3_proxy LISTEN_PORT UPSTREAM_PORT DELAY_MS`` listens on 127.0.0.1:LISTEN_PORT and
forwards every connection to the object store on 127.0.0.1:UPSTREAM_PORT. It reads each HTTP/1.1
request head (bodies framed by Content-Length or chunked encoding, so kept-alive and pipelined
connections are counted right), waits DELAY_MS before forwarding it, and counts the requests, their
methods, the bytes the server sent back and the connections opened.

``GET /__dsib__/counts`` is answered by the proxy itself, neither forwarded nor counted: the counts
since the previous such request, as JSON (``counts``). A case asks before and after the call it
counts. The latency is added here because this machine's kernel has no ``netem``
(records/prototypes/object-store-2026-11-28.md).
"""

import asyncio
import json
import sys

COUNTS_PATH = b"/__dsib__/counts"


def _zero():
    return {"requests": 0, "bytes_from_server": 0, "bytes_from_client": 0, "connections": 0, "methods": {}}


class Proxy(object):
    def __init__(self, upstream_port, delay_ms):
        self.upstream_port, self.delay = upstream_port, delay_ms / 1000.0
        self.counts = _zero()

    async def _answer_counts(self, writer):
        body = json.dumps(self.counts, sort_keys=True).encode()
        self.counts = _zero()
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body))
        writer.write(body)
        await writer.drain()

    async def _body(self, reader, upstream, headers):
        """Forward one request's body, as its headers frame it."""
        if b"chunked" in headers.get(b"transfer-encoding", b"").lower():
            while True:
                line = await reader.readuntil(b"\r\n")
                upstream.write(line)
                size = int(line.split(b";")[0], 16)
                if size == 0:
                    while True:  # trailers, then the empty line
                        trailer = await reader.readuntil(b"\r\n")
                        upstream.write(trailer)
                        if trailer == b"\r\n":
                            return
                upstream.write(await reader.readexactly(size + 2))
                self.counts["bytes_from_client"] += size
        left = int(headers.get(b"content-length", b"0"))
        while left:
            chunk = await reader.read(min(left, 1 << 20))
            if not chunk:
                raise ConnectionError("the client closed the connection in a request's body")
            upstream.write(chunk)
            left -= len(chunk)
            self.counts["bytes_from_client"] += len(chunk)

    async def _forward(self, writer, upstream_reader):
        """The server's answers back to the client, counted."""
        while True:
            data = await upstream_reader.read(1 << 16)
            if not data:
                break
            self.counts["bytes_from_server"] += len(data)
            writer.write(data)
            await writer.drain()
        writer.close()

    async def handle(self, reader, writer):
        """One client connection: its requests forwarded over a connection of its own to the server,
        opened (and counted) at its first request; the counts' request answered here."""
        upstream, answers = None, None
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except asyncio.IncompleteReadError:
                    break  # the client closed the connection
                lines = head[:-4].split(b"\r\n")
                method, path = lines[0].split(b" ")[:2]
                if method == b"GET" and path == COUNTS_PATH:
                    await self._answer_counts(writer)
                    continue
                if upstream is None:
                    self.counts["connections"] += 1
                    upstream_reader, upstream = await asyncio.open_connection("127.0.0.1", self.upstream_port)
                    answers = asyncio.ensure_future(self._forward(writer, upstream_reader))
                headers = dict((k.strip().lower(), v.strip()) for k, _, v in (x.partition(b":") for x in lines[1:]))
                self.counts["requests"] += 1
                name = method.decode()
                self.counts["methods"][name] = self.counts["methods"].get(name, 0) + 1
                if self.delay:
                    await asyncio.sleep(self.delay)
                upstream.write(head)
                await self._body(reader, upstream, headers)
                await upstream.drain()
            if answers is not None:
                upstream.write_eof()
                await answers
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()
            if upstream is not None:
                upstream.close()


async def serve(listen_port, upstream_port, delay_ms):
    proxy = Proxy(upstream_port, delay_ms)
    server = await asyncio.start_server(proxy.handle, "127.0.0.1", listen_port)
    print("dsib.s3_proxy: 127.0.0.1:%d -> 127.0.0.1:%d, %g ms a request" % (listen_port, upstream_port, delay_ms))
    sys.stdout.flush()
    async with server:
        await server.serve_forever()


def counts(port, timeout=30):
    """The proxy's counts since the previous call: requests, methods, bytes each way, connections."""
    from urllib.request import urlopen

    with urlopen("http://127.0.0.1:%d%s" % (port, COUNTS_PATH.decode()), timeout=timeout) as response:
        return json.loads(response.read().decode())


if __name__ == "__main__":
    listen, upstream, delay = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    asyncio.run(serve(listen, upstream, delay))
