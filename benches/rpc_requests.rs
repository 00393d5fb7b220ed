//! JSON-RPC requests over HTTP keep-alive from 32 concurrent clients (issue 13, "Speed"), while
//! the node mines a block every 100 ms, beside a bare jsonrpsee server answering a constant on
//! the same machine in the same run (the baseline).
//!
//! * `rpc_requests/bare_constant`: the baseline, a method that returns `0`.
//! * `rpc_requests/devnet_blockNumber`: reads the published head (never waits behind a seal).
//! * `rpc_requests/timer_schedule`: a transaction per request (each seals its block under
//!   automine; here the node mines on its 100 ms interval, so they share blocks).
//! * A report (printed): p50/p99 latency of each, the ratio of `devnet_blockNumber`'s requests
//!   per second to the baseline's, and the longest interval between two blocks sealed while
//!   the load ran (target: under 2 x 100 ms).
//!
//! * The report also plays a mix of reads (issue 31 item 7, "past reads off the node's
//!   thread"): 40 % `devnet_blockNumber`, 40 % `scheduler_tiers` at the head, 20 % either
//!   `scheduler_tiers` at the head too (`mix_head`, the baseline) or at one of 16 past heights
//!   spread over the chain so far (`mix_past20`): throughput of both (target: the past mix at
//!   least 0.8x the other) and `devnet_blockNumber`'s p99 inside the past mix (target < 5 ms).
//!   A third mix (`mix_trace20`) makes its fifth request `devnet_traceBlock` of one of the 16
//!   past heights instead: a block's traces rebuilt by a replay from its checkpoint, finished
//!   on a past-read thread (`COWBOY_PAST_READERS=0`: on the node's thread, as before). The
//!   past and trace mixes run a second time (`again`: the 16 heights' past states and rebuilt
//!   traces kept by then), and the past reads' own latencies are printed apart.
//!
//! Run: `cargo bench --bench rpc_requests` (filters: `bare_constant`, `devnet_blockNumber`,
//! `timer_schedule`; the report runs every time). `COWBOY_PAST_READERS=0` puts past reads on
//! the node's thread, `COWBOY_PAST_CACHE=4` keeps the last four past states (as before Spec
//! note 198) instead of a budget of bytes, `COWBOY_TRACE_CACHE=0` keeps no rebuilt trace (each
//! `devnet_traceBlock` of a block not traced replays it, as before Spec note 205),
//! `COWBOY_CHECKPOINT_BUDGET=64` sets the checkpoints' budget in MiB (default 32, Spec note
//! 208), `COWBOY_CHECKPOINT_WORK=1` places a checkpoint after every block with a body (Spec
//! note 220, with `COWBOY_CHECKPOINT_BUDGET=4096`: each past read's replay is short, but the
//! node's thread walks every checkpoint at each placement, so it is slower, not a floor).

use cowboy_devnet::chain::Genesis;
use cowboy_devnet::node::{
    MiningMode, NodeConfig, NodeCore, NodeHandle, PAST_READ_THREADS, RetainedPart, ShellConfig,
    spawn_with,
};
use cowboy_devnet::rpc::methods::module;
use cowboy_devnet::rpc::server::{self, Running, ServerOptions};
use cowboy_devnet::vm::DevnetRuntime;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use jsonrpsee::RpcModule;
use jsonrpsee::core::client::ClientT;
use jsonrpsee::http_client::{HttpClient, HttpClientBuilder};
use jsonrpsee::rpc_params;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

const CLIENTS: usize = 32;

struct Setup {
    rt: tokio::runtime::Runtime,
    bare: Running,
    devnet: Running,
    node: NodeHandle,
    actors: Vec<String>,
}

fn opts() -> ServerOptions {
    ServerOptions {
        port: 0,
        max_connections: 1024,
        ..ServerOptions::default()
    }
}

fn setup() -> Setup {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut genesis = Genesis::default();
    // Every `timer_schedule` of the run leaves a pending timer on one of 32 actors.
    genesis.timer.max_timers_per_actor = 1_000_000;
    let mut cfg = NodeConfig::new(genesis, DevnetRuntime::shared());
    cfg.mining = MiningMode::Auto;
    // `COWBOY_CHECKPOINT_BUDGET=64`: the checkpoints' budget in MiB (issue 31, Spec note 208:
    // what the default's 32 MiB costs past reads against the 64 before).
    if let Some(mib) = std::env::var("COWBOY_CHECKPOINT_BUDGET")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        cfg.checkpoint_budget = mib << 20;
    }
    // `COWBOY_PAST_READERS=0`: past reads on the node's thread, as before issue 31.
    let shell = ShellConfig {
        past_readers: std::env::var("COWBOY_PAST_READERS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(PAST_READ_THREADS),
        ..ShellConfig::default()
    };
    let mut core = NodeCore::new(cfg).unwrap();
    // `COWBOY_PAST_CACHE=4`: the last four past states kept, as before Spec note 198 (the
    // default keeps them by bytes, `--past-budget`).
    if let Some(n) = std::env::var("COWBOY_PAST_CACHE")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        core.set_past_cache(n);
    }
    // `COWBOY_CHECKPOINT_WORK=1`: a checkpoint after every block with a body (Spec note 220):
    // a checkpoint at or just below (quiet heights between) every height read, so a new
    // height's replay is short. Not a floor: the checkpoints' budget walks them all at each
    // placement on the node's thread (BENCHMARKS.md, ninth session). Run it with
    // `COWBOY_CHECKPOINT_BUDGET=4096` so the budget thins none of them.
    if let Some(units) = std::env::var("COWBOY_CHECKPOINT_WORK")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        core.set_checkpoint_work(units);
    }
    // `COWBOY_TRACE_CACHE=0`: no rebuilt trace kept, each ask replays (as before Spec note 205).
    if std::env::var("COWBOY_TRACE_CACHE").is_ok_and(|v| v == "0") {
        core.set_rebuilt_traces_budget(0);
    }
    let node = spawn_with(core, shell);
    let (bare, devnet, actors) = rt.block_on(async {
        let mut m = RpcModule::new(());
        m.register_method("devnet_blockNumber", |_, _, _| 0u64)
            .unwrap();
        let bare = server::start(m, &opts()).await.unwrap();
        let devnet = server::start(module(node.clone()), &opts()).await.unwrap();
        let c = client(&devnet);
        // One actor per client, each with funds for its timers' fires.
        let mut actors = Vec::new();
        for _ in 0..CLIENTS {
            let a: Value = c
                .request(
                    "actor_deploy",
                    rpc_params![json!({"balance": "1000000000000000000"})],
                )
                .await
                .unwrap();
            actors.push(a.as_str().unwrap().to_string());
        }
        let _: Value = c
            .request(
                "devnet_setMining",
                rpc_params![json!({"mode": "interval", "block_time": 0.1})],
            )
            .await
            .unwrap();
        (bare, devnet, actors)
    });
    Setup {
        rt,
        bare,
        devnet,
        node,
        actors,
    }
}

fn client(r: &Running) -> HttpClient {
    HttpClientBuilder::default()
        .max_concurrent_requests(CLIENTS * 2)
        .build(format!("http://{}", r.addr))
        .unwrap()
}

#[derive(Clone, Copy)]
enum Call {
    BlockNumber,
    Schedule,
    /// The read mix; `true`: its fifth request reads a past height.
    Mix(bool),
    /// The read mix, its fifth request a past block's traces.
    MixTrace,
}

/// What a request of the read mix was.
#[derive(PartialEq)]
enum Sent {
    BlockNumber,
    Head,
    /// The fifth request reading a past height.
    Past,
}

/// One request of the read mix, the `k`-th of its client; what it was.
/// `trace`: the past reads are `devnet_traceBlock`.
async fn mix_one(c: &HttpClient, k: u64, past: bool, trace: bool, head: u64) -> Sent {
    match k % 5 {
        0 | 1 => {
            let _: Value = c
                .request("devnet_blockNumber", rpc_params![])
                .await
                .unwrap();
            Sent::BlockNumber
        }
        4 if past => {
            // One of 16 heights spread over the chain sealed before the mix started.
            let at = (1 + (k / 5 % 16) * head / 16)
                .min(head.saturating_sub(1))
                .max(1);
            let method = if trace {
                "devnet_traceBlock"
            } else {
                "scheduler_tiers"
            };
            let _: Value = c.request(method, rpc_params![at]).await.unwrap();
            Sent::Past
        }
        _ => {
            let _: Value = c.request("scheduler_tiers", rpc_params![]).await.unwrap();
            Sent::Head
        }
    }
}

/// `total` requests spread over 32 clients (each its own keep-alive connection); their
/// latencies (in a mix: `devnet_blockNumber`'s), and in a mix the past reads'. A mix spreads
/// its past heights under `head`.
async fn load(
    r: &Running,
    call: Call,
    head: u64,
    total: u64,
    actors: &[String],
    heights: &Arc<AtomicU64>,
) -> (Vec<Duration>, Vec<Duration>) {
    let per = total.div_ceil(CLIENTS as u64);
    let mut tasks = Vec::new();
    for i in 0..CLIENTS {
        let c = client(r);
        let actor = actors.get(i).cloned().unwrap_or_default();
        let heights = heights.clone();
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::with_capacity(per as usize);
            let mut past_lat = Vec::new();
            for k in 0..per {
                let t = Instant::now();
                match call {
                    Call::Mix(_) | Call::MixTrace => {
                        let (past, trace) = match call {
                            Call::Mix(past) => (past, false),
                            _ => (true, true),
                        };
                        // `devnet_blockNumber`'s latencies and the past reads' are kept.
                        match mix_one(&c, k + i as u64, past, trace, head).await {
                            Sent::BlockNumber => {}
                            Sent::Past => {
                                past_lat.push(t.elapsed());
                                continue;
                            }
                            Sent::Head => continue,
                        }
                    }
                    Call::BlockNumber => {
                        let _: Value = c
                            .request("devnet_blockNumber", rpc_params![])
                            .await
                            .unwrap();
                    }
                    Call::Schedule => {
                        // A fresh far height per request: distinct ids, never due in the run.
                        let h = heights.fetch_add(1, Ordering::Relaxed);
                        let _: Value = c
                            .request(
                                "timer_schedule",
                                rpc_params![json!({"actor": actor, "height": h})],
                            )
                            .await
                            .unwrap();
                    }
                }
                lat.push(t.elapsed());
            }
            (lat, past_lat)
        }));
    }
    let (mut all, mut past) = (Vec::new(), Vec::new());
    for t in tasks {
        let (l, p) = t.await.unwrap();
        all.extend(l);
        past.extend(p);
    }
    (all, past)
}

fn pct(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p) as usize]
}

fn bench(c: &mut Criterion) {
    let s = setup();
    let heights = Arc::new(AtomicU64::new(100_000));
    let mut g = c.benchmark_group("rpc_requests");
    g.throughput(Throughput::Elements(1));
    g.sample_size(10);
    g.bench_function("bare_constant", |b| {
        b.iter_custom(|n| {
            let t = Instant::now();
            s.rt.block_on(load(&s.bare, Call::BlockNumber, 0, n, &[], &heights));
            t.elapsed()
        })
    });
    g.bench_function("devnet_blockNumber", |b| {
        b.iter_custom(|n| {
            let t = Instant::now();
            s.rt.block_on(load(&s.devnet, Call::BlockNumber, 0, n, &[], &heights));
            t.elapsed()
        })
    });
    g.bench_function("timer_schedule", |b| {
        b.iter_custom(|n| {
            let t = Instant::now();
            s.rt.block_on(load(&s.devnet, Call::Schedule, 0, n, &s.actors, &heights));
            t.elapsed()
        })
    });
    g.finish();

    // The report: fixed loads, latencies and block intervals.
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let mut head = s.node.watch_head();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop2 = stop.clone();
    let intervals = s.rt.spawn(async move {
        let mut last = Instant::now();
        let mut worst = Duration::ZERO;
        let mut blocks = 0u64;
        let mut height = head.borrow().height;
        while !stop2.load(Ordering::Relaxed) {
            if tokio::time::timeout(Duration::from_millis(500), head.changed())
                .await
                .is_ok()
            {
                let h = head.borrow().height;
                if h != height {
                    height = h;
                    blocks += 1;
                    worst = worst.max(last.elapsed());
                    last = Instant::now();
                }
            }
        }
        (blocks, worst)
    });
    let n = 20_000;
    let run = |r: &Running, call: Call, actors: &[String]| {
        let t = Instant::now();
        let (mut lat, _) = s.rt.block_on(load(r, call, 0, n, actors, &heights));
        let secs = t.elapsed().as_secs_f64();
        lat.sort();
        (lat.len() as f64 / secs, pct(&lat, 0.5), pct(&lat, 0.99))
    };
    let bare = run(&s.bare, Call::BlockNumber, &[]);
    let bn = run(&s.devnet, Call::BlockNumber, &[]);
    let sch = run(&s.devnet, Call::Schedule, &s.actors);
    // The mixes: throughput of every request (the latencies kept are blockNumber's, 2 of 5,
    // and the past reads', 1 of 5, printed apart).
    let mut past_lines = Vec::new();
    // A mix's past heights spread under `head` (a mix run again on the same heights), or the
    // head as it starts; returned with its figures.
    let mut mix = |name: &str, call: Call, head: Option<u64>| {
        let head = head.unwrap_or_else(|| s.node.head().height);
        let t = Instant::now();
        let (mut lat, mut past) =
            s.rt.block_on(load(&s.devnet, call, head, 5_000, &[], &heights));
        let secs = t.elapsed().as_secs_f64();
        lat.sort();
        past.sort();
        if !past.is_empty() {
            let (kept, held, bounds) = s
                .node
                .query_blocking(|c| {
                    let sum = |v: Vec<(u64, usize)>| v.iter().map(|(_, b)| b).sum::<usize>();
                    (
                        c.past_states_kept(),
                        sum(c.past_state_bytes()),
                        sum(c.past_state_bounds()),
                    )
                })
                .unwrap();
            // The bounds (Spec note 222): while they add up to the budget or less, no fit walks.
            past_lines.push(format!(
                "  {name:<20} past reads p50 {:>9.2?}  p99 {:>9.2?}  max {:>9.2?}; past states kept after: {kept} ({:.1} MB held alone, bounds {:.1} MB)",
                pct(&past, 0.5),
                pct(&past, 0.99),
                past[past.len() - 1],
                held as f64 / 1e6,
                bounds as f64 / 1e6
            ));
        }
        ((5_000.0 / secs, pct(&lat, 0.5), pct(&lat, 0.99)), head)
    };
    let (mix_head, _) = mix("mix_head", Call::Mix(false), None);
    let (mix_past, past_head) = mix("mix_past20", Call::Mix(true), None);
    let (mix_trace, trace_head) = mix("mix_trace20", Call::MixTrace, None);
    // The same two again on the same 16 heights: their past states and rebuilt traces are
    // kept by now (warm).
    let (again_past, _) = mix("mix_past20 again", Call::Mix(true), Some(past_head));
    let (again_trace, _) = mix("mix_trace20 again", Call::MixTrace, Some(trace_head));
    // Where the past reads replayed from (Spec note 218: checkpoints placed by work), and
    // what each holds alone against the budget (Spec notes 194, 226: how the budget thinned).
    let (cps, head) = s
        .node
        .query_blocking(|c| (c.checkpoint_bytes(), c.height()))
        .unwrap();
    let mb = |b: usize| format!("{:.1}", b as f64 / 1e6);
    past_lines.push(format!(
        "  checkpoints at {:?} (head #{head}), holding alone {:?} MB (budget {} MB)",
        cps.heights,
        cps.held.iter().map(|b| mb(*b)).collect::<Vec<_>>(),
        mb(cps.budget),
    ));
    stop.store(true, Ordering::Relaxed);
    let (blocks, worst) = s.rt.block_on(intervals).unwrap();
    // The floor of the cold mix (issue 31): the 16 past heights it reads, built one after the
    // other with nothing else running, each from the nearer of its checkpoint and the state
    // kept below it (Spec note 198), as the mix builds them; and each from its checkpoint
    // alone. The past mix's 0.8x allows its builds a quarter of the head mix's time.
    let floor = s
        .node
        .test_hook_blocking(move |c| {
            // Drops the kept states (the mixes' own): each height is built anew.
            c.test_hook_drop_part(RetainedPart::PastStates);
            let heights: Vec<u64> = (0..16u64)
                .map(|i| {
                    (1 + i * past_head / 16)
                        .min(past_head.saturating_sub(1))
                        .max(1)
                })
                .collect();
            // The walks of the log alone (with each checkpoint's chain cloned to start from).
            let t = Instant::now();
            let walked: usize = heights.iter().map(|h| c.past_read_walk(*h).unwrap()).sum();
            let walks = t.elapsed();
            let t = Instant::now();
            for h in &heights {
                c.with_at(*h, |_| ()).unwrap();
            }
            let chained = t.elapsed();
            let t = Instant::now();
            for h in &heights {
                c.chain_at(*h).unwrap();
            }
            (chained, t.elapsed(), walked, walks)
        })
        .unwrap();
    past_lines.push(format!(
        "  floor of the cold mix: its 16 heights built alone one after the other {:.2?} (each from its checkpoint: {:.2?}; the walks of the log alone: {} links, {:.2?}); the 0.8x target allows them {:.2?}",
        floor.0,
        floor.1,
        floor.2,
        floor.3,
        Duration::from_secs_f64(0.25 * 5_000.0 / mix_head.0)
    ));
    println!("rpc_requests report ({CLIENTS} clients, HTTP keep-alive, node mining every 100 ms):");
    for (name, (rps, p50, p99)) in [
        ("bare_constant", bare),
        ("devnet_blockNumber", bn),
        ("timer_schedule", sch),
        ("mix_head", mix_head),
        ("mix_past20", mix_past),
        ("mix_trace20", mix_trace),
        ("mix_past20 again", again_past),
        ("mix_trace20 again", again_trace),
    ] {
        println!("  {name:<20} {rps:>10.0} req/s  p50 {p50:>9.2?}  p99 {p99:>9.2?}");
    }
    for l in past_lines {
        println!("{l}");
    }
    println!(
        "  devnet_blockNumber / bare: {:.2}x (target >= 0.8x); p99 target < 5 ms",
        bn.0 / bare.0
    );
    println!(
        "  mix_past20 / mix_head: {:.2}x (target >= 0.8x); devnet_blockNumber p99 in mix_past20 {:.2?} (target < 5 ms)",
        mix_past.0 / mix_head.0,
        mix_past.2
    );
    println!(
        "  mix_trace20 / mix_head: {:.2}x; devnet_blockNumber p99 in mix_trace20 {:.2?}",
        mix_trace.0 / mix_head.0,
        mix_trace.2
    );
    println!(
        "  again (warm): mix_past20 / mix_head {:.2}x, mix_trace20 / mix_head {:.2}x",
        again_past.0 / mix_head.0,
        again_trace.0 / mix_head.0
    );
    println!(
        "  blocks sealed during the report: {blocks}, longest interval {worst:.2?} (target < 200 ms)"
    );
    s.bare.handle.stop().ok();
    s.devnet.handle.stop().ok();
    s.node.shutdown();
}

criterion_group!(benches, bench);
criterion_main!(benches);
