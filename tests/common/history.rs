//! A live node with a bounded history and one funded account, and the busy block the history
//! keeps (tests/history.rs, tests/issue31_headers.rs).

use cowboy_devnet::chain::{Genesis, GenesisAccount, Transaction, TxKind};
use cowboy_devnet::engine::Address;
use cowboy_devnet::node::{Mine, MiningMode, NodeConfig, NodeCore, SendTx};
use cowboy_devnet::vm::DevnetRuntime;

pub fn alice() -> Address {
    Address::from_label("alice")
}

/// A manual-mining node keeping the last `history` heights, `alice` its one account.
pub fn devnet(history: usize) -> NodeCore {
    let mut g = Genesis::default();
    g.accounts.push(GenesisAccount {
        address: alice(),
        balance: 1_000_000_000_000,
    });
    let mut c = NodeConfig::new(g, DevnetRuntime::shared());
    c.mining = MiningMode::Manual;
    c.dev_accounts = 0;
    c.history = history;
    c.keep_blocks = Some(history);
    NodeCore::new(c).expect("genesis")
}

/// One block with a transfer in it (a block the history keeps).
pub fn busy_block(d: &mut NodeCore) {
    transfers_block(d, 1);
}

/// One block with `n` transfers from `alice` in it.
pub fn transfers_block(d: &mut NodeCore, n: usize) {
    transfers(d, n);
    d.apply(Mine { blocks: 1 }).unwrap();
}

/// `n` transfers from `alice` into the open block (not sealed).
pub fn transfers(d: &mut NodeCore, n: usize) {
    for _ in 0..n {
        let tx = Transaction::new(
            alice(),
            TxKind::Transfer {
                to: Address::from_label("bob"),
                amount: 1,
            },
        );
        assert!(d.apply(SendTx(tx)).unwrap().receipt.success);
    }
}

/// The fairness pane's counts as a rescan of the events makes them (issue 31, Spec note 204):
/// every `TimerFired` and `TimerDeferred` of `chain`'s kept blocks above `height - window`,
/// per actor, as `(fires, deferrals)`. The model the per-block tallies answer like, and the
/// naive baseline they are measured beside.
pub fn rescan_shares(
    chain: &cowboy_devnet::chain::Chain,
    window: u64,
) -> std::collections::BTreeMap<cowboy_devnet::engine::Address, (u64, u64)> {
    use cowboy_devnet::chain::Event;
    use cowboy_devnet::engine::TimerEvent;
    let from = chain.height().saturating_sub(window);
    let mut per = std::collections::BTreeMap::new();
    for b in chain.blocks().rev().take_while(|b| b.header.height > from) {
        for r in &b.events {
            match &r.event {
                Event::Timer(TimerEvent::TimerFired { actor, .. }) => {
                    per.entry(*actor).or_insert((0, 0)).0 += 1
                }
                Event::Timer(TimerEvent::TimerDeferred { actor, .. }) => {
                    per.entry(*actor).or_insert((0, 0)).1 += 1
                }
                _ => {}
            }
        }
    }
    per
}
