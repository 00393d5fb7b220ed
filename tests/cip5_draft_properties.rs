//! Property test of the CIP-5 drafts (English §8.3, §9.2, §13; zh §9.3, §10.2, §14): random
//! height timers with bids, state watches, interval timers, writes and cancels under
//! `cip5-draft` and `cip5-draft-zh`, with small quotas. After every block no more than
//! `MAX_FIRES_PER_BLOCK` fires ran and no target had more than `MAX_FIRES_PER_TARGET`; balances plus
//! burned equal the supply; every height timer leaves by exactly one path (fired, cancelled, expired
//! or unfunded); and replaying the same inputs gives the same block hashes and roots. Governance
//! changes the quotas mid-run (English §12, Spec note 126: the quotas in force at a block's start
//! bound it) and some watches carry a TTL (Spec note 127).

mod common;

use common::*;
use cowboy_devnet::chain::{Chain, DraftTimerArgs, Event, Genesis, SystemInstruction, TimerOp};
use cowboy_devnet::engine::{Address, ScheduleArgs, SchedulerKind, TimerEvent, TimerId};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Debug)]
struct Case {
    zh: bool,
    per_block: u32,
    per_target: u32,
    /// (block 1..8, op 0..6, actor 0..3, offset 1..5, bid 0..5, key 0..3)
    ops: Vec<(u64, u8, usize, u64, u128, usize)>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        any::<bool>(),
        1u32..4,
        1u32..3,
        prop::collection::vec(
            (1u64..8, 0u8..6, 0usize..3, 1u64..5, 0u128..5, 0usize..3),
            5..40,
        ),
    )
        .prop_map(|(zh, per_block, per_target, mut ops)| {
            ops.sort_by_key(|o| o.0);
            Case {
                zh,
                per_block,
                per_target,
                ops,
            }
        })
}

fn actors() -> [Address; 3] {
    [actor_a(), actor_b(), Address::from_label("actor-c")]
}

const KEYS: [&str; 3] = ["k0", "k1", "p/x"];

struct Played {
    hashes: Vec<String>,
    height_timers: BTreeSet<TimerId>,
    exits: BTreeMap<TimerId, u32>,
}

fn play(c: &Case) -> Played {
    let kind = if c.zh {
        SchedulerKind::Cip5DraftZh
    } else {
        SchedulerKind::Cip5Draft
    };
    let mut g = Genesis {
        scheduler: kind,
        ..genesis()
    };
    g.cip5_draft.max_fires_per_block = c.per_block;
    g.cip5_draft.max_fires_per_target = c.per_target;
    let mut chain: Chain = chain_with_actors(g);
    deploy(
        &mut chain,
        alice(),
        actors()[2],
        cowboy_devnet::chain::runtime::ActorCode::none(),
    );
    chain.seal_block();
    for a in actors() {
        chain.set_balance(&a, RICH / 10);
    }
    let mut p = Played {
        hashes: Vec::new(),
        height_timers: BTreeSet::new(),
        exits: BTreeMap::new(),
    };
    let mut last: BTreeMap<usize, TimerId> = BTreeMap::new();
    let mut ops = c.ops.iter().peekable();
    let start = chain.height();
    for b in 1..60u64 {
        while let Some(&&(at, op, who, off, bid, key)) = ops.peek() {
            if at != b {
                break;
            }
            ops.next();
            let actor = actors()[who];
            let h = chain.height() + 1;
            let draft = |keys: Vec<String>, every: Option<u64>| DraftTimerArgs {
                keys,
                every,
                bid: Some(bid),
                // Some watches and intervals expire (the TTL sweep).
                expires_at: (bid % 2 == 0).then_some(h + 2 * off),
                ..Default::default()
            };
            if op == 5 {
                // Governance: new quotas from the next block.
                let mut d = chain.engine().next_draft_params();
                d.max_fires_per_block = off as u32;
                d.max_fires_per_target = 1 + (bid as u32 % 2);
                let config = chain.engine().next_scheduler_params();
                let ins = SystemInstruction::UpdateSchedulerConfig {
                    config,
                    draft: Some(d),
                };
                assert!(system(&mut chain, gov(), ins).success);
                continue;
            }
            let op = match op {
                0 => TimerOp::ScheduleTimer(ScheduleArgs {
                    height: h + off,
                    bid: Some(bid),
                    ..ScheduleArgs::default()
                }),
                1 => TimerOp::SetStateWatch(draft(vec![KEYS[key].into()], None)),
                2 => TimerOp::SetInterval(draft(Vec::new(), Some(off))),
                3 => TimerOp::WriteKey {
                    key: if key == 2 {
                        "p/y".into()
                    } else {
                        KEYS[key].into()
                    },
                    value: "v".into(),
                },
                _ => match last.get(&who) {
                    Some(id) => TimerOp::CancelTimer { timer_id: *id },
                    None => continue,
                },
            };
            let is_height = matches!(op, TimerOp::ScheduleTimer(_));
            let r = act_as(&mut chain, alice(), actor, op);
            if r.success
                && let Some(id) = r.timers.first()
            {
                last.insert(who, *id);
                if is_height {
                    p.height_timers.insert(*id);
                }
            }
        }
        let q = chain.engine().policies().draft_params();
        let block = chain.seal_block().clone();
        let mut per: BTreeMap<Address, u32> = BTreeMap::new();
        let mut fired = 0;
        for r in &block.events {
            let Event::Timer(e) = &r.event else { continue };
            let exit = match e {
                TimerEvent::TimerFired {
                    timer_id, actor, ..
                } => {
                    fired += 1;
                    *per.entry(*actor).or_default() += 1;
                    Some(*timer_id)
                }
                TimerEvent::TimerCancelled { timer_id, .. }
                | TimerEvent::TimerExpired { timer_id, .. }
                | TimerEvent::TimerCancelledInsufficientFunds { timer_id, .. } => Some(*timer_id),
                _ => None,
            };
            if let Some(id) = exit {
                *p.exits.entry(id).or_default() += 1;
            }
        }
        assert!(
            fired <= q.max_fires_per_block,
            "block {}: {fired} fires",
            block.header.height
        );
        assert!(
            per.values().all(|n| *n <= q.max_fires_per_target),
            "{per:?}"
        );
        assert!(chain.funds_conserved(), "balances + burned = supply");
        p.hashes
            .push(format!("{} {}", block.header.hash, block.header.state_root));
    }
    assert!(chain.height() > start);
    p
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn draft_quotas_exit_paths_conservation_and_replay(c in case()) {
        let a = play(&c);
        for id in &a.height_timers {
            prop_assert_eq!(a.exits.get(id).copied(), Some(1), "height timer {} leaves once", id);
        }
        let b = play(&c);
        prop_assert_eq!(a.hashes, b.hashes, "replay gives the same blocks and roots");
    }
}
