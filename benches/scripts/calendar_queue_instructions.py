#!/usr/bin/env python3
"""Instructions and simulated cache misses per calendar-queue operation, under valgrind.

Issue 31 ("the calendar queue back within 1.1x of the unshared slab"): on a shared 2-core
machine the timings of `steady_state_op/calendar_queue` move by 2x between runs, more than the
gap to decide. Valgrind's callgrind counts the instructions of the same operation loop
repeatably whatever the load, and its cache simulation gives the D1 and last-level misses (the
1M case is memory-bound).

It runs the bench binary's counting mode (`benches/calendar_queue.rs`, `CALENDAR_QUEUE_COUNT`):
one workload built in steady state at N pending (untimed, uncounted), then whole blocks of the
operation loop, each inside `counted_block`, which alone is counted (`--collect-atstart=no
--toggle-collect`); the commitment runs outside it, as it runs outside the bench's timing.

    cargo bench --bench calendar_queue --no-run      # prints the binary's path
    python3 benches/scripts/calendar_queue_instructions.py \\
        --bin main=target/release/deps/calendar_queue-<hash> \\
        --bin base=/path/to/another/build/of/the/same/bench [--sizes 1000,10000] [--ops 200000]

Several `--bin label=path` are measured in turn on the same sizes (say main against an older
commit's build of the same bench file). Prints one row per (workload, N, binary): instructions,
D1 misses and LL misses per operation, and the native ns per operation of a run without
valgrind beside it (context only: it is the noisy figure). The simulated last-level cache is
`--LL` (default a 2 MiB L2, see its help). Needs valgrind (3.19 used).
"""

import argparse
import os
import re
import subprocess
import tempfile

EVENTS = ("Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw")


def run_mode(binary, workload, n, ops, valgrind, out, ll=None):
    env = dict(os.environ)
    env["CALENDAR_QUEUE_COUNT"] = f"{workload}:{n}"
    env["CALENDAR_QUEUE_OPS"] = str(ops)
    cmd = [binary]
    if valgrind:
        cmd = [
            "valgrind",
            "--tool=callgrind",
            "--cache-sim=yes",
            f"--LL={ll}",
            "--collect-atstart=no",
            "--toggle-collect=*counted_block*",
            f"--callgrind-out-file={out}",
        ] + cmd
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    m = re.search(r"ops=(\d+) ns_per_op=([\d.]+)", p.stdout)
    if not m:
        raise SystemExit(f"no count line from {binary}:\n{p.stdout}\n{p.stderr}")
    return int(m.group(1)), float(m.group(2))


def totals(path):
    events, tot = None, None
    with open(path) as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("totals:") or line.startswith("summary:"):
                tot = [int(x) for x in line.split()[1:]]
    if events is None or tot is None:
        raise SystemExit(f"no totals in {path}")
    return dict(zip(events, tot))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", action="append", required=True, help="label=path")
    ap.add_argument("--sizes", default="1000,10000,100000,1000000")
    ap.add_argument("--workloads", default="calendar_queue")
    ap.add_argument("--ops", type=int, default=200_000)
    ap.add_argument(
        "--LL",
        default="2097152,16,64",
        help="simulated last-level cache (size,assoc,line); default a 2 MiB L2, what one core "
        "of the 2-core VM measured had (valgrind otherwise takes the host's 480 MiB L3, "
        "which would hold the whole 1M working set)",
    )
    ap.add_argument("--no-native", action="store_true", help="skip the native timing run")
    args = ap.parse_args()
    bins = [b.split("=", 1) for b in args.bin]
    print(f"load average: {os.getloadavg()[0]:.2f}")
    print("| workload | N | binary | ops | Ir/op | D1 miss/op | LL miss/op | native ns/op |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as tmp:
        for workload in args.workloads.split(","):
            for n in [int(s) for s in args.sizes.split(",")]:
                for label, binary in bins:
                    out = os.path.join(tmp, f"cg.{label}.{workload}.{n}")
                    ops, _ = run_mode(binary, workload, n, args.ops, True, out, args.LL)
                    t = totals(out)
                    ns = "-"
                    if not args.no_native:
                        ns = "%.1f" % run_mode(binary, workload, n, args.ops, False, None)[1]
                    d1 = t.get("D1mr", 0) + t.get("D1mw", 0)
                    ll = t.get("DLmr", 0) + t.get("DLmw", 0)
                    print(
                        f"| {workload} | {n:,} | {label} | {ops:,} | {t['Ir'] / ops:.1f} | "
                        f"{d1 / ops:.2f} | {ll / ops:.3f} | {ns} |",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
