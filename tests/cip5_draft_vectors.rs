//! The six test vectors of the Chinese CIP-5 draft (`cip5-draft-zh-interval-testvectors.md`
//! §19), under `--scheduler cip5-draft-zh` and, where the English draft
//! (`cip5-draft-statewatch-globalbox.md`) can express them, `--scheduler cip5-draft`; plus the
//! English draft's Globalbox (§5.3, §8.3) and the open-point-19 variants.

mod common;

use common::*;
use cowboy_devnet::chain::{Block, Chain, DraftTimerArgs, Genesis, TimerOp};
use cowboy_devnet::engine::draft::deliver::deliver_id;
use cowboy_devnet::engine::draft::{DraftParams, MailboxEntry};
use cowboy_devnet::engine::{Address, ErrorKind, ScheduleArgs, SchedulerKind, TimerId};

const BOTH: [SchedulerKind; 2] = [SchedulerKind::Cip5DraftZh, SchedulerKind::Cip5Draft];

fn draft_params_chain(kind: SchedulerKind, f: impl FnOnce(&mut DraftParams)) -> Chain {
    draft_chain(kind, |g| f(&mut g.cip5_draft))
}

/// `chain_with_actors` with actor_a and actor_b funded (each pays its own fires).
fn funded(g: Genesis) -> Chain {
    let mut c = chain_with_actors(g);
    c.set_balance(&actor_a(), RICH / 10);
    c.set_balance(&actor_b(), RICH / 10);
    c
}

fn actor(n: u8) -> Address {
    Address::from_label(&format!("draft-actor-{n}"))
}

/// Deploys code-less actors 0..n (in the open block).
fn deploy_actors(c: &mut Chain, n: u8) {
    for i in 0..n {
        deploy_endowed(
            c,
            alice(),
            actor(i),
            cowboy_devnet::chain::runtime::ActorCode::none(),
            RICH / 100,
        );
    }
}

fn at_bid(height: u64, bid: u128) -> ScheduleArgs {
    ScheduleArgs {
        height,
        bid: Some(bid),
        ..ScheduleArgs::default()
    }
}

fn watch(c: &mut Chain, on: Address, keys: &[&str]) -> TimerId {
    let r = act_as(
        c,
        alice(),
        on,
        TimerOp::SetStateWatch(DraftTimerArgs {
            keys: keys.iter().map(|k| k.to_string()).collect(),
            ..Default::default()
        }),
    );
    assert!(r.success, "watch failed: {:?}", r.error);
    r.timers[0]
}

fn interval(c: &mut Chain, on: Address, every: u64, first: Option<u64>) -> TimerId {
    let r = act_as(
        c,
        alice(),
        on,
        TimerOp::SetInterval(DraftTimerArgs {
            every: Some(every),
            first,
            ..Default::default()
        }),
    );
    assert!(r.success, "interval failed: {:?}", r.error);
    r.timers[0]
}

fn write(c: &mut Chain, on: Address, key: &str) {
    let r = act_as(
        c,
        alice(),
        on,
        TimerOp::WriteKey {
            key: key.into(),
            value: "v".into(),
        },
    );
    assert!(r.success, "write failed: {:?}", r.error);
}

/// Seals the next block; returns its fired timers and its Mailbox.
fn mine(c: &mut Chain) -> (Vec<TimerId>, Vec<MailboxEntry>) {
    let b: Block = c.seal_block().clone();
    (
        fired(&b),
        c.engine().policies().draft_state().mailbox.clone(),
    )
}

fn mine_to(c: &mut Chain, h: u64) -> Vec<(u64, TimerId)> {
    let mut out = Vec::new();
    while c.height() < h {
        let (f, _) = mine(c);
        out.extend(f.into_iter().map(|id| (c.height(), id)));
    }
    out
}

/// §19 vector 1, height trigger: `due_height = h` fires at `h`, not at `h-1`; its Mailbox
/// entry carries `deliver_id = H(h, parent_root, timer_id, 0)` (English §9.1).
#[test]
fn vector_1_height_trigger() {
    for kind in BOTH {
        let mut c = draft_params_chain(kind, |_| {});
        let id = schedule(&mut c, actor_a(), args(5));
        let fires = mine_to(&mut c, 4);
        assert!(fires.is_empty(), "{kind}: nothing before 5: {fires:?}");
        let parent = c.state_root();
        let (f, mb) = mine(&mut c);
        assert_eq!(f, vec![id], "{kind}: fires at its height");
        assert_eq!(mb.len(), 1);
        assert_eq!(
            mb[0].deliver_id,
            hex::encode(deliver_id(5, &parent.0, &id, 0))
        );
        assert_eq!((mb[0].kind.as_str(), mb[0].due_height), ("height", 5));
        assert!(
            c.engine().get(&id).is_none(),
            "{kind}: a height timer fires once"
        );
        assert_conserved(&c);
    }
}

/// §19 vector 2, state trigger: a write to a watched key (or under a watched prefix) fires
/// the watch in that block; an unrelated write, or no write, does not; a write in the
/// registration block does not (English §10, zh §11).
#[test]
fn vector_2_state_trigger() {
    for kind in BOTH {
        let mut c = draft_params_chain(kind, |_| {});
        let w = watch(&mut c, actor_a(), &["k1", "bal/"]);
        write(&mut c, actor_a(), "k1");
        assert!(
            mine(&mut c).0.is_empty(),
            "{kind}: not in the registration block"
        );
        assert!(mine(&mut c).0.is_empty(), "{kind}: no write, no fire");
        write(&mut c, actor_a(), "k2");
        write(&mut c, actor_b(), "k1");
        assert!(mine(&mut c).0.is_empty(), "{kind}: unrelated writes");
        write(&mut c, actor_a(), "k1");
        let (f, mb) = mine(&mut c);
        assert_eq!(f, vec![w], "{kind}: the watched key was written");
        assert_eq!(mb[0].matched_keys, vec![b"k1".to_vec()]);
        assert_eq!(mb[0].kind, "watch");
        write(&mut c, actor_a(), "bal/alice");
        let (f, mb) = mine(&mut c);
        assert_eq!(
            f,
            vec![w],
            "{kind}: a key under a watched prefix; the watch re-armed"
        );
        assert_eq!(mb[0].fire_seq, 1);
        assert_conserved(&c);
    }
}

/// §19 vector 3, global quota: `MAX_FIRES_PER_BLOCK = 2`, bids 3, 2, 1 due together: the
/// third is left; the next block its age (1 block = 1 bid unit) ranks it above new timers
/// (bid 2: equal score, earlier due height; bid 1: lower score).
#[test]
fn vector_3_global_quota() {
    for kind in BOTH {
        let mut c = draft_params_chain(kind, |p| p.max_fires_per_block = 2);
        deploy_actors(&mut c, 5);
        let t3 = schedule(&mut c, actor(0), at_bid(5, 3));
        let t2 = schedule(&mut c, actor(1), at_bid(5, 2));
        let t1 = schedule(&mut c, actor(2), at_bid(5, 1));
        let n2 = schedule(&mut c, actor(3), at_bid(6, 2));
        let n1 = schedule(&mut c, actor(4), at_bid(6, 1));
        mine_to(&mut c, 4);
        assert_eq!(mine(&mut c).0, vec![t3, t2], "{kind}: two by score");
        assert_eq!(mine(&mut c).0, vec![t1, n2], "{kind}: the aged third first");
        assert_eq!(mine(&mut c).0, vec![n1], "{kind}: then the rest");
        assert_conserved(&c);
    }
}

/// §19 vector 4, per-target quota: `MAX_FIRES_PER_TARGET = 1`, three candidates of one target:
/// one per block, in timer-id order (the total order's last key, everything else equal).
#[test]
fn vector_4_per_target_quota() {
    for kind in BOTH {
        let mut c = draft_params_chain(kind, |p| p.max_fires_per_target = 1);
        let mut ids: Vec<TimerId> = (0..3)
            .map(|i| {
                let mut a = args(5);
                a.payload = vec![i];
                schedule(&mut c, actor_a(), a)
            })
            .collect();
        let other = schedule(&mut c, actor_b(), args(5));
        ids.sort();
        mine_to(&mut c, 4);
        let first = mine(&mut c).0;
        assert_eq!(first.len(), 2, "{kind}: one of actor_a, and actor_b's");
        assert!(first.contains(&ids[0]) && first.contains(&other));
        assert_eq!(mine(&mut c).0, vec![ids[1]], "{kind}");
        assert_eq!(mine(&mut c).0, vec![ids[2]], "{kind}");
        assert!(mine(&mut c).0.is_empty());
    }
}

/// §19 vector 5, idempotent materialization: a snapshot, a block, a revert and the same block
/// again give the same `deliver_id`s and the same state root; each timer fires once (English
/// §9.2, §13).
#[test]
fn vector_5_idempotence() {
    for kind in BOTH {
        let mut c = draft_params_chain(kind, |p| p.max_fires_per_block = 2);
        let ids: Vec<TimerId> = (0..3)
            .map(|i| schedule(&mut c, actor_a(), at_bid(5, i)))
            .collect();
        let w = watch(&mut c, actor_b(), &["x"]);
        mine_to(&mut c, 4);
        write(&mut c, actor_b(), "x");
        let snapshot = c.clone();
        let (f1, mb1) = mine(&mut c);
        let root1 = c.state_root();
        let mut again = snapshot.clone();
        let (f2, mb2) = mine(&mut again);
        assert_eq!(
            (f1.clone(), mb1.clone()),
            (f2, mb2),
            "{kind}: same fires, same deliver_ids"
        );
        assert_eq!(root1, again.state_root(), "{kind}: same root");
        let mut all = f1;
        for _ in 0..3 {
            all.extend(mine(&mut c).0);
        }
        all.sort();
        let mut want = ids.clone();
        want.push(w);
        want.sort();
        assert_eq!(all, want, "{kind}: each timer fired exactly once");
        let seqs: Vec<u64> = mb1.iter().map(|m| m.deliver_seq).collect();
        assert!(
            seqs.windows(2).all(|p| p[1] == p[0] + 1),
            "deliver_seq is consecutive"
        );
    }
}

/// §19 vector 6, interval roll-forward: every 5 blocks from 8 fires at 8, 13, 18; deferred
/// by the quota from 8 to 9, the next due height is the executing height + 5 = 14.
#[test]
fn vector_6_interval_roll_forward() {
    let mut c = draft_params_chain(SchedulerKind::Cip5DraftZh, |_| {});
    let i = interval(&mut c, actor_a(), 5, Some(8));
    let fires: Vec<u64> = mine_to(&mut c, 20)
        .into_iter()
        .filter(|f| f.1 == i)
        .map(|f| f.0)
        .collect();
    assert_eq!(fires, vec![8, 13, 18]);
    assert_eq!(c.engine().get(&i).map(|t| t.height), Some(23));

    let mut c = draft_params_chain(SchedulerKind::Cip5DraftZh, |p| p.max_fires_per_block = 1);
    let i = interval(&mut c, actor_a(), 5, Some(8));
    schedule(&mut c, actor_b(), at_bid(8, 9));
    let fires: Vec<u64> = mine_to(&mut c, 15)
        .into_iter()
        .filter(|f| f.1 == i)
        .map(|f| f.0)
        .collect();
    assert_eq!(fires, vec![9, 14], "deferred to 9 by the quota, then 9 + 5");
}

/// English §4: the English draft has no interval timers (a new `set_timeout` re-arms), so
/// `set_interval` under `cip5-draft` is `InvalidInput`; watches need a draft scheduler.
#[test]
fn unsupported_timer_types_are_refused() {
    let mut c = draft_params_chain(SchedulerKind::Cip5Draft, |_| {});
    let r = act_as(
        &mut c,
        alice(),
        actor_a(),
        TimerOp::SetInterval(DraftTimerArgs {
            every: Some(5),
            ..Default::default()
        }),
    );
    assert_eq!(err_kind(&r), ErrorKind::InvalidInput);
    let mut c = chain_with_actors(genesis());
    let r = act_as(
        &mut c,
        alice(),
        actor_a(),
        TimerOp::SetStateWatch(DraftTimerArgs {
            keys: vec!["k".into()],
            ..Default::default()
        }),
    );
    assert_eq!(err_kind(&r), ErrorKind::InvalidInput);
    assert!(
        c.engine().policies().draft_state().is_pristine(),
        "a refusal changes nothing"
    );
}

/// English §5.3 / §8.3: the Globalbox keeps a queued fire's place; a fire over its target's
/// quota stays queued while the ones behind it are consumed; a cancelled timer's queued fire is
/// removed (§6.2). The Globalbox is in the state root and survives a dump and load.
#[test]
fn globalbox_frozen_order_and_quota_skips() {
    let mut c = draft_params_chain(SchedulerKind::Cip5Draft, |p| {
        p.max_fires_per_block = 2;
        p.max_fires_per_target = 1;
    });
    let a1 = schedule(&mut c, actor_a(), at_bid(5, 5));
    let a2 = schedule(&mut c, actor_a(), at_bid(5, 4));
    let b1 = schedule(&mut c, actor_b(), at_bid(5, 1));
    let b2 = schedule(&mut c, actor_b(), at_bid(5, 0));
    mine_to(&mut c, 4);
    assert_eq!(
        mine(&mut c).0,
        vec![a1, b1],
        "a2 over actor_a's quota: b1 passes it"
    );
    let gb: Vec<TimerId> = c
        .engine()
        .policies()
        .draft_state()
        .globalbox
        .iter()
        .map(|g| g.timer_id)
        .collect();
    assert_eq!(gb, vec![a2, b2], "the rest stay queued in their order");
    let dump = c.dump().expect("no open block");
    let mut loaded = Chain::load(dump, c.runtime().clone()).expect("loads");
    assert_eq!(loaded.state_root(), c.state_root());
    cancel(&mut c, actor_a(), a2);
    assert_eq!(
        mine(&mut c).0,
        vec![b2],
        "a2 cancelled: its queued fire is gone"
    );
    assert_eq!(
        mine(&mut loaded).0,
        vec![a2, b2],
        "the loaded chain goes on as before"
    );
    // An empty block after fires clears the Mailbox: its root says so, and the chain reloads.
    mine(&mut c);
    let dump = c.dump().expect("no open block");
    let reloaded = Chain::load(dump, c.runtime().clone()).expect("the root matches the state");
    assert_eq!(reloaded.state_root(), c.state_root());
}

/// Open point 19 variants: `draft_pruning = greedy` (§18) vs round-robin (§9.3); a watch
/// that leaves after one fire (`watch_after_fire = once`).
#[test]
fn draft_variants_change_outcomes() {
    let play = |variants: &[&str]| {
        let mut g = Genesis {
            scheduler: SchedulerKind::Cip5DraftZh,
            ..genesis()
        }
        .with_variants(variants)
        .unwrap();
        g.cip5_draft.max_fires_per_block = 2;
        g.cip5_draft.max_fires_per_target = 2;
        let mut c = funded(g);
        let a = [
            schedule(&mut c, actor_a(), at_bid(5, 9)),
            schedule(&mut c, actor_a(), at_bid(5, 8)),
        ];
        let b = schedule(&mut c, actor_b(), at_bid(5, 1));
        mine_to(&mut c, 4);
        (mine(&mut c).0, a, b)
    };
    let (rr, a, b) = play(&[]);
    assert_eq!(rr, vec![a[0], b], "round-robin: one per target per round");
    let (greedy, a, _) = play(&["draft_pruning=greedy"]);
    assert_eq!(greedy, vec![a[0], a[1]], "greedy: the two best");

    let g = Genesis {
        scheduler: SchedulerKind::Cip5DraftZh,
        ..genesis()
    }
    .with_variants(&["watch_after_fire=once"])
    .unwrap();
    let mut c = funded(g);
    let w = watch(&mut c, actor_a(), &["k"]);
    mine(&mut c);
    write(&mut c, actor_a(), "k");
    assert_eq!(mine(&mut c).0, vec![w]);
    write(&mut c, actor_a(), "k");
    assert!(mine(&mut c).0.is_empty(), "one-shot watch");
    assert!(c.engine().get(&w).is_none());
}
