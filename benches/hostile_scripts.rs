//! Wall time per million cycles of the most expensive scripts known (issue 11, "Scripts that
//! hold the node"), beside `loop {}` (the baseline: the cheapest operation there is). Each
//! measured iteration is one Call transaction with a 5,000,000-cycle limit on a fresh clone of a
//! prepared chain; the throughput criterion reports is in cycles (`elem/s` = cycles per second),
//! so time per million cycles is `1e6 / throughput`. The summary printed first gives each
//! script's cycles used and error, and its time per million cycles from a short timed run.
//!
//! Target: no script holds the node for more than about 100 ms per million cycles.
//!
//! Run: `cargo bench --bench hostile_scripts -- --warm-up-time 1 --measurement-time 3`.

use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::{Chain, Genesis, GenesisAccount, Receipt, Transaction, TxKind};
use cowboy_devnet::engine::Address;
use cowboy_devnet::vm::DevnetRuntime;
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use std::time::{Duration, Instant};

const CYCLE_LIMIT: u64 = 5_000_000;

/// `(handler, payload bytes)`: the scripts measured, `spin` first (the baseline), then `noop`
/// (the fixed cost of a call transaction, which dominates the calls that stop early).
const CASES: &[(&str, usize)] = &[
    ("spin", 0),
    ("noop", 0),
    ("copy_array", 0),
    ("copy_int_array", 0),
    ("copy_string", 0),
    ("print_debug", 0),
    ("recursion_in_loop", 0),
    ("map_growth", 0),
    ("compare_payload", 1 << 20),
];

const SCRIPT: &str = r#"
fn spin(payload) { loop {} }
fn noop(payload) { }
fn copy_array(payload) {
    let a = [];
    for i in 0..1_000 { a.push("0123456789abcdef0123456789abcdef0123456789abcdef012345678" + i); }
    loop { let b = a; }
}
fn copy_int_array(payload) { let a = []; a.pad(1_024, 0); loop { let b = a; } }
fn copy_string(payload) { let s = "x"; s.pad(60_000, 'y'); loop { let t = s; } }
fn print_debug(payload) { let s = "x"; s.pad(60_000, 'y'); loop { print(s); debug(s); } }
fn down(n) { abs(abs(abs(abs(abs(abs(abs(abs(down(n + 1))))))))) }
fn recursion_in_loop(payload) { loop { try { down(0) } catch {} } }
fn map_growth(payload) { let m = #{}; let i = 0; loop { m["k" + i] = i; i += 1; } }
fn compare_payload(payload) { let n = 0; loop { if payload == payload { n += 1; } } }
"#;

fn owner() -> Address {
    Address::from_label("owner")
}

fn actor() -> Address {
    Address::from_label("hostile.rhai")
}

fn prepared() -> Chain {
    let genesis = Genesis {
        accounts: vec![GenesisAccount {
            address: owner(),
            balance: 1 << 100,
        }],
        ..Genesis::default()
    };
    let mut chain = Chain::new(genesis, DevnetRuntime::shared()).expect("genesis");
    let r = chain
        .apply_tx(Transaction::new(
            owner(),
            TxKind::Deploy {
                address: Some(actor()),
                code: ActorCode::rhai("hostile.rhai", SCRIPT),
                endowment: 0,
            },
        ))
        .expect("deploy accepted");
    assert!(r.success, "deploy failed: {:?}", r.error);
    chain.seal_block();
    chain
}

fn call(handler: &str, payload: &[u8]) -> Transaction {
    let mut tx = Transaction::new(
        owner(),
        TxKind::Call {
            actor: actor(),
            handler: handler.into(),
            payload: payload.to_vec(),
        },
    );
    tx.cycle_limit = Some(CYCLE_LIMIT);
    tx
}

fn run(chain: &mut Chain, tx: Transaction) -> Receipt {
    chain.apply_tx(tx).expect("included")
}

fn hostile_scripts(c: &mut Criterion) {
    let chain = prepared();
    eprintln!("script               cycles used  error               ms per M cycles");
    for &(handler, bytes) in CASES {
        let tx = call(handler, &vec![7u8; bytes]);
        let mut fresh = chain.clone();
        let start = Instant::now();
        let r = run(&mut fresh, tx);
        let elapsed = start.elapsed();
        let name = r.error.as_ref().map_or("", |e| e.kind.as_str());
        let per_m = elapsed.as_secs_f64() * 1e3 * 1e6 / r.cycles_used.max(1) as f64;
        eprintln!(
            "{handler:<20} {:>11}  {name:<18} {per_m:>8.2}",
            r.cycles_used
        );
    }

    let mut g = c.benchmark_group("hostile_call_5m_cycles");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for &(handler, bytes) in CASES {
        let payload = vec![7u8; bytes];
        let used = run(&mut chain.clone(), call(handler, &payload)).cycles_used;
        g.throughput(Throughput::Elements(used));
        g.bench_function(handler, |b| {
            b.iter_batched(
                || (chain.clone(), call(handler, &payload)),
                |(mut chain, tx)| {
                    run(&mut chain, tx);
                    chain
                },
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, hostile_scripts);
criterion_main!(benches);
