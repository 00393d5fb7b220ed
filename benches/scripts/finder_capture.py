#!/usr/bin/env python3
"""Issue 32, "What the closing note shows": the timer finder at 100,000 timers, captured.

Starts `cowboy-devnet serve --no-mining` on PORT, deploys 100 actors, schedules COUNT timers
(default 100,000) over JSON-RPC in batches (ten `timer_schedule` and a `devnet_mine` a batch,
due over 2,000 heights after the loading ends), then opens the dashboard attached to it in a
tmux session of 120x34, presses `:` (the finder), and prints the pane; then types a query
(`h:12000..12010`), PgDn past the first page, and prints those too. Stops the server and the
tmux session it started. Not run by `cargo test` (minutes; a release build is wanted).

    cargo build --release
    python3 benches/scripts/finder_capture.py target/release/cowboy-devnet [COUNT] [PORT]
"""
import json
import subprocess
import sys
import time
import urllib.request

BIN = sys.argv[1] if len(sys.argv) > 1 else "target/release/cowboy-devnet"
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
PORT = int(sys.argv[3]) if len(sys.argv) > 3 else 18760
URL = f"http://127.0.0.1:{PORT}"
ACTORS = 100
SESSION = f"finder-capture-{PORT}"


def call(body):
    req = urllib.request.Request(URL, json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=300) as r:
        return json.loads(r.read())


def rpc(method, params):
    v = call({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    if "error" in v:
        raise RuntimeError(f"{method}: {v['error']}")
    return v["result"]


def batch(reqs):
    out = call([{"jsonrpc": "2.0", "id": i, "method": m, "params": p}
                for i, (m, p) in enumerate(reqs)])
    return [o for o in out if "error" in o]


def tmux(*args):
    return subprocess.run(["tmux", *args], capture_output=True, text=True).stdout


def shot(title):
    time.sleep(3)
    print(f"--- {title} ---")
    print(tmux("capture-pane", "-p", "-t", SESSION), flush=True)


def main():
    server = subprocess.Popen([BIN, "serve", "--no-mining", "--port", str(PORT)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                rpc("devnet_blockNumber", [])
                break
            except Exception:
                time.sleep(0.1)
        actors = [rpc("actor_deploy", [{"balance": str(10**21)}]) for _ in range(ACTORS)]
        rpc("devnet_mine", [])
        first = rpc("devnet_blockNumber", []) + COUNT // 10 + 20
        reqs = [("timer_schedule", [{"actor": actors[i % ACTORS], "height": first + i % 2000}])
                for i in range(COUNT)]
        t0 = time.time()
        refused = 0
        for i in range(0, len(reqs), 10):
            refused += len(batch(reqs[i:i + 10] + [("devnet_mine", [])]))
        head = rpc("devnet_head", [])
        print(f"{COUNT - refused} timers scheduled in {time.time() - t0:.0f}s, {refused} refused;"
              f" head #{head['height']}, pending {head.get('pending_timers', '?')}", flush=True)
        tmux("new", "-d", "-s", SESSION, "-x", "120", "-y", "34", BIN, "--attach", URL)
        shot("the dashboard attached")
        tmux("send-keys", "-t", SESSION, ":")
        shot("the finder (:) at 120x34")
        tmux("send-keys", "-t", SESSION, "-l", f"h:{first + 1000}..{first + 1010}")
        shot("the finder, h: window")
        for _ in range(25):
            tmux("send-keys", "-t", SESSION, "PageDown")
        shot("PgDn past the first page")
        tmux("resize-window", "-t", SESSION, "-x", "80", "-y", "24")
        shot("the same at 80x24")
    finally:
        tmux("kill-session", "-t", SESSION)
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
