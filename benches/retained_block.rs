//! Where a long-running `serve`'s bytes are (issue 31: under 300 MB for 30 minutes with a
//! 100,000-timer backlog): the scene of `benches/scripts/serve_rss.py` built in process, with
//! a counting allocator.
//!
//! A node with the `serve` defaults (10,000-height history, the chain keeping as many blocks)
//! under SCHED (default `fifo`): 100 actors deployed, TIMERS timers (default 100,000) scheduled
//! ten per block (each `ScheduleTimer` as `timer_schedule` sends it: default gas, due over 200
//! heights starting after the loading), then MORE blocks (default 2,000) mined one by one while
//! the backlog is carried. Printed: the heap the node holds at the end of the loading and after
//! the MORE blocks, the bytes per block in between, and at both points the breakdown by part
//! (each part dropped in turn, [`RetainedPart::ALL`]; what is left is the live chain, whose
//! timer queue is then dropped part by part, `QueuePart::ALL`).
//!
//! Run: `cargo bench --bench retained_block` (a report, no criterion; takes about a minute).
//! Settings by environment: `SCHED`, `TIMERS`, `MORE`, `HISTORY`.
//!
//! `SCENE=pending` builds instead the scene of `benches/scripts/pending_rss.py` (issue 31, "a
//! pending timer costs ≤ 400 B of RSS in the live node at the default history, measured at
//! 1M"): TIMERS/1,000 actors, TIMERS timers 1,000 a block due far beyond the run, then twice
//! 10,001 quiet heights and 300 blocks of one schedule each (the loading, then the checkpoint
//! it replayed from and the log before it, out of the window); printed: the heap per pending
//! timer beyond the node with its actors, and the breakdown.

use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::{EventRecord, Genesis, Receipt};
use cowboy_devnet::engine::queue::QueuePart;
use cowboy_devnet::engine::{Address, ScheduleArgs, SchedulerKind};
use cowboy_devnet::node::{
    DEFAULT_CHECKPOINT_BUDGET, DeployActor, Mine, MiningMode, NodeConfig, NodeCore, RetainedPart,
    ScheduleTimer, SetBalance,
};
use cowboy_devnet::vm::DevnetRuntime;
use std::time::Instant;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

const ACTORS: usize = 100;
const PER_BLOCK: u64 = 10;

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn mb(b: isize) -> f64 {
    b as f64 / 1_048_576.0
}

/// A `serve --no-mining --scheduler SCHED` node with 100 endowed actors.
fn node(
    scheduler: SchedulerKind,
    history: usize,
    budget: usize,
    actors: usize,
) -> (NodeCore, Vec<Address>) {
    let genesis = Genesis::default()
        .with_scheduler(Some(scheduler), None)
        .expect("scheduler");
    let mut cfg = NodeConfig::new(genesis, DevnetRuntime::shared());
    cfg.mining = MiningMode::Manual;
    cfg.history = history;
    cfg.keep_blocks = Some(history);
    cfg.checkpoint_budget = budget;
    let mut n = NodeCore::new(cfg).expect("genesis");
    // The deployer holds what the endowments take (1,000 actors at 1M timers).
    let deployer = n.accounts()[0].address;
    n.apply(SetBalance {
        address: deployer,
        balance: 10u128.pow(21) * (actors as u128 + 10),
    })
    .expect("a balance");
    let actors = (0..actors)
        .map(|_| {
            n.apply(DeployActor {
                from: None,
                code: ActorCode::none(),
                address: None,
                endowment: 10u128.pow(21),
                name: None,
            })
            .expect("deploy")
            .address
        })
        .collect();
    n.apply(Mine { blocks: 1 }).expect("mine");
    (n, actors)
}

/// Takes the node's notifications, as the shell does after each request (a node nobody
/// drains holds every event of the session: until this bench drained them, they were 109 MB
/// of its "live chain" after 2,000 blocks).
fn drain(n: &mut NodeCore) {
    while n.poll_event().is_some() {}
}

/// Schedules `timers` timers ten a block, as the script does.
fn load(n: &mut NodeCore, actors: &[Address], timers: u64) {
    let first = n.height() + timers / PER_BLOCK + 20;
    schedule_many(n, actors, timers, PER_BLOCK, first, 200);
}

/// Schedules `timers` timers `per_block` a block (mined after each `per_block`), due over
/// `spread` heights from `first`, the actors in turn.
fn schedule_many(
    n: &mut NodeCore,
    actors: &[Address],
    timers: u64,
    per_block: u64,
    first: u64,
    spread: u64,
) {
    for i in 0..timers {
        let args = ScheduleArgs {
            height: first + i % spread,
            ..Default::default()
        };
        n.apply(ScheduleTimer {
            actor: actors[i as usize % actors.len()],
            args,
            ..Default::default()
        })
        .expect("schedule");
        if i % per_block == per_block - 1 {
            n.apply(Mine { blocks: 1 }).expect("mine");
            drain(n);
        }
    }
}

/// A past read's replay (`chain_at`, what every read with a `block` param builds) at the
/// window's far end, its middle and the head's block before.
fn past_reads(n: &NodeCore) {
    let (first, head) = (n.first_queryable(), n.height());
    for h in [first, first + (head - first) / 2, head - 1] {
        let t = Instant::now();
        n.chain_at(h).expect("a retained height");
        println!(
            "  past read (chain_at) of #{h}: {:.1} ms",
            t.elapsed().as_secs_f64() * 1e3
        );
    }
}

/// What the history's blocks hold: receipts and events by count, their `Vec` room, and the
/// inline size of each (issue 31: where the history's bytes are).
fn block_stats(n: &NodeCore) {
    let (mut blocks, mut receipts, mut receipt_room, mut events, mut event_room) = (0, 0, 0, 0, 0);
    let (mut timer_ids, mut timer_id_room) = (0, 0);
    let mut kinds = std::collections::BTreeMap::<String, usize>::new();
    for h in n.first_kept()..=n.height() {
        let Some(b) = n.block(h) else { continue };
        blocks += 1;
        receipts += b.receipts.len();
        receipt_room += b.receipts.capacity();
        events += b.events.len();
        event_room += b.events.capacity();
        for r in &b.receipts {
            timer_ids += r.timers.len();
            timer_id_room += r.timers.capacity();
        }
        for e in &b.events {
            *kinds.entry(format!("{:?}", e.event.kind())).or_default() += 1;
        }
    }
    println!(
        "  history: {blocks} blocks; {receipts} receipts (room {receipt_room}, {} B each), {events} events (room {event_room}, {} B each), {timer_ids} receipt timer ids (room {timer_id_room})",
        std::mem::size_of::<Receipt>(),
        std::mem::size_of::<EventRecord>()
    );
    println!("  history's events by kind: {kinds:?}");
}

fn breakdown(label: &str, mut n: NodeCore) {
    block_stats(&n);
    let cps = n.checkpoint_bytes();
    println!(
        "  {label}: {} checkpoints (heights {:?}), estimated to hold {:.1} MB alone",
        cps.heights.len(),
        cps.heights,
        mb(cps.total() as isize)
    );
    println!("  {label}: bytes each part alone held (dropped in this order)");
    let mut dropped = |name: String, f: &mut dyn FnMut(&mut NodeCore)| {
        let ((), heap) = counting_alloc::measure(|| f(&mut n));
        println!("    {name:<14} {:>9.1} MB", mb(-heap.retained));
    };
    for part in RetainedPart::ALL {
        dropped(format!("{part:?}"), &mut |n| n.test_hook_drop_part(part));
    }
    for part in QueuePart::ALL {
        dropped(format!("queue {part:?}"), &mut |n| {
            n.test_hook_drop_queue_part(part)
        });
    }
    for field in ["engine", "accounts", "actors", "commit", "recent"] {
        dropped(format!("chain {field}"), &mut |n| {
            n.test_hook_drop_chain_field(field)
        });
    }
    let ((), heap) = counting_alloc::measure(|| drop(n));
    println!(
        "    {:<14} {:>9.1} MB",
        "rest of live chain",
        mb(-heap.retained)
    );
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        println!("retained_block: report");
        return;
    }
    let sched = std::env::var("SCHED").unwrap_or_else(|_| "fifo".into());
    let scheduler: SchedulerKind = sched.parse().expect("a scheduler name");
    let timers = setting("TIMERS", 100_000);
    let more = setting("MORE", 2_000);
    let history = setting("HISTORY", 10_000) as usize;
    // BUDGET=0: no budget (every checkpoint kept, as before Spec note 194).
    let budget = match setting("BUDGET", DEFAULT_CHECKPOINT_BUDGET as u64) {
        0 => usize::MAX,
        b => b as usize,
    };
    if std::env::var("SCENE").is_ok_and(|s| s == "pending") {
        return pending_scene(scheduler, history, budget, timers);
    }
    if std::env::var("SCENE").is_ok_and(|s| s == "past") {
        return past_scene(scheduler, history, budget, timers, more);
    }
    println!(
        "retained_block: {sched}, {timers} timers loaded ten a block, then {more} blocks, --history {history}, checkpoint budget {}",
        if budget == usize::MAX {
            "none".to_string()
        } else {
            format!("{:.0} MB", mb(budget as isize))
        }
    );
    for extra in [0, more] {
        let t = Instant::now();
        let (mut n, loaded) = counting_alloc::measure(|| {
            let (mut n, actors) = node(scheduler, history, budget, ACTORS);
            load(&mut n, &actors, timers);
            n
        });
        let at = n.height();
        println!(
            "  loaded {timers} timers by #{at} in {:.1} s: node heap {:.1} MB",
            t.elapsed().as_secs_f64(),
            mb(loaded.retained)
        );
        if extra == 0 {
            breakdown(&format!("at the end of the loading (#{at})"), n);
            continue;
        }
        let t = Instant::now();
        let ((), grown) = counting_alloc::measure(|| {
            for _ in 0..extra {
                n.apply(Mine { blocks: 1 }).expect("mine");
                drain(&mut n);
            }
        });
        println!(
            "  {extra} more blocks in {:.1} s (to #{}, {} pending): heap +{:.1} MB, {:.0} bytes a block",
            t.elapsed().as_secs_f64(),
            n.height(),
            n.head().pending_timers,
            mb(grown.retained),
            grown.retained as f64 / extra as f64
        );
        past_reads(&n);
        breakdown(&format!("after {extra} more blocks (#{})", n.height()), n);
    }
}

/// `SCENE=pending`: the heap a pending timer costs a live node once the blocks that scheduled
/// it left the window (`benches/scripts/pending_rss.py` in process), and where it is.
fn pending_scene(scheduler: SchedulerKind, history: usize, budget: usize, timers: u64) {
    let n_actors = (timers / 1_000).max(1) as usize + 1;
    let ((mut n, actors), base) =
        counting_alloc::measure(|| node(scheduler, history, budget, n_actors));
    let (ticker, actors) = actors.split_last().expect("actors");
    let first = n.height() + 50_000;
    let t = Instant::now();
    let ((), loaded) = counting_alloc::measure(|| {
        schedule_many(&mut n, actors, timers, 1_000, first, 200_000);
        n.apply(Mine { blocks: 1 }).expect("mine");
        drain(&mut n);
    });
    let ((), passed) = counting_alloc::measure(|| {
        for _ in 0..2 {
            n.apply(Mine { blocks: 10_001 }).expect("a jump");
            // 300 blocks of one schedule each.
            schedule_many(&mut n, std::slice::from_ref(ticker), 300, 1, first, 1);
        }
    });
    let pending = n.head().pending_timers;
    let per = |b: isize| b as f64 / pending as f64;
    println!(
        "retained_block, SCENE=pending: {pending} pending under {scheduler:?} (loaded in {:.0} s); node with its {n_actors} actors {:.1} MB",
        t.elapsed().as_secs_f64(),
        mb(base.retained)
    );
    println!(
        "  loaded: heap +{:.1} MB ({:.0} B per pending timer); after the window: +{:.1} MB ({:.0} B per pending timer)",
        mb(loaded.retained),
        per(loaded.retained),
        mb(loaded.retained + passed.retained),
        per(loaded.retained + passed.retained)
    );
    let stored: Vec<(u64, usize)> = n
        .chain()
        .blocks()
        .map(|b| (b.header.height, b.receipts.len() + b.events.len()))
        .collect();
    println!(
        "  the live chain stores {} blocks (the oldest #{}), {} receipts and events in them",
        stored.len(),
        stored.first().map_or(0, |b| b.0),
        stored.iter().map(|b| b.1).sum::<usize>()
    );
    breakdown(&format!("after the window (#{})", n.height()), n);
}

/// `SCENE=past`: the `serve_rss.py` scene read at READS (default 48) past heights spread over
/// the window, as `benches/scripts/past_read_hammer.py` reads it (issue 31: with past reads a
/// server with a 100,000-timer backlog held 530-800 MB against the 64 MiB past-state budget).
/// Printed per read: the heap it left held, and the new state's bound (Spec note 222) and its
/// stored blocks that the live history does not share; at the end, what the kept states are
/// estimated to hold alone (the fit's walk), their bounds, and what dropping them freed.
fn past_scene(scheduler: SchedulerKind, history: usize, budget: usize, timers: u64, more: u64) {
    let reads = setting("READS", 48);
    let (mut n, actors) = node(scheduler, history, budget, ACTORS);
    load(&mut n, &actors, timers);
    for _ in 0..more {
        n.apply(Mine { blocks: 1 }).expect("mine");
        drain(&mut n);
    }
    let (first, head) = (n.first_queryable(), n.height());
    println!(
        "retained_block, SCENE=past: {sched:?}, {timers} timers, #{head} ({} pending), reads of {reads} heights in #{first}..#{head}",
        n.head().pending_timers,
        sched = scheduler
    );
    let (copy, cloned) = counting_alloc::measure(|| n.chain().clone());
    println!(
        "  a clone of the live chain: {:.1} MB held, estimated (clone_bytes) {:.1} MB",
        mb(cloned.retained),
        mb(copy.clone_bytes() as isize)
    );
    drop(copy);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut held = 0isize;
    for i in 0..reads {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let h = first + (seed >> 33) % (head - first);
        let t = Instant::now();
        let (alone, heap) = counting_alloc::measure(|| {
            n.with_at(h, |p| {
                let mut alone = (0usize, 0usize);
                for b in p.chain().blocks() {
                    let shared = n
                        .block(b.header.height)
                        .is_some_and(|l| std::ptr::eq(&*l, b));
                    if !shared {
                        alone.0 += 1;
                        alone.1 += b.events.capacity() * std::mem::size_of::<EventRecord>()
                            + b.receipts.capacity() * std::mem::size_of::<Receipt>();
                    }
                }
                alone
            })
            .expect("a retained height")
        });
        held += heap.retained;
        let bound = n
            .past_state_bounds()
            .into_iter()
            .find(|(kh, _)| *kh == h)
            .map_or(0, |(_, b)| b);
        println!(
            "  read {i:>2} of #{h}: {:>6.1} ms, heap {:+7.1} MB (peak {:+7.1}), bound {:6.1} MB, {} stored blocks not the history's ({:.1} MB inline), kept {}",
            t.elapsed().as_secs_f64() * 1e3,
            mb(heap.retained),
            mb(heap.peak),
            mb(bound as isize),
            alone.0,
            mb(alone.1 as isize),
            n.past_states_kept()
        );
    }
    let kept = n.past_states_kept();
    let walk: usize = n.past_state_bytes().iter().map(|(_, b)| b).sum();
    let bounds: usize = n.past_state_bounds().iter().map(|(_, b)| b).sum();
    let ((), freed) = counting_alloc::measure(|| n.test_hook_drop_part(RetainedPart::PastStates));
    println!(
        "  after {reads} reads: heap +{:.1} MB; {} states kept, estimated alone {:.1} MB (walk), bounds {:.1} MB; dropping them freed {:.1} MB",
        mb(held),
        kept,
        mb(walk as isize),
        mb(bounds as isize),
        mb(-freed.retained)
    );
}
