#!/usr/bin/env python3
"""Issue 31, "a pending timer costs <= 400 B of RSS in the live node at the default history
(measured at 1M)": a `serve` (default flags but `--no-mining`) given N pending timers through
`timer_schedule`, with the blocks that loaded them then passed out of the history window, so
that what is left is what the pending timers cost, not the loading's own history.

    python3 benches/scripts/pending_rss.py BIN PORT [N]

Deploys N/1,000 actors (an actor holds at most 1,024 timers; each endowed) and one more for
the blocks after the jump, mines, reads RSS
(`before`); schedules N timers (1,000 a block, batches of 100 requests) due far beyond every
height the run reaches (spread over 200,000 heights from head + 50,000); reads RSS (`loaded`);
twice jumps 10,001 quiet heights (`devnet_mine`) and mines 300 blocks with one `timer_schedule`
each (a block with a body: the node places a checkpoint every 256 and trims the heap after it,
Spec note 201), so that the loading blocks, then the checkpoint the window's first heights
replayed from and the session log before it, leave the 10,000-height window; reads RSS
(`after the window`). Prints each with the bytes per pending timer beyond `before`.

`MINE=step`: the quiet heights are mined one at a time (`devnet_mine` without a count, sent
in batches of 100), as a node under interval mining seals them, not jumped: the far backlog's
tier migrations then happen one sealed height at a time, where the node checks its newest
checkpoint after enough of them (Spec note 227), not after a jump (Spec note 225).

`PASSES=N`: N passes of 10,001 quiet heights and 300 blocks (2 by default; with `MINE=step` at
a million, 3 cross enough epoch ends for the migrated timers to reach note 227's threshold).

`HOLD=SECONDS`: the server is kept that long after the figures (its pid printed), to be asked
through gdb (`call malloc_stats()`), as in BENCHMARKS.md "where a pending timer's RSS goes".

Not run by `cargo test` (minutes at 1M; a release build is needed).
"""
import os
import subprocess
import sys
import time

# The JSON-RPC helpers of the dashboard scene beside this script.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dashboard_bucket import call, deploy_actors, rpc, rss_mb, schedule_blocks, wait_ready  # noqa: E402


def pass_quiet(url, heights):
    """Passes `heights` quiet heights: one jump, or (`MINE=step`) one height a request."""
    if os.environ.get("MINE") != "step":
        rpc(url, "devnet_mine", [heights])
        return
    for start in range(0, heights, 100):
        batch = [{"jsonrpc": "2.0", "id": i, "method": "devnet_mine", "params": []}
                 for i in range(min(100, heights - start))]
        answers = call(url, batch)
        if not isinstance(answers, list) or any("error" in a for a in answers):
            raise RuntimeError(f"batch refused: {answers}")


def main(bin_, port, n):
    url = f"http://127.0.0.1:{port}"
    # `SERVER_LOG=FILE`: the server's output there.
    log = open(os.environ["SERVER_LOG"], "w") if "SERVER_LOG" in os.environ else None
    out = log or subprocess.DEVNULL
    server = subprocess.Popen([bin_, "serve", "--no-mining", "--port", str(port)],
                              stdout=out, stderr=out, start_new_session=True)
    try:
        wait_ready(url)
        n_actors = max(1, n // 1000)
        actors = deploy_actors(url, n_actors)
        # The actor whose timers make the 300 blocks with a body after the jump.
        ticker = rpc(url, "actor_deploy", [{"balance": str(10**21)}])
        rpc(url, "devnet_mine", [])
        before = rss_mb(server.pid)
        first = rpc(url, "devnet_blockNumber", []) + 50_000
        t0 = time.time()
        answers = schedule_blocks(url, n, lambda i: {"actor": actors[i % n_actors],
                                                      "height": first + i % 200_000})
        refused = sum(1 for o in answers if "error" in o)
        pending = n - refused
        loaded = rss_mb(server.pid)
        print(f"{pending} timers pending ({refused} refused) in {time.time() - t0:.0f} s",
              flush=True)
        # `loaded` counts the loaded timers only; `after the window` the 300 a pass more too.
        # Twice by default: the loading blocks leave the window, then so does the checkpoint the
        # window's first heights replayed from (and the session log before it).
        passes = int(os.environ.get("PASSES", "2"))
        for _ in range(passes):
            t = time.time()
            pass_quiet(url, 10_001)
            print(f"  10,001 quiet heights passed in {time.time() - t:.0f} s, RSS "
                  f"{rss_mb(server.pid):.1f} MB", flush=True)
            for _ in range(300):
                rpc(url, "timer_schedule", [{"actor": ticker, "height": first}])
                rpc(url, "devnet_mine", [])
        pending += 300 * passes
        after = rss_mb(server.pid)
        for name, mb in [("before (actors deployed)", before), ("loaded", loaded),
                         ("after the window", after)]:
            per = (mb - before) * 1024 * 1024 / pending
            print(f"  {name:<26} RSS {mb:8.1f} MB  {per:7.0f} B per pending timer",
                  flush=True)
        hold = int(os.environ.get("HOLD", "0"))
        if hold:
            print(f"  held for {hold} s: pid {server.pid}", flush=True)
            time.sleep(hold)
    finally:
        code = server.poll()
        if code is not None:
            print(f"the server had stopped: exit {code}", flush=True)
        server.kill()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 1_000_000)
