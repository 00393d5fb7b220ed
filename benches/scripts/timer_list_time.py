#!/usr/bin/env python3
"""Issue 32's finder over a live node (Spec notes 172, 224): how long a `timer_list` page takes
with N timers pending, scheduled by transactions (so that a node that wrote a compact record at
schedule time had one per timer).

    python3 benches/scripts/timer_list_time.py BIN PORT [N]

Starts `serve --no-mining`, schedules N timers through `timer_schedule` (1,000 a block, due
far ahead), mines 20 blocks, then asks, 9 times each, the first page of 1,000 with no filter,
the page at position N/2, and a page filtered by status `pending`; prints the median and the
spread of each in ms, and the server's RSS. Not run by `cargo test` (minutes at 1M; a release
build is needed).
"""
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dashboard_bucket import deploy_actors, rpc, rss_mb, schedule_blocks, wait_ready  # noqa: E402


def timed(url, params, times=9):
    out = []
    for _ in range(times):
        t0 = time.perf_counter()
        rpc(url, "timer_list", params)
        out.append((time.perf_counter() - t0) * 1000)
    return statistics.median(out), min(out), max(out)


def main(bin_, port, n):
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([bin_, "serve", "--no-mining", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    try:
        wait_ready(url)
        n_actors = max(1, n // 1000)
        actors = deploy_actors(url, n_actors)
        rpc(url, "devnet_mine", [])
        first = rpc(url, "devnet_blockNumber", []) + 50_000
        schedule_blocks(url, n, lambda i: {"actor": actors[i % n_actors],
                                           "height": first + i % 200_000})
        rpc(url, "devnet_mine", [20])
        print(f"{n} scheduled; RSS {rss_mb(server.pid):.1f} MB", flush=True)
        for name, params in [
            ("first page of 1,000", [None, None, {"limit": 1000}]),
            (f"page at {n // 2}", [None, None, {"limit": 1000, "cursor": str(n // 2)}]),
            ("status pending, 1,000", [{"status": "pending"}, None, {"limit": 1000}]),
        ]:
            med, lo, hi = timed(url, params)
            print(f"  {name:<24} median {med:8.1f} ms  ({lo:.1f}-{hi:.1f})", flush=True)
    finally:
        server.kill()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 100_000)
