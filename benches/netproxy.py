#!/usr/bin/env python3
"""A TCP proxy that puts a network between liftdb and a server, and counts.

    python3 benches/netproxy.py --listen PORT --to HOST:PORT [--delay-ms D] --control PORT

Every chunk is held D ms before it is passed on, in each direction, so a
round trip costs 2·D more, as a server D ms away costs (the chunks of one
direction keep their order). It counts round trips the way a client waits
for them: a chunk the client sends after the server last replied starts one.
`--log FILE`: each round trip's start time, a line each (to line them up
with a query log). `--control PORT`: a connection there gets "round_trips connections\\n" and
resets both counts; `delay MS\\n` sent there sets the delay.
"""

import argparse
import asyncio
import time

state = {"round_trips": 0, "connections": 0, "delay": 0.0}


async def pipe(reader, writer, side, turn):
    """Pass chunks from reader to writer, each held the delay."""
    queue = asyncio.Queue()

    async def deliver():
        while True:
            due, data = await queue.get()
            if data is None:
                break
            wait = due - asyncio.get_running_loop().time()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(data)
            await writer.drain()
        writer.close()

    sender = asyncio.create_task(deliver())
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            if side == "client" and turn["last"] != "client":
                state["round_trips"] += 1
                if state.get("log"):
                    state["log"].write(f"{time.time():.6f}\n")
            turn["last"] = side
            queue.put_nowait((asyncio.get_running_loop().time() + state["delay"], data))
    except (ConnectionResetError, BrokenPipeError):
        pass
    queue.put_nowait((0, None))
    try:
        await sender
    except (ConnectionResetError, BrokenPipeError):
        pass


async def serve(client_reader, client_writer, host, port):
    state["connections"] += 1
    try:
        server_reader, server_writer = await asyncio.open_connection(host, port)
    except OSError:
        client_writer.close()
        return
    turn = {"last": None}
    await asyncio.gather(
        pipe(client_reader, server_writer, "client", turn),
        pipe(server_reader, client_writer, "server", turn),
    )


async def control(reader, writer):
    line = await reader.readline()
    words = line.decode().split()
    if words[:1] == ["delay"]:
        state["delay"] = float(words[1]) / 1000
    writer.write(f"{state['round_trips']} {state['connections']}\n".encode())
    state["round_trips"] = 0
    state["connections"] = 0
    await writer.drain()
    writer.close()


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--listen", type=int, required=True)
    ap.add_argument("--to", required=True)
    ap.add_argument("--delay-ms", type=float, default=0)
    ap.add_argument("--control", type=int, required=True)
    ap.add_argument("--log", help="append each round trip's start (Unix seconds) to this file")
    args = ap.parse_args()
    host, port = args.to.rsplit(":", 1)
    state["delay"] = args.delay_ms / 1000
    if args.log:
        state["log"] = open(args.log, "a", buffering=1)
    proxy = await asyncio.start_server(
        lambda r, w: serve(r, w, host, int(port)), "127.0.0.1", args.listen
    )
    ctl = await asyncio.start_server(control, "127.0.0.1", args.control)
    async with proxy, ctl:
        await asyncio.gather(proxy.serve_forever(), ctl.serve_forever())


if __name__ == "__main__":
    asyncio.run(main())
