//! Issue 31, "A timer's fate outlives the window" (Spec note 183): a block older than the kept
//! history (`--history N`) answers its header, with `HistoryPruned` named for its body; the
//! headers are kept by work done (one per busy block, one span per long quiet jump), never
//! per height passed.

use cowboy_devnet::chain::{BlockHeader, Genesis, HeaderArchive};
use cowboy_devnet::engine::{ErrorKind, H256};
use cowboy_devnet::node::{
    BlockAnswer, DumpState, LoadState, Mine, NodeConfig, NodeCore, Reset, RevertTo,
};
use cowboy_devnet::vm::DevnetRuntime;
use jsonrpsee::http_client::HttpClientBuilder;
use serde_json::{Value, json};
use std::collections::BTreeMap;

mod common;

use common::history::{busy_block, devnet};

// Issue 31 item 4: an archived busy block costs one entry, its header and the entry's tag:
// 176 bytes (checked when the tests compile).
const _: () = assert!(HeaderArchive::ENTRY_BYTES <= 176);

fn mine(d: &mut NodeCore, blocks: u64) {
    d.apply(Mine { blocks }).unwrap();
}

/// The header the node answers for `height`, and whether it answered the whole block.
fn answer(d: &NodeCore, height: u64) -> (BlockHeader, bool) {
    match d.block_answer(height).unwrap().expect("a sealed height") {
        BlockAnswer::Whole(b) => (b.header.clone(), true),
        BlockAnswer::HeaderOnly(p) => {
            assert_eq!(p.body, None);
            assert_eq!(p.body_error.reason, "HistoryPruned");
            assert_eq!(p.body_error.code, -32069);
            assert_eq!(p.body_error.first_kept, d.first_kept());
            assert!(p.body_error.message.contains("keep their header only"));
            (p.header.clone(), false)
        }
    }
}

/// Records the header of every height in the window; a height seen before must not change.
fn record_window(d: &NodeCore, seen: &mut BTreeMap<u64, BlockHeader>) {
    for h in d.first_kept()..=d.chain().height() {
        let (header, whole) = answer(d, h);
        assert!(whole, "#{h} is in the window");
        let prev = seen.insert(h, header.clone());
        assert!(prev.is_none_or(|p| p == header), "#{h} changed");
    }
}

/// A stretch of busy blocks and quiet heights (crossing epochs, 3,600 heights each), mined in
/// steps shorter than the window so the node shows every height whole once.
fn stretch(d: &mut NodeCore, seen: &mut BTreeMap<u64, BlockHeader>) {
    for i in 0..30 {
        busy_block(d);
        record_window(d, seen);
        if i % 10 == 9 {
            for _ in 0..200 {
                mine(d, 40);
                record_window(d, seen);
            }
        }
    }
}

/// The parent every header names: the block before it, or for an empty body that skipped
/// nothing its anchor (the last block before it with a body or skipped heights), `chain::quiet`.
fn check_links(headers: &BTreeMap<u64, BlockHeader>, empty: H256) {
    let anchored = |h: &BlockHeader| h.skipped == 0 && h.body_hash == empty;
    let mut prev: Option<&BlockHeader> = None;
    for h in headers.values() {
        if let Some(p) = prev {
            assert_eq!(h.height, p.height + 1, "consecutive heights");
            let anchor = if anchored(p) { p.parent_hash } else { p.hash };
            let want = if anchored(h) { anchor } else { p.hash };
            assert_eq!(h.parent_hash, want, "#{} links", h.height);
        }
        prev = Some(h);
    }
}

#[test]
fn issue31_pruned_heights_answer_the_header_they_had_in_the_window() {
    let mut d = devnet(50);
    let mut seen = BTreeMap::new();
    stretch(&mut d, &mut seen);
    // Push everything out of the window with more busy blocks.
    for _ in 0..60 {
        busy_block(&mut d);
        record_window(&d, &mut seen);
    }
    let first_kept = d.first_kept();
    assert!(first_kept > 24_000, "{first_kept}");
    // Every pruned height, busy or quiet, answers the header it had in the window.
    for (h, header) in seen.range(..first_kept) {
        let (now, whole) = answer(&d, *h);
        assert!(!whole, "#{h} is pruned");
        assert_eq!(&now, header, "#{h}");
    }
    // Height 11 follows the tenth busy block: a quiet height, its body empty.
    check_links(&seen, seen[&11].body_hash);
    assert_ne!(seen[&11].parent_hash, seen[&10].parent_hash);
    // The archive holds one entry per busy block dropped and one span per quiet stretch.
    let entries = d.chain().header_archive().len();
    assert!(entries <= 30 + 60 + 3 + 5, "{entries} entries");
}

#[test]
fn issue31_a_million_height_quiet_jump_adds_at_most_a_couple_of_archive_entries() {
    let mut d = devnet(20);
    for _ in 0..30 {
        busy_block(&mut d);
    }
    let before_jump = d.chain().header(30).unwrap();
    let entries = d.chain().header_archive().len();
    assert_eq!(entries, 10, "one entry per busy block dropped");
    mine(&mut d, 1_000_000);
    let top = d.chain().height();
    // The jump's heights, seen while they are in the window.
    let samples: Vec<u64> = (31..=top).step_by(3_599).chain([31, top]).collect();
    let shown: Vec<(u64, BlockHeader)> = samples.iter().map(|h| (*h, answer(&d, *h).0)).collect();
    // 30 busy blocks push the jump out of the window; they drop 30 stored blocks.
    for _ in 0..30 {
        busy_block(&mut d);
    }
    assert!(d.first_kept() > top, "the whole jump is pruned");
    let grown = d.chain().header_archive().len() - entries;
    assert!(
        grown <= 30 + 2,
        "a 1M-height jump added {} entries",
        grown - 30
    );
    for (h, header) in &shown {
        let (now, whole) = answer(&d, *h);
        assert!(!whole);
        assert_eq!(&now, header, "#{h}");
        // Every height of the jump names the last busy block before it (its anchor).
        assert_eq!(now.parent_hash, before_jump.hash);
    }
    // The first block after the jump names the jump's last height.
    assert_eq!(answer(&d, top + 1).0.parent_hash, answer(&d, top).0.hash);
}

#[test]
fn issue31_revert_to_drops_the_archived_headers_above_the_head() {
    let mut d = devnet(10);
    for i in 0..40 {
        busy_block(&mut d);
        if i % 8 == 0 {
            mine(&mut d, 5_000);
        }
    }
    let head = d.chain().height();
    let back = d.first_kept() + 2;
    let kept = answer(&d, back - 20).0;
    d.apply(RevertTo { height: back }).unwrap();
    assert_eq!(d.chain().height(), back);
    let archive = d.chain().header_archive();
    for h in back + 1..=head {
        assert_eq!(archive.header(h), None, "#{h} is above the head");
        assert!(d.block_answer(h).unwrap().is_none());
    }
    // Below the head what was pruned still answers the same header.
    assert_eq!(answer(&d, back - 20).0, kept);
}

#[test]
fn issue31_a_load_or_a_reset_starts_the_archive_empty() {
    let mut d = devnet(5);
    for _ in 0..20 {
        busy_block(&mut d);
    }
    assert!(!d.chain().header_archive().is_empty());
    assert!(!answer(&d, 3).1);
    let dump = d.apply(DumpState).unwrap();
    d.apply(LoadState(dump)).unwrap();
    assert!(d.chain().header_archive().is_empty());
    let e = d.block_answer(3).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::HistoryPruned, "{e}");
    d.apply(Reset).unwrap();
    assert!(d.chain().header_archive().is_empty());
    assert!(
        d.block_answer(3).unwrap().is_none(),
        "above the head after a reset"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue31_get_block_of_a_pruned_height_answers_its_header_over_rpc() {
    let mut c = NodeConfig::new(Genesis::default(), DevnetRuntime::shared());
    c.history = 5;
    c.keep_blocks = Some(5);
    let node = cowboy_devnet::node::spawn(NodeCore::new(c).unwrap());
    let d = common::served::serve_node(node, &common::served::port0()).await;
    let http = HttpClientBuilder::default()
        .build(format!("http://{}", d.addr))
        .unwrap();
    let call = |m: &'static str, p: Value| {
        let http = http.clone();
        async move { common::served::rpc_ok(&http, m, &p).await }
    };
    assert_eq!(call("devnet_mine", json!([20])).await, json!(20));
    let whole = call("devnet_getBlock", json!([18])).await;
    assert!(whole["receipts"].is_array(), "{whole}");
    let old = call("devnet_getBlock", json!([3])).await;
    assert_eq!(old["header"]["height"], json!(3), "{old}");
    assert!(old["header"]["hash"].is_string());
    assert_eq!(old["body"], Value::Null);
    assert!(old.get("receipts").is_none());
    assert_eq!(old["body_error"]["reason"], json!("HistoryPruned"));
    assert_eq!(old["body_error"]["code"], json!(-32069));
    assert_eq!(old["body_error"]["first_kept"], json!(16));
    assert_eq!(call("devnet_getBlock", json!([99])).await, Value::Null);
}
