//! Issue 32, `devnet_dropTransaction` (anvil's `anvil_dropTransaction`): a pending transaction
//! leaves the open block, rebuilt from the sealed head's state without it; a later transaction
//! that no longer applies without it is dropped too and listed; an unknown or sealed hash is a
//! named error and changes nothing.

mod common;

use cowboy_devnet::chain::{Genesis, Transaction, TxKind};
use cowboy_devnet::engine::{Address, H256};
use cowboy_devnet::node::{
    Command, CommandReply, DropTransaction, Dropped, Mine, NodeCore, NodeError, SendTx,
};

fn transfer(from: Address, to: Address, amount: u128, nonce: Option<u64>) -> Transaction {
    let mut tx = Transaction::new(from, TxKind::Transfer { to, amount });
    tx.nonce = nonce;
    tx
}

fn send(node: &mut NodeCore, tx: Transaction) -> H256 {
    match node.execute(SendTx(tx).into()).unwrap() {
        CommandReply::Receipt(r) => r.receipt.tx_hash,
        r => panic!("{r:?}"),
    }
}

fn drop(node: &mut NodeCore, hash: H256) -> Result<Dropped, NodeError> {
    node.execute(Command::DropTransaction(DropTransaction { hash }))
        .map(|r| match r {
            CommandReply::Dropped(d) => d,
            r => panic!("{r:?}"),
        })
}

/// What the open block holds: its receipts' hashes and the state it leaves.
fn open(node: &NodeCore) -> (Vec<H256>, H256) {
    let hashes = node
        .chain()
        .open_receipts()
        .iter()
        .map(|r| r.tx_hash)
        .collect();
    (hashes, node.chain().state_root())
}

/// On the genesis head and on a sealed one.
#[test]
fn issue32_drop_rebuilds_the_open_block_without_it_and_drops_what_followed_it() {
    for sealed_before in [0, 3] {
        drop_after(sealed_before);
    }
}

fn drop_after(sealed_before: u64) {
    let node_with = |blocks: u64| {
        let mut n = common::fleet::manual_node(Genesis::default());
        if blocks > 0 {
            n.execute(Mine { blocks }.into()).unwrap();
        }
        n
    };
    let mut node = node_with(sealed_before);
    let dev = node.dev_accounts().to_vec();
    let (a, b, c) = (dev[0], dev[1], dev[2]);
    let n = node.chain().nonce(&a);
    let t1 = transfer(a, c, 100, None);
    let t2 = transfer(b, c, 5, None);
    // Follows t1's nonce: it no longer applies once t1 is gone.
    let t3 = transfer(a, c, 7, Some(n + 1));
    let h1 = send(&mut node, t1);
    let h2 = send(&mut node, t2.clone());
    let h3 = send(&mut node, t3);
    assert_eq!(open(&node).0, vec![h1, h2, h3]);

    let d = drop(&mut node, h1).unwrap();
    assert_eq!(d.dropped, vec![h1, h3]);

    // The open block is the one where only t2 was sent.
    let mut only = node_with(sealed_before);
    send(&mut only, t2);
    assert_eq!(open(&node), open(&only));
    assert_eq!(node.chain().nonce(&a), n);
    // And it seals to the same block.
    node.execute(Mine { blocks: 1 }.into()).unwrap();
    only.execute(Mine { blocks: 1 }.into()).unwrap();
    assert_eq!(node.head().hash, only.head().hash);
}

#[test]
fn issue32_dropping_an_unknown_or_sealed_hash_is_named_and_changes_nothing() {
    let mut node = common::fleet::manual_node(Genesis::default());
    let dev = node.dev_accounts().to_vec();
    let sealed = send(&mut node, transfer(dev[0], dev[1], 1, None));
    node.execute(Mine { blocks: 1 }.into()).unwrap();
    let pending = send(&mut node, transfer(dev[1], dev[2], 2, None));
    let before = (open(&node), node.height(), node.chain().nonce(&dev[1]));
    for (hash, says) in [
        (H256([0x42; 32]), "no pending transaction"),
        (sealed, "sealed in block #1"),
    ] {
        let e = drop(&mut node, hash).unwrap_err();
        assert_eq!(e.reason(), "TransactionNotFound");
        assert!(e.to_string().contains(says), "{e}");
        assert_eq!(
            (open(&node), node.height(), node.chain().nonce(&dev[1])),
            before
        );
    }
    assert_eq!(open(&node).0, vec![pending]);
}
