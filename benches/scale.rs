//! Issue 31's scale table: the node with 10,000, 1,000,000 and 10,000,000 timers pending, in one
//! process, each figure beside the same figure at the smaller sizes in the same run.
//!
//! For each size N (the `SCALE` setting, default `10000,1000000,10000000`): a node (the
//! `serve` defaults: 10,000-height history, a checkpoint at its start) whose chain holds 16
//! no-code actors and N timers spread over heights 1,000,000..1,200,000 (beyond every height
//! the run reaches), built as the fleet benches build theirs (timers inserted, the chain sealed,
//! dumped and loaded into the node). Then, printed:
//!
//! * **bytes per pending timer**: the heap the node holds (counting allocator) beyond the same
//!   node with no timer, over N; and the process's RSS growth while it was built, over N (a
//!   floor: the allocator reuses what the smaller sizes freed);
//! * **schedule throughput**: 10,000 `ScheduleTimer` commands (as `timer_schedule` sends them,
//!   a transaction each), 500 due at each of the next 20 heights, mined in one block;
//! * **seal**: the median of those 20 blocks' `Mine { blocks: 1 }`, each firing 500 timers,
//!   beside the same on a node with 10,000 pending, one block of each in turn (the ratio is the
//!   issue's "a block's seal with 10M pending within 1.2x of 10k pending");
//! * **snapshot**: `Snapshot` then `DeleteSnapshot`, median of 3;
//! * **past read**: the state as of the block before the head (`chain_at`, what every read
//!   with a `block` param builds: a checkpoint's copy and a replay of the blocks since);
//! * **dump**: `DumpState` and its JSON written to a file (what `serve --state` and
//!   `devnet_dumpState` serialise), with the file's size;
//! * **restart**: that file read and parsed, and loaded into a fresh node (`LoadState`), as
//!   `serve --load-state FILE` does.
//!
//! The sizes run smallest first, one node alive at a time. 10,000,000 needs about 12 GB at
//! its peak (the node, the parsed dump and the loaded node) and several minutes.
//!
//! Last, where a node's bytes are: a node of `BREAKDOWN` (default 1,000,000; 0: none) pending
//! timers, each retained part dropped in turn and its bytes per timer printed.
//!
//! Run: `cargo bench --bench scale` (a report, no criterion). Setting: `SCALE` (sizes, comma
//! separated), `BREAKDOWN`, `DUMP_DIR` (where the dump files go, default the system's temp dir; each is
//! removed after its restart).

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "support/counting_alloc.rs"]
mod counting_alloc;

use common::fleet;
use cowboy_devnet::engine::{Address, ScheduleArgs};
use cowboy_devnet::node::{
    DeleteSnapshot, DumpState, LoadState, Mine, NodeCore, RetainedPart, ScheduleTimer, Snapshot,
};
use std::io::{BufReader, BufWriter};
use std::time::{Duration, Instant};

const ACTORS: u64 = 16;
/// Timers scheduled through the node per size, due over the next [`DUE_BLOCKS`] heights.
const SCHEDULED: u64 = 10_000;
const DUE_BLOCKS: u64 = 20;
/// The baseline's pending timers (the seal's ratio is to a node with this many).
const BASE: u64 = 10_000;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The process's resident set, in bytes (Linux; 0 elsewhere).
fn rss() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096)
}

/// The figures of one size.
#[derive(Default)]
struct Row {
    pending: u64,
    build: Duration,
    heap_per_timer: f64,
    rss_per_timer: f64,
    schedule_per_s: f64,
    seal: Duration,
    /// The baseline's seal, interleaved with this size's.
    base_seal: Duration,
    snapshot: Duration,
    past_read: Duration,
    dump: Duration,
    dump_mb: f64,
    restart: Duration,
}

/// The node of `n` pending timers and the heap it holds.
fn built(n: u64) -> ((NodeCore, cowboy_devnet::chain::Genesis), isize) {
    let (built, heap) = counting_alloc::measure(|| {
        let (mut c, genesis) =
            fleet::fleet_chain(fleet::uncapped_genesis(), ACTORS, fleet::FLEET_RICH);
        let owner = |i| fleet::fleet_actor(ACTORS, i);
        c.test_hook_insert_timers(fleet::spread_timers(0, n, 1_000_000, 200_000, owner))
            .expect("fresh ids");
        c.seal_block();
        (fleet::node_from(&c, genesis.clone()), genesis)
    });
    (built, heap.retained)
}

/// Builds the node of `row.pending` timers; its bytes per timer are what it holds beyond the
/// same node with none (`empty_heap`).
fn build(row: &mut Row, empty_heap: isize) -> (NodeCore, cowboy_devnet::chain::Genesis) {
    let n = row.pending;
    let rss0 = rss();
    let t = Instant::now();
    let ((node, genesis), heap) = built(n);
    row.build = t.elapsed();
    row.heap_per_timer = (heap - empty_heap) as f64 / n as f64;
    row.rss_per_timer = rss().saturating_sub(rss0) as f64 / n as f64;
    (node, genesis)
}

/// Schedules [`SCHEDULED`] timers due over the next [`DUE_BLOCKS`] heights and mines them in;
/// returns the schedules per second.
fn schedule(node: &mut NodeCore) -> f64 {
    let first = node.height() + 2;
    let actors: Vec<Address> = (0..ACTORS).map(|i| fleet::fleet_actor(ACTORS, i)).collect();
    let t = Instant::now();
    for i in 0..SCHEDULED {
        node.apply(ScheduleTimer {
            actor: actors[(i % ACTORS) as usize],
            args: ScheduleArgs {
                height: first + i % DUE_BLOCKS,
                gas_limit: Some(1_000),
                ..Default::default()
            },
            ..Default::default()
        })
        .expect("schedule");
    }
    node.apply(Mine { blocks: 1 }).expect("mine");
    SCHEDULED as f64 / t.elapsed().as_secs_f64()
}

/// One block of `node` sealed, timed.
fn seal(node: &mut NodeCore) -> Duration {
    let t = Instant::now();
    node.apply(Mine { blocks: 1 }).expect("mine");
    t.elapsed()
}

/// Schedules on the node and on the baseline (10,000 pending), then seals the due heights of
/// both, one block of each in turn (so the drift of a shared machine stays out of the ratio).
fn schedule_and_seal(node: &mut NodeCore, base: &mut NodeCore, row: &mut Row) {
    row.schedule_per_s = schedule(node);
    let base_pending = base.head().pending_timers;
    schedule(base);
    let (mut seals, mut base_seals) = (Vec::new(), Vec::new());
    for _ in 0..DUE_BLOCKS {
        seals.push(seal(node));
        base_seals.push(seal(base));
    }
    row.seal = median(seals);
    row.base_seal = median(base_seals);
    for (n, pending) in [(node, row.pending), (base, base_pending)] {
        while n.poll_event().is_some() {}
        assert_eq!(
            n.head().pending_timers,
            pending,
            "every scheduled timer fired"
        );
    }
}

fn snapshot_and_past(node: &mut NodeCore, row: &mut Row) {
    let snaps = (0..3)
        .map(|_| {
            let t = Instant::now();
            let id = node.apply(Snapshot).expect("snapshot");
            node.apply(DeleteSnapshot { id }).expect("delete");
            t.elapsed()
        })
        .collect();
    row.snapshot = median(snaps);
    let t = Instant::now();
    node.chain_at(node.height() - 1).expect("a retained height");
    row.past_read = t.elapsed();
}

fn dump_and_restart(mut node: NodeCore, genesis: cowboy_devnet::chain::Genesis, row: &mut Row) {
    let dir = std::env::var_os("DUMP_DIR").map_or_else(std::env::temp_dir, Into::into);
    let path = dir.join(format!(
        "cowboy-scale-{}-{}.json",
        row.pending,
        std::process::id()
    ));
    let t = Instant::now();
    let dump = node.apply(DumpState).expect("dump");
    let file = std::fs::File::create(&path).expect("a dump file");
    serde_json::to_writer(BufWriter::new(file), &dump).expect("write the dump");
    row.dump = t.elapsed();
    row.dump_mb = std::fs::metadata(&path).map_or(0, |m| m.len()) as f64 / 1_048_576.0;
    let root = node.chain().state_root();
    drop(dump);
    drop(node);
    let t = Instant::now();
    let file = std::fs::File::open(&path).expect("the dump file");
    let dump = serde_json::from_reader(BufReader::new(file)).expect("parse the dump");
    let mut fresh = fleet::bare_node(genesis);
    fresh.apply(LoadState(Box::new(dump))).expect("load");
    row.restart = t.elapsed();
    assert_eq!(fresh.chain().state_root(), root, "a restart keeps the root");
    let _ = std::fs::remove_file(&path);
}

fn measure(n: u64, empty_heap: isize, base: &mut NodeCore) -> Row {
    let mut row = Row {
        pending: n,
        ..Row::default()
    };
    let (mut node, genesis) = build(&mut row, empty_heap);
    schedule_and_seal(&mut node, base, &mut row);
    snapshot_and_past(&mut node, &mut row);
    dump_and_restart(node, genesis, &mut row);
    row
}

fn print(rows: &[Row]) {
    println!(
        "| pending | build | heap B/timer | RSS B/timer | schedules/s | seal (500 fires) | vs {BASE} pending, interleaved | snapshot | past read | dump (MB) | restart |"
    );
    println!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for r in rows {
        println!(
            "| {} | {:.1} s | {:.1} | {:.1} | {:.0} | {:.2} ms | {:.2}x | {:.1} ms | {:.1} ms | {:.0} ms ({:.0}) | {:.0} ms |",
            r.pending,
            r.build.as_secs_f64(),
            r.heap_per_timer,
            r.rss_per_timer,
            r.schedule_per_s,
            ms(r.seal),
            ms(r.seal) / ms(r.base_seal),
            ms(r.snapshot),
            ms(r.past_read),
            ms(r.dump),
            r.dump_mb,
            ms(r.restart),
        );
    }
}

/// Where the bytes of a node with `n` pending timers are: each retained part dropped in turn
/// ([`RetainedPart::ALL`]), then the live chain, per pending timer.
fn breakdown(n: u64) {
    let ((mut node, _), heap) = built(n);
    println!("\nWhere the {n}-timer node's {heap} heap bytes are, per pending timer:\n");
    println!("| part | bytes per timer |\n| --- | ---: |");
    for part in RetainedPart::ALL {
        let ((), freed) = counting_alloc::measure(|| node.test_hook_drop_part(part));
        println!("| {part:?} | {:.1} |", -freed.retained as f64 / n as f64);
    }
    let ((), freed) = counting_alloc::measure(|| drop(node));
    println!(
        "| the live chain | {:.1} |",
        -freed.retained as f64 / n as f64
    );
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        println!("scale: report");
        return;
    }
    let sizes: Vec<u64> = std::env::var("SCALE")
        .unwrap_or_else(|_| "10000,1000000,10000000".into())
        .split(',')
        .map(|s| s.trim().parse().expect("SCALE: sizes, comma separated"))
        .collect();
    let (empty, empty_heap) = built(0);
    drop(empty);
    let ((mut base, _), _) = built(BASE);
    let mut rows = Vec::new();
    for n in sizes {
        eprintln!("scale: {n} pending ...");
        rows.push(measure(n, empty_heap, &mut base));
        print(&rows);
    }
    let parts = std::env::var("BREAKDOWN").map_or(1_000_000, |v| v.parse().expect("BREAKDOWN"));
    if parts > 0 {
        breakdown(parts);
    }
}
