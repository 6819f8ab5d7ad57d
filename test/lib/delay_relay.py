#!/usr/bin/env python3
# A TCP relay that holds every byte for a fixed time in each direction, in order: the
# network-partition test puts one on a server's path to etcd to give that link a real latency
# (the kernels the tests run on may lack netem, tc's delay queue). Connections are opened to the
# target at once; only the data waits.
# Usage: delay_relay.py DELAY_MS LISTEN_HOST:PORT=TARGET_HOST:PORT ...
import asyncio
import sys


def address(text):
    host, port = text.rsplit(':', 1)
    return host, int(port)


async def forward(reader, writer, delay):
    """Copies reader to writer, each chunk written `delay` seconds after it was read."""
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue()

    async def send():
        while True:
            due, data = await queue.get()
            await asyncio.sleep(max(0.0, due - loop.time()))
            if data is None:
                writer.close()
                return
            writer.write(data)
            await writer.drain()

    sender = asyncio.create_task(send())
    try:
        while data := await reader.read(65536):
            queue.put_nowait((loop.time() + delay, data))
    except OSError:
        pass
    queue.put_nowait((loop.time() + delay, None))
    try:
        await sender
    except OSError:
        writer.close()


async def main(delay_ms, routes):
    delay = delay_ms / 1000.0
    servers = []
    for route in routes:
        listen, target = (address(part) for part in route.split('='))

        async def handle(client_reader, client_writer, target=target):
            try:
                target_reader, target_writer = await asyncio.open_connection(*target)
            except OSError:
                client_writer.close()
                return
            await asyncio.gather(forward(client_reader, target_writer, delay),
                                 forward(target_reader, client_writer, delay), return_exceptions=True)

        servers.append(await asyncio.start_server(handle, *listen))
    print('relaying', flush=True)
    await asyncio.gather(*(s.serve_forever() for s in servers))


if __name__ == '__main__':
    asyncio.run(main(int(sys.argv[1]), sys.argv[2:]))
