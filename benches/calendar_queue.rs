//! Near-term enqueue + dequeue through the calendar queue, beside baselines measured in the same
//! run on the same schedule:
//!
//! * `btreemap`: a naive `BTreeMap<height, VecDeque<Timer>>`;
//! * `hash_wheel`: `hierarchical_hash_wheel_timer::QuadWheelWithOverflow` (one tick = one block).
//!
//! Every structure is pre-filled to `N` pending timers (N = 1,000 .. 1,000,000) and then driven in
//! steady state: each block inserts `k = N / 32.5` timers whose delays come from the same
//! deterministic LCG over 1..=64 blocks (mean 32.5), then drains the height that is due, so the
//! number pending stays at `N`. One measured operation is "insert one timer" plus `1/k` of a
//! block's advance (drain, conclude, epoch maintenance); throughput is in operations per second.
//!
//! Three more rows are context, not the target's reference: `btreemap_with_id_index` adds to the
//! map the id index that cancel and extend need (the calendar queue has one); `id_index_floor` is
//! that index alone beside a ring of ids, with no timer records; and `records_floor` is the
//! records alone, with no index: a ring of one `Vec<Timer>` per height, each timer moved in once
//! and out once. No structure that holds the timers can do less per operation than
//! `records_floor`, nor one that also finds them by id less than `id_index_floor`.
//!
//! The queue's state commitment (`commit()`) is not part of this benchmark: it is called outside
//! the timed region once about a block's worth of changes (at least 16,384) is buffered, so its
//! buffers stay bounded as they do on the chain, which commits every block.
//!
//! Run: `cargo bench --bench calendar_queue`.
//!
//! **Counting mode** (issue 31: instructions, which valgrind counts repeatably on a loaded
//! machine where timings do not settle): with `CALENDAR_QUEUE_COUNT=<workload>:<N>` set (a
//! workload's name as in the benchmark ids, e.g. `calendar_queue:100000`), the binary builds that
//! one workload in steady state at `N` pending, runs whole blocks of the same operation loop
//! (`CALENDAR_QUEUE_OPS`, default 200,000 operations, rounded up to whole blocks, at least 8) and
//! exits without running criterion. Each block's operations run inside `counted_block` (not
//! inlined) and the commitment outside it, so `valgrind --tool=callgrind --collect-atstart=no
//! --toggle-collect='*counted_block*'` counts exactly the timed operations; the mode prints the
//! operation count and the native time per operation for context.
//! `benches/scripts/calendar_queue_instructions.sh` builds the binary and runs it so.

use cowboy_devnet::engine::{Address, CalendarQueue, QueueConfig, Timer, TimerId};
use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group,
};
use hierarchical_hash_wheel_timer::wheels::quad_wheel::QuadWheelWithOverflow;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::hint::black_box;
use std::time::{Duration, Instant};

#[path = "../tests/common/mod.rs"]
mod common;

const SIZES: [u64; 4] = [1_000, 10_000, 100_000, 1_000_000];
const MAX_DELAY: u64 = 64;
/// Buffered commitment changes after which the queue is committed (outside the timing): about
/// one block's worth at the large sizes (the chain commits every block), never less than this.
const COMMIT_AT_LEAST: usize = 1 << 14;
const ACTORS: u64 = 16;

/// The deterministic delay sequence shared by every structure.
#[derive(Clone)]
struct Lcg(u64);

impl Lcg {
    fn new() -> Self {
        Lcg(0x853c_49e6_748f_ea9b)
    }
    /// A delay in 1..=64 blocks.
    fn delay(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        1 + (self.0 >> 33) % MAX_DELAY
    }
}

/// A bulk timer ([`common::fleet::bulk_timer`]: an id spread over its leading bytes, as a
/// keccak-derived id would be) of 100 cycles; `seq` is assigned by the queue.
fn timer(n: u64, height: u64) -> Timer {
    let actor = Address::from_low_u64(0x1000 + n % ACTORS);
    Timer {
        schedule_block: height.saturating_sub(1),
        gas_limit_per_fire: 100,
        ..common::fleet::bulk_timer(n, actor, height)
    }
}

/// Consumes the timers a block fires (as every structure's drain does) and counts them.
fn fire(timers: impl IntoIterator<Item = Timer>) -> usize {
    let mut fired = 0;
    for t in timers {
        black_box(&t);
        fired += 1;
    }
    fired
}

/// A ring of one bucket per pending height for the floors (the delays span `MAX_DELAY + 1`
/// heights), and a height's bucket in it.
fn height_ring<T>() -> Vec<Vec<T>> {
    (0..=MAX_DELAY).map(|_| Vec::new()).collect()
}

fn ring_pos(height: u64) -> usize {
    (height % (MAX_DELAY + 1)) as usize
}

/// Timers inserted per block so that `n` stay pending (mean delay 32.5 blocks).
fn per_block(n: u64) -> u64 {
    (n * 2).div_ceil(MAX_DELAY + 1).max(1)
}

/// One structure under test, driven through the same steady-state loop.
trait Workload {
    /// Inserts one timer due `delay` blocks after the block being built (the one the next
    /// `advance` finishes), so it fires at the `delay + 1`-th `advance` from now.
    fn insert(&mut self, n: u64, delay: u64);
    /// Advances one block: drains the next height. Returns how many timers it removed.
    fn advance(&mut self) -> usize;
    /// Whether untimed housekeeping (the queue's commitment) is due after this block.
    fn needs_housekeeping(&self) -> bool {
        false
    }
    fn housekeeping(&mut self) {}
    fn len(&self) -> usize;
}

/// The calendar queue, driven as the chain drives it: `maintain(h)` when block `h` opens,
/// inserts during the block, `take_due(h)` + `conclude` at its end.
struct Ours {
    q: CalendarQueue,
    /// Commit once this many changes are buffered.
    commit_at: usize,
    /// The block being built (its height is the queue's next undrained height).
    h: u64,
}

impl Ours {
    fn new(n: u64) -> Self {
        let mut q = CalendarQueue::new(QueueConfig::default(), 1);
        q.maintain(1);
        Ours {
            q,
            commit_at: COMMIT_AT_LEAST.max(2 * per_block(n) as usize),
            h: 1,
        }
    }
}

impl Workload for Ours {
    fn insert(&mut self, n: u64, delay: u64) {
        self.q.insert(timer(n, self.h + delay)).expect("fresh id");
    }
    fn advance(&mut self) -> usize {
        let due = self.q.take_due(self.h);
        let fired = due.len();
        for s in due {
            black_box(self.q.conclude(s));
        }
        self.h += 1;
        self.q.maintain(self.h);
        fired
    }
    fn needs_housekeeping(&self) -> bool {
        self.q.uncommitted() >= self.commit_at
    }
    fn housekeeping(&mut self) {
        black_box(self.q.commit());
    }
    fn len(&self) -> usize {
        self.q.len()
    }
}

/// Naive baseline: an ordered map from height to a FIFO of timers.
struct Btree {
    map: BTreeMap<u64, VecDeque<Timer>>,
    h: u64,
    len: usize,
}

impl Workload for Btree {
    fn insert(&mut self, n: u64, delay: u64) {
        let height = self.h + delay;
        self.map
            .entry(height)
            .or_default()
            .push_back(timer(n, height));
        self.len += 1;
    }
    fn advance(&mut self) -> usize {
        let mut fired = 0;
        if let Some(entry) = self.map.first_entry()
            && *entry.key() == self.h
        {
            fired = fire(entry.remove());
        }
        self.len -= fired;
        self.h += 1;
        fired
    }
    fn len(&self) -> usize {
        self.len
    }
}

/// Context baseline (not the target's reference): the same map plus the id index every timer
/// engine needs for cancel and extend (`std` `HashMap`, default hasher), as a naive engine
/// would add it.
struct BtreeIndexed {
    map: BTreeMap<u64, VecDeque<Timer>>,
    index: HashMap<TimerId, u64>,
    h: u64,
}

impl Workload for BtreeIndexed {
    fn insert(&mut self, n: u64, delay: u64) {
        let height = self.h + delay;
        let t = timer(n, height);
        self.index.insert(t.timer_id, height);
        self.map.entry(height).or_default().push_back(t);
    }
    fn advance(&mut self) -> usize {
        let mut fired = 0;
        if let Some(entry) = self.map.first_entry()
            && *entry.key() == self.h
        {
            for t in entry.remove() {
                self.index.remove(&t.timer_id);
                black_box(&t);
                fired += 1;
            }
        }
        self.h += 1;
        fired
    }
    fn len(&self) -> usize {
        self.index.len()
    }
}

/// Floor (context, not the target's reference): only what cancel and extend by id require, an
/// id index (hashbrown, the calendar queue's hasher) beside a ring of the ids due per height, and
/// no timer records at all. No queue that finds a timer by id can do less per operation.
struct IdIndexFloor {
    index: hashbrown::HashMap<TimerId, u64>,
    ring: Vec<Vec<TimerId>>,
    h: u64,
}

impl IdIndexFloor {
    fn new() -> Self {
        IdIndexFloor {
            index: hashbrown::HashMap::new(),
            ring: height_ring(),
            h: 1,
        }
    }
}

impl Workload for IdIndexFloor {
    fn insert(&mut self, n: u64, delay: u64) {
        let height = self.h + delay;
        let id = timer(n, height).timer_id;
        self.index.insert(id, height);
        self.ring[ring_pos(height)].push(id);
    }
    fn advance(&mut self) -> usize {
        let pos = ring_pos(self.h);
        let mut due = std::mem::take(&mut self.ring[pos]);
        let fired = due.len();
        for id in due.drain(..) {
            black_box(self.index.remove(&id));
        }
        self.ring[pos] = due;
        self.h += 1;
        fired
    }
    fn len(&self) -> usize {
        self.index.len()
    }
}

/// Floor (context, not the target's reference): only what holding the timers requires, a ring
/// of one `Vec<Timer>` per pending height (the delays span 65 heights), each timer moved in on
/// insert and out on its block's drain, the vectors keeping their capacity; no index, no tree,
/// no bookkeeping. No structure that stores the timer records can do less per operation.
struct RecordsFloor {
    ring: Vec<Vec<Timer>>,
    h: u64,
    len: usize,
}

impl RecordsFloor {
    fn new() -> Self {
        RecordsFloor {
            ring: height_ring(),
            h: 1,
            len: 0,
        }
    }
}

impl Workload for RecordsFloor {
    fn insert(&mut self, n: u64, delay: u64) {
        let height = self.h + delay;
        self.ring[ring_pos(height)].push(timer(n, height));
        self.len += 1;
    }
    fn advance(&mut self) -> usize {
        let fired = fire(self.ring[ring_pos(self.h)].drain(..));
        self.len -= fired;
        self.h += 1;
        fired
    }
    fn len(&self) -> usize {
        self.len
    }
}

/// The hierarchical hash wheel, one tick per block.
struct Wheel {
    w: QuadWheelWithOverflow<Timer>,
    h: u64,
    len: usize,
}

impl Workload for Wheel {
    fn insert(&mut self, n: u64, delay: u64) {
        self.w
            // The wheel fires a delay of `d` ticks at the `d`-th tick from now, counting the tick
            // that ends the current block; the others fire at the `d + 1`-th advance.
            .insert_with_delay(timer(n, self.h + delay), Duration::from_millis(delay + 1))
            .expect("delay > 0");
        self.len += 1;
    }
    fn advance(&mut self) -> usize {
        let fired = fire(self.w.tick());
        self.len -= fired;
        self.h += 1;
        fired
    }
    fn len(&self) -> usize {
        self.len
    }
}

/// A workload in steady state plus where it is in its current block.
struct Driver<W> {
    w: W,
    lcg: Lcg,
    next_id: u64,
    k: u64,
    in_block: u64,
}

impl<W: Workload> Driver<W> {
    /// Builds the workload and runs it untimed until `n` timers are pending in steady state.
    fn prefill(w: W, n: u64) -> Self {
        let mut d = Driver {
            w,
            lcg: Lcg::new(),
            next_id: 0,
            k: per_block(n),
            in_block: 0,
        };
        for _ in 0..(2 * MAX_DELAY * d.k) {
            if d.op() && d.w.needs_housekeeping() {
                d.w.housekeeping();
            }
        }
        d.w.housekeeping();
        d
    }

    /// One operation: insert one timer, and finish the block every `k` inserts.
    #[inline]
    fn op(&mut self) -> bool {
        let delay = self.lcg.delay();
        self.w.insert(self.next_id, delay);
        self.next_id += 1;
        self.in_block += 1;
        if self.in_block == self.k {
            self.in_block = 0;
            self.w.advance();
            true
        } else {
            false
        }
    }

    /// `iters` operations; housekeeping runs outside the returned time.
    fn run(&mut self, iters: u64) -> Duration {
        let mut total = Duration::ZERO;
        let mut start = Instant::now();
        for _ in 0..iters {
            if self.op() && self.w.needs_housekeeping() {
                total += start.elapsed();
                self.w.housekeeping();
                start = Instant::now();
            }
        }
        total + start.elapsed()
    }
}

fn bench_calendar_queue(c: &mut Criterion) {
    let mut g = c.benchmark_group("calendar_queue/steady_state_op");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1_500))
        .sampling_mode(SamplingMode::Flat)
        .throughput(Throughput::Elements(1));
    for &n in &SIZES {
        // Each state is built on first use (so a filtered run builds only what it measures) and
        // kept for every sample of its benchmark, then dropped.
        bench_one(&mut g, "calendar_queue", n, || Ours::new(n));
        bench_one(&mut g, "btreemap", n, || Btree {
            map: BTreeMap::new(),
            h: 1,
            len: 0,
        });
        bench_one(&mut g, "btreemap_with_id_index", n, || BtreeIndexed {
            map: BTreeMap::new(),
            index: HashMap::new(),
            h: 1,
        });
        bench_one(&mut g, "id_index_floor", n, IdIndexFloor::new);
        bench_one(&mut g, "records_floor", n, RecordsFloor::new);
        bench_one(&mut g, "hash_wheel", n, || Wheel {
            w: QuadWheelWithOverflow::default(),
            h: 1,
            len: 0,
        });
    }
    g.finish();
}

fn bench_one<W: Workload>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    n: u64,
    make: impl Fn() -> W,
) {
    let mut state: Option<Driver<W>> = None;
    g.bench_function(BenchmarkId::new(name, n), |b| {
        let d = state.get_or_insert_with(|| {
            let d = Driver::prefill(make(), n);
            println!(
                "[calendar_queue] {name}: {} pending in steady state (target {n}), {} inserts per block",
                d.w.len(),
                d.k
            );
            d
        });
        b.iter_custom(|iters| d.run(iters))
    });
}

/// The timed operations of one block (ends at the block's advance): not inlined, so callgrind's
/// `--toggle-collect='*counted_block*'` counts exactly them. Returns the operations run.
#[inline(never)]
fn counted_block<W: Workload>(d: &mut Driver<W>) -> u64 {
    let mut ops = 1;
    while !d.op() {
        ops += 1;
    }
    ops
}

/// The counting mode (see the header): one workload at `n` pending, `ops` operations or more in
/// whole blocks, the commitment outside the counted function.
fn count<W: Workload>(name: &str, n: u64, ops: u64, make: impl Fn() -> W) {
    let mut d = Driver::prefill(make(), n);
    let blocks = ops.div_ceil(d.k).max(8);
    let (mut done, mut spent) = (0, Duration::ZERO);
    for _ in 0..blocks {
        let start = Instant::now();
        done += counted_block(&mut d);
        spent += start.elapsed();
        if d.w.needs_housekeeping() {
            d.w.housekeeping();
        }
    }
    println!(
        "[calendar_queue count] {name} n={n} pending={} per_block={} blocks={blocks} ops={done} ns_per_op={:.1}",
        d.w.len(),
        d.k,
        spent.as_nanos() as f64 / done as f64
    );
}

/// Runs the counting mode if `CALENDAR_QUEUE_COUNT` names a workload; false if unset.
fn count_mode() -> bool {
    let Ok(spec) = std::env::var("CALENDAR_QUEUE_COUNT") else {
        return false;
    };
    let (name, n) = spec
        .split_once(':')
        .and_then(|(w, n)| Some((w.to_string(), n.parse::<u64>().ok()?)))
        .expect("CALENDAR_QUEUE_COUNT=<workload>:<pending>, e.g. calendar_queue:100000");
    let ops = std::env::var("CALENDAR_QUEUE_OPS")
        .ok()
        .map(|o| {
            o.parse()
                .expect("CALENDAR_QUEUE_OPS: a number of operations")
        })
        .unwrap_or(200_000);
    match name.as_str() {
        "calendar_queue" => count(&name, n, ops, || Ours::new(n)),
        "btreemap" => count(&name, n, ops, || Btree {
            map: BTreeMap::new(),
            h: 1,
            len: 0,
        }),
        "btreemap_with_id_index" => count(&name, n, ops, || BtreeIndexed {
            map: BTreeMap::new(),
            index: HashMap::new(),
            h: 1,
        }),
        "id_index_floor" => count(&name, n, ops, IdIndexFloor::new),
        "records_floor" => count(&name, n, ops, RecordsFloor::new),
        other => panic!("CALENDAR_QUEUE_COUNT: unknown workload {other}"),
    }
    true
}

criterion_group!(benches, bench_calendar_queue);

fn main() {
    if count_mode() {
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
