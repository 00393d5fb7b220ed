#!/usr/bin/env python3
"""Issue 31, "with history kept whole, RSS growth of a 1M-height jump with 10,000 fires within
2x of the same 10,000 fires stepped over 10,000 heights": two fresh `serve --no-mining
--history 2000000` (the whole session kept, as anvil keeps it), one per scene.

    python3 benches/scripts/jump_history_rss.py BIN PORT [TIMERS]

Each scene deploys TIMERS/1,000 + 1 actors (an actor holds at most 1,024 timers), schedules
TIMERS timers through `timer_schedule` (1,000 a block, batches of 100 requests), reads RSS
(`loaded`), then passes the heights they are due at and reads RSS again:

* `jump`: the timers spread evenly over the next 999,900 heights (from head + 50), passed by
  one `devnet_mine [1000000]`;
* `stepped`: the timers spread over the next 10,000 heights (one a height, from head + 50),
  passed by `devnet_mine [1]` per height (10,050 requests, in batches of 100): each height
  sealed alone, as a user stepping would.

Prints per scene: RSS loaded and after, the growth, the wall time of the passing, how many
timers fired (`timer_get` of a sample of 100: status) and the head; then the jump's growth
over the stepped one's (target <= 2x). Not run by `cargo test` (a release build is needed).
"""
import os
import subprocess
import sys
import time

# The JSON-RPC helpers of the dashboard scene beside this script.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dashboard_bucket import (  # noqa: E402
    call, deploy_actors, rpc, rss_mb, schedule_blocks, wait_ready)

SPAN_JUMP = 999_900


def scene(bin_, port, n, jump):
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([bin_, "serve", "--no-mining", "--history", "2000000",
                               "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    try:
        wait_ready(url)
        n_actors = n // 1000 + 1
        actors = deploy_actors(url, n_actors)
        rpc(url, "devnet_mine", [])
        first = rpc(url, "devnet_blockNumber", []) + 50
        span = SPAN_JUMP if jump else n
        answers = schedule_blocks(url, n, lambda i: {"actor": actors[i % n_actors],
                                                      "height": first + i * span // n})
        for o in answers:
            if "error" in o:
                raise RuntimeError(f"refused: {o['error']}")
        ids = [o["result"] for o in answers]
        head = rpc(url, "devnet_blockNumber", [])
        loaded = rss_mb(server.pid)
        t0 = time.time()
        if jump:
            rpc(url, "devnet_mine", [1_000_000])
        else:
            steps = first + span - head
            for j in range(0, steps, 100):
                reqs = [{"jsonrpc": "2.0", "id": k, "method": "devnet_mine", "params": [1]}
                        for k in range(min(100, steps - j))]
                call(url, reqs)
        took = time.time() - t0
        after = rss_mb(server.pid)
        sample = ids[:: max(1, len(ids) // 100)]
        statuses = {}
        for t in sample:
            view = rpc(url, "timer_get", [t if isinstance(t, str) else t.get("timer_id")])
            s = view.get("status") if view else None
            statuses[s] = statuses.get(s, 0) + 1
        name = "jump" if jump else "stepped"
        print(f"{name:<8} {len(ids)} timers over {span} heights: RSS loaded {loaded:8.1f} MB, "
              f"after {after:8.1f} MB, growth {after - loaded:8.1f} MB; passed in {took:6.1f} s; "
              f"head {rpc(url, 'devnet_blockNumber', [])}; sample statuses {statuses}",
              flush=True)
        return after - loaded
    finally:
        code = server.poll()
        if code is not None:
            print(f"the server had stopped: exit {code}", flush=True)
        server.kill()
        server.wait()


def main(bin_, port, n):
    stepped = scene(bin_, port, n, False)
    jumped = scene(bin_, port, n, True)
    print(f"jump growth / stepped growth: {jumped / stepped:.2f}x (target <= 2x)", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 10_000)
