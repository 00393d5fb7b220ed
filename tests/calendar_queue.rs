//! CIP-1 v3 §2: the three-tier calendar queue (ring buffer, epoch queue, overflow set).
//!
//! A small queue (`epoch_blocks` 4, `epoch_slots` 3) makes every tier reachable in a few blocks:
//! the ring holds 8 heights (the current epoch and the next), the epoch queue the next two
//! epochs, the overflow set everything later.

mod common;

use common::*;
use cowboy_devnet::chain::{Chain, SystemInstruction};
use cowboy_devnet::engine::queue::Tier;
use cowboy_devnet::engine::{CalendarQueue, QueueConfig, ScheduleArgs, TierCounts, TimerId};

fn small() -> QueueConfig {
    QueueConfig {
        epoch_blocks: 4,
        epoch_slots: 3,
    }
}

use common::{queue_id as id, queue_timer as timer};

/// One block at the engine level: epoch maintenance, then the height's bucket drained.
fn block(q: &mut CalendarQueue, h: u64) -> Vec<TimerId> {
    q.maintain(h);
    drain(q, h)
}

fn drain(q: &mut CalendarQueue, h: u64) -> Vec<TimerId> {
    let slots = q.take_due(h);
    slots.into_iter().map(|s| q.conclude(s).timer_id).collect()
}

#[test]
fn cip1_2_timers_are_placed_in_ring_epoch_or_overflow_by_height() {
    let mut q = CalendarQueue::new(small(), 1);
    let h = q.horizons();
    assert_eq!((h.next_height, h.ring_horizon, h.epoch_horizon), (1, 4, 12));
    for (n, height) in [(1, 1), (2, 3), (3, 4), (4, 11), (5, 12), (6, 100)] {
        q.insert(timer(n, height)).unwrap();
    }
    let tiers: Vec<_> = (1..=6).map(|n| q.tier_of(&id(n)).unwrap()).collect();
    assert_eq!(
        tiers,
        [
            Tier::Ring,
            Tier::Ring,
            Tier::Epoch,
            Tier::Epoch,
            Tier::Overflow,
            Tier::Overflow
        ]
    );
    assert_eq!(
        q.counts(),
        TierCounts {
            ring: 2,
            epoch: 2,
            overflow: 2
        }
    );
    assert_eq!(q.epoch_buckets(), vec![(4, 1), (8, 1)]);
    assert_eq!(q.overflow_epochs(), vec![(12, 1), (100, 1)]);
    assert_eq!(q.bucket(3).len(), 1);
    assert!(
        q.bucket(4).is_empty(),
        "epoch-tier timers are not in a ring bucket yet"
    );
    // A drained height refuses new timers.
    assert_eq!(drain(&mut q, 1), vec![id(1)]);
    assert!(q.insert(timer(7, 1)).is_err());
    // Duplicate ids are refused.
    assert!(q.insert(timer(2, 9)).is_err());
}

#[test]
fn cip1_2_1_ring_bucket_is_fifo_per_height() {
    let mut q = CalendarQueue::new(small(), 1);
    for n in [5, 3, 9, 1] {
        q.insert(timer(n, 2)).unwrap();
    }
    q.insert(timer(100, 3)).unwrap();
    let seqs: Vec<u64> = q.bucket(2).iter().map(|t| t.seq).collect();
    assert_eq!(seqs, vec![0, 1, 2, 3]);
    assert_eq!(block(&mut q, 1), vec![]);
    assert_eq!(block(&mut q, 2), vec![id(5), id(3), id(9), id(1)]);
    assert_eq!(block(&mut q, 3), vec![id(100)]);
    assert!(q.is_empty());
}

#[test]
fn cip1_2_2_epoch_rollover_migrates_a_slice_per_block_keeping_fifo() {
    let mut q = CalendarQueue::new(small(), 1);
    for n in 1..=3 {
        q.insert(timer(n, 6)).unwrap();
    }
    assert_eq!(q.counts().epoch, 3);
    // Block 1: 3 left to move over 3 blocks of epoch 0 → one moves.
    assert_eq!(q.maintain(1), 1);
    assert_eq!(q.tier_of(&id(1)), Some(Tier::Ring));
    assert_eq!(q.tier_of(&id(2)), Some(Tier::Epoch));
    assert_eq!(
        q.horizons().ring_horizon,
        4,
        "horizon waits for the whole epoch"
    );
    assert_eq!(drain(&mut q, 1), vec![]);
    // Inserted mid-migration: queued behind the older timers of its height.
    q.insert(timer(4, 6)).unwrap();
    assert_eq!(q.tier_of(&id(4)), Some(Tier::Epoch));
    assert_eq!(q.maintain(2), 2);
    assert_eq!(drain(&mut q, 2), vec![]);
    assert_eq!(
        q.maintain(3),
        1,
        "the last block of the epoch moves the rest"
    );
    assert_eq!(q.horizons().ring_horizon, 8);
    assert_eq!(q.counts().epoch, 0);
    // Once the epoch is in the ring, new timers for it go straight to the ring, at the back.
    q.insert(timer(5, 6)).unwrap();
    assert_eq!(q.tier_of(&id(5)), Some(Tier::Ring));
    let order: Vec<TimerId> = q.bucket(6).iter().map(|t| t.timer_id).collect();
    assert_eq!(order, vec![id(1), id(2), id(3), id(4), id(5)]);
    assert_eq!(drain(&mut q, 3), vec![]);
    assert_eq!(block(&mut q, 4), vec![]);
    assert_eq!(block(&mut q, 5), vec![]);
    assert_eq!(block(&mut q, 6), vec![id(1), id(2), id(3), id(4), id(5)]);
}

#[test]
fn cip1_2_3_overflow_timers_travel_epoch_and_ring_and_fire_in_fifo_order() {
    let mut q = CalendarQueue::new(small(), 1);
    let target = 20;
    q.insert(timer(1, target)).unwrap();
    q.insert(timer(2, target)).unwrap();
    q.insert(timer(3, target + 1)).unwrap();
    assert_eq!(q.tier_of(&id(1)), Some(Tier::Overflow));
    let mut seen = vec![Tier::Overflow];
    let mut late = 10;
    let mut fired = Vec::new();
    for h in 1..=target + 1 {
        q.maintain(h);
        if let Some(t) = q.tier_of(&id(1))
            && *seen.last().unwrap() != t
        {
            seen.push(t);
        }
        // Another timer for the same height at every block, whatever tier it lands in.
        if h < target {
            late += 1;
            q.insert(timer(late, target)).unwrap();
        }
        fired.push(drain(&mut q, h));
    }
    assert_eq!(seen, vec![Tier::Overflow, Tier::Epoch, Tier::Ring]);
    let mut want = vec![id(1), id(2)];
    want.extend((11..=late).map(id));
    assert_eq!(
        fired[(target - 1) as usize],
        want,
        "FIFO order within the height"
    );
    assert_eq!(fired[target as usize], vec![id(3)]);
    assert!(fired[..(target - 1) as usize].iter().all(Vec::is_empty));
    assert!(q.is_empty());
}

#[test]
fn cip1_2_cancel_and_extend_find_timers_in_every_tier() {
    let mut g = genesis();
    g.queue = small();
    let mut c = chain_with_actors(g);
    // Block 1 migrated the empty epoch 1 and the empty overflow epoch 3 at once.
    let h = c.engine().queue().horizons();
    assert_eq!((h.ring_horizon, h.epoch_horizon), (8, 16));
    let heights = [3, 9, 40];
    let tiers = [Tier::Ring, Tier::Epoch, Tier::Overflow];
    let mine: Vec<TimerId> = heights
        .iter()
        .map(|&h| schedule(&mut c, actor_a(), args(h)))
        .collect();
    let gov_owned: Vec<TimerId> = heights
        .iter()
        .map(|&h| schedule(&mut c, actor_b(), args(h)))
        .collect();
    for i in 0..3 {
        assert_eq!(c.engine().queue().tier_of(&mine[i]), Some(tiers[i]));
        assert_eq!(c.engine().queue().tier_of(&gov_owned[i]), Some(tiers[i]));
    }
    assert_eq!(
        c.engine().queue().counts(),
        TierCounts {
            ring: 2,
            epoch: 2,
            overflow: 2
        }
    );
    c.seal_block();
    for i in 0..3 {
        let r = extend(&mut c, actor_a(), mine[i], 100 + i as u64);
        assert!(r.success, "{:?}", r.error);
        assert_eq!(c.timer(&mine[i]).unwrap().expires_at, 100 + i as u64);
        let r = system(
            &mut c,
            gov(),
            SystemInstruction::ExtendTimer {
                timer_id: gov_owned[i],
                new_expires_at: 200 + i as u64,
            },
        );
        assert!(r.success, "{:?}", r.error);
        assert_eq!(c.timer(&gov_owned[i]).unwrap().expires_at, 200 + i as u64);
        assert_eq!(
            c.engine().queue().tier_of(&mine[i]),
            Some(tiers[i]),
            "extend keeps the tier"
        );
    }
    for i in 0..3 {
        assert!(cancel(&mut c, actor_a(), mine[i]).success);
        assert!(
            system(
                &mut c,
                gov(),
                SystemInstruction::CancelTimer {
                    timer_id: gov_owned[i]
                }
            )
            .success
        );
    }
    assert!(c.engine().queue().is_empty());
    assert_eq!(c.engine().queue().counts(), TierCounts::default());
    assert!(c.engine().queue().overflow_epochs().is_empty());
    // Nothing fires later: the cancelled handles are skipped in every bucket.
    c.set_balance(&actor_a(), 100_000_000);
    c.set_balance(&actor_b(), 100_000_000);
    let mut all_fired = 0;
    while c.pending_height() <= 41 {
        all_fired += c.seal_block().eob.due;
    }
    assert_eq!(all_fired, 0);
}

#[test]
fn cip1_2_chain_migrates_each_far_timer_twice_and_fires_it_on_time() {
    let mut g = genesis();
    g.queue = small();
    let mut c = chain_with_actors(g);
    c.set_balance(&actor_a(), 100_000_000);
    let far: Vec<TimerId> = (0..3)
        .map(|_| schedule(&mut c, actor_a(), args_gas(30, 1_000)))
        .collect();
    assert!(
        far.iter()
            .all(|t| c.engine().queue().tier_of(t) == Some(Tier::Overflow))
    );
    let mut migrated = 0;
    let mut tiers_seen = vec![Tier::Overflow];
    loop {
        let b = c.seal_block();
        migrated += b.migrated;
        let height = b.header.height;
        let f = fired(b);
        if height == 30 {
            assert_eq!(f, far, "fires at its height, in FIFO order");
            break;
        }
        assert!(f.is_empty());
        let t = c.engine().queue().tier_of(&far[0]).unwrap();
        if *tiers_seen.last().unwrap() != t {
            tiers_seen.push(t);
        }
    }
    assert_eq!(tiers_seen, vec![Tier::Overflow, Tier::Epoch, Tier::Ring]);
    assert_eq!(
        migrated, 6,
        "overflow → epoch and epoch → ring, once each per timer"
    );
}

/// CIP-1 v3 §2: the overflow set carries its own root. Each timer's leaf is committed once, in
/// the overflow root while it sits in the overflow tier and in the timer-set root once it has
/// migrated inward; how it got there (migrations, or scheduled inward directly) does not matter.
#[test]
fn cip1_2_timer_roots_follow_the_tier_not_the_path() {
    let mut tiny = CalendarQueue::new(small(), 1);
    let mut wide = CalendarQueue::new(QueueConfig::default(), 1);
    let empty = CalendarQueue::new(small(), 1).commit();
    assert_eq!(empty.0, empty.1);
    let ops: Vec<(u64, u64)> = vec![(1, 30), (2, 30), (3, 5), (4, 13), (5, 41)];
    for &(n, h) in &ops {
        tiny.insert(timer(n, h)).unwrap();
        wide.insert(timer(n, h)).unwrap();
    }
    assert_eq!(tiny.tier_of(&id(1)), Some(Tier::Overflow));
    assert_eq!(wide.tier_of(&id(1)), Some(Tier::Ring));
    let (t0, o0) = tiny.commit();
    let (w0, wo0) = wide.commit();
    assert_ne!(
        t0, w0,
        "tiny's far timers are committed under the overflow root"
    );
    assert_ne!(o0, wo0, "the overflow tier has its own root");
    assert_eq!(wo0, empty.1, "nothing in wide's overflow tier");
    let mut converged = false;
    for h in 1..=45 {
        tiny.maintain(h);
        wide.maintain(h);
        if h == 7 {
            tiny.set_expires_at(&id(2), 500).unwrap();
            wide.set_expires_at(&id(2), 500).unwrap();
            tiny.remove(&id(5)).unwrap();
            wide.remove(&id(5)).unwrap();
        }
        assert_eq!(drain(&mut tiny, h), drain(&mut wide, h), "height {h}");
        let (t, o) = tiny.commit();
        let (w, wo) = wide.commit();
        assert_eq!(wo, empty.1);
        if tiny.counts().overflow == 0 {
            converged = true;
            assert_eq!(
                t, w,
                "same timers inward, same timer-set root at height {h}"
            );
            assert_eq!(o, empty.1);
        } else {
            assert_ne!(t, w, "height {h}");
            assert_ne!(o, empty.1, "height {h}");
        }
    }
    assert!(converged, "the far timers migrated inward before firing");
    assert!(tiny.is_empty() && wide.is_empty());
}

/// Same ops, same roots: a chain's state root at every height is a function of its inputs,
/// however the timers moved between tiers.
#[test]
fn cip1_2_same_ops_same_roots_through_all_tiers() {
    fn run() -> Vec<cowboy_devnet::engine::H256> {
        let mut g = genesis();
        g.queue = small();
        let mut c: Chain = chain_with_actors(g);
        c.set_balance(&actor_a(), 100_000_000);
        let mut roots = Vec::new();
        for i in 0..30u64 {
            let h = c.pending_height();
            schedule(
                &mut c,
                actor_a(),
                ScheduleArgs {
                    height: h + 1 + (i * 7) % 29,
                    payload: vec![i as u8],
                    gas_limit: Some(10_000),
                    ..ScheduleArgs::default()
                },
            );
            roots.push(c.seal_block().header.state_root);
        }
        for _ in 0..32 {
            roots.push(c.seal_block().header.state_root);
        }
        assert!(c.engine().queue().is_empty());
        roots
    }
    assert_eq!(run(), run());
}

#[test]
fn cip1_2_outage_rebuilds_the_tiers_around_the_resume_height() {
    let mut g = genesis();
    g.queue = small();
    let mut c = chain_with_actors(g);
    c.set_balance(&actor_a(), 100_000_000);
    let skipped = schedule(&mut c, actor_a(), args_gas(5, 1_000));
    let far = schedule(&mut c, actor_a(), args_gas(40, 1_000));
    let farther = schedule(&mut c, actor_a(), args_gas(60, 1_000));
    assert_eq!(c.engine().queue().tier_of(&far), Some(Tier::Overflow));
    c.seal_block(); // 2
    c.halt(34); // resume at 37: epoch 9
    assert_eq!(c.pending_height(), 37);
    assert_eq!(c.engine().queue().tier_of(&far), Some(Tier::Overflow));
    // Opening block 37 rebuilds the tiers around it, then runs its epoch maintenance: epoch 10
    // (heights 40..44) moves into the ring within the three blocks left of epoch 9.
    let r = c
        .apply_tx(cowboy_devnet::chain::Transaction::new(
            alice(),
            cowboy_devnet::chain::TxKind::Transfer {
                to: bob(),
                amount: 1,
            },
        ))
        .unwrap();
    assert!(r.success);
    let h = c.engine().queue().horizons();
    assert_eq!(
        (h.next_height, h.ring_horizon, h.epoch_horizon),
        (37, 44, 52)
    );
    assert_eq!(c.engine().queue().tier_of(&skipped), Some(Tier::Ring));
    assert_eq!(c.engine().queue().tier_of(&far), Some(Tier::Ring));
    assert_eq!(c.engine().queue().tier_of(&farther), Some(Tier::Overflow));
    assert_eq!(fired(c.seal_block()), vec![skipped]);
    seal_until(&mut c, 40);
    assert_eq!(fired(c.seal_block()), vec![far]);
    seal_until(&mut c, 60);
    assert_eq!(fired(c.seal_block()), vec![farther]);
}

/// CIP-1 v3 §2 (cancel and extend find a timer by id): a removed timer is gone from every lookup
/// at once, within the same block, even while its index entry waits to be deleted with the
/// block's batch; its slot is reused only afterwards, and the index can grow meanwhile.
#[test]
fn cip1_2_removed_timers_vanish_from_lookups_at_once_and_slots_are_reused_safely() {
    let mut q = CalendarQueue::new(small(), 1);
    q.maintain(1);
    for n in 0..100 {
        q.insert(timer(n, 2 + n % 6)).expect("fresh id");
    }
    // Remove half, then look every id up in the same block.
    for n in (0..100).step_by(2) {
        assert_eq!(q.remove(&id(n)).expect("pending").timer_id, id(n));
    }
    for n in 0..100 {
        assert_eq!(q.contains(&id(n)), n % 2 == 1, "timer {n}");
        assert_eq!(q.get(&id(n)).is_some(), n % 2 == 1, "timer {n}");
        assert_eq!(
            q.set_expires_at(&id(n), 5_000).is_some(),
            n % 2 == 1,
            "timer {n}"
        );
    }
    assert!(q.remove(&id(0)).is_none(), "removing twice finds nothing");
    // A removed id may be inserted again before the batch is flushed, and the index grows
    // past its capacity with removed entries still in it.
    q.insert(timer(0, 3)).expect("a removed id is free again");
    for n in 1_000..3_000 {
        q.insert(timer(n, 2 + n % 6)).expect("fresh id");
    }
    assert!(q.contains(&id(0)) && q.contains(&id(1)) && !q.contains(&id(2)));
    assert_eq!(q.len(), 50 + 1 + 2_000);
    // Drain everything: each live timer leaves exactly once, in FIFO order per height.
    let mut seen = std::collections::HashSet::new();
    for h in 1..=8 {
        for t in block(&mut q, h) {
            assert!(seen.insert(t), "timer {t} drained twice");
        }
    }
    assert_eq!(seen.len(), 2_051);
    assert!(q.is_empty());
    for n in 0..100 {
        assert!(!q.contains(&id(n)));
    }
}

/// CIP-1 v3 §2.1 (FIFO per height through every path): a busy height (over 512 timers, whose
/// records the queue lays out in pages of their own) keeps its FIFO order and loses nothing
/// through cancels, timers carried to the next height, a dump and restore, an outage jump and
/// the reuse of its pages by later heights.
#[test]
fn cip1_2_1_busy_heights_keep_fifo_through_cancel_carry_restore_and_jump() {
    use std::collections::BTreeMap;
    let mut q = CalendarQueue::new(small(), 1);
    q.maintain(1);
    let mut model: BTreeMap<u64, Vec<TimerId>> = BTreeMap::new();
    for n in 0..3_000 {
        let h = 2 + n % 3;
        q.insert(timer(n, h)).expect("fresh id");
        model.entry(h).or_default().push(id(n));
    }
    for n in 3_000..3_200 {
        q.insert(timer(n, 6)).expect("fresh id");
        model.entry(6).or_default().push(id(n));
    }
    let mut removed = std::collections::HashSet::new();
    for n in (0..3_200).step_by(5) {
        assert!(q.remove(&id(n)).is_some(), "timer {n}");
        removed.insert(id(n));
    }
    for ids in model.values_mut() {
        ids.retain(|t| !removed.contains(t));
    }
    assert_eq!(q.len(), 2_560);
    assert!(block(&mut q, 1).is_empty());

    // Height 2: the first half fires, the rest is carried to the front of height 3.
    q.maintain(2);
    let mut fire = q.take_due(2);
    let due_ids: Vec<TimerId> = fire.iter().map(|d| q.due(d).timer_id).collect();
    assert_eq!(due_ids, model[&2]);
    let carry = fire.split_off(fire.len() / 2);
    let fired = fire.len();
    for d in fire {
        q.conclude(d);
    }
    q.carry(carry);
    let mut expect3: Vec<TimerId> = due_ids[fired..].to_vec();
    expect3.extend(&model[&3]);

    // A dump restores the same queue: same roots, same timers, same order.
    let mut restored = CalendarQueue::restore(q.dump()).expect("consistent dump");
    assert_eq!(restored.commit(), q.commit());
    let ids = |q: &CalendarQueue| q.pending().iter().map(|t| t.timer_id).collect::<Vec<_>>();
    assert_eq!(ids(&restored), ids(&q));
    for q in [&mut q, &mut restored] {
        assert_eq!(block(q, 3), expect3);
    }

    // An outage from height 4 to 6: height 4's timers fall due at 6, ahead of 6's own.
    q.jump_to(6);
    let mut expect6 = model[&4].clone();
    expect6.extend(&model[&6]);
    assert_eq!(block(&mut q, 6), expect6);
    assert!(q.is_empty());

    // The freed pages serve a new busy height; everything leaves exactly once.
    for n in 10_000..11_500 {
        q.insert(timer(n, 9 + n % 2)).expect("fresh id");
    }
    let mut fired = block(&mut q, 7);
    for h in 8..=10 {
        fired.extend(block(&mut q, h));
    }
    let mut expected: Vec<TimerId> = (10_000..11_500).filter(|n| n % 2 == 0).map(id).collect();
    expected.extend((10_000..11_500).filter(|n| n % 2 == 1).map(id));
    assert_eq!(fired, expected);
    assert!(q.is_empty());
    assert!(
        (0..3_200)
            .chain(10_000..11_500)
            .all(|n| !q.contains(&id(n)))
    );
}

/// CIP-1 v3 §2.3 with issue 31 (brief "carry"): a clone does not copy the overflow set (it
/// rebuilds it from its timers the first time a migration reads it). A queue replaced by its
/// clone every few blocks reads the same overflow heights, migrates, fires and commits what the
/// original does, block after block, through inserts and cancels in every tier.
#[test]
fn cip1_2_3_a_clone_rebuilds_the_overflow_set_and_goes_on_as_the_original() {
    let mut a = CalendarQueue::new(small(), 1);
    let mut b = a.clone();
    let mut n = 0;
    for h in 1..=60u64 {
        for k in 0..3u64 {
            n += 1;
            let height = h + 5 + (n * 7 + k * 11) % 40;
            a.insert(timer(n, height)).unwrap();
            b.insert(timer(n, height)).unwrap();
        }
        if h % 5 == 0 {
            a.remove(&id(n - 4));
            b.remove(&id(n - 4));
        }
        if h % 3 == 0 {
            b = b.clone();
        }
        for ahead in [h + 1, h + 20, h + 39] {
            let ids = |q: &CalendarQueue| -> Vec<TimerId> {
                q.height_timers(ahead).iter().map(|t| t.timer_id).collect()
            };
            assert_eq!(ids(&a), ids(&b), "timers of #{ahead} read at #{h}");
        }
        assert_eq!(block(&mut a, h), block(&mut b, h), "fires of #{h}");
        assert_eq!(a.counts(), b.counts(), "tiers after #{h}");
        assert_eq!(a.commit(), b.commit(), "roots after #{h}");
    }
    assert_eq!(a.dump(), b.dump());
}
