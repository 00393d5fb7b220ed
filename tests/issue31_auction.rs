//! Issue 31, "the eip1559 auction over a standing backlog ≤ 2x the no-backlog block" (Spec note
//! 188): the auction kept over the carry queue (the plain carried timers taken in auction order
//! from per-actor indexes, the others priced one by one) decides what the walk of every due
//! timer with the full sort decides. Two chains get the same genesis, actors, timers and balance
//! moves; one plans with the walk (`test_hook_full_auction_walk`). Every block: the same block
//! (fires in the same order, deferrals and reasons, events, counts, backlog summary, lane
//! figures) and the same state root.
//!
//! The same for `cip1-v1` (issue 31, fifth session, Spec note 219): its auction over the carry
//! queue against its walk (every due timer bid, every bid sorted, the slices filled over all
//! of them), and the carry queue's order after every block (the bucket of the next height).

use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::{Chain, Genesis, GenesisAccount, Transaction, TxKind};
use cowboy_devnet::engine::{
    Address, FeeCaps, PriorityTier, SchedulerKind, Timer, TimerConfig, TimerId,
};
use cowboy_devnet::vm::DevnetRuntime;
use proptest::prelude::*;

const GAS: u64 = 10_000;
const RICH: u128 = 1_000_000_000_000_000_000_000_000;
/// Code-less actors, then one whose GBA bids, then one whose GBA reverts (falls back).
const PLAIN: u64 = 4;
const ACTORS: u64 = PLAIN + 2;
const GBA_BID: &str = r#"{"get_gas_bid": [{"op": "bid", "max_fee_per_cycle": "5000000000", "max_priority_fee_per_cycle": "700000000"}]}"#;
const GBA_REVERT: &str = r#"{"get_gas_bid": [{"op": "revert", "reason": "no"}]}"#;

fn actor(i: u64) -> Address {
    Address::from_low_u64(0x3_1000 + i % ACTORS)
}

/// A timer's fee parameters: none (the default GBA, or the actor's), caps, or a tier.
#[derive(Clone, Debug)]
enum Fees {
    None,
    Caps(u128, u128),
    Tier(u8),
}

/// Something that happens before a block.
#[derive(Clone, Debug)]
enum Move {
    /// A timer: height offset, gas, ttl, owner, fee payer, fees.
    Schedule(u64, u64, u64, u64, u64, Fees),
    /// An actor's balance set.
    Balance(u64, u128),
}

fn fees() -> impl Strategy<Value = Fees> {
    prop_oneof![
        6 => Just(Fees::None),
        2 => (0u128..4_000_000_000, 0u128..3_000_000_000).prop_map(|(f, p)| Fees::Caps(f, p)),
        1 => (0u8..3).prop_map(Fees::Tier),
    ]
}

fn moves() -> impl Strategy<Value = Vec<Vec<Move>>> {
    let one = prop_oneof![
        12 => (0u64..3, 2_000u64..GAS, 0u64..25, 0u64..ACTORS, 0u64..8, fees())
            .prop_map(|(h, g, t, a, p, f)| Move::Schedule(h, g, t, a, p, f)),
        1 => (0u64..ACTORS, 0u128..3_000_000_000).prop_map(|(a, b)| Move::Balance(a, b)),
        1 => (0u64..ACTORS).prop_map(|a| Move::Balance(a, RICH)),
    ];
    prop::collection::vec(prop::collection::vec(one, 0..30), 4..22)
}

fn chain(scheduler: SchedulerKind, full_walk: bool) -> Chain {
    let funder = Address::from_label("issue31-funder");
    let genesis = Genesis {
        timer: TimerConfig {
            max_timers_per_actor: u32::MAX,
            max_cycles_per_fire: GAS,
            lane_timer_cycles: 4 * GAS,
            gc_cycles_per_block: 3 * 5_000,
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
    let mut c = Chain::new(genesis, DevnetRuntime::shared()).expect("genesis");
    c.test_hook_full_auction_walk(full_walk);
    for i in 0..ACTORS {
        let code = match i {
            i if i < PLAIN => ActorCode::none(),
            i if i == PLAIN => ActorCode::native(GBA_BID),
            _ => ActorCode::native(GBA_REVERT),
        };
        let tx = TxKind::Deploy {
            address: Some(actor(i)),
            code,
            endowment: RICH,
        };
        c.apply_tx(Transaction::new(funder, tx)).expect("deploy");
    }
    c.seal_block();
    c
}

fn timer(n: u64, height: u64, m: (u64, u64, u64, u64, &Fees)) -> Timer {
    timer_under(SchedulerKind::Eip1559, n, height, m)
}

/// [`timer`] for `scheduler`: under `cip1-v1` the owner pays (v1 §4.1).
fn timer_under(
    scheduler: SchedulerKind,
    n: u64,
    height: u64,
    m: (u64, u64, u64, u64, &Fees),
) -> Timer {
    let (gas, ttl, owner, payer, fees) = m;
    let mut id = [0u8; 32];
    id[..8].copy_from_slice(&n.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes());
    id[8..16].copy_from_slice(&n.to_le_bytes());
    let caps = |f: Option<u128>, p: Option<u128>, t: Option<PriorityTier>| {
        Some(Box::new(FeeCaps {
            max_fee_per_cycle: f,
            max_priority_fee_per_cycle: p,
            priority_tier: t,
            ..FeeCaps::default()
        }))
    };
    Timer {
        timer_id: TimerId(id),
        actor_address: actor(owner),
        // Payers beyond the actors are the actors again: most timers pay for themselves.
        fee_payer: actor(if payer < ACTORS && scheduler != SchedulerKind::Cip1V1 {
            payer
        } else {
            owner
        }),
        height,
        seq: 0,
        schedule_block: height.saturating_sub(1),
        gas_limit_per_fire: gas,
        expires_at: height + ttl,
        payload: Box::default(),
        fee_caps: match fees {
            Fees::None => None,
            Fees::Caps(f, p) => caps(Some(*f), Some(*p), None),
            Fees::Tier(t) => caps(
                None,
                None,
                Some(
                    [
                        PriorityTier::Economy,
                        PriorityTier::Fast,
                        PriorityTier::Urgent,
                    ][*t as usize],
                ),
            ),
        },
    }
}

/// Plays the blocks; returns each block (as JSON) with the state root after it.
fn play(blocks: &[Vec<Move>], full_walk: bool) -> Vec<(serde_json::Value, String)> {
    play_cloning(blocks, full_walk, 0)
}

/// Plays the blocks under `scheduler`, the chain replaced by its clone every `clone_every`-th
/// block (0: never); returns each block (as JSON), the state root after it and the next
/// height's bucket (the carried timers first, in the carry queue's order).
fn play_under(
    scheduler: SchedulerKind,
    blocks: &[Vec<Move>],
    full_walk: bool,
    clone_every: usize,
) -> Vec<(serde_json::Value, String, Vec<TimerId>)> {
    let mut c = chain(scheduler, full_walk);
    let mut n = 0u64;
    let mut out = Vec::new();
    for (i, moves) in blocks.iter().enumerate() {
        if clone_every > 0 && i % clone_every == clone_every - 1 {
            c = c.clone();
        }
        let h = c.pending_height();
        let mut timers = Vec::new();
        for m in moves {
            match m {
                Move::Schedule(dh, gas, ttl, owner, payer, fees) => {
                    let what = (*gas, *ttl, *owner, *payer, fees);
                    timers.push(timer_under(scheduler, n, h + dh, what));
                    n += 1;
                }
                Move::Balance(a, b) => c.set_balance(&actor(*a), *b),
            }
        }
        c.test_hook_insert_timers(timers).expect("fresh ids");
        let b = c.seal_block();
        let json = serde_json::to_value(b).expect("serializes");
        let next = c.engine().queue().bucket(c.pending_height());
        let order = next.iter().map(|t| t.timer_id).collect();
        out.push((json, format!("{:?}", c.state_root()), order));
    }
    out
}

/// [`play`], the chain replaced by its clone (a checkpoint, a snapshot) after every
/// `clone_every`-th block (0: never): a clone rebuilds the carry queue's and the auction's
/// indexes rather than copying them (issue 31, brief "carry").
fn play_cloning(
    blocks: &[Vec<Move>],
    full_walk: bool,
    clone_every: usize,
) -> Vec<(serde_json::Value, String)> {
    play_under(SchedulerKind::Eip1559, blocks, full_walk, clone_every)
        .into_iter()
        .map(|(b, root, _)| (b, root))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn issue31_auction_over_the_carry_queue_decides_what_the_full_walk_decides(
        blocks in moves()
    ) {
        same_blocks(&play(&blocks, false), &play(&blocks, true))?;
    }

    /// Issue 31 (brief "carry"): a chain replaced by its clone every few blocks (the clone's
    /// carry and auction indexes rebuilt on first use) plays the blocks the full walk plays.
    #[test]
    fn issue31_a_clone_rebuilds_the_auction_indexes_and_decides_the_same(
        blocks in moves(),
        clone_every in 1usize..4,
    ) {
        same_blocks(&play_cloning(&blocks, false, clone_every), &play(&blocks, true))?;
    }

    /// Issue 31 (fifth session, Spec note 219): CIP-1 v1's auction over the carry queue plays
    /// the blocks its walk plays: the same blocks (fires and their order, events, counts, the
    /// weights' updates), state roots and carry-queue order; also on a chain replaced by its
    /// clone every few blocks.
    #[test]
    fn issue31_v1_auction_over_the_carry_queue_decides_what_its_walk_decides(
        blocks in moves(),
        clone_every in 0usize..4,
    ) {
        let fast = play_under(SchedulerKind::Cip1V1, &blocks, false, clone_every);
        same_blocks(&fast, &play_under(SchedulerKind::Cip1V1, &blocks, true, 0))?;
    }
}

/// Each block of `fast` equals the same block of `walk`.
fn same_blocks<T: PartialEq + std::fmt::Debug>(
    fast: &[T],
    walk: &[T],
) -> Result<(), TestCaseError> {
    prop_assert_eq!(fast.len(), walk.len());
    for (i, (f, w)) in fast.iter().zip(walk).enumerate() {
        prop_assert_eq!(f, w, "block {} differs", i);
    }
    Ok(())
}

/// The block (as JSON) leaves more than 40 timers carried.
fn assert_backlog_stands(block: &serde_json::Value) {
    assert!(
        block["eob"]["backlog"]["count"].as_u64().expect("count") > 40,
        "a backlog stands: {}",
        block["eob"]
    );
}

/// The bench's shape, small: 60 timers of the plain actors at once (`gas(i)` each), then four
/// a block for 20 blocks, so a backlog stands behind the full lane.
fn standing_backlog(gas: impl Fn(u64) -> u64) -> Vec<Vec<Move>> {
    let mut blocks = vec![
        (0..60)
            .map(|i| Move::Schedule(0, gas(i), 200, i % PLAIN, i % PLAIN, Fees::None))
            .collect::<Vec<_>>(),
    ];
    for b in 0..20u64 {
        blocks.push(
            (0..4)
                .map(|i| Move::Schedule(0, GAS, 200, (b + i) % ACTORS, 9, Fees::None))
                .collect(),
        );
    }
    blocks
}

/// A standing backlog behind a full lane (the bench's shape, small): every block fires the
/// lane's worth, the backlog stays carried, and both paths agree block by block.
#[test]
fn issue31_standing_backlog_same_blocks_and_roots() {
    let blocks = standing_backlog(|_| GAS);
    let fast = play(&blocks, false);
    let walk = play(&blocks, true);
    // Issue 31 (brief "carry"): and a chain replaced by its clone every third block.
    assert_eq!(play_cloning(&blocks, false, 3), walk);
    assert_eq!(fast.len(), walk.len());
    for (i, (f, w)) in fast.iter().zip(&walk).enumerate() {
        assert_eq!(f, w, "block {i} differs");
    }
    assert_backlog_stands(&fast.last().expect("blocks").0);
}

/// Issue 30 ("nothing lost") over issue 31's auction: the incremental auction carries timers in
/// the walk's order, which is not (height, seq); a state dumped in the middle of a standing
/// eip1559 backlog loads, and the loaded chain plays the next blocks as the one it came from
/// (same blocks, same roots).
#[test]
fn issue31_a_dump_mid_backlog_loads_and_plays_on_the_same() {
    fn step(c: &mut Chain, n: &mut u64, b: u64, count: u64) -> (serde_json::Value, String) {
        let h = c.pending_height();
        let timers: Vec<Timer> = (0..count)
            .map(|i| {
                *n += 1;
                let who = (b + i) % PLAIN;
                timer(*n, h, (GAS, 200, who, who, &Fees::None))
            })
            .collect();
        c.test_hook_insert_timers(timers).expect("fresh ids");
        let block = c.seal_block();
        (
            serde_json::to_value(block).expect("serializes"),
            format!("{:?}", c.state_root()),
        )
    }
    let mut c = chain(SchedulerKind::Eip1559, false);
    let mut n = 0u64;
    step(&mut c, &mut n, 0, 60);
    for b in 1..8 {
        step(&mut c, &mut n, b, 4);
    }
    let dump = c.dump().expect("no block open");
    let text = serde_json::to_string(&dump).expect("dump serializes");
    let mut loaded = Chain::load(
        serde_json::from_str(&text).expect("dump parses"),
        DevnetRuntime::shared(),
    )
    .expect("a dump taken mid-backlog loads");
    assert_eq!(loaded.state_root(), c.state_root());
    let mut m = n;
    let mut last = serde_json::Value::Null;
    for b in 8..16 {
        let ours = step(&mut c, &mut n, b, 4);
        let theirs = step(&mut loaded, &mut m, b, 4);
        assert_eq!(ours, theirs, "block {b} after the load differs");
        last = ours.0;
    }
    assert!(
        last["eob"]["backlog"]["count"].as_u64().expect("count") > 40,
        "a backlog still stands: {}",
        last["eob"]
    );
}

/// Issue 31 (fifth session): a standing backlog behind a full lane under `cip1-v1` (the
/// bench's shape, small): both paths agree block by block, and the backlog stands.
#[test]
fn issue31_v1_standing_backlog_same_blocks_roots_and_order() {
    // Budgets that differ, so the slices' passes skip and take.
    let blocks = standing_backlog(|i| GAS - i * 10);
    let fast = play_under(SchedulerKind::Cip1V1, &blocks, false, 0);
    let walk = play_under(SchedulerKind::Cip1V1, &blocks, true, 0);
    assert_eq!(play_under(SchedulerKind::Cip1V1, &blocks, false, 3), walk);
    assert_eq!(fast, walk, "the blocks, roots and carry order differ");
    assert_backlog_stands(&fast.last().expect("blocks").0);
    assert!(
        fast.iter().any(|(b, _, _)| b["events"]
            .as_array()
            .is_some_and(|e| e.iter().any(|e| e.to_string().contains("WeightUpdated")))),
        "the weights move"
    );
}
