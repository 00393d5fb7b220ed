//! What a carried timer costs in the live chain, and what a clone of the chain (a history
//! checkpoint, a snapshot) copies of it (issue 31, brief "carry": a long-running `serve` under
//! 300 MB with a 100,000-timer backlog).
//!
//! Per scheduler (`fifo`, `eip1559`), one chain whose lane takes `FIRES` timers of `GAS`
//! cycles a block and N timers (default 100,000; `N`), built two ways:
//!
//! * *pending*: the N timers due 1,000 heights ahead, not yet due (the baseline);
//! * *carried*: the N timers due at the next block, which defers them behind the full lane,
//!   then two more blocks so the backlog is settled (as `benches/backlog.rs` builds it).
//!
//! Printed, per timer, from a counting allocator: the heap the timers took in the chain, what a
//! clone of the chain holds on to alone (what each checkpoint copies), and the queue's heap by
//! part (each part dropped in turn, `QueuePart::ALL`).
//!
//! Run: `cargo bench --bench carry_bytes` (a report, no criterion; a few seconds).

use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::{Chain, Genesis, GenesisAccount, Transaction, TxKind};
use cowboy_devnet::engine::queue::QueuePart;
use cowboy_devnet::engine::{Address, SchedulerKind, Timer, TimerConfig, TimerId};
use cowboy_devnet::vm::DevnetRuntime;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

const FIRES: usize = 100;
const GAS: u64 = 10_000;
const ACTORS: usize = 100;
const RICH: u128 = 1_000_000_000_000_000_000_000_000_000_000;

fn actor(i: usize) -> Address {
    Address::from_low_u64(0x2_0000 + (i % ACTORS) as u64)
}

fn timer(n: u64, height: u64) -> Timer {
    let mut id = [0u8; 32];
    id[..8].copy_from_slice(&n.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes());
    id[8..16].copy_from_slice(&n.to_le_bytes());
    let owner = actor(n as usize);
    Timer {
        timer_id: TimerId(id),
        actor_address: owner,
        fee_payer: owner,
        height,
        seq: 0,
        schedule_block: height.saturating_sub(1),
        gas_limit_per_fire: GAS,
        expires_at: height + 2_000_000,
        payload: Box::default(),
        fee_caps: None,
    }
}

fn chain(scheduler: SchedulerKind) -> Chain {
    let funder = Address::from_label("bench-funder");
    let genesis = Genesis {
        timer: TimerConfig {
            max_timers_per_actor: u32::MAX,
            max_cycles_per_fire: GAS,
            lane_timer_cycles: GAS * FIRES as u64,
            ..TimerConfig::default()
        },
        accounts: vec![GenesisAccount {
            address: funder,
            balance: RICH * (ACTORS as u128 + 1),
        }],
        ..Genesis::default()
    }
    .with_scheduler(Some(scheduler), None)
    .expect("scheduler");
    let mut chain = Chain::new(genesis, DevnetRuntime::shared()).expect("genesis");
    chain.set_keep_blocks(1);
    for i in 0..ACTORS {
        chain
            .apply_tx(Transaction::new(
                funder,
                TxKind::Deploy {
                    address: Some(actor(i)),
                    code: ActorCode::none(),
                    endowment: RICH,
                },
            ))
            .expect("deploy");
    }
    chain.seal_block();
    chain.seal_block();
    chain
}

/// The chain with `n` timers either pending (due ahead) or carried behind the full lane.
fn scene(scheduler: SchedulerKind, n: usize, carried: bool) -> (Chain, isize) {
    let mut c = chain(scheduler);
    let ((), heap) = counting_alloc::measure(|| {
        let h = c.pending_height() + if carried { 0 } else { 1_000 };
        let extra = if carried { FIRES } else { 0 };
        let timers: Vec<Timer> = (0..n + extra).map(|i| timer(i as u64, h)).collect();
        c.test_hook_insert_timers(timers).expect("fresh ids");
        for _ in 0..3 {
            c.seal_block();
        }
    });
    (c, heap.retained)
}

fn per(bytes: isize, n: usize) -> f64 {
    bytes as f64 / n as f64
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        println!("carry_bytes: report");
        return;
    }
    let n: usize = std::env::var("N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    println!("carry_bytes: {n} timers, lane {FIRES} fires a block; bytes per timer");
    for scheduler in [SchedulerKind::Fifo, SchedulerKind::Eip1559] {
        for carried in [false, true] {
            let (mut c, took) = scene(scheduler, n, carried);
            let (copy, cloned) = counting_alloc::measure(|| c.clone());
            let left = c.engine().queue().len();
            println!(
                "  {:<8} {:<8} ({left} left): chain heap {:>7.1} B, a clone holds {:>6.1} B",
                scheduler.as_str(),
                if carried { "carried" } else { "pending" },
                per(took, n),
                per(cloned.retained, n)
            );
            drop(copy);
            let mut parts = String::new();
            for part in QueuePart::ALL {
                let ((), heap) = counting_alloc::measure(|| c.test_hook_drop_queue_part(part));
                parts.push_str(&format!(" {part:?} {:.1},", per(-heap.retained, n)));
            }
            println!("    queue by part:{}", parts.trim_end_matches(','));
        }
    }
}
