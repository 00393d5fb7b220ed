//! Issue 31, "Past reads off the node's thread ... so the live node keeps answering": under
//! interval mining, a block that takes longer than the block time leaves the next one already
//! due when it ends. The node's thread still answers what is queued between two such blocks
//! (up to 64 requests a block), so requests are answered while the mining is behind, and the
//! mining goes on between them. Before, the thread sealed block after block without reading
//! its queue until the blocks got quick again (here: until the backlog was gone).

mod common;

use common::fleet::{node_from, spread_chain};
use cowboy_devnet::node::{MiningMode, SetMining, spawn};
use std::sync::mpsc;
use std::time::Duration;

#[test]
fn issue31_requests_are_answered_while_interval_mining_is_behind() {
    // 200 timers due at every height for 100 heights and a block time of 1 ms: each block
    // fires a full lane and carries the rest, far longer than 1 ms in a test build, until
    // the backlog is gone.
    let (chain, genesis) = spread_chain(100, 20_000, 100);
    let mut node = node_from(&chain, genesis);
    node.apply(SetMining(MiningMode::Interval { block_time_ms: 1 }))
        .expect("interval mining");
    let node = spawn(node);
    let mut answers = Vec::new();
    for i in 0..10 {
        let (tx, rx) = mpsc::channel();
        let n = node.clone();
        std::thread::spawn(move || {
            let _ = tx.send(n.query_blocking(|c| (c.height(), c.head().pending_timers)));
        });
        let a = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("request {i} not answered in 60 s"))
            .expect("node running");
        answers.push(a);
    }
    node.shutdown();
    // Each answer came while timers were still pending, and blocks were mined between them.
    assert!(
        answers.iter().all(|&(_, pending)| pending > 0),
        "answered only once the backlog was gone: {answers:?}"
    );
    assert!(
        answers.windows(2).all(|w| w[0].0 <= w[1].0) && answers[9].0 > answers[0].0,
        "the mining went on between the answers: {answers:?}"
    );
}
