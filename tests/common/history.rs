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
    let tx = Transaction::new(
        alice(),
        TxKind::Transfer {
            to: Address::from_label("bob"),
            amount: 1,
        },
    );
    assert!(d.apply(SendTx(tx)).unwrap().receipt.success);
    d.apply(Mine { blocks: 1 }).unwrap();
}
