#!/usr/bin/env python3
"""Issue 20, benchmark (2): the 10,000-timer congestion repro, RSS over time.

Starts `cowboy-devnet serve --block-time 0.1`, deploys 20 actors, has 20 clients schedule
about 10,000 timers (default gas: three fit the lane per block) at heights +50..+800, then
stops the load and samples the server's RSS, height and the head block's size every few
seconds. Target (issue 20): RSS after 10 minutes under 200 MB.

Not run by `cargo test` (it takes minutes). Usage:

    cargo build --release
    python3 benches/scripts/backlog_rss.py target/release/cowboy-devnet [SECONDS] [PORT]
"""
import json
import os
import random
import subprocess
import sys
import threading
import time
import urllib.request

BIN = sys.argv[1] if len(sys.argv) > 1 else "target/release/cowboy-devnet"
SECONDS = int(sys.argv[2]) if len(sys.argv) > 2 else 600
PORT = int(sys.argv[3]) if len(sys.argv) > 3 else 18645
URL = f"http://127.0.0.1:{PORT}"
ENDOWMENT = str(10**22)
CLIENTS = 20
PER_CLIENT = 500


def rpc(method, params):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    req = urllib.request.Request(URL, body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        raw = r.read()
    v = json.loads(raw)
    if "error" in v:
        raise RuntimeError(f"{method}: {v['error']}")
    return v["result"], len(raw)


def rss_mb(pid):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from dashboard_bucket import rss_mb as rss  # noqa: E402

    return rss(pid)


def main():
    server = subprocess.Popen(
        [BIN, "serve", "--block-time", "0.1", "--port", str(PORT)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            try:
                rpc("devnet_blockNumber", [])
                break
            except Exception:
                time.sleep(0.1)
        # Each actor pays for its own timers: endowed so that none runs dry, the backlog is
        # carried behind the full lane (not removed as unfunded in the first blocks).
        actors = [rpc("actor_deploy", [{"balance": ENDOWMENT}])[0] for _ in range(CLIENTS)]
        start_height = rpc("devnet_blockNumber", [])[0]
        errors = []

        def client(i):
            rnd = random.Random(i)
            for _ in range(PER_CLIENT):
                h = rpc("devnet_blockNumber", [])[0]
                try:
                    rpc("timer_schedule", [{"actor": actors[i], "height": h + rnd.randint(50, 800)}])
                except Exception as e:  # noqa: BLE001 - counted and reported
                    errors.append(str(e))

        t0 = time.time()
        threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        load = time.time() - t0
        print(f"load: {CLIENTS * PER_CLIENT - len(errors)} timers scheduled in {load:.1f}s "
              f"from #{start_height}, {len(errors)} refused"
              + (f" (first: {errors[0][:120]})" if errors else ""))
        print(f"{'t(s)':>6} {'RSS MB':>8} {'height':>7} {'head events':>11} {'head bytes':>10} {'pending':>8}")
        t1 = time.time()
        while time.time() - t1 < SECONDS:
            h = rpc("devnet_blockNumber", [])[0]
            block, size = rpc("devnet_getBlock", [h])
            events = len(block.get("events", [])) if block else 0
            pending = block.get("pending", "?") if block else "?"
            print(f"{time.time() - t1:6.0f} {rss_mb(server.pid):8.1f} {h:7d} {events:11d} {size:10d} {pending:>8}",
                  flush=True)
            time.sleep(15)
        final = rss_mb(server.pid)
        print(f"RSS after {SECONDS}s: {final:.1f} MB (target < 200 MB): {'ok' if final < 200 else 'OVER'}")
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
