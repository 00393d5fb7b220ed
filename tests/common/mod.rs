//! Helpers shared by the behaviour and property tests and by the benches: a funded chain,
//! deploys, `ActAs` timer calls, governance instructions, event queries and bare timers for
//! queue-level tests; and, in [`fleet`], chains of many actors and timers inserted in bulk, and
//! nodes built from them.
//!
//! One file for both: a test declares `mod common;`, a bench `#[path =
//! "../tests/common/mod.rs"] mod common;`, so each test and each bench still compiles alone and
//! the library ships no test code. Not every user calls every helper, hence `dead_code`.
#![allow(dead_code)]

pub mod fleet;
pub mod history;
pub mod keys;
pub mod replay;
pub mod schema;
pub mod served;
pub mod session;

use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::{
    Block, Chain, Event, EventRecord, Genesis, GenesisAccount, Phase, Receipt, SystemInstruction,
    TimerOp, Transaction, TxKind,
};
use cowboy_devnet::engine::{
    Address, ErrorKind, EventKind, Failure, ScheduleArgs, TimerConfig, TimerEvent, TimerId,
};
use cowboy_devnet::vm::DevnetRuntime;
use sha3::{Digest, Keccak256};

/// A chain under a CIP-5 draft scheduler `kind` (genesis adjusted by `f`), with actor_a and
/// actor_b deployed and funded (each pays its own fires).
pub fn draft_chain(
    kind: cowboy_devnet::engine::SchedulerKind,
    f: impl FnOnce(&mut Genesis),
) -> Chain {
    let mut g = Genesis {
        scheduler: kind,
        ..genesis()
    };
    f(&mut g);
    let mut c = chain_with_actors(g);
    c.set_balance(&actor_a(), RICH / 10);
    c.set_balance(&actor_b(), RICH / 10);
    c
}

/// Deploys `code` on node `n` as `name`, from dev account 1 with an endowment of 50,000,000,000
/// (the node-level tests' actor).
pub fn node_deploy(n: &mut cowboy_devnet::node::NodeCore, code: ActorCode, name: &str) -> Address {
    n.apply(cowboy_devnet::node::DeployActor {
        from: Some(cowboy_devnet::node::dev_account(1)),
        code,
        address: None,
        endowment: 50_000_000_000,
        name: Some(name.into()),
    })
    .expect("deploy")
    .address
}

/// A node of `cfg` under manual mining with `count` actors of no code, each endowed with
/// 10^21 (plenty for a long backlog), deployed in one mined block (issue 31's serve scenes).
pub fn node_with_actors(
    mut cfg: cowboy_devnet::node::NodeConfig,
    count: usize,
) -> (cowboy_devnet::node::NodeCore, Vec<Address>) {
    use cowboy_devnet::node::{DeployActor, Mine, MiningMode, NodeCore};
    cfg.mining = MiningMode::Manual;
    let mut n = NodeCore::new(cfg).expect("genesis");
    let actors = (0..count)
        .map(|_| {
            let d = DeployActor {
                from: None,
                code: ActorCode::none(),
                address: None,
                endowment: 10u128.pow(21),
                name: None,
            };
            n.apply(d).expect("deploy").address
        })
        .collect();
    n.apply(Mine { blocks: 1 }).expect("mine");
    (n, actors)
}

/// Schedules `count` timers on `n` (default arguments), the `i`-th by `actors[i % len]` due
/// at `height(i)`, mining a block after every `per_block` of them (issue 31's loading scenes).
pub fn schedule_in_blocks(
    n: &mut cowboy_devnet::node::NodeCore,
    actors: &[Address],
    count: u64,
    per_block: u64,
    height: impl Fn(u64) -> u64,
) {
    use cowboy_devnet::node::{Mine, ScheduleTimer};
    for i in 0..count {
        let args = ScheduleArgs {
            height: height(i),
            ..Default::default()
        };
        let actor = actors[i as usize % actors.len()];
        n.apply(ScheduleTimer {
            actor,
            args,
            ..Default::default()
        })
        .expect("schedule");
        if i % per_block == per_block - 1 {
            n.apply(Mine { blocks: 1 }).expect("mine");
        }
    }
}

/// One block with a body: a transfer of 1 from `from`, then the block sealed (the issue-31
/// scenes' busy blocks, which count toward a checkpoint's placement, Spec note 151).
pub fn busy_block(n: &mut cowboy_devnet::node::NodeCore, from: Address) {
    use cowboy_devnet::chain::{Transaction, TxKind};
    use cowboy_devnet::node::{Mine, SendTx};
    let to = Address::from_label("bob");
    let tx = Transaction::new(from, TxKind::Transfer { to, amount: 1 });
    n.apply(SendTx(tx)).expect("transfer");
    n.apply(Mine { blocks: 1 }).expect("mine");
}

/// A node of `cfg` whose lane fires a few timers a block and carries the rest (issue 31's
/// carried-backlog scene): 10 actors, five timers of `payload_len` bytes scheduled a block,
/// each due a few blocks later, over 552 busy blocks (two checkpoints' worth at 256 busy
/// blocks each, Spec note 151, and 40 more): a backlog that grows while the queue's pages are
/// written all over. The node's notifications are drained after each block.
pub fn carried_backlog(
    cfg: cowboy_devnet::node::NodeConfig,
    payload_len: usize,
) -> cowboy_devnet::node::NodeCore {
    use cowboy_devnet::node::{Mine, ScheduleTimer};
    const ACTORS: usize = 10;
    const PER_BLOCK: u64 = 5;
    const LOADED_BLOCKS: u64 = 2 * 256 + 40;
    let (mut n, actors) = node_with_actors(cfg, ACTORS);
    for i in 0..LOADED_BLOCKS * PER_BLOCK {
        let args = ScheduleArgs {
            height: n.height() + 2 + i % 5,
            payload: vec![b'x'; payload_len],
            ..Default::default()
        };
        n.apply(ScheduleTimer {
            actor: actors[i as usize % ACTORS],
            args,
            ..Default::default()
        })
        .expect("schedule");
        if i % PER_BLOCK == PER_BLOCK - 1 {
            n.apply(Mine { blocks: 1 }).expect("mine");
            while n.poll_event().is_some() {}
        }
    }
    assert!(n.head().pending_timers > 0, "the backlog was carried");
    n
}

/// Plenty for any number of transactions (each reserves up to 7,000,000 at default basefees).
pub const RICH: u128 = 1_000_000_000_000;

pub fn gov() -> Address {
    Address::from_label("governance")
}
pub fn alice() -> Address {
    Address::from_label("alice")
}
pub fn bob() -> Address {
    Address::from_label("bob")
}
pub fn actor_a() -> Address {
    Address::from_label("actor-a")
}
pub fn actor_b() -> Address {
    Address::from_label("actor-b")
}

/// A genesis funding governance, alice and bob with [`RICH`].
pub fn genesis() -> Genesis {
    Genesis {
        accounts: [gov(), alice(), bob()]
            .into_iter()
            .map(|address| GenesisAccount {
                address,
                balance: RICH,
            })
            .collect(),
        ..Genesis::default()
    }
}

pub fn chain_with(genesis: Genesis) -> Chain {
    Chain::new(genesis, DevnetRuntime::shared()).expect("valid genesis")
}

pub fn chain() -> Chain {
    chain_with(genesis())
}

/// Deploys `code` at `address` from `from`; panics unless the deploy succeeds.
pub fn deploy(chain: &mut Chain, from: Address, address: Address, code: ActorCode) -> Address {
    deploy_endowed(chain, from, address, code, 0);
    address
}

/// Deploys `code` at `address` from `from`, endowed with `endowment`; panics unless the deploy
/// succeeds. Returns the receipt (the timers the actor's `deploy()` scheduled are in it).
pub fn deploy_endowed(
    chain: &mut Chain,
    from: Address,
    address: Address,
    code: ActorCode,
    endowment: u128,
) -> Receipt {
    let r = chain
        .apply_tx(Transaction::new(
            from,
            TxKind::Deploy {
                address: Some(address),
                code,
                endowment,
            },
        ))
        .expect("deploy accepted");
    assert!(r.success, "deploy failed: {:?}", r.error);
    r
}

pub fn deploy_native(chain: &mut Chain, from: Address, address: Address, json: &str) -> Address {
    deploy(chain, from, address, ActorCode::native(json))
}

/// [`chain_with_actors`] under `--scheduler cip1-v1`, both actors funded with [`RICH`]
/// (CIP-1 v1: the owner pays its fires).
pub fn v1_chain() -> Chain {
    let mut c = chain_with_actors(Genesis {
        scheduler: cowboy_devnet::engine::SchedulerKind::Cip1V1,
        ..genesis()
    });
    for a in [actor_a(), actor_b()] {
        c.set_balance(&a, RICH);
    }
    c
}

/// The standard fixture: alice deploys code-less `actor_a` and `actor_b`, block 1 is sealed.
pub fn chain_with_actors(genesis: Genesis) -> Chain {
    let mut c = chain_with(genesis);
    deploy(&mut c, alice(), actor_a(), ActorCode::none());
    deploy(&mut c, alice(), actor_b(), ActorCode::none());
    c.seal_block();
    c
}

/// Sends a timer operation as `actor` from `from` (see [`send_or_refused`]).
pub fn act_as(chain: &mut Chain, from: Address, actor: Address, op: TimerOp) -> Receipt {
    send_or_refused(
        chain,
        Transaction::new(from, TxKind::ActAs { actor, op }),
        "act_as",
    )
}

/// Applies `tx`. A transaction that would fail is refused before inclusion (issues 29/30, one
/// refusal path, Spec note 156): the helper checks that the refusal changed nothing (state
/// root, nonce, balance, height) and answers a receipt-shaped value with `success: false`,
/// no fee and the refusal as its error, so tests read both paths one way.
pub fn send_or_refused(chain: &mut Chain, tx: Transaction, kind: &str) -> Receipt {
    let from = tx.from;
    let before = (
        chain.state_root(),
        chain.nonce(&from),
        chain.balance(&from),
        chain.pending_height(),
    );
    match chain.apply_tx(tx.clone()) {
        Ok(r) => r,
        Err(e) => {
            let after = (
                chain.state_root(),
                chain.nonce(&from),
                chain.balance(&from),
                chain.pending_height(),
            );
            assert_eq!(after, before, "a refused {kind} changed the chain: {e}");
            Receipt {
                tx_hash: tx.hash(),
                index: u32::MAX,
                from,
                nonce: before.1,
                kind: kind.into(),
                success: false,
                error: Some(Failure::from_error(e.kind(), &e)),
                cycles_used: 0,
                cells_used: 0,
                fee: 0,
                created: None,
                timers: Vec::new(),
            }
        }
    }
}

pub fn args(height: u64) -> ScheduleArgs {
    ScheduleArgs {
        height,
        ..ScheduleArgs::default()
    }
}

pub fn args_gas(height: u64, gas: u64) -> ScheduleArgs {
    ScheduleArgs {
        height,
        gas_limit: Some(gas),
        ..ScheduleArgs::default()
    }
}

/// Schedules through `ActAs` from alice; returns the receipt.
pub fn try_schedule(chain: &mut Chain, actor: Address, a: ScheduleArgs) -> Receipt {
    act_as(chain, alice(), actor, TimerOp::ScheduleTimer(a))
}

/// Schedules through `ActAs` from alice; panics unless it succeeds. Returns the id.
pub fn schedule(chain: &mut Chain, actor: Address, a: ScheduleArgs) -> TimerId {
    let r = try_schedule(chain, actor, a);
    assert!(r.success, "schedule failed: {:?}", r.error);
    assert_eq!(r.timers.len(), 1);
    r.timers[0]
}

pub fn cancel(chain: &mut Chain, actor: Address, timer_id: TimerId) -> Receipt {
    act_as(chain, alice(), actor, TimerOp::CancelTimer { timer_id })
}

pub fn extend(
    chain: &mut Chain,
    actor: Address,
    timer_id: TimerId,
    new_expires_at: u64,
) -> Receipt {
    act_as(
        chain,
        alice(),
        actor,
        TimerOp::ExtendTimer {
            timer_id,
            new_expires_at,
        },
    )
}

pub fn system(chain: &mut Chain, from: Address, ins: SystemInstruction) -> Receipt {
    send_or_refused(chain, Transaction::new(from, TxKind::System(ins)), "system")
}

pub fn call(chain: &mut Chain, from: Address, actor: Address, handler: &str) -> Receipt {
    chain
        .apply_tx(Transaction::new(
            from,
            TxKind::Call {
                actor,
                handler: handler.into(),
                payload: Vec::new(),
            },
        ))
        .expect("call included")
}

/// The error kind a failed receipt carries (`InvalidInput`, `Unauthorized`, ...).
pub fn err_kind(r: &Receipt) -> ErrorKind {
    assert!(!r.success, "expected a failed receipt, got success");
    r.error.as_ref().expect("failed receipt has an error").kind
}

/// CIP-5 §3.3, computed independently of the crate.
pub fn expected_id(actor: &Address, height: u64, payload: &[u8], nonce: u64) -> TimerId {
    let mut h = Keccak256::new();
    h.update(actor.0);
    h.update(height.to_be_bytes());
    h.update(payload);
    h.update(nonce.to_be_bytes());
    TimerId(h.finalize().into())
}

pub fn timer_events(block: &Block) -> Vec<&TimerEvent> {
    block
        .events
        .iter()
        .filter_map(|r| match &r.event {
            Event::Timer(e) => Some(e),
            _ => None,
        })
        .collect()
}

pub fn eob_events(block: &Block) -> Vec<&EventRecord> {
    block
        .events
        .iter()
        .filter(|r| r.phase == Phase::Eob)
        .collect()
}

/// `(kind, timer id)` of every end-of-block timer event, in order.
pub fn eob_kinds(block: &Block) -> Vec<(EventKind, TimerId)> {
    eob_events(block)
        .into_iter()
        .filter_map(|r| r.event.timer_id().map(|id| (r.event.kind(), id)))
        .collect()
}

/// Ids of the timers fired in `block`, in firing order.
pub fn fired(block: &Block) -> Vec<TimerId> {
    timer_events(block)
        .into_iter()
        .filter_map(|e| match e {
            TimerEvent::TimerFired { timer_id, .. } => Some(*timer_id),
            _ => None,
        })
        .collect()
}

pub fn find_fired(block: &Block, id: TimerId) -> TimerEvent {
    timer_events(block)
        .into_iter()
        .find(|e| matches!(e, TimerEvent::TimerFired { timer_id, .. } if *timer_id == id))
        .cloned()
        .unwrap_or_else(|| panic!("{id:?} did not fire in block {}", block.header.height))
}

/// Seals blocks until the next one to be sealed is `height` (the open block, if any, first).
pub fn seal_until(chain: &mut Chain, height: u64) {
    while chain.pending_height() < height {
        chain.seal_block();
    }
}

pub fn assert_conserved(chain: &Chain) {
    assert_eq!(
        chain.total_balances() + chain.burned(),
        chain.supply(),
        "balances + burned must equal supply at height {}",
        chain.height()
    );
}

pub fn cfg_with(f: impl FnOnce(&mut TimerConfig)) -> TimerConfig {
    let mut c = TimerConfig::default();
    f(&mut c);
    c
}

/// A bare timer for queue-level tests: id `keccak(n)`, one actor, due at `height`; `seq` is
/// assigned by the queue.
pub fn queue_timer(n: u64, height: u64) -> cowboy_devnet::engine::Timer {
    let actor = Address::from_label("q-actor");
    cowboy_devnet::engine::Timer {
        timer_id: queue_id(n),
        actor_address: actor,
        fee_payer: actor,
        height,
        seq: 0,
        schedule_block: 0,
        gas_limit_per_fire: 1_000,
        expires_at: height + 1_000,
        payload: Box::new([]),
        fee_caps: None,
    }
}

/// The id of [`queue_timer`]`(n, _)`.
pub fn queue_id(n: u64) -> TimerId {
    TimerId(cowboy_devnet::engine::types::keccak(&n.to_be_bytes()))
}

/// One transaction of each kind a `devnet_sendTransaction` takes (issue 29): a transfer with
/// an explicit nonce and cycle limit, a deploy, a call, a governance instruction and an act-as
/// schedule, `from` sending all but the governance one (`gov`'s). `actor` is the deployed
/// actor the call and the schedule name.
pub fn every_tx_kind(from: Address, gov: Address, actor: Address) -> Vec<Transaction> {
    let mut transfer = Transaction::new(
        from,
        TxKind::Transfer {
            to: gov,
            amount: 1_234,
        },
    );
    transfer.cycle_limit = Some(50_000);
    let deploy = TxKind::Deploy {
        address: None,
        code: ActorCode::rhai("pinger", "fn ping(p) { emit(\"pong\", p); }"),
        endowment: 10_000,
    };
    let call = TxKind::Call {
        actor,
        handler: "ping".into(),
        payload: b"hi".to_vec(),
    };
    let schedule = ScheduleArgs {
        height: 30,
        payload: b"tick".to_vec(),
        ..ScheduleArgs::default()
    };
    vec![
        transfer,
        Transaction::new(from, deploy),
        Transaction::new(from, call),
        Transaction::new(
            gov,
            TxKind::System(SystemInstruction::ExtendTimer {
                timer_id: TimerId([0x42; 32]),
                new_expires_at: 500,
            }),
        ),
        Transaction::new(
            from,
            TxKind::ActAs {
                actor,
                op: TimerOp::ScheduleTimer(schedule),
            },
        ),
    ]
}
