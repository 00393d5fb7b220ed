#!/usr/bin/env python3
"""Issue 31 item 6: a long-running `serve` at 10 blocks a second with a 100,000-timer backlog,
RSS every 30 s, under fifo and under eip1559 (target: under 300 MB for 30 minutes).

For each scheduler asked for, starts `cowboy-devnet serve --no-mining --scheduler S` on its own
port, deploys 100 actors (endowed so that none runs dry), schedules BACKLOG timers (default
100,000; default gas, so a few fit the lane per block) due over the next 200 heights, ten per
mined block (a block's transaction cycles fit ten), then switches to interval mining at 0.1 s
and samples the server's RSS, height, pending timers and the head block's events every 30 s
for SECONDS. The schedulers run at the same time, each in its own thread and process.

Not run by `cargo test` (it takes minutes; a release build is needed). Usage:

    cargo build --release
    python3 benches/scripts/serve_rss.py target/release/cowboy-devnet [SECONDS] [BACKLOG] \
        [SCHEDULERS] [PORT]

SCHEDULERS is comma-separated (default `fifo,eip1559`); the ports are PORT, PORT+1, ...
`SERVE_ARGS` in the environment adds flags to each `serve` (e.g. `SERVE_ARGS="--checkpoint-budget
32"`).
"""
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request

BIN = sys.argv[1] if len(sys.argv) > 1 else "target/release/cowboy-devnet"
SECONDS = int(sys.argv[2]) if len(sys.argv) > 2 else 1800
BACKLOG = int(sys.argv[3]) if len(sys.argv) > 3 else 100_000
SCHEDULERS = (sys.argv[4] if len(sys.argv) > 4 else "fifo,eip1559").split(",")
PORT = int(sys.argv[5]) if len(sys.argv) > 5 else 18660
ACTORS = 100
SAMPLE = 30
TARGET_MB = 300
OUT = threading.Lock()


def say(line):
    with OUT:
        print(line, flush=True)


class Devnet:
    def __init__(self, scheduler, port):
        self.name = scheduler
        self.url = f"http://127.0.0.1:{port}"
        self.server = subprocess.Popen(
            [BIN, "serve", "--no-mining", "--port", str(port), "--scheduler", scheduler]
            + os.environ.get("SERVE_ARGS", "").split(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def call(self, body):
        req = urllib.request.Request(self.url, json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=300) as r:
            return json.loads(r.read())

    def rpc(self, method, params):
        v = self.call({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
        if "error" in v:
            raise RuntimeError(f"{method}: {v['error']}")
        return v["result"]

    def batch(self, reqs):
        out = self.call([{"jsonrpc": "2.0", "id": i, "method": m, "params": p}
                         for i, (m, p) in enumerate(reqs)])
        if isinstance(out, dict):
            raise RuntimeError(str(out)[:300])
        return [o for o in out if "error" in o]

    def rss_mb(self):
        with open(f"/proc/{self.server.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def stop(self):
        self.server.terminate()
        self.server.wait(timeout=30)

    def deploy_actors(self):
        """Waits for the server, deploys ACTORS endowed actors and mines them; returns them
        and the height after."""
        for _ in range(200):
            try:
                self.rpc("devnet_blockNumber", [])
                break
            except Exception:
                time.sleep(0.1)
        actors = [self.rpc("actor_deploy", [{"balance": str(10**21)}]) for _ in range(ACTORS)]
        self.rpc("devnet_mine", [])
        return actors, self.rpc("devnet_blockNumber", [])


def run(scheduler, port, results):
    d = Devnet(scheduler, port)
    try:
        actors, h = d.deploy_actors()
        # Due over 200 heights starting a little after the loading ends (about BACKLOG / 10
        # blocks), so the whole backlog is pending when the interval mining starts.
        first = h + BACKLOG // 10 + 20
        reqs = [("timer_schedule", [{"actor": actors[i % ACTORS], "height": first + i % 200}])
                for i in range(BACKLOG)]
        t0 = time.time()
        refused = 0
        for i in range(0, len(reqs), 10):
            refused += len(d.batch(reqs[i:i + 10] + [("devnet_mine", [])]))
        loaded = d.rss_mb()
        say(f"[{scheduler}] {BACKLOG - refused} timers scheduled in {time.time() - t0:.0f}s, "
            f"{refused} refused; RSS {loaded:.1f} MB at #{d.rpc('devnet_blockNumber', [])}")
        d.rpc("devnet_setMining", [{"mode": "interval", "block_time": 0.1}])
        say(f"[{scheduler}] {'t(s)':>6} {'RSS MB':>8} {'height':>7} {'pending':>8} {'head events':>11}")
        samples = []
        t1 = time.time()
        while True:
            t = time.time() - t1
            h = d.rpc("devnet_blockNumber", [])
            block = d.rpc("devnet_getBlock", [h]) or {}
            rss = d.rss_mb()
            samples.append((t, rss, h, block.get("pending", "?")))
            say(f"[{scheduler}] {t:6.0f} {rss:8.1f} {h:7d} {block.get('pending', '?'):>8} "
                f"{len(block.get('events', [])):11d}")
            if t >= SECONDS:
                break
            time.sleep(max(0.0, SAMPLE - (time.time() - t1 - t)))
        results[scheduler] = (loaded, samples)
    except Exception as e:  # noqa: BLE001 - reported with the scheduler
        say(f"[{scheduler}] failed: {e}")
        results[scheduler] = None
    finally:
        d.stop()


def main():
    results = {}
    threads = [threading.Thread(target=run, args=(s, PORT + i, results))
               for i, s in enumerate(SCHEDULERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(f"{'scheduler':10} {'RSS loaded':>10} {'RSS max':>8} {'RSS last':>8} {'minutes':>7}  "
          f"target < {TARGET_MB} MB")
    for s in SCHEDULERS:
        r = results.get(s)
        if not r:
            print(f"{s:10} failed")
            continue
        loaded, samples = r
        top = max(x[1] for x in samples)
        last = samples[-1]
        print(f"{s:10} {loaded:10.1f} {top:8.1f} {last[1]:8.1f} {last[0] / 60:7.1f}  "
              f"{'ok' if top < TARGET_MB else 'OVER'}")


if __name__ == "__main__":
    main()
