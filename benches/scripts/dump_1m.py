#!/usr/bin/env python3
"""Issue 31 item 7: dumps, saves and exports at 1M pending timers, and what they cost the
other clients.

How the 1M timers are loaded: a state file made by `examples/big_state.rs` (1,000 code-less
actors, N bare timers inserted in bulk through the chain's test hook, as the benches do, due
over heights 10,000..210,000), started with `serve --state FILE` (which loads it). JSON-RPC
schedules would take the same state an hour to build.

For each binary given (e.g. one built before the change and one after), on a fresh copy of the
state file:

- restart: `serve --state FILE` until `devnet_blockNumber` answers (the load of 1M timers);
- `devnet_dumpState []` over HTTP: time, outcome, peak RSS;
- `devnet_dumpState [{"page_bytes": 64 MiB}]` read to the end (when the binary pages): time,
  bytes, peak RSS; the pages put together are written out and loaded back (`--load-state`);
- `devnet_exportFixture [null, NAME]` into `--export-dir`: time, peak RSS;
- a periodic `--state` save (`--state-interval`): its duration (the temporary file's life);
- SIGTERM (the final save) and a restart from the saved file.

Two other clients (processes of their own) call in a loop throughout: `devnet_blockNumber`
(answered from the published head) and `devnet_supply` (answered on the node's thread); their
p50/p99 are given idle and during each phase. RSS is sampled every 10 ms.

Usage:
    cargo build --release --example big_state
    python3 benches/scripts/dump_1m.py N PORT BIN [BIN ...]
    (BIG_STATE=FILE: use a state file made before by `big_state N FILE`)
"""
import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ARGS = [] if sys.argv[1:2] == ["--ping"] else sys.argv[1:]
N = int(ARGS[0]) if len(ARGS) > 0 else 1_000_000
PORT = int(ARGS[1]) if len(ARGS) > 1 else 18650
BINS = ARGS[2:] or ["target/release/cowboy-devnet"]
GEN = "target/release/examples/big_state"
PAGE = 64 << 20


def call(method, params, timeout=600):
    c = http.client.HTTPConnection("127.0.0.1", PORT, timeout=timeout)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    c.request("POST", "/", body, {"Content-Type": "application/json"})
    r = c.getresponse()
    raw = r.read()
    c.close()
    try:
        v = json.loads(raw)
    except ValueError:
        return None, {"http": r.status, "body": raw[:200].decode(errors="replace")}, len(raw)
    return v.get("result"), v.get("error"), len(raw)


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def pinger(port, method, out):
    """Calls `method` in a loop on one kept-alive connection (a process of its own, so the
    measuring client's own work never holds it up); writes `start latency` lines to `out`."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": []})
    conn = None
    with open(out, "w", buffering=1) as f:
        while True:
            t0 = time.time()
            try:
                if conn is None:
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                conn.request("POST", "/", body, {"Content-Type": "application/json"})
                conn.getresponse().read()
                f.write(f"{t0} {time.time() - t0}\n")
            except Exception:  # noqa: BLE001 - the server is going away
                conn = None
                time.sleep(0.01)
            time.sleep(0.002)


class Watch:
    """RSS samples (here) and two pingers (processes of their own): `devnet_blockNumber`,
    answered from the published head, and `devnet_supply`, answered on the node's thread."""

    METHODS = ("devnet_blockNumber", "devnet_supply")

    def __init__(self, pid, state_dir, work):
        self.pid, self.state_dir = pid, state_dir
        self.rss, self.tmp_seen = [], []
        self.stop = False
        self.files = {m: os.path.join(work, f"{m}.txt") for m in self.METHODS}
        self.procs = [subprocess.Popen([sys.executable, __file__, "--ping", str(PORT), m, f])
                      for m, f in self.files.items()]
        self.thread = threading.Thread(target=self.sample, daemon=True)
        self.thread.start()

    def close(self):
        self.stop = True
        for p in self.procs:
            p.kill()
            p.wait()

    def sample(self):
        while not self.stop:
            now = time.time()
            self.rss.append((now, rss_kb(self.pid)))
            if any(".tmp-" in n for n in os.listdir(self.state_dir)):
                self.tmp_seen.append(now)
            time.sleep(0.01)

    def peak_mb(self, t0, t1):
        xs = [r for t, r in self.rss if t0 <= t <= t1]
        return max(xs) / 1024 if xs else 0.0

    def lat(self, t0, t1):
        out = []
        for m, f in self.files.items():
            with open(f) as fh:
                pings = [tuple(map(float, line.split())) for line in fh if line.count(" ") == 1]
            # A call that started in the window, or was in flight over its start.
            xs = sorted(d for t, d in pings if t0 <= t <= t1 or (t < t0 and t + d > t0))
            if not xs:
                out.append(f"{m}: no calls")
                continue
            p = lambda q: xs[min(len(xs) - 1, int(q * len(xs)))] * 1000  # noqa: E731
            out.append(f"{m.removeprefix('devnet_')} p50 {p(0.5):.2f} / p99 {p(0.99):.2f} / max {xs[-1] * 1000:.1f} ms ({len(xs)})")
        return "; ".join(out)


def wait_up(proc, t0):
    while True:
        if proc.poll() is not None:
            raise RuntimeError("the server exited")
        try:
            r, _, _ = call("devnet_blockNumber", [], timeout=1)
            if r is not None:
                return time.time() - t0
        except OSError:
            pass
        time.sleep(0.05)


def serve(binary, args):
    return subprocess.Popen([binary, "serve", "--port", str(PORT), *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def run(binary, big, work):
    print(f"== {binary}")
    sdir = os.path.join(work, "s")
    edir = os.path.join(work, "exports")
    for d in (sdir, edir):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    state = os.path.join(sdir, "state.json")
    shutil.copy(big, state)
    t0 = time.time()
    proc = serve(binary, ["--state", state, "--state-interval", "25", "--export-dir", edir])
    up = wait_up(proc, t0)
    print(f"restart (load {N} timers, {os.path.getsize(big) / 1e6:.0f} MB): {up:.2f} s, RSS {rss_kb(proc.pid) / 1024:.0f} MB")
    w = Watch(proc.pid, sdir, work)
    time.sleep(3)
    t = time.time()
    print(f"idle: {w.lat(t - 3, t)}")

    t0 = time.time()
    res, err, size = call("devnet_dumpState", [])
    t1 = time.time()
    out = f"{size / 1e6:.0f} MB answered" if res is not None else f"error {err.get('code', err)} {str(err.get('message', ''))[:70]}"
    print(f"dumpState whole: {t1 - t0:.2f} s, {out}; peak RSS {w.peak_mb(t0, t1 + 0.5):.0f} MB; {w.lat(t0, t1)}")
    time.sleep(2)

    t0 = time.time()
    res, err, _ = call("devnet_dumpState", [{"page_bytes": PAGE}])
    if res is None:
        print(f"dumpState paged: not served ({err.get('code') if err else '?'})")
    else:
        paged = os.path.join(work, "paged.json")
        pages = 1
        with open(paged, "w") as f:
            f.write(res["data"])
            while res["next"]:
                res, err, _ = call("devnet_dumpState", [{"cursor": res["next"]}])
                f.write(res["data"])
                pages += 1
        t1 = time.time()
        print(f"dumpState paged: {t1 - t0:.2f} s, {pages} pages, {os.path.getsize(paged) / 1e6:.0f} MB; "
              f"peak RSS {w.peak_mb(t0, t1 + 0.5):.0f} MB; {w.lat(t0, t1)}")
    time.sleep(2)

    t0 = time.time()
    res, err, _ = call("devnet_exportFixture", [None, "session.toml"])
    t1 = time.time()
    out = "written" if res is not None else f"error {err}"
    print(f"exportFixture (with its 1M base): {t1 - t0:.2f} s, {out}; peak RSS {w.peak_mb(t0, t1 + 0.5):.0f} MB; {w.lat(t0, t1)}")

    # The periodic save: wait for a temporary file to come and go.
    deadline = time.time() + 60
    while not w.tmp_seen and time.time() < deadline:
        time.sleep(0.1)
    while w.tmp_seen and time.time() - w.tmp_seen[-1] < 1 and time.time() < deadline + 60:
        time.sleep(0.1)
    if w.tmp_seen:
        s0, s1 = w.tmp_seen[0], w.tmp_seen[-1]
        print(f"periodic --state save: about {s1 - s0:.2f} s; peak RSS {w.peak_mb(s0, s1 + 0.2):.0f} MB; {w.lat(s0, s1)}")
    else:
        print("periodic --state save: not seen")
    w.close()
    t0 = time.time()
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=600)
    print(f"SIGTERM to exit (the final save): {time.time() - t0:.2f} s, exit {proc.returncode}")

    restart(binary, ["--state", state], "restart from the saved file")
    paged = os.path.join(work, "paged.json")
    if os.path.exists(paged):
        restart(binary, ["--load-state", paged], "--load-state of the pages put together")
        os.remove(paged)


def restart(binary, args, what):
    """Starts `binary` with `args`, says how long until it answered and its RSS, kills it."""
    t0 = time.time()
    proc = serve(binary, args)
    up = wait_up(proc, t0)
    print(f"{what}: {up:.2f} s, RSS {rss_kb(proc.pid) / 1024:.0f} MB")
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def main():
    work = tempfile.mkdtemp(prefix="dump1m-")
    big = os.environ.get("BIG_STATE") or os.path.join(work, "big.json")
    if not os.environ.get("BIG_STATE"):
        t0 = time.time()
        subprocess.run([GEN, str(N), big], check=True, stderr=subprocess.DEVNULL)
        print(f"state file of {N} timers made in {time.time() - t0:.1f} s")
    print(f"load average {os.getloadavg()}")
    try:
        for b in BINS:
            run(b, big, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--ping":
        pinger(int(sys.argv[2]), sys.argv[3], sys.argv[4])
    else:
        main()
