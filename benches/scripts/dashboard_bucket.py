#!/usr/bin/env python3
"""Issue 31, "the dashboard asks for what it shows": a served devnet with one bucket of BUCKET
carried timers (default 100,000), for a dashboard attached to it (`cowboy-devnet --attach`).

    python3 benches/scripts/dashboard_bucket.py load BIN PORT [BUCKET] [SCHEDULER] [BLOCK_TIME] [PER_BLOCK]
    python3 benches/scripts/dashboard_bucket.py cpu PID [SECONDS]
    python3 benches/scripts/dashboard_bucket.py keys TMUX_SESSION KEY [PRESSES] [QUIET_S]

`load` starts `BIN serve --no-mining --port PORT --scheduler SCHEDULER` in the background,
deploys 100 actors (BUCKET / 1,000 for more than 100,000 timers; endowed so that none runs dry), schedules BUCKET timers (default gas, a few
fit the lane per block) all due at one height a little after the loading ends, PER_BLOCK per
mined block (default 10; 1,000 for a million: batches of 100 requests in one HTTP body each,
then a `devnet_mine` per block), mines up to that height (the lane fires a few, the rest are carried to the next
bucket), switches to interval mining at BLOCK_TIME seconds (default 1) and prints the server's
pid; the server keeps running (stop it with `kill PID`). `cpu` prints a process's CPU use over
SECONDS (default 30) from /proc/PID/stat, and its RSS. `keys` presses KEY (a tmux key name:
`Tab`, `j`, `NPage`, `[`) PRESSES times (default 12) in a dashboard running in TMUX_SESSION and
times each answer: from the press to the pane's last change before it stays the same for
QUIET_S seconds (default 0.5; polled every 5 ms, colours included; 30 s at most): the key's own
drawing and the refresh it asked for (pause the mining meanwhile, so that only the key
changes the screen); with QUIET_S 0, to the pane's first change.

Not run by `cargo test` (it takes minutes; a release build is needed).
"""
import json
import os
import subprocess
import sys
import time
import urllib.request

ACTORS = 100


def call(url, body):
    req = urllib.request.Request(url, json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=600) as r:
        return json.loads(r.read())


def rpc(url, method, params):
    v = call(url, {"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    if "error" in v:
        raise RuntimeError(f"{method}: {v['error']}")
    return v["result"]


def wait_ready(url):
    """Waits (up to 20 s) until the server at `url` answers."""
    for _ in range(200):
        try:
            rpc(url, "devnet_blockNumber", [])
            return
        except Exception:
            time.sleep(0.1)


def rss_mb(pid):
    """The process's resident set (`/proc/PID/status` VmRSS), in MB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def deploy_actors(url, n, fund=True):
    """Deploys `n` actors endowed with 10^21 each and returns their addresses; with `fund`,
    the deploying dev account is first given what that takes (and a margin for fees)."""
    if fund:
        dev = rpc(url, "devnet_accounts", [])[0]["address"]
        rpc(url, "devnet_setBalance", [dev, str(10**21 * (n + 10))])
    return [rpc(url, "actor_deploy", [{"balance": str(10**21)}]) for _ in range(n)]


def schedule_blocks(url, n, timer):
    """Schedules `n` timers through `timer_schedule`, 1,000 a block (each block's requests and
    its `devnet_mine` sent in batches of 100); `timer(i)` is the i-th timer's params. Returns
    the answers to the schedules, in order."""
    out = []
    for i in range(0, n, 1000):
        reqs = [{"jsonrpc": "2.0", "id": k, "method": "timer_schedule", "params": [timer(i + k)]}
                for k in range(min(1000, n - i))]
        reqs.append({"jsonrpc": "2.0", "id": "mine", "method": "devnet_mine", "params": []})
        for j in range(0, len(reqs), 100):
            answers = call(url, reqs[j:j + 100])
            if isinstance(answers, dict):
                raise RuntimeError(f"batch refused: {answers.get('error')}")
            out.extend(o for o in answers if o["id"] != "mine")
    return out


def load(bin_, port, bucket, scheduler, block_time, per_block=10):
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [bin_, "serve", "--no-mining", "--port", str(port), "--scheduler", scheduler],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    wait_ready(url)
    # An actor holds at most 1,024 live timers (the default `max_timers_per_actor`).
    n_actors = max(ACTORS, bucket // 1000)
    # Each actor endowed as with 100: beyond those, the deploying account is given what it takes.
    actors = deploy_actors(url, n_actors, fund=n_actors > ACTORS)
    rpc(url, "devnet_mine", [])
    due = rpc(url, "devnet_blockNumber", []) + bucket // per_block + 20
    t0 = time.time()
    refused = 0
    for i in range(0, bucket, per_block):
        reqs = [{"jsonrpc": "2.0", "id": k, "method": "timer_schedule",
                 "params": [{"actor": actors[(i + k) % n_actors], "height": due}]}
                for k in range(min(per_block, bucket - i))]
        reqs.append({"jsonrpc": "2.0", "id": "mine", "method": "devnet_mine", "params": []})
        # The server takes at most 100 requests in one batch.
        for j in range(0, len(reqs), 100):
            answers = call(url, reqs[j:j + 100])
            if isinstance(answers, dict):
                raise RuntimeError(f"batch refused: {answers.get('error')}")
            refused += sum(1 for o in answers if "error" in o)
    h = rpc(url, "devnet_blockNumber", [])
    rpc(url, "devnet_mine", [due - h])
    buckets = rpc(url, "scheduler_buckets", [2])
    rpc(url, "devnet_setMining", [{"mode": "interval", "block_time": block_time}])
    print(f"{bucket - refused} timers scheduled for #{due} in {time.time() - t0:.0f}s "
          f"({refused} refused); head #{due}, buckets {buckets}", flush=True)
    print(server.pid, flush=True)


def cpu(pid, seconds):
    tick = os.sysconf("SC_CLK_TCK")

    def used():
        with open(f"/proc/{pid}/stat") as f:
            parts = f.read().rsplit(")", 1)[1].split()
        return (int(parts[11]) + int(parts[12])) / tick

    def rss():
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    a, t0 = used(), time.time()
    time.sleep(seconds)
    b, t1 = used(), time.time()
    print(f"pid {pid}: {100 * (b - a) / (t1 - t0):.1f} % CPU over {t1 - t0:.0f} s, "
          f"RSS {rss():.0f} MB, load {os.getloadavg()[0]:.2f}", flush=True)


def keys(session, key, presses, quiet):
    def screen():
        return subprocess.run(["tmux", "capture-pane", "-e", "-p", "-t", session],
                              capture_output=True, text=True).stdout

    times = []
    for _ in range(presses):
        last = screen()
        t0 = time.time()
        changed = t0
        subprocess.run(["tmux", "send-keys", "-t", session, key])
        # Settled: no change for `quiet` seconds (the key's refresh answered and was drawn);
        # with `quiet` 0, the first change.
        while time.time() - t0 < 30:
            now = screen()
            if now != last:
                last, changed = now, time.time()
                if quiet == 0:
                    break
            elif changed > t0 and time.time() - changed >= quiet:
                break
            time.sleep(0.005)
        times.append(1000 * (changed - t0))
        time.sleep(0.2)
    times.sort()
    print(f"{key}: {presses} presses, ms: median {times[len(times) // 2]:.0f}, "
          f"max {times[-1]:.0f}, all {[round(t) for t in times]}", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "load":
        load(sys.argv[2], int(sys.argv[3]),
             int(sys.argv[4]) if len(sys.argv) > 4 else 100_000,
             sys.argv[5] if len(sys.argv) > 5 else "fifo",
             float(sys.argv[6]) if len(sys.argv) > 6 else 1.0,
             int(sys.argv[7]) if len(sys.argv) > 7 else 10)
    elif sys.argv[1] == "keys":
        keys(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 12,
             float(sys.argv[5]) if len(sys.argv) > 5 else 0.5)
    else:
        cpu(int(sys.argv[2]), float(sys.argv[3]) if len(sys.argv) > 3 else 30)
