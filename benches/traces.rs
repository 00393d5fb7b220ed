//! Issue 32, "off by default at no cost": the shipped `demo` fixture (100 blocks, five actors,
//! calls, deploys and about 50 fires) played headless with tracing off (the baseline: what
//! every run does) and with tracing on (`run --trace`: every call, deploy and fire traced and
//! kept), in the same process. The off figure is the cost of the switch; the on figure the
//! cost of recording every host call.
//!
//! `traces/end_of_block`: the issue's own measure, "a traced block within 1.5x of an untraced
//! one": one block of 200 scripted fires (storage reads and writes, an event, a printed line),
//! sealed untraced (the baseline) and traced.
//!
//! `traces/rebuild`: "a rebuilt trace of a fire 256 heights back in <= 50 ms with 100,000
//! pending timers" (issue 32, "Speed"). A node that does not trace, 100,000 timers pending
//! beyond the run, 5 fires in each of the ~770 busy blocks it sealed; `devnet_traceFire`'s
//! query (`FireTrace`) of a fire 256 heights below the head, rebuilt by replay from the
//! checkpoint before it (the height is one below a checkpoint: the longest replay, 255 busy
//! blocks). Baselines in the same run: the same height's past read (`At(TiersQuery)`, the same
//! replay untraced), and the trace of a fire at the head (a short replay).

#[path = "../tests/common/mod.rs"]
mod common;

use cowboy_devnet::engine::Address;
use cowboy_devnet::node::{At, FireTrace, Mine, NodeCore, TiersQuery};
use cowboy_devnet::scenario::builtin::{self, FIXTURES};
use cowboy_devnet::scenario::fixture::LoadedFixture;
use cowboy_devnet::scenario::runner::{RunOptions, Scenario};
use cowboy_devnet::vm::DevnetRuntime;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn scenario(trace: bool) -> Scenario {
    let text = FIXTURES.iter().find(|(n, _)| *n == "demo").unwrap().1;
    let lf = LoadedFixture::parse("demo.toml", text.to_string()).expect("parses");
    let rt = DevnetRuntime::new();
    let mut s = Scenario::prepare(&lf, &rt, &builtin::script_loader).expect("prepares");
    s.trace = trace;
    s
}

fn play(s: &Scenario) -> u64 {
    let opts = RunOptions {
        blocks: None,
        skip_rows: true,
        keep_blocks: None,
    };
    let (r, node) = s
        .run_devnet(DevnetRuntime::shared(), opts, &mut |_, _| {})
        .expect("plays");
    black_box(node.kept_traces().len());
    r.summary.fired
}

fn bench(c: &mut Criterion) {
    let (off, on) = (scenario(false), scenario(true));
    assert_eq!(play(&off), play(&on), "tracing changes no outcome");
    let mut g = c.benchmark_group("traces");
    g.sample_size(20);
    g.bench_function("demo_tracing_off_baseline", |b| b.iter(|| play(&off)));
    g.bench_function("demo_tracing_on", |b| b.iter(|| play(&on)));
    g.finish();
}

const ACTORS: u64 = 100;
const PENDING: u64 = 100_000;
const FIRES_PER_BLOCK: u64 = 5;
/// Busy blocks sealed: the head (#769) is 256 heights above #513, one below the third
/// checkpoint (#514; the node loads at #2, a checkpoint every 256 busy blocks).
const SEALED: u64 = 767;

fn owner(i: u64) -> Address {
    common::fleet::fleet_actor(ACTORS, i % ACTORS)
}

/// A node (not tracing) at height 2 with `PENDING` timers beyond the run and `FIRES_PER_BLOCK`
/// fires due at each of the next `SEALED` heights, those heights sealed.
fn rebuild_node() -> NodeCore {
    let (mut chain, genesis) = common::fleet::fleet_chain(
        common::fleet::uncapped_genesis(),
        ACTORS,
        common::fleet::FLEET_RICH / 1_000,
    );
    chain.seal_block();
    let far = common::fleet::spread_timers(0, PENDING, 1_000_000, 500_000, owner).map(|mut t| {
        t.expires_at = t.height + 1_000;
        t
    });
    chain.test_hook_insert_timers(far).expect("pending timers");
    let due = SEALED * FIRES_PER_BLOCK;
    let soon = common::fleet::spread_timers(PENDING, due, 3, SEALED, owner);
    chain.test_hook_insert_timers(soon).expect("due timers");
    chain.seal_block();
    let mut n = common::fleet::node_from(&chain, genesis);
    n.set_past_cache(0);
    n.apply(Mine { blocks: SEALED }).expect("mine");
    while n.poll_event().is_some() {}
    n
}

/// The first fire due at `height` (the timers are spread `FIRES_PER_BLOCK` a height from 3).
fn fire_at(height: u64) -> FireTrace {
    FireTrace {
        timer_id: common::fleet::bulk_id(PENDING + (height - 3) * FIRES_PER_BLOCK),
        height: Some(height),
    }
}

fn rebuild(c: &mut Criterion) {
    let n = rebuild_node();
    let head = n.height();
    let back = head - 256;
    let (old, new) = (fire_at(back), fire_at(head));
    assert!(!n.ask(&old).expect("rebuilt").is_empty(), "a fire's trace");
    assert!(!n.ask(&new).expect("rebuilt").is_empty(), "a fire's trace");
    println!(
        "traces/rebuild: head #{head}, fire at #{back}, first queryable #{}",
        n.first_queryable()
    );
    let mut g = c.benchmark_group("traces/rebuild");
    g.sample_size(10);
    g.bench_function("fire_256_back_100k_pending", |b| {
        b.iter(|| black_box(n.ask(&old).expect("rebuilt")))
    });
    g.bench_function("past_read_same_height_baseline", |b| {
        b.iter(|| black_box(n.ask(&At::new(TiersQuery, Some(back))).expect("read")))
    });
    g.bench_function("fire_at_head_baseline", |b| {
        b.iter(|| black_box(n.ask(&new).expect("rebuilt")))
    });
    g.finish();
}

/// Fires in the measured block of `traces/end_of_block`, one per actor.
const EOB_FIRES: u64 = 200;

/// The handler each fire runs: reads and writes storage, emits, prints and asks the height,
/// the host calls a typical timer handler makes (each one a traced step).
const EOB_HANDLER: &str = r#"
fn handle_timer(p) {
    let n = storage_get("n");
    storage_set("n", "fired");
    storage_set("at", "" + block_height());
    emit("tick", "yes");
    print("fired");
}
"#;

/// A chain whose next block fires `EOB_FIRES` timers, each on its own scripted actor.
fn eob_chain() -> cowboy_devnet::chain::Chain {
    let (mut chain, _) = common::fleet::fleet_chain(
        common::fleet::uncapped_genesis(),
        EOB_FIRES,
        common::fleet::FLEET_RICH / 1_000,
    );
    chain.seal_block();
    let code = cowboy_devnet::chain::runtime::ActorCode::rhai("eob", EOB_HANDLER);
    for i in 0..EOB_FIRES {
        let who = common::fleet::fleet_actor(EOB_FIRES, i);
        assert!(chain.test_hook_replace_code(&who, code.clone()));
    }
    let next = chain.height() + 1;
    let owner = |i| common::fleet::fleet_actor(EOB_FIRES, i);
    let due = common::fleet::spread_timers(0, EOB_FIRES, next, 1, owner);
    chain.test_hook_insert_timers(due).expect("due timers");
    chain
}

/// Seals the block, returning how many traces it left (0 untraced).
fn seal_traced(mut chain: cowboy_devnet::chain::Chain) -> usize {
    chain.seal_block();
    chain.take_traces().len()
}

/// Issue 32, "Speed": "a traced block within 1.5x of an untraced one (`end_of_block` with and
/// without tracing, beside each other)". One block of `EOB_FIRES` scripted fires, sealed with
/// tracing off (the baseline) and on; the chain is cloned outside the timing.
fn end_of_block(c: &mut Criterion) {
    let off = eob_chain();
    let mut on = off.clone();
    on.set_tracing(true);
    assert_eq!(seal_traced(off.clone()), 0);
    assert_eq!(
        seal_traced(on.clone()),
        EOB_FIRES as usize,
        "every fire traced"
    );
    let mut g = c.benchmark_group("traces/end_of_block");
    g.sample_size(20);
    let batch = criterion::BatchSize::LargeInput;
    g.bench_function("untraced_baseline", |b| {
        b.iter_batched(|| off.clone(), seal_traced, batch)
    });
    g.bench_function("traced", |b| {
        b.iter_batched(|| on.clone(), seal_traced, batch)
    });
    g.finish();
    eob_ratio_report(&off, &on);
}

/// The same two blocks sealed in turn, `PAIRS` times, each side's fastest and median time and
/// their ratio: taking turns keeps a shared machine's drift out of the ratio (criterion's two
/// medians above are minutes apart).
fn eob_ratio_report(off: &cowboy_devnet::chain::Chain, on: &cowboy_devnet::chain::Chain) {
    const PAIRS: usize = 40;
    let time = |c: &cowboy_devnet::chain::Chain| {
        let c = c.clone();
        let t = std::time::Instant::now();
        black_box(seal_traced(c));
        t.elapsed()
    };
    let (mut a, mut b): (Vec<_>, Vec<_>) = (0..PAIRS).map(|_| (time(off), time(on))).unzip();
    a.sort();
    b.sort();
    let ratio = |x: std::time::Duration, y: std::time::Duration| y.as_secs_f64() / x.as_secs_f64();
    println!(
        "traces/end_of_block report ({PAIRS} pairs in turn): untraced min {:?} median {:?}; \
         traced min {:?} median {:?}; ratio min {:.2}x median {:.2}x",
        a[0],
        a[PAIRS / 2],
        b[0],
        b[PAIRS / 2],
        ratio(a[0], b[0]),
        ratio(a[PAIRS / 2], b[PAIRS / 2])
    );
}

criterion_group!(benches, bench, end_of_block, rebuild);
criterion_main!(benches);
