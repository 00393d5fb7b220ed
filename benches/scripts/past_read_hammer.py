#!/usr/bin/env python3
"""Issue 31, "past reads off the node's thread": a stream of cold past reads against running
devnets, to run beside `serve_rss.py` (which loads a backlog and samples RSS and heights).

For SECONDS, asks each PORT in turn for `devnet_getBalance [ADDR, h]` at a random sealed height
`h` in the last 3,000 (a cold past read nearly every time: a replay from the checkpoint below
`h`), 20 ms apart, and every 50 reads of a port prints their p50 / p99 / max latency and that
port's errors by message (two builds side by side are told apart). What to watch is in `serve_rss.py`'s samples beside it: the node should keep its blocks per 30 s
(BENCHMARKS.md, "past reads against a 100,000-timer backlog").

Usage (a release build; the second starts once the backlog is loaded, about 40 s):

    python3 benches/scripts/serve_rss.py target/release/cowboy-devnet 300 100000 fifo 18740 &
    sleep 40; python3 benches/scripts/past_read_hammer.py 18740 250
"""
import json
import random
import sys
import time
import urllib.request

PORTS = [int(p) for p in (sys.argv[1] if len(sys.argv) > 1 else "18660").split(",")]
SECONDS = int(sys.argv[2]) if len(sys.argv) > 2 else 250
ADDR = "0x" + "11" * 20
SPAN = 3000


def rpc(port, method, params):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}", body,
                                 {"content-type": "application/json"})
    return json.loads(urllib.request.urlopen(req, timeout=30).read())


def main():
    start = time.time()
    # Per port (two builds side by side are told apart): reads, errors by message, latencies.
    n = {p: 0 for p in PORTS}
    errs = {p: {} for p in PORTS}
    lat = {p: [] for p in PORTS}
    while time.time() - start < SECONDS:
        for port in PORTS:
            try:
                head = rpc(port, "devnet_blockNumber", [])["result"]
                if head < 50:
                    continue
                at = random.randint(max(1, head - SPAN), head - 1)
                t = time.time()
                r = rpc(port, "devnet_getBalance", [ADDR, at])
                lat[port].append(time.time() - t)
                n[port] += 1
                if "error" in r:
                    key = r["error"]["message"][:40]
                    errs[port][key] = errs[port].get(key, 0) + 1
            except Exception as e:  # a timeout or a refused connection: counted, not fatal
                key = str(e)[:40]
                errs[port][key] = errs[port].get(key, 0) + 1
            if len(lat[port]) == 50:
                s = sorted(lat[port])
                print(f"{time.time() - start:.0f}s port {port}: {n[port]} reads, last 50 p50 "
                      f"{s[len(s) // 2] * 1000:.1f} ms p99 {s[int(len(s) * .99)] * 1000:.1f} ms "
                      f"max {s[-1] * 1000:.1f} ms errors {errs[port]}", flush=True)
                lat[port] = []
        time.sleep(0.02)
    for port in PORTS:
        print(f"done: port {port}: {n[port]} reads in {SECONDS} s, errors {errs[port]}")


if __name__ == "__main__":
    main()
