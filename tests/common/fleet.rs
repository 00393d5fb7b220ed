//! Builders for chains with many timers, shared by `tests/` and `benches/`: a fleet of
//! numbered code-less actors funded by one account, bare timers inserted in bulk (through
//! `test_hook_insert_timers`, without transactions), and nodes built from a genesis or loaded
//! from a chain's dump.

use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::{Block, Chain, Genesis, GenesisAccount};
use cowboy_devnet::engine::{Address, Timer, TimerConfig, TimerId};
use cowboy_devnet::node::{LoadState, MiningMode, NodeConfig, NodeCore};
use cowboy_devnet::vm::DevnetRuntime;

/// Plenty for a fleet actor's fires over any run (10^30 base units).
pub const FLEET_RICH: u128 = 1_000_000_000_000_000_000_000_000_000_000;

/// The account that funds a fleet and deploys its actors.
pub fn fleet_funder() -> Address {
    Address::from_label("fleet-funder")
}

/// The `i % count`-th of `count` numbered actors (`0x1_0000 + k`).
pub fn fleet_actor(count: u64, i: u64) -> Address {
    Address::from_low_u64(0x1_0000 + i % count)
}

/// SplitMix64's finalizer: a fixed, well-spread 64-bit mix.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A deterministic pseudo-random sequence (SplitMix64).
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        let z = mix(self.0);
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z
    }

    /// The next value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// A unique timer id for `n`, spread over the leading bytes as a keccak id is.
pub fn bulk_id(n: u64) -> TimerId {
    let mut id = [0u8; 32];
    id[..8].copy_from_slice(&mix(n).to_le_bytes());
    id[8..16].copy_from_slice(&n.to_le_bytes());
    TimerId(id)
}

/// A bare timer for bulk insertion: id [`bulk_id`]`(n)`, owned and paid for by `owner`, due at
/// `height`, 10,000 cycles a fire, expiring 1,000 blocks after its height. Change a field with
/// `Timer { gas_limit_per_fire: 100, ..bulk_timer(n, owner, h) }`.
pub fn bulk_timer(n: u64, owner: Address, height: u64) -> Timer {
    Timer {
        timer_id: bulk_id(n),
        actor_address: owner,
        fee_payer: owner,
        height,
        seq: 0,
        schedule_block: 0,
        gas_limit_per_fire: 10_000,
        expires_at: height + 1_000,
        payload: Box::default(),
        fee_caps: None,
    }
}

/// `count` bulk timers with ids `first..first + count`, spread evenly over `span` heights from
/// `from`; the `i`-th is owned by `owner(i)`.
pub fn spread_timers(
    first: u64,
    count: u64,
    from: u64,
    span: u64,
    owner: impl Fn(u64) -> Address,
) -> impl Iterator<Item = Timer> {
    (0..count).map(move |i| bulk_timer(first + i, owner(i), from + i * span / count.max(1)))
}

/// A sealed fleet chain at height 1 (`actors` no-code actors, uncapped, rich) with `timers`
/// bulk timers spread evenly over the next `span` heights: the long jumps' scene
/// (`benches/long_jump.rs`, `tests/issue31_jump_cost.rs`).
pub fn spread_chain(actors: u64, timers: u64, span: u64) -> (Chain, Genesis) {
    let (mut c, genesis) = fleet_chain(uncapped_genesis(), actors, FLEET_RICH);
    c.seal_block();
    let owner = |i| fleet_actor(actors, i);
    c.test_hook_insert_timers(spread_timers(0, timers, 2, span, owner))
        .expect("fresh ids");
    (c, genesis)
}

/// Every field a block read answers is the same in `a` and `b` (`what` names the comparison).
pub fn assert_same_block(a: &Block, b: &Block, what: &str) {
    let h = a.header.height;
    assert_eq!(a.header, b.header, "{what}: header at height {h}");
    assert_eq!(a.receipts, b.receipts, "{what}: receipts at height {h}");
    assert_eq!(a.events, b.events, "{what}: events at height {h}");
    assert_eq!(a.eob, b.eob, "{what}: end of block at height {h}");
    assert_eq!(a.migrated, b.migrated, "{what}: migrated at height {h}");
    assert_eq!(a.pending, b.pending, "{what}: pending at height {h}");
    assert_eq!(a.lane, b.lane, "{what}: lane at height {h}");
}

/// The default timer config with no per-actor cap (a fleet actor holds any number of timers).
pub fn uncapped() -> TimerConfig {
    TimerConfig {
        max_timers_per_actor: u32::MAX,
        ..TimerConfig::default()
    }
}

/// A genesis with the [`uncapped`] timer config.
pub fn uncapped_genesis() -> Genesis {
    Genesis {
        timer: uncapped(),
        ..Genesis::default()
    }
}

/// `genesis` plus a [`fleet_funder`] holding enough to endow `actors` actors with `endowment`
/// each, and the chain on it with those actors ([`fleet_actor`]`(actors, i)`, no code)
/// deployed in the open first block (not sealed). Returns the chain and the genesis it was
/// built from (what a node loading its dump needs).
pub fn fleet_chain(mut genesis: Genesis, actors: u64, endowment: u128) -> (Chain, Genesis) {
    let funder = fleet_funder();
    genesis.accounts.push(GenesisAccount {
        address: funder,
        balance: endowment * (actors as u128 + 1),
    });
    let mut c = super::chain_with(genesis.clone());
    for i in 0..actors {
        let actor = fleet_actor(actors, i);
        super::deploy_endowed(&mut c, funder, actor, ActorCode::none(), endowment);
    }
    (c, genesis)
}

/// A node on `genesis` (the default node config: dev accounts, instant mining).
pub fn node_on(genesis: Genesis) -> NodeCore {
    NodeCore::new(NodeConfig::new(genesis, DevnetRuntime::shared())).expect("genesis")
}

/// A node on `genesis` that mines only when told (`Mine`), with the default dev accounts.
pub fn manual_node(genesis: Genesis) -> NodeCore {
    let mut cfg = NodeConfig::new(genesis, DevnetRuntime::shared());
    cfg.mining = MiningMode::Manual;
    NodeCore::new(cfg).expect("genesis")
}

/// A manual-mining node without dev accounts on `genesis` (the other settings the defaults,
/// `serve`'s), before anything is loaded into it.
pub fn bare_node(genesis: Genesis) -> NodeCore {
    let mut cfg = NodeConfig::new(genesis, DevnetRuntime::shared());
    cfg.mining = MiningMode::Manual;
    cfg.dev_accounts = 0;
    NodeCore::new(cfg).expect("node")
}

/// A [`bare_node`] on `genesis`, loaded with `chain`'s dump (the chain must be sealed), its
/// load events drained.
pub fn node_from(chain: &Chain, genesis: Genesis) -> NodeCore {
    let mut node = bare_node(genesis);
    node.apply(LoadState(Box::new(chain.dump().expect("sealed"))))
        .expect("load");
    while node.poll_event().is_some() {}
    node
}

/// The genesis of issue 31's carried bucket: a lane of four fires of 10,000 cycles (the
/// per-fire cap), under `scheduler` from `activation` with `variants`.
pub fn carried_bucket_genesis(
    scheduler: cowboy_devnet::engine::SchedulerKind,
    activation: Option<u64>,
    variants: &[&str],
) -> Genesis {
    const GAS: u64 = 10_000;
    Genesis {
        timer: TimerConfig {
            lane_timer_cycles: 4 * GAS,
            max_cycles_per_fire: GAS,
            ..uncapped()
        },
        ..Genesis::default()
    }
    .with_scheduler(Some(scheduler), activation)
    .and_then(|g| g.with_variants(variants))
    .expect("scheduler")
}

/// Issue 31's carried bucket: a manual-mining node under `scheduler` with `actors` fleet actors,
/// a lane of four fires of 10,000 cycles, and `timers` (each 10,000 cycles a fire) all due at
/// height 3, mined to 3: all but four are carried to the bucket at 4.
pub fn carried_bucket_node(
    scheduler: cowboy_devnet::engine::SchedulerKind,
    actors: u64,
    timers: impl IntoIterator<Item = Timer>,
) -> NodeCore {
    let genesis = carried_bucket_genesis(scheduler, None, &[]);
    let (mut c, genesis) = fleet_chain(genesis, actors, FLEET_RICH);
    c.seal_block();
    let mut node = node_from(&c, genesis);
    node.test_hook_insert_timers(timers).expect("fresh ids");
    node.apply(cowboy_devnet::node::Mine {
        blocks: 3 - node.height(),
    })
    .expect("mine");
    node
}
