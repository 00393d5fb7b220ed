//! The FIFO end of block over the carry queue (issue 20; CIP-5 §5.1, §5.4, §6.5, §8; Spec note
//! 71) decides what the walk of every due timer decides. Two queues get the same timers,
//! cancels, extensions and ledger moves; one is planned by `engine::fifo::plan` (which visits
//! only the carried timers whose outcome can change), the other by `engine::fifo::walk`.
//! Every block: the same fires (timer, cost), the same events in the same order, the same
//! counts and backlog summary, the same balances, the same state roots; at the end the same
//! dump. A queue restored from a dump mid-run goes on as the original does.

use cowboy_devnet::engine::eob::{FeeQuote, Ledger};
use cowboy_devnet::engine::{
    Address, CalendarQueue, EobPlan, QueueConfig, Timer, TimerConfig, TimerId, fifo,
};
use proptest::prelude::*;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Book(BTreeMap<Address, u128>);

impl Ledger for Book {
    fn balance(&self, who: &Address) -> u128 {
        self.0.get(who).copied().unwrap_or(0)
    }
    fn debit(&mut self, who: &Address, amount: u128) {
        *self.0.get_mut(who).expect("known payer") -= amount;
    }
}

const PAYERS: u64 = 5;

fn payer(i: u64) -> Address {
    Address::from_low_u64(0x7_0000 + i % PAYERS)
}

fn timer(n: u64, height: u64, gas: u64, ttl: u64, who: u64) -> Timer {
    let mut id = [0u8; 32];
    id[..8].copy_from_slice(&n.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes());
    id[8..16].copy_from_slice(&n.to_le_bytes());
    Timer {
        timer_id: TimerId(id),
        actor_address: payer(who),
        fee_payer: payer(who),
        height,
        seq: 0,
        schedule_block: height.saturating_sub(1),
        gas_limit_per_fire: gas,
        expires_at: height + ttl,
        payload: Box::default(),
        fee_caps: None,
    }
}

/// Something that happens before a block: a timer scheduled (height offset, gas, ttl, payer),
/// a cancel or an extension of an earlier timer (by its number), a payer's balance moved.
#[derive(Clone, Debug)]
enum Move {
    Schedule(u64, u64, u64, u64),
    Cancel(u64),
    Extend(u64, u64),
    Credit(u64, u128),
    Drain(u64),
    Basefee(u128),
}

fn moves() -> impl Strategy<Value = Vec<Vec<Move>>> {
    let one = prop_oneof![
        8 => (0u64..4, 1_000u64..12_000, 0u64..30, 0u64..PAYERS)
            .prop_map(|(h, g, t, p)| Move::Schedule(h, g, t, p)),
        1 => (0u64..400).prop_map(Move::Cancel),
        1 => (0u64..400, 0u64..40).prop_map(|(n, e)| Move::Extend(n, e)),
        1 => (0u64..PAYERS, 0u128..2_000_000).prop_map(|(p, a)| Move::Credit(p, a)),
        1 => (0u64..PAYERS).prop_map(Move::Drain),
        1 => (1u128..4).prop_map(Move::Basefee),
    ];
    prop::collection::vec(prop::collection::vec(one, 0..40), 5..40)
}

struct Side {
    queue: CalendarQueue,
    book: Book,
}

/// `lane` below 10,000 leaves the largest timers never fitting (a lane shrunk by governance).
fn cfg(gc_removals: u64, lane: u64) -> TimerConfig {
    TimerConfig {
        max_cycles_per_fire: 10_000,
        max_cells_per_fire: 100,
        lane_timer_cycles: lane,
        gc_cycles_per_block: gc_removals * eob_gc(),
        max_timers_per_actor: u32::MAX,
        ..TimerConfig::default()
    }
}

fn eob_gc() -> u64 {
    cowboy_devnet::engine::config::GC_CYCLES_PER_REMOVAL
}

/// What a plan decided, comparable across the two ways of making it.
fn decided(p: &EobPlan) -> impl PartialEq + std::fmt::Debug {
    let fires: Vec<(TimerId, u128, u64)> = p
        .fires
        .iter()
        .map(|f| (f.timer.timer_id, f.max_cost, f.cycles_limit))
        .collect();
    (fires, p.events.clone(), p.stats)
}

fn run(
    blocks: Vec<Vec<Move>>,
    gc_removals: u64,
    lane: u64,
    restore_at: usize,
    clone_every: usize,
) -> Result<(), TestCaseError> {
    let cfg = cfg(gc_removals, lane);
    let start = 10;
    let mut book = Book::default();
    for i in 0..PAYERS {
        book.0.insert(payer(i), 3_000_000);
    }
    let new_side = || Side {
        queue: CalendarQueue::new(QueueConfig::default(), start),
        book: book.clone(),
    };
    let (mut fast, mut walk) = (new_side(), new_side());
    let mut quote = FeeQuote {
        cycle_basefee: 1,
        cell_basefee: 1,
    };
    let mut ids = Vec::new();
    let mut n = 0u64;
    for (b, moves) in blocks.into_iter().enumerate() {
        let height = start + b as u64;
        for m in &moves {
            for side in [&mut fast, &mut walk] {
                match *m {
                    Move::Schedule(dh, gas, ttl, who) => {
                        let t = timer(n, height + dh, gas, ttl, who);
                        side.queue.insert(t).expect("fresh");
                    }
                    Move::Cancel(k) => {
                        if let Some(id) = ids.get(k as usize) {
                            side.queue.remove(id);
                        }
                    }
                    Move::Extend(k, by) => {
                        if let Some(id) = ids.get(k as usize)
                            && let Some(t) = side.queue.get(id)
                        {
                            let e = t.expires_at + by;
                            side.queue.set_expires_at(id, e);
                        }
                    }
                    Move::Credit(p, a) => *side.book.0.get_mut(&payer(p)).expect("payer") += a,
                    Move::Drain(p) => {
                        let v = side.book.0.get_mut(&payer(p)).expect("payer");
                        *v /= 3;
                    }
                    Move::Basefee(f) => quote.cycle_basefee = f,
                }
            }
            if let Move::Schedule(dh, gas, ttl, who) = *m {
                ids.push(timer(n, height + dh, gas, ttl, who).timer_id);
                n += 1;
            }
        }
        fast.queue.maintain(height);
        walk.queue.maintain(height);
        let a = fifo::plan(&mut fast.queue, height, &cfg, &quote, &mut fast.book);
        let w = fifo::walk(&mut walk.queue, height, &cfg, &quote, &mut walk.book, true);
        prop_assert_eq!(decided(&a), decided(&w), "block {}", height);
        prop_assert_eq!(&fast.book, &walk.book, "balances after block {}", height);
        prop_assert_eq!(
            fast.queue.commit(),
            walk.queue.commit(),
            "roots of {}",
            height
        );
        if b == restore_at {
            // A restored queue holds its carried timers in the next height's bucket.
            fast.queue = CalendarQueue::restore(fast.queue.dump()).expect("restores");
            fast.queue.commit();
        }
        if clone_every > 0 && b % clone_every == clone_every - 1 {
            // A clone (a checkpoint, a snapshot) plays on in the original's place: it rebuilds
            // the carry queue's indexes rather than copying them (issue 31, brief "carry").
            fast.queue = fast.queue.clone();
        }
    }
    prop_assert_eq!(fast.queue.dump(), walk.queue.dump());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// CIP-5 §5.1, §5.4, §6.5, §8 (issue 20): the carry queue's plan is the walk's plan.
    /// Issue 31 (brief "carry"): with `clone_every` above 0, the fast side is replaced by its
    /// clone every few blocks (a clone rebuilds the carry queue's indexes the first time a
    /// block reads them, rather than copying them) and still decides what the walk decides.
    #[test]
    fn cip5_6_5_the_carry_queue_decides_what_the_walk_decides(
        blocks in moves(),
        gc_removals in 1u64..6,
        lane in prop_oneof![Just(8_000u64), Just(30_000u64)],
        restore_at in 0usize..40,
        clone_every in 0usize..5,
    ) {
        run(blocks, gc_removals, lane, restore_at, clone_every)?;
    }
}

/// CIP-5 §6.5 (issue 20): a long backlog behind a full lane, with a payer that runs dry and
/// timers that expire while carried: the two plans agree block after block.
#[test]
fn cip5_6_5_a_deep_backlog_is_decided_as_the_walk_decides() {
    let schedules = |b: u64| -> Vec<Move> {
        (0..30u64)
            .map(|i| Move::Schedule(i % 3, 5_000 + (i * 733) % 5_000, 5 + (i * b) % 50, i))
            .collect()
    };
    let mut blocks = Vec::new();
    for b in 0..60u64 {
        let mut moves = schedules(b);
        if b % 7 == 3 {
            moves.push(Move::Drain(b % PAYERS));
        }
        if b % 11 == 5 {
            moves.push(Move::Credit(b % PAYERS, 5_000_000));
        }
        if b % 13 == 0 {
            moves.push(Move::Basefee(1 + (b as u128 % 3)));
        }
        blocks.push(moves);
    }
    run(blocks, 3, 30_000, 30, 0).expect("same decisions");
    let again = (0..60u64).map(schedules).collect();
    // Issue 31 (brief "carry"): the same backlog with the fast side replaced by its clone
    // every seventh block.
    run(again, 3, 30_000, usize::MAX, 7).expect("same decisions after clones");
}
