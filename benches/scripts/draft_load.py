#!/usr/bin/env python3
"""Issue 31 (fifth session): what loading a timer backlog costs per scheduler. For each scheduler
asked for, one after the other, starts `cowboy-devnet serve --no-mining --scheduler S` on PORT,
deploys 100 actors, then schedules BACKLOG timers through `timer_schedule` (due over 200 heights
after the loading, ten per mined block, as `serve_rss.py` loads them) and prints, per tenth of
the backlog, the wall time of that tenth (ms per batch of ten schedules and a mine) and the
server's CPU time, so a cost that grows with the pending timers shows as a rising column.

Not run by `cargo test`. Usage:

    python3 benches/scripts/draft_load.py BIN [BACKLOG] [SCHEDULERS] [PORT]

SCHEDULERS is comma-separated (default `fifo,cip5-draft`).
"""
import os
import sys
import time

# serve_rss reads its own arguments when imported: it gets only the binary's.
_ARGS, sys.argv = sys.argv, sys.argv[:2]
import serve_rss  # noqa: E402 - after the arguments are set aside
from serve_rss import Devnet  # noqa: E402
sys.argv = _ARGS

BIN = sys.argv[1] if len(sys.argv) > 1 else "target/release/cowboy-devnet"
BACKLOG = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
SCHEDULERS = (sys.argv[3] if len(sys.argv) > 3 else "fifo,cip5-draft").split(",")
PORT = int(sys.argv[4]) if len(sys.argv) > 4 else 18861
serve_rss.BIN = BIN


def cpu_s(pid):
    """The server's user + system CPU seconds so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(scheduler):
    d = Devnet(scheduler, PORT)
    try:
        actors, h = d.deploy_actors()
        first = h + BACKLOG // 10 + 20
        tenth = max(10, BACKLOG // 10)
        print(f"[{scheduler}] {'scheduled':>9} {'wall s':>7} {'ms/batch':>8} {'cpu s':>6} "
              f"{'RSS MB':>7}", flush=True)
        refused = 0
        t_all = time.time()
        for start in range(0, BACKLOG, tenth):
            t0, c0 = time.time(), cpu_s(d.server.pid)
            for i in range(start, min(BACKLOG, start + tenth), 10):
                reqs = [("timer_schedule", [{"actor": actors[j % len(actors)], "height": first + j % 200}])
                        for j in range(i, min(BACKLOG, i + 10))]
                refused += len(d.batch(reqs + [("devnet_mine", [])]))
            wall = time.time() - t0
            print(f"[{scheduler}] {min(BACKLOG, start + tenth):9d} {wall:7.1f} "
                  f"{1000 * wall / (tenth / 10):8.2f} {cpu_s(d.server.pid) - c0:6.1f} "
                  f"{d.rss_mb():7.1f}", flush=True)
        print(f"[{scheduler}] {BACKLOG} in {time.time() - t_all:.0f}s, {refused} refused", flush=True)
    finally:
        d.stop()


for s in SCHEDULERS:
    run(s)
