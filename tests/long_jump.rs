//! Long jumps (issue 13, "Speed"; CIP-5 §5.1): `Mine { blocks: N }` seals quiet heights
//! without a stored body or Merkle work, and must give the chain one-by-one sealing gives:
//! the same timers fired at the same heights, the same state root and hash at every height.

use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::{Block, Chain, Genesis, GenesisAccount, Transaction, TxKind};
use cowboy_devnet::engine::{Address, EventKind, QueueConfig, Timer, TimerConfig, TimerId};
use cowboy_devnet::node::{LoadState, Mine, MiningMode, NodeConfig, NodeCore};
use cowboy_devnet::vm::DevnetRuntime;

const ACTORS: u64 = 4;
const RICH: u128 = 1_000_000_000_000_000_000_000_000;

fn actor(i: u64) -> Address {
    Address::from_low_u64(0x1_0000 + i % ACTORS)
}

fn timer(n: u64, owner: Address, fee_payer: Address, height: u64, expires_at: u64) -> Timer {
    let mut id = [0u8; 32];
    id[..8].copy_from_slice(&n.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes());
    id[8..16].copy_from_slice(&n.to_le_bytes());
    Timer {
        timer_id: TimerId(id),
        actor_address: owner,
        fee_payer,
        height,
        seq: 0,
        schedule_block: 0,
        gas_limit_per_fire: 10_000,
        expires_at,
        payload: Box::default(),
        fee_caps: None,
    }
}

/// A deterministic pseudo-random sequence (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// A chain at height 1 with `heights.len()` timers of no-code actors pending. Small epochs
/// (`epoch_blocks` 50, 3 slots) put timers in every tier, so the jump crosses migrations and
/// horizon moves; a narrow lane defers some fires; a poor fee payer and early expiries give
/// unfunded and expired timers.
fn chain(heights: &[u64]) -> (Chain, Genesis) {
    let funder = Address::from_label("jump-funder");
    let poor = Address::from_label("jump-poor");
    let genesis = Genesis {
        timer: TimerConfig {
            max_timers_per_actor: u32::MAX,
            lane_timer_cycles: 25_000,
            max_cycles_per_fire: 20_000,
            ..TimerConfig::default()
        },
        queue: QueueConfig {
            epoch_blocks: 50,
            epoch_slots: 3,
        },
        accounts: vec![GenesisAccount {
            address: funder,
            balance: RICH * (ACTORS as u128 + 1),
        }],
        ..Genesis::default()
    };
    let mut c = Chain::new(genesis.clone(), DevnetRuntime::shared()).expect("genesis");
    for i in 0..ACTORS {
        c.apply_tx(Transaction::new(
            funder,
            TxKind::Deploy {
                address: Some(actor(i)),
                code: ActorCode::none(),
                endowment: RICH,
            },
        ))
        .expect("deploy");
    }
    c.seal_block();
    c.test_hook_insert_timers(heights.iter().enumerate().map(|(n, &h)| {
        let n = n as u64;
        let payer = if n % 17 == 3 { poor } else { actor(n) };
        let expires = if n % 13 == 5 { h } else { h + 1_000 };
        timer(n, actor(n), payer, h, expires)
    }))
    .expect("fresh ids");
    (c, genesis)
}

fn node_from(c: &Chain, genesis: Genesis) -> NodeCore {
    let mut cfg = NodeConfig::new(genesis, DevnetRuntime::shared());
    cfg.mining = MiningMode::Manual;
    cfg.dev_accounts = 0;
    let mut node = NodeCore::new(cfg).expect("node");
    node.apply(LoadState(Box::new(c.dump().expect("sealed"))))
        .expect("load");
    node
}

fn assert_same_block(a: &Block, b: &Block, what: &str) {
    let h = a.header.height;
    assert_eq!(a.header, b.header, "{what}: header at height {h}");
    assert_eq!(a.events, b.events, "{what}: events at height {h}");
    assert_eq!(a.receipts, b.receipts, "{what}: receipts at height {h}");
    assert_eq!(a.eob, b.eob, "{what}: end of block at height {h}");
    assert_eq!(a.pending, b.pending, "{what}: pending at height {h}");
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

    let mut one_by_one = node_from(&start, genesis.clone());
    for _ in 0..blocks {
        one_by_one.apply(Mine { blocks: 1 }).expect("mine");
    }

    let mut jump = node_from(&start, genesis);
    let mined = jump.apply(Mine { blocks }).expect("mine");
    assert_eq!((mined.first, mined.last), (from + 1, from + blocks));
    assert_eq!(mined.head.header, *reference.head());

    let mut fired = 0;
    for h in from + 1..=from + blocks {
        let r = reference.block(h).expect("reference block");
        let o = one_by_one.chain().block(h).expect("one-by-one block");
        let j = jump.chain().block(h).expect("jumped block");
        assert_same_block(&r, &o, "one Mine per height");
        assert_same_block(&r, &j, "one Mine for the jump");
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
    let mut rng = Rng(0x5eed);
    for _ in 0..4 {
        let span = 300 + rng.next() % 1_500;
        let n = 1 + rng.next() % 120;
        let heights: Vec<u64> = (0..n).map(|_| 2 + rng.next() % span).collect();
        let blocks = span + rng.next() % 200;
        check_schedule(&heights, blocks);
    }
}

#[test]
fn cip5_5_1_every_height_of_a_jump_answers_block_and_timer_reads() {
    let (start, genesis) = chain(&[1_500]);
    let id = start.engine().queue().pending()[0].timer_id;
    let mut node = node_from(&start, genesis);
    node.apply(Mine { blocks: 3_000 }).expect("mine");
    let head = node.chain().height();
    let mut parent = start.head().hash;
    for h in start.height() + 1..=head {
        let b = node.block(h).expect("every height answers");
        assert_eq!(b.header.height, h);
        assert_eq!(b.header.parent_hash, parent, "the headers chain at {h}");
        parent = b.header.hash;
    }
    assert_eq!(parent, node.chain().head().hash);
    assert!(node.block(head + 1).is_none());
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
