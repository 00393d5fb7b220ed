//! Long jumps (issue 13, "Speed"; CIP-5 §5.1): `Mine { blocks: N }` seals quiet heights
//! without a stored body or Merkle work, and must give the chain one-by-one sealing gives:
//! the same timers fired at the same heights, the same state root and hash at every height.

use cowboy_devnet::chain::{BlockHeader, Chain, Genesis, body_hash};
use cowboy_devnet::engine::types::keccak_parts;
use cowboy_devnet::engine::{Address, EventKind, QueueConfig, Timer, TimerConfig, TimerStatus};
use cowboy_devnet::node::{EventFilter, Mine, NodeCore};
use cowboy_devnet::scenario::runner::{Played, disk_loader};
use cowboy_devnet::scenario::{LoadedFixture, Report, RunOptions, Scenario};
use cowboy_devnet::vm::DevnetRuntime;
use std::collections::BTreeMap;
use std::ops::ControlFlow;

mod common;

const ACTORS: u64 = 4;
const RICH: u128 = 1_000_000_000_000_000_000_000_000;

fn actor(i: u64) -> Address {
    common::fleet::fleet_actor(ACTORS, i)
}

/// A chain at height 1 with `heights.len()` timers of no-code actors pending. Small epochs
/// (`epoch_blocks` 50, 3 slots) put timers in every tier, so the jump crosses migrations and
/// horizon moves; a narrow lane defers some fires; a poor fee payer and early expiries give
/// unfunded and expired timers.
fn chain(heights: &[u64]) -> (Chain, Genesis) {
    let poor = Address::from_label("jump-poor");
    let genesis = Genesis {
        timer: TimerConfig {
            lane_timer_cycles: 25_000,
            max_cycles_per_fire: 20_000,
            ..common::fleet::uncapped()
        },
        queue: QueueConfig {
            epoch_blocks: 50,
            epoch_slots: 3,
        },
        ..Genesis::default()
    };
    let (mut c, genesis) = common::fleet::fleet_chain(genesis, ACTORS, RICH);
    c.seal_block();
    c.test_hook_insert_timers(heights.iter().enumerate().map(|(n, &h)| {
        let n = n as u64;
        Timer {
            fee_payer: if n % 17 == 3 { poor } else { actor(n) },
            expires_at: if n % 13 == 5 { h } else { h + 1_000 },
            ..common::fleet::bulk_timer(n, actor(n), h)
        }
    }))
    .expect("fresh ids");
    (c, genesis)
}

/// Mines `blocks` heights three ways and compares every height: the reference (every height
/// sealed with a body and a full commit), one `Mine` per height, and one `Mine` for all.
fn check_schedule(heights: &[u64], blocks: u64) -> usize {
    let (start, genesis) = chain(heights);
    let from = start.height();

    let mut reference = start.clone();
    reference.test_hook_no_quiet(true);
    for _ in 0..blocks {
        reference.seal_block();
    }

    let mut one_by_one = common::fleet::node_from(&start, genesis.clone());
    for _ in 0..blocks {
        one_by_one.apply(Mine { blocks: 1 }).expect("mine");
    }

    let mut jump = common::fleet::node_from(&start, genesis);
    let mined = jump.apply(Mine { blocks }).expect("mine");
    assert_eq!((mined.first, mined.last), (from + 1, from + blocks));
    assert_eq!(mined.head.header, *reference.head());

    let mut fired = 0;
    for h in from + 1..=from + blocks {
        let r = reference.block(h).expect("reference block");
        let o = one_by_one.chain().block(h).expect("one-by-one block");
        let j = jump.chain().block(h).expect("jumped block");
        common::fleet::assert_same_block(&r, &o, "one Mine per height");
        common::fleet::assert_same_block(&r, &j, "one Mine for the jump");
        fired += r
            .events
            .iter()
            .filter(|e| e.event.kind() == EventKind::TimerFired)
            .count();
    }
    for c in [one_by_one.chain(), jump.chain()] {
        assert_eq!(c.head(), reference.head());
        assert_eq!(c.state_root(), reference.state_root());
        assert_eq!(c.dump().expect("sealed"), reference.dump().expect("sealed"));
    }
    // The quiet heights have no stored body.
    assert!(jump.chain().blocks().count() < reference.blocks().count());
    fired
}

#[test]
fn cip5_5_1_long_jump_matches_one_by_one_sealing_at_every_height() {
    // Busy heights, a crowded height (lane deferrals), heights in every tier and far apart.
    let mut heights = vec![2, 3, 3, 3, 3, 3, 60, 149, 150, 151, 400, 401, 1_999];
    heights.extend((0..40).map(|i| 700 + i * 31));
    let fired = check_schedule(&heights, 2_200);
    assert!(fired > 0, "some timers fire");
}

#[test]
fn cip5_5_1_long_jump_matches_one_by_one_sealing_for_random_schedules() {
    let mut rng = common::fleet::Rng(0x5eed);
    for _ in 0..4 {
        let span = 300 + rng.next_u64() % 1_500;
        let n = 1 + rng.next_u64() % 120;
        let heights: Vec<u64> = (0..n).map(|_| 2 + rng.next_u64() % span).collect();
        let blocks = span + rng.next_u64() % 200;
        check_schedule(&heights, blocks);
    }
}

/// Spec note 42: a block with an empty body and no skipped heights names its anchor (the last
/// block before it with a body or skipped heights) as its parent; every other block names the
/// block before it; every hash is the keccak of its header's fields.
fn assert_headers_link(before: &BlockHeader, headers: &[BlockHeader]) {
    let empty = body_hash(&[], &[]);
    let anchors = |h: &BlockHeader| h.body_hash == empty && h.skipped == 0;
    let mut prev = before.clone();
    let mut anchor = if anchors(&prev) {
        prev.parent_hash
    } else {
        prev.hash
    };
    for b in headers {
        let h = b.height;
        let want = if anchors(b) { anchor } else { prev.hash };
        assert_eq!(b.parent_hash, want, "the parent named at {h}");
        let hash = keccak_parts(&[
            &b.height.to_be_bytes(),
            &b.parent_hash.0,
            &b.state_root.0,
            &b.body_hash.0,
            &b.proposer.0,
            &b.skipped.to_be_bytes(),
        ]);
        assert_eq!(b.hash.0, hash, "the hash of {h} is its header's");
        if !anchors(b) {
            anchor = b.hash;
        }
        prev = b.clone();
    }
}

#[test]
fn cip5_5_1_every_height_of_a_jump_answers_block_and_timer_reads() {
    let (start, genesis) = chain(&[1_500]);
    let id = start.engine().queue().pending()[0].timer_id;
    let mut node = common::fleet::node_from(&start, genesis);
    node.apply(Mine { blocks: 1_000 }).expect("mine");
    // Inside the jump, the timer answers as pending.
    let t = node.timer(&id).expect("the timer is known");
    assert_eq!((t.status, t.height), (TimerStatus::Pending, 1_500));
    node.apply(Mine { blocks: 2_000 }).expect("mine");
    let head = node.chain().height();
    let mut headers = Vec::new();
    for h in start.height() + 1..=head {
        let b = node.block(h).expect("every height answers");
        assert_eq!(b.header.height, h);
        headers.push(b.header.clone());
    }
    assert_headers_link(start.head(), &headers);
    assert_eq!(headers.last(), Some(node.chain().head()));
    assert!(node.block(head + 1).is_none());
    // After it, the node's history has its fire at its own height.
    let fired = node.events(&EventFilter {
        timer_id: Some(id),
        ..EventFilter::default()
    });
    assert!(
        fired
            .iter()
            .any(|e| e.event.kind() == EventKind::TimerFired && e.height == 1_500),
        "{fired:?}"
    );
    // The timer fired at its own height, and that block says so.
    let fired_at: Vec<u64> = (start.height() + 1..=head)
        .filter_map(|h| node.chain().block(h))
        .filter(|b| {
            b.events
                .iter()
                .any(|e| e.event.kind() == EventKind::TimerFired && e.event.timer_id() == Some(id))
        })
        .map(|b| b.header.height)
        .collect();
    assert_eq!(fired_at, vec![1_500]);
}

// ---- the same roots however the heights are mined (issue 13 "Speed", Spec note 42) ------------

/// A fixture of `blocks` heights with small epochs (timers in every tier, migrations), a
/// self-re-arming ticker that writes storage at each fire, a crowded burst, far timers, an
/// outage after height 4 (a ticker timer falls in it) and `middle` (steps or expectations
/// between the long stretches).
fn fixture(blocks: u64, middle: &str) -> Scenario {
    fixture_with_chain(blocks, "", middle)
}

/// [`fixture`] with `chain` (keys of the `[chain]` table, e.g. the scheduler) added.
fn fixture_with_chain(blocks: u64, chain: &str, middle: &str) -> Scenario {
    let text = format!(
        r#"name = "jump"
blocks = {blocks}

[chain]
{chain}

[chain.queue]
epoch_blocks = 500
epoch_slots = 4

[[accounts]]
name = "alice"
balance = "1_000_000_000_000_000"

[[actors]]
name = "ticker"
deployer = "alice"
balance = "100_000_000_000_000"
native = '{{"handle_timer":[{{"op":"write","key":"n","bytes":8}},{{"op":"schedule","delta":3001}}],"start":[{{"op":"schedule","delta":3}}]}}'

[[actors]]
name = "crowd"
deployer = "alice"
balance = "100_000_000_000_000"
native = '{{"handle_timer":[{{"op":"burn","cycles":50000}}],"burst":[{{"op":"schedule_many","count":40,"delta":7000,"spread":3,"gas_limit":200000}}]}}'

[[steps]]
at = 2
action = "call"
from = "alice"
actor = "ticker"
handler = "start"

[[steps]]
at = 3
action = "call"
from = "alice"
actor = "crowd"
handler = "burst"

[[steps]]
at = 4
action = "schedule"
actor = "crowd"
height = 2_600

[[steps]]
at = 4
action = "schedule"
actor = "crowd"
height = {far}

[[steps]]
at = 4
action = "halt"
blocks = 100
{middle}"#,
        far = blocks - 1,
    );
    let lf = LoadedFixture::parse("jump.toml", text).expect("fixture parses");
    Scenario::prepare(&lf, &DevnetRuntime::new(), &disk_loader).expect("fixture checks")
}

fn opts() -> RunOptions {
    RunOptions {
        keep_blocks: Some(cowboy_devnet::chain::DEFAULT_KEEP_BLOCKS),
        ..RunOptions::default()
    }
}

/// Every header of a run played height by height (`run_with`), by height.
fn stepped(s: &Scenario) -> (Report, BTreeMap<u64, BlockHeader>) {
    let mut headers = BTreeMap::new();
    let (report, _) = s
        .run_with(DevnetRuntime::shared(), opts(), &mut |b, _| {
            headers.insert(b.header.height, b.header.clone());
            ControlFlow::Continue(())
        })
        .expect("runs");
    (report, headers)
}

/// The runner's jumping play of the same fixture: its report, every header, and the longest
/// run of quiet heights it jumped.
fn jumped(s: &Scenario) -> (Report, BTreeMap<u64, BlockHeader>, u64) {
    let mut headers = BTreeMap::new();
    let mut longest = 0;
    let (report, _) = s
        .run_jumping(DevnetRuntime::shared(), opts(), &mut |step, chain| {
            match step {
                Played::Block(b) => {
                    headers.insert(b.header.height, b.header.clone());
                }
                Played::Quiet { first, last } => {
                    longest = longest.max(last - first + 1);
                    for h in first..=last {
                        let b = chain.block(h).expect("a quiet height answers");
                        headers.insert(h, b.header.clone());
                    }
                }
            }
            ControlFlow::Continue(())
        })
        .expect("runs");
    (report, headers, longest)
}

fn assert_same_headers(a: &BTreeMap<u64, BlockHeader>, b: &BTreeMap<u64, BlockHeader>, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: heights sealed");
    for (h, x) in a {
        assert_eq!(Some(x), b.get(h), "{what}: header at {h}");
    }
}

#[test]
fn spec_note_42_the_runner_jumps_quiet_heights_with_the_same_report_roots_and_hashes() {
    // Steps and a state expectation between the long stretches split the runner's requests.
    let middle = r#"
[[steps]]
at = 5_000
action = "set_balance"
account = "alice"
balance = "2_000_000_000_000_000"

[[steps]]
at = 9_000
action = "transfer"
from = "alice"
to = "crowd"
amount = "5"

[[expect]]
balance_of = "crowd"
at = 7_000
at_least = "1"
"#;
    let s = fixture(12_000, middle);
    let (r1, h1) = stepped(&s);
    let (r2, h2, longest) = jumped(&s);
    assert_eq!(r1.refused, None);
    assert!(r1.passed(), "{:?}", r1.expectations);
    assert_eq!(r1, r2, "the same report");
    assert_same_headers(&h1, &h2, "jumping runner");
    assert!(
        longest > 400,
        "quiet heights were jumped ({longest} at most)"
    );
    let headers: Vec<BlockHeader> = h1.values().cloned().collect();
    let genesis = Chain::new(s.genesis().clone(), DevnetRuntime::shared()).expect("genesis");
    assert_headers_link(genesis.head(), &headers);
}

#[test]
fn spec_note_42_roots_and_hashes_do_not_depend_on_how_the_heights_were_mined() {
    // One Mine for the whole range, Mines of assorted sizes, one Mine per height (the runner
    // played height by height), and the runner's jumps: the same header, so the same state
    // root, at every height.
    const BLOCKS: u64 = 12_000;
    let s = fixture(BLOCKS, "");
    let (_, reference) = stepped(&s);
    let (_, runner, _) = jumped(&s);
    assert_same_headers(&reference, &runner, "jumping runner");

    // A node that played the fixture's steps (up to the first block after the outage).
    let start = || {
        s.run_with(DevnetRuntime::shared(), opts(), &mut |b, _| {
            if b.header.height >= 105 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .expect("runs")
        .1
    };
    let collect = |node: &NodeCore, from: u64| -> BTreeMap<u64, BlockHeader> {
        (from..=node.chain().height())
            .map(|h| (h, node.chain().block(h).expect("held").header.clone()))
            .collect()
    };
    let mut one = start();
    assert_eq!(one.chain().height(), 105);
    one.apply(Mine {
        blocks: BLOCKS - 105,
    })
    .expect("mine");
    let mut chunks = start();
    let mut rng = common::fleet::Rng(42);
    while chunks.chain().height() < BLOCKS {
        let left = BLOCKS - chunks.chain().height();
        let n = (1 + rng.next_u64() % 1_500).min(left);
        chunks.apply(Mine { blocks: n }).expect("mine");
    }
    let tail: BTreeMap<u64, BlockHeader> = reference
        .range(105..)
        .map(|(h, b)| (*h, b.clone()))
        .collect();
    assert_same_headers(&tail, &collect(&one, 105), "one Mine");
    assert_same_headers(&tail, &collect(&chunks, 105), "Mines of assorted sizes");
    assert_eq!(one.chain().dump().unwrap(), chunks.chain().dump().unwrap());
    // The outage's resumption (105), the ticker's fires, the far timer (2,600), the burst
    // (7,003..) and the last timer are in the range compared.
    let busy = tail
        .values()
        .filter(|h| h.body_hash != body_hash(&[], &[]))
        .count();
    assert!(busy >= 8, "{busy} blocks with a body");
}

#[test]
fn cip1_v3_13_2_the_jump_gives_the_roots_of_full_sealing_under_eip1559_and_across_activation() {
    // Under eip1559 a stretch is jumped only while the lane basefee sits at its floor and the
    // fairness window is empty, and never across the activation height (Spec note 56): the
    // runner's jumps, one height per request, and the node's Mines give the same headers.
    for chain in ["scheduler = \"eip1559\"", "activation_height = 2_000"] {
        const BLOCKS: u64 = 3_000;
        let s = fixture_with_chain(BLOCKS, chain, "");
        let (_, reference) = stepped(&s);
        let (_, runner, longest) = jumped(&s);
        assert_same_headers(&reference, &runner, chain);
        assert!(
            longest > 100,
            "{chain}: quiet stretches are jumped ({longest})"
        );
        let mut node = s
            .run_with(DevnetRuntime::shared(), opts(), &mut |b, _| {
                if b.header.height >= 105 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            })
            .expect("runs")
            .1;
        node.apply(Mine {
            blocks: BLOCKS - 105,
        })
        .expect("mine");
        for h in 105..=BLOCKS {
            let b = node.chain().block(h).expect("held");
            assert_eq!(
                Some(&b.header),
                reference.get(&h),
                "{chain}: Mine, header at {h}"
            );
        }
    }
}
