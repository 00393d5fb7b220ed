#!/usr/bin/env python3
"""Issue 24: the memory of the history checkpoints, RSS with a backlog of pending timers.

Starts `cowboy-devnet serve --no-mining` twice on loopback: with the default `--history`
(10,000 heights: a checkpoint of the chain every 256 heights, about 40) and, as the baseline
in the same run, with `--history 300` (one or two checkpoints). Each deploys 100 actors and
schedules PENDING timers (default 100,000) far ahead, ten per block (a block's transaction
cycles fit ten), mining a block after each ten, then mines BLOCKS more single blocks, and prints
the server's RSS. The difference between the two runs is what the checkpoints hold.

Not run by `cargo test` (it takes minutes). Usage:

    cargo build --release
    python3 benches/scripts/checkpoint_rss.py target/release/cowboy-devnet [PENDING] [BLOCKS] [PORT]
"""
import json
import os
import subprocess
import sys
import time
import urllib.request

BIN = sys.argv[1] if len(sys.argv) > 1 else "target/release/cowboy-devnet"
PENDING = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
BLOCKS = int(sys.argv[3]) if len(sys.argv) > 3 else 2_000
PORT = int(sys.argv[4]) if len(sys.argv) > 4 else 18646


def call(body):
    req = urllib.request.Request(f"http://127.0.0.1:{PORT}", json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.loads(r.read())


def rpc(method, params):
    v = call({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    if "error" in v:
        raise RuntimeError(f"{method}: {v['error']}")
    return v["result"]


def batch(reqs):
    out = call([{"jsonrpc": "2.0", "id": i, "method": m, "params": p} for i, (m, p) in enumerate(reqs)])
    if isinstance(out, dict):
        raise RuntimeError(str(out)[:300])
    errors = [o for o in out if "error" in o]
    if errors:
        raise RuntimeError(str(errors[0])[:300])


def rss_mb(pid):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from dashboard_bucket import rss_mb as rss  # noqa: E402

    return rss(pid)


def one(extra):
    server = subprocess.Popen([BIN, "serve", "--no-mining", "--port", str(PORT)] + extra,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                rpc("devnet_blockNumber", [])
                break
            except Exception:
                time.sleep(0.1)
        actors = [rpc("actor_deploy", [{"balance": str(10**19)}]) for _ in range(100)]
        h = rpc("devnet_blockNumber", [])
        reqs = [("timer_schedule", [{"actor": actors[i % 100], "height": h + 20_000 + (i * 7) % 20_000}])
                for i in range(PENDING)]
        for i in range(0, len(reqs), 10):
            batch(reqs[i:i + 10] + [("devnet_mine", [])])
        scheduled = rss_mb(server.pid)
        for _ in range(BLOCKS // 100):
            batch([("devnet_mine", [])] * 100)
        return scheduled, rss_mb(server.pid), rpc("devnet_blockNumber", [])
    finally:
        server.terminate()
        server.wait(timeout=30)


def main():
    runs = [("--history 10000 (default)", []), ("--history 300 (baseline)", ["--history", "300"])]
    rows = [(name, *one(extra)) for name, extra in runs]
    print(f"{'run':28} {'RSS scheduled':>14} {'RSS after':>10} {'height':>7}")
    for name, a, b, h in rows:
        print(f"{name:28} {a:12.1f}MB {b:8.1f}MB {h:7d}")
    print(f"checkpoints hold about {rows[0][2] - rows[1][2]:.0f} MB")


if __name__ == "__main__":
    main()
