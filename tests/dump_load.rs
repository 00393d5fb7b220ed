//! State dump and load (`cowboy-devnet dump` / `load`): a round trip keeps the state root and
//! the future of the chain; a dump of another format version or a tampered one is rejected.

mod common;

use common::*;
use cowboy_devnet::chain::{BlockOpen, Chain, ChainDump, SystemInstruction};
use cowboy_devnet::chain::{DUMP_FORMAT_VERSION, LoadError};
use cowboy_devnet::engine::queue::Tier;
use cowboy_devnet::engine::{Address, ErrorKind, QueueConfig, RestoreError, ScheduleArgs, TimerId};
use cowboy_devnet::vm::DevnetRuntime;

fn small() -> QueueConfig {
    QueueConfig {
        epoch_blocks: 4,
        epoch_slots: 3,
    }
}

fn carol() -> Address {
    Address::from_label("carol")
}

fn svc() -> Address {
    Address::from_label("svc")
}

/// A chain mid-run: a re-scheduling service, timers in all three tiers, and a lane-deferred
/// timer waiting at the front of the next bucket.
fn busy_chain() -> (Chain, Vec<TimerId>) {
    let mut g = genesis();
    g.queue = small();
    g.timer.lane_timer_cycles = 600_000;
    let mut c = chain_with(g);
    deploy_native(
        &mut c,
        alice(),
        svc(),
        r#"{"handle_timer": [{"op": "burn", "cycles": 3000}, {"op": "write", "key": "beat", "bytes": 8},
                             {"op": "schedule", "delta": 3, "gas_limit": 20000, "save_as": "next"}],
            "big": [{"op": "burn", "cycles": 100}]}"#,
    );
    deploy(
        &mut c,
        alice(),
        actor_a(),
        cowboy_devnet::chain::runtime::ActorCode::none(),
    );
    c.set_balance(&svc(), 500_000_000);
    c.set_balance(&actor_a(), 500_000_000);
    c.seal_block(); // 1
    let h = c.pending_height();
    let mut ids = vec![schedule(&mut c, svc(), args_gas(h + 1, 20_000))];
    let big = |height| ScheduleArgs {
        height,
        payload: cowboy_devnet::engine::timer::handler_payload("big", b""),
        gas_limit: Some(550_000),
        ..ScheduleArgs::default()
    };
    // Two 550,000 timers at h + 3 with a 600,000 lane: the second is carried to h + 4.
    ids.push(schedule(&mut c, svc(), big(h + 3)));
    ids.push(schedule(&mut c, svc(), big(h + 3)));
    for far in [9, 14, 30, 31, 47] {
        ids.push(schedule(&mut c, actor_a(), args_gas(far, 10_000)));
    }
    seal_until(&mut c, h + 4);
    let counts = c.engine().queue().counts();
    assert!(
        counts.ring > 0 && counts.epoch > 0 && counts.overflow > 0,
        "timers in every tier: {counts:?}"
    );
    let carried = c.engine().queue().bucket(h + 4);
    assert_eq!(carried[0].timer_id, ids[2], "a carried timer at the front");
    assert_eq!(carried[0].height, h + 3);
    (c, ids)
}

/// The same ops on both chains, block by block.
fn step(c: &mut Chain, i: u64, ids: &[TimerId]) {
    let h = c.pending_height();
    if i.is_multiple_of(3) {
        schedule(
            c,
            actor_a(),
            ScheduleArgs {
                height: h + 1 + (i * 5) % 23,
                payload: vec![i as u8; 3],
                gas_limit: Some(5_000),
                ..ScheduleArgs::default()
            },
        );
    }
    if i == 4 {
        // Succeeds or not (the timer may be gone after an outage): the same on both chains,
        // which the block comparison checks through the receipts.
        extend(c, actor_a(), ids[4], h + 200);
    }
    if i == 5 {
        system(
            c,
            gov(),
            SystemInstruction::CancelTimer { timer_id: ids[5] },
        );
    }
    if i == 7 {
        call(c, bob(), svc(), "big");
    }
}

fn reload(c: &mut Chain) -> Chain {
    let d = c.dump().expect("no block is open");
    let json = serde_json::to_string(&d).unwrap();
    let back: ChainDump = serde_json::from_str(&json).unwrap();
    assert_eq!(back, d, "the dump survives JSON");
    Chain::load(back, DevnetRuntime::shared()).expect("load")
}

#[test]
fn dump_load_round_trip_mid_run_continues_identically() {
    let (mut a, ids) = busy_chain();
    let mut b = reload(&mut a);
    assert_eq!(b.state_root(), a.state_root());
    assert_eq!(b.head(), a.head());
    assert_eq!(b.engine().queue().dump(), a.engine().queue().dump());
    assert_eq!(b.engine().queue().counts(), a.engine().queue().counts());
    for id in &ids {
        assert_eq!(
            b.engine().queue().tier_of(id),
            a.engine().queue().tier_of(id)
        );
        assert_eq!(b.timer(id), a.timer(id));
    }
    for i in 0..50 {
        step(&mut a, i, &ids);
        step(&mut b, i, &ids);
        let ba = a.seal_block().clone();
        let bb = b.seal_block().clone();
        assert_eq!(ba, bb, "block {} differs after load", ba.header.height);
        assert_conserved(&b);
    }
    assert_eq!(a.state_root(), b.state_root());
    assert_eq!(a.actor(&svc()), b.actor(&svc()));
}

#[test]
fn dump_load_of_an_open_block_is_refused_until_it_is_mined() {
    let (mut a, _) = busy_chain();
    let h = a.pending_height();
    let (root, head) = (a.state_root(), a.head().clone());
    schedule(&mut a, actor_a(), args(h + 2));
    let err = a.dump().expect_err("a block is open");
    assert_eq!(err, BlockOpen { height: h, txs: 1 });
    assert!(err.to_string().starts_with("InvalidInput: "), "{err}");
    // The refusal is a read: nothing was sealed, the root is still the head's.
    assert_eq!(a.height(), h - 1);
    assert_eq!((a.state_root(), a.head()), (root, &head));
    assert_eq!(a.pending_height(), h);
    a.seal_block();
    let mut b = reload(&mut a);
    assert_eq!(b.height(), h);
    assert_eq!(b.state_root(), a.head().state_root);
    assert_eq!(a.seal_block(), b.seal_block());
}

/// Reads do not write: dumping and reading the root, twice, between blocks leave the height,
/// the head and the root as they were, and the next block as it would have been.
#[test]
fn dump_and_state_root_are_reads_that_mine_nothing() {
    let (mut a, ids) = busy_chain();
    let mut twin = a.clone();
    let (height, root, pending) = (a.height(), a.state_root(), a.pending_height());
    let first = a.dump().expect("no block is open");
    let second = a.dump().expect("no block is open");
    assert_eq!(first, second);
    assert_eq!(a.state_root(), root);
    assert_eq!(a.state_root(), a.head().state_root);
    assert_eq!(a.height(), height);
    assert_eq!(a.pending_height(), pending);
    assert_eq!(first.head.state_root, root);
    assert_eq!(first.state_root, None);
    // The chain goes on exactly as an untouched copy does.
    for i in 0..5 {
        step(&mut a, i, &ids);
        step(&mut twin, i, &ids);
        assert_eq!(a.seal_block(), twin.seal_block());
    }
}

#[test]
fn dump_load_after_an_outage_resumes_at_the_same_height() {
    let (mut a, ids) = busy_chain();
    a.halt(7);
    let mut b = reload(&mut a);
    assert_eq!(b.pending_height(), a.pending_height());
    assert_eq!(b.state_root(), a.state_root());
    for i in 0..20 {
        step(&mut a, i, &ids);
        step(&mut b, i, &ids);
        let ba = a.seal_block().clone();
        let bb = b.seal_block().clone();
        assert_eq!(ba, bb, "block {} differs after load", ba.header.height);
        if i == 0 {
            assert_eq!(ba.header.skipped, 7);
        }
    }
}

#[test]
fn dump_load_after_a_devnet_balance_change_between_blocks() {
    let (mut a, ids) = busy_chain();
    a.set_balance(&carol(), 123_456);
    a.set_balance(&svc(), 42);
    let d = a.dump().expect("no block is open");
    assert_eq!(d.state_root, Some(a.state_root()));
    assert_ne!(d.state_root, Some(a.head().state_root));
    let mut b = Chain::load(d.clone(), DevnetRuntime::shared()).expect("load");
    assert_eq!(b.balance(&carol()), 123_456);
    assert_eq!(b.state_root(), a.state_root());
    for i in 0..10 {
        step(&mut a, i, &ids);
        step(&mut b, i, &ids);
        assert_eq!(a.seal_block(), b.seal_block());
    }
    // Still tamper-evident.
    let mut t = d.clone();
    t.accounts.get_mut(&carol()).unwrap().balance += 1;
    assert_rejected(t, "balance after set_balance");
    // A dump without out-of-band changes carries no separate root.
    assert_eq!(a.dump().expect("no block is open").state_root, None);
}

#[test]
fn dump_load_rejects_another_format_version() {
    let (a, _) = busy_chain();
    let mut d = a.dump().expect("no block is open");
    d.format_version = DUMP_FORMAT_VERSION + 1;
    match Chain::load(d, DevnetRuntime::shared()) {
        Err(e @ LoadError::Version { found, expected }) => {
            assert_eq!(
                (found, expected),
                (DUMP_FORMAT_VERSION + 1, DUMP_FORMAT_VERSION)
            );
            assert!(e.to_string().starts_with("InvalidInput"));
        }
        other => panic!("expected a version error, got {other:?}"),
    }
}

fn assert_rejected(d: ChainDump, what: &str) {
    match Chain::load(d, DevnetRuntime::shared()) {
        // Issue 30: a tampered head is also caught by its own hash (`HeadHashMismatch`).
        Err(
            e @ (LoadError::Format(_)
            | LoadError::Queue(_)
            | LoadError::HeadHashMismatch { .. }
            | LoadError::HeightCannotAdvance { .. }),
        ) => {
            assert_eq!(e.kind(), ErrorKind::InvalidInput, "{what}");
        }
        Err(e) => panic!("{what}: unexpected error {e}"),
        Ok(_) => panic!("{what}: a tampered dump was accepted"),
    }
}

/// The queue image's own error, for a dump whose queue is inconsistent.
fn queue_rejected(d: ChainDump, what: &str) -> RestoreError {
    match Chain::load(d, DevnetRuntime::shared()) {
        Err(LoadError::Queue(e)) => e,
        Err(e) => panic!("{what}: unexpected error {e}"),
        Ok(_) => panic!("{what}: a tampered dump was accepted"),
    }
}

#[test]
fn dump_load_rejects_a_tampered_dump() {
    let (a, ids) = busy_chain();
    let d = a.dump().expect("no block is open");
    assert!(Chain::load(d.clone(), DevnetRuntime::shared()).is_ok());

    let mut t = d.clone();
    t.accounts.get_mut(&alice()).unwrap().balance += 1;
    assert_rejected(t, "balance");

    let mut t = d.clone();
    t.accounts.get_mut(&svc()).unwrap().nonce += 1;
    assert_rejected(t, "nonce");

    let mut t = d.clone();
    t.burned -= 1;
    assert_rejected(t, "burned");

    let mut t = d.clone();
    t.head.state_root.0[0] ^= 1;
    assert_rejected(t, "head root");

    let mut t = d.clone();
    t.actors
        .get_mut(&svc())
        .unwrap()
        .storage
        .insert(b"beat".to_vec(), vec![0; 8]);
    assert_rejected(t, "storage");

    let mut t = d.clone();
    t.timer_config.max_ttl_blocks += 1;
    assert_rejected(t, "timer config");

    let mut t = d.clone();
    let far = t
        .queue
        .timers
        .iter_mut()
        .find(|x| x.timer_id == ids[5])
        .unwrap();
    far.expires_at += 1;
    assert_rejected(t, "timer record");

    let mut t = d.clone();
    t.queue.timers.retain(|x| x.timer_id != ids[7]);
    assert_rejected(t, "dropped timer");

    let mut t = d.clone();
    t.queue.next_seq += 1;
    assert_rejected(t, "next_seq");
}

#[test]
fn dump_load_rejects_tampered_bucket_order_and_placement() {
    let (a, _) = busy_chain();
    let d = a.dump().expect("no block is open");
    // The carried timer and the timer due at that height, swapped: FIFO order broken.
    let mut t = d.clone();
    let (_, bucket) = t
        .queue
        .ring
        .iter_mut()
        .find(|(_, ids)| ids.len() >= 2)
        .expect("a bucket with two timers");
    bucket.swap(0, 1);
    let e = queue_rejected(t, "ring order");
    assert!(matches!(e, RestoreError::RingOutOfOrder { .. }), "{e}");

    // A ring timer moved to another height's bucket: it would fire at the wrong height.
    let mut t = d.clone();
    let next = t.queue.next_height;
    let (h, ids) = t.queue.ring.pop().unwrap();
    let other = if h == next + 1 { next + 2 } else { next + 1 };
    t.queue.ring.push((other, ids));
    let e = queue_rejected(t, "ring placement");
    assert!(matches!(e, RestoreError::WrongRingBucket { .. }), "{e}");

    // An epoch-queue timer listed under another epoch slot.
    let mut t = d.clone();
    let (slot, ids) = t.queue.epochs.pop().expect("an epoch bucket");
    t.queue.epochs.push(((slot + 1) % 3, ids));
    let e = queue_rejected(t, "epoch placement");
    assert!(matches!(e, RestoreError::WrongEpochSlot { .. }), "{e}");

    // An epoch-queue timer dropped from its bucket would silently move to the overflow set.
    let mut t = d.clone();
    let (_, ids) = t.queue.epochs.last_mut().unwrap();
    ids.pop();
    assert_rejected(t, "epoch timer unlisted");
}

#[test]
fn dump_load_keeps_tiers_for_an_untouched_dump() {
    let (mut a, ids) = busy_chain();
    let b = reload(&mut a);
    let tiers: Vec<_> = ids.iter().map(|i| b.engine().queue().tier_of(i)).collect();
    assert!(tiers.contains(&Some(Tier::Ring)));
    assert!(tiers.contains(&Some(Tier::Epoch)));
    assert!(tiers.contains(&Some(Tier::Overflow)));
}

/// The engine's committed roots are a read of the sealed state: the overflow root a dashboard
/// shows needs no `&mut` and does not move until the next seal.
#[test]
fn engine_committed_roots_follow_the_seal() {
    let (mut a, ids) = busy_chain();
    let roots = a.engine().committed_roots();
    let mut fresh = a.engine().queue().clone();
    assert_eq!(fresh.commit(), roots, "the committed roots are the queue's");
    step(&mut a, 0, &ids);
    assert_eq!(
        a.engine().committed_roots(),
        roots,
        "an open block is not committed"
    );
    a.seal_block();
    let mut fresh = a.engine().queue().clone();
    assert_eq!(fresh.commit(), a.engine().committed_roots());
}
