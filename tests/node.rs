//! The node's command path: devnet controls with checked numbers, snapshots, revert, dump and
//! load, and the mine and outage limits.

use cowboy_devnet::chain::{Genesis, GenesisAccount, Transaction, TxKind};
use cowboy_devnet::engine::Address;
use cowboy_devnet::node::{
    DumpState, Halt, LoadState, MAX_MINE_PER_COMMAND, Mine, MiningMode, NodeConfig, NodeCore,
    NodeError, Revert, SendTx, SetBalance, Snapshot,
};
use cowboy_devnet::vm::DevnetRuntime;

fn alice() -> Address {
    Address::from_label("alice")
}

fn config(balance: u128) -> NodeConfig {
    let mut g = Genesis::default();
    g.accounts.push(GenesisAccount {
        address: alice(),
        balance,
    });
    let mut c = NodeConfig::new(g, DevnetRuntime::shared());
    c.mining = MiningMode::Manual;
    c.dev_accounts = 0;
    c
}

fn devnet(balance: u128) -> NodeCore {
    NodeCore::new(config(balance)).expect("genesis")
}

fn transfer(d: &mut NodeCore, amount: u128) {
    let tx = Transaction::new(
        alice(),
        TxKind::Transfer {
            to: Address::from_label("bob"),
            amount,
        },
    );
    let out = d.apply(SendTx(tx)).unwrap();
    assert!(out.receipt.success, "{:?}", out.receipt.error);
}

#[test]
fn node_set_balance_past_the_supply_limit_is_invalid_input_and_changes_nothing() {
    let mut d = devnet(u128::MAX);
    let root = d.chain().head.state_root;
    let e = d
        .apply(SetBalance {
            address: Address::from_label("bob"),
            balance: 1,
        })
        .expect_err("the supply would wrap");
    assert_eq!(e.name(), "InvalidInput", "{e}");
    assert_eq!(d.chain().supply, u128::MAX);
    assert_eq!(d.chain().balance(&Address::from_label("bob")), 0);
    assert!(d.chain().funds_conserved());
    assert_eq!(d.chain().head.state_root, root);
    // Lowering a balance unmints.
    d.apply(SetBalance {
        address: alice(),
        balance: 5,
    })
    .unwrap();
    assert_eq!(d.chain().supply, 5);
    assert!(d.chain().funds_conserved());
}

#[test]
fn node_genesis_balances_past_u128_max_are_refused() {
    let mut g = Genesis::default();
    for n in ["a", "b"] {
        g.accounts.push(GenesisAccount {
            address: Address::from_label(n),
            balance: u128::MAX / 2 + 1,
        });
    }
    let e = NodeCore::new(NodeConfig::headless(g, DevnetRuntime::shared(), 16))
        .err()
        .expect("refused");
    assert!(matches!(e, NodeError::Timer(_)), "{e}");
}

#[test]
fn node_mine_and_halt_limits() {
    let mut d = devnet(1_000_000_000);
    for blocks in [0, MAX_MINE_PER_COMMAND + 1] {
        let e = d.apply(Mine { blocks }).expect_err("refused");
        assert_eq!(e.name(), "InvalidInput");
    }
    let e = d
        .apply(Halt {
            blocks: MAX_MINE_PER_COMMAND + 1,
        })
        .expect_err("refused");
    assert_eq!(e.name(), "InvalidInput");
    assert_eq!(d.chain().height, 0);
    let m = d.apply(Mine { blocks: 3 }).unwrap();
    assert_eq!((m.first, m.last, m.head.header.height), (1, 3, 3));
    d.apply(Halt { blocks: 10 }).unwrap();
    let m = d.apply(Mine { blocks: 1 }).unwrap();
    assert_eq!((m.first, m.last), (14, 14));
}

#[test]
fn node_a_snapshot_stays_usable_after_a_revert() {
    let mut d = devnet(1_000_000_000);
    let id = d.apply(Snapshot).unwrap();
    let root0 = d.chain().head.state_root;
    for _ in 0..2 {
        transfer(&mut d, 10);
        d.apply(Mine { blocks: 1 }).unwrap();
        assert_ne!(d.chain().head.state_root, root0);
        d.apply(Revert { id }).unwrap();
        assert_eq!(d.chain().head.state_root, root0);
        assert_eq!(d.chain().height, 0);
    }
    let e = d.apply(Revert { id: id + 1 }).expect_err("unknown");
    assert_eq!(e.name(), "UnknownSnapshot");
}

#[test]
fn node_dump_and_load_round_trip() {
    let mut d = devnet(1_000_000_000);
    transfer(&mut d, 10);
    d.apply(Mine { blocks: 2 }).unwrap();
    let dump = d.apply(DumpState).unwrap();
    let root = d.chain().head.state_root;
    transfer(&mut d, 20);
    d.apply(Mine { blocks: 1 }).unwrap();
    d.apply(LoadState(dump.clone())).unwrap();
    assert_eq!(d.chain().head.state_root, root);
    assert_eq!(d.chain().height, 2);
    let mut bad = dump;
    bad.format_version += 1;
    let e = d.apply(LoadState(bad)).expect_err("wrong version");
    assert_eq!(e.name(), "InvalidInput");
}
