//! The node's command path: devnet controls with checked numbers, snapshots, revert, dump and
//! load, and the mine and outage limits.

use cowboy_devnet::chain::{Genesis, GenesisAccount, Transaction, TxKind};
use cowboy_devnet::engine::{Address, ErrorKind};
use cowboy_devnet::node::{Command, Devnet, MAX_MINE_PER_COMMAND, NodeError, Outcome};
use cowboy_devnet::vm::DevnetRuntime;

fn alice() -> Address {
    Address::from_label("alice")
}

fn devnet(balance: u128) -> Devnet {
    let mut g = Genesis::default();
    g.accounts.push(GenesisAccount {
        address: alice(),
        balance,
    });
    Devnet::new(g, DevnetRuntime::shared()).expect("genesis")
}

fn transfer(d: &mut Devnet, amount: u128) {
    let tx = Transaction::new(
        alice(),
        TxKind::Transfer {
            to: Address::from_label("bob"),
            amount,
        },
    );
    match d.execute(Command::SendTx(tx)).unwrap() {
        Outcome::Receipt(r) => assert!(r.success, "{:?}", r.error),
        o => panic!("{o:?}"),
    }
}

#[test]
fn node_set_balance_past_the_supply_limit_is_invalid_input_and_changes_nothing() {
    let mut d = devnet(u128::MAX);
    let root = d.chain().head().state_root;
    let e = d
        .execute(Command::SetBalance {
            address: Address::from_label("bob"),
            balance: 1,
        })
        .expect_err("the supply would wrap");
    assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
    assert_eq!(d.chain().supply(), u128::MAX);
    assert_eq!(d.chain().balance(&Address::from_label("bob")), 0);
    assert!(d.chain().funds_conserved());
    assert_eq!(d.chain().head().state_root, root);
    // Lowering a balance unmints.
    d.execute(Command::SetBalance {
        address: alice(),
        balance: 5,
    })
    .unwrap();
    assert_eq!(d.chain().supply(), 5);
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
    let e = Devnet::new(g, DevnetRuntime::shared())
        .err()
        .expect("refused");
    assert!(matches!(e, NodeError::Genesis(_)), "{e}");
}

#[test]
fn node_mine_and_halt_limits() {
    let mut d = devnet(1_000_000_000);
    for blocks in [0, MAX_MINE_PER_COMMAND + 1] {
        let e = d.execute(Command::Mine { blocks }).expect_err("refused");
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
    }
    let e = d
        .execute(Command::Halt {
            blocks: MAX_MINE_PER_COMMAND + 1,
        })
        .expect_err("refused");
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert_eq!(d.chain().height(), 0);
    match d.execute(Command::Mine { blocks: 3 }).unwrap() {
        Outcome::Mined(h) => assert_eq!(h, vec![1, 2, 3]),
        o => panic!("{o:?}"),
    }
    d.execute(Command::Halt { blocks: 10 }).unwrap();
    match d.execute(Command::Mine { blocks: 1 }).unwrap() {
        Outcome::Mined(h) => assert_eq!(h, vec![14]),
        o => panic!("{o:?}"),
    }
}

#[test]
fn node_a_snapshot_stays_usable_after_a_revert() {
    let mut d = devnet(1_000_000_000);
    let Outcome::Snapshot(id) = d.execute(Command::Snapshot).unwrap() else {
        panic!("a snapshot id")
    };
    let root0 = d.chain().head().state_root;
    for _ in 0..2 {
        transfer(&mut d, 10);
        d.execute(Command::Mine { blocks: 1 }).unwrap();
        assert_ne!(d.chain().head().state_root, root0);
        d.execute(Command::Revert { id }).unwrap();
        assert_eq!(d.chain().head().state_root, root0);
        assert_eq!(d.chain().height(), 0);
    }
    let e = d
        .execute(Command::Revert { id: id + 1 })
        .expect_err("unknown");
    assert_eq!(e.kind(), ErrorKind::UnknownSnapshot);
}

#[test]
fn node_dump_and_load_round_trip() {
    let mut d = devnet(1_000_000_000);
    transfer(&mut d, 10);
    d.execute(Command::Mine { blocks: 2 }).unwrap();
    let Outcome::Dump(dump) = d.execute(Command::Dump).unwrap() else {
        panic!("a dump")
    };
    let root = d.chain().head().state_root;
    transfer(&mut d, 20);
    d.execute(Command::Mine { blocks: 1 }).unwrap();
    d.execute(Command::Load(dump.clone())).unwrap();
    assert_eq!(d.chain().head().state_root, root);
    assert_eq!(d.chain().height(), 2);
    let mut bad = dump;
    bad.format_version += 1;
    let e = d.execute(Command::Load(bad)).expect_err("wrong version");
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
}

#[test]
fn node_dump_of_an_open_block_is_refused_and_mines_nothing() {
    let mut d = devnet(1_000_000_000);
    d.execute(Command::Mine { blocks: 1 }).unwrap();
    let (height, root) = (d.chain().height(), d.chain().state_root());
    transfer(&mut d, 10);
    let e = d.execute(Command::Dump).expect_err("a block is open");
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(e.to_string().contains("mine it before dumping"), "{e}");
    assert_eq!(
        d.chain().height(),
        height,
        "the refused dump sealed nothing"
    );
    assert_eq!(d.chain().state_root(), root);
    d.execute(Command::Mine { blocks: 1 }).unwrap();
    let Outcome::Dump(dump) = d.execute(Command::Dump).unwrap() else {
        panic!("a dump")
    };
    assert_eq!(dump.height, height + 1);
    assert_eq!(d.chain().height(), height + 1);
}
