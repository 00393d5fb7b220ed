//! Issue 31, "a pending timer costs ≤ 400 B of RSS in the live node at the default history"
//! and "memory follows the work, never the size of a backlog" (Spec note 225, amending note
//! 194): a checkpoint but the newest that alone holds more than the checkpoints' whole budget
//! is let go, the oldest too. A chain that rewrote its pending timers since its oldest
//! checkpoint (the tier migrations of a far backlog) no longer keeps a second chain's worth
//! for the window's first heights: past states start at the next checkpoint, and a state read
//! below it answers `StateNotKept` (-32071) naming that height, while the block is still kept.
//! Outcomes do not change, and every state still read answers what a node that kept all its
//! checkpoints answers.

mod common;

use common::served::{port0, rpc_err, rpc_ok, serve_node};
use cowboy_devnet::chain::Genesis;
use cowboy_devnet::engine::Address;
use cowboy_devnet::node::{Mine, NodeConfig, NodeCore, NodeError, RevertTo, spawn};
use cowboy_devnet::vm::DevnetRuntime;
use serde_json::json;

const ACTORS: usize = 8;
const TIMERS: u64 = 4_000;
/// Heights of history kept: the loading leaves it during the jump.
const HISTORY: usize = 600;

/// The scene: `TIMERS` timers scheduled in 8 blocks, due 30,000 to 34,000 heights on (far in
/// the queue's tiers); 20,000 quiet heights, 200 a request (no jump long enough to be checked
/// on its own, see the last test), that migrate them between tiers; then busy blocks (one
/// transfer each) until a checkpoint is placed after them, and 40 more.
fn run(budget: usize) -> NodeCore {
    run_keeping(budget, HISTORY)
}

/// [`run`] keeping `history` heights.
fn run_keeping(budget: usize, history: usize) -> NodeCore {
    let (mut n, actors) = loaded(budget, history);
    for _ in 0..100 {
        n.apply(Mine { blocks: 200 }).expect("quiet heights");
    }
    let jumped = n.height();
    while n.newest_checkpoint().is_none_or(|h| h <= jumped) {
        common::busy_block(&mut n, actors[0]);
    }
    for _ in 0..40 {
        common::busy_block(&mut n, actors[0]);
    }
    n
}

/// A node keeping `history` heights, its checkpoints' budget `budget`, with `TIMERS` timers
/// scheduled in 8 blocks due 30,000 to 34,000 heights on; its actors.
fn loaded(budget: usize, history: usize) -> (NodeCore, Vec<Address>) {
    let mut cfg = NodeConfig::new(Genesis::default(), DevnetRuntime::shared());
    cfg.history = history;
    cfg.keep_blocks = Some(history);
    cfg.checkpoint_budget = budget;
    let (mut n, actors) = common::node_with_actors(cfg, ACTORS);
    let due = n.height() + 30_000;
    common::schedule_in_blocks(&mut n, &actors, TIMERS, TIMERS / 8, |i| due + i);
    (n, actors)
}

#[test]
fn issue31_spec225_a_checkpoint_over_the_budget_alone_goes_and_past_states_start_after_it() {
    let whole = run(usize::MAX);
    let all = whole.checkpoint_bytes();
    // Without a budget the oldest checkpoint (the loading's, below the window) stays for the
    // window's first heights, and holds most of what the checkpoints hold.
    assert_eq!(all.heights.len(), 2, "{all:?}");
    assert!(all.heights[0] < whole.first_kept(), "{all:?}");
    assert!(all.held[0] > 4 * all.held[1], "{all:?}");
    // A budget between what the newest and the oldest hold alone.
    let budget = (all.held[0] + all.held[1]) / 2;
    let thin = run(budget);
    let kept = thin.checkpoint_bytes();
    assert_eq!(
        kept.heights,
        vec![all.heights[1]],
        "{kept:?} against {all:?}"
    );
    assert!(kept.total() <= budget);
    // The same chain.
    assert_eq!(thin.chain().head().hash, whole.chain().head().hash);
    assert_eq!(thin.first_kept(), whole.first_kept());

    // Past states start at the checkpoint kept; below it, down to the history's first height,
    // a state read answers `StateNotKept` naming it.
    let (first_kept, first) = (thin.first_kept(), thin.first_queryable());
    assert_eq!(first, all.heights[1]);
    assert_eq!(whole.first_queryable(), first_kept);
    for h in [first_kept, first - 1] {
        match thin.chain_at(h) {
            Err(NodeError::StateNotKept {
                height, first: f, ..
            }) => assert_eq!((height, f), (h, first)),
            other => panic!("#{h}: {:?}", other.map(|c| c.height())),
        }
        assert!(whole.chain_at(h).is_ok(), "#{h}");
    }
    // Below the history: `HistoryPruned`, naming where the blocks start (not the states).
    assert!(matches!(
        thin.chain_at(first_kept - 1),
        Err(NodeError::HistoryPruned { first_kept: f, .. }) if f == first_kept
    ));
    // From the checkpoint kept on, the same states as the node that kept both.
    let head = thin.height();
    for h in [first, first + 1, head - 1, head] {
        let (a, b) = (thin.chain_at(h).unwrap(), whole.chain_at(h).unwrap());
        assert_eq!(a.head().hash, b.head().hash, "#{h}");
        assert_eq!(a.state_root(), b.state_root(), "#{h}");
    }
}

/// A checkpoint in the middle that alone holds more than the budget goes too (a history long
/// enough to keep the genesis checkpoint): the states after it replay from the one before,
/// every height still answers, and the answers are the same.
#[test]
fn issue31_spec225_a_middle_checkpoint_over_the_budget_goes_and_every_state_still_answers() {
    let whole = run_keeping(usize::MAX, 100_000);
    let all = whole.checkpoint_bytes();
    assert_eq!(all.heights.len(), 3, "{all:?}");
    assert!(all.held[1] > 4 * all.held[0].max(all.held[2]), "{all:?}");
    let budget = all.held[1] / 2;
    let thin = run_keeping(budget, 100_000);
    let kept = thin.checkpoint_bytes();
    assert_eq!(
        kept.heights,
        vec![all.heights[0], all.heights[2]],
        "{kept:?}"
    );
    assert_eq!(thin.first_queryable(), whole.first_queryable());
    assert_eq!(thin.head().first_state, thin.head().first_kept);
    for h in [
        all.heights[1],
        all.heights[1] + 1,
        all.heights[2] - 1,
        thin.height(),
    ] {
        let (a, b) = (thin.chain_at(h).unwrap(), whole.chain_at(h).unwrap());
        assert_eq!(a.head().hash, b.head().hash, "#{h}");
        assert_eq!(a.state_root(), b.state_root(), "#{h}");
    }
}

/// The same over JSON-RPC: `StateNotKept` is a named error with its code, its hint and the
/// oldest height a state read answers as `data.first_kept`; the block is still there, a
/// revert to it changes nothing, and a rebuilt trace needs a checkpoint strictly below.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue31_spec225_state_not_kept_over_rpc_changes_nothing() {
    let whole = run(usize::MAX).checkpoint_bytes();
    let n = run((whole.held[0] + whole.held[1]) / 2);
    let (first_kept, first, head) = (n.first_kept(), n.first_queryable(), n.height());
    let root = n.chain().state_root();
    let s = serve_node(spawn(n), &port0()).await;
    let c = jsonrpsee::http_client::HttpClientBuilder::default()
        .build(format!("http://{}", s.addr))
        .unwrap();
    let (code, message, data) = rpc_err(&c, "scheduler_tiers", &json!([first_kept])).await;
    assert_eq!(code, -32071, "{message}");
    assert_eq!(data["reason"], json!("StateNotKept"), "{data}");
    assert_eq!(data["first_kept"], json!(first), "{data}");
    assert!(message.contains(&format!("#{first}")), "{message}");
    assert!(message.contains("--checkpoint-budget"), "{message}");
    assert!(!data["hint"].as_str().unwrap().is_empty(), "{data}");
    // Below the history the blocks are gone: `HistoryPruned` names where they start.
    let (code, message, data) = rpc_err(&c, "scheduler_tiers", &json!([first_kept - 1])).await;
    assert_eq!(code, -32069, "{message}");
    assert_eq!(data["first_kept"], json!(first_kept), "{data}");
    // The block is kept.
    let b = rpc_ok(&c, "devnet_getBlock", &json!([first_kept])).await;
    assert_eq!(b["header"]["height"], json!(first_kept), "{b}");
    assert!(b["receipts"].is_array(), "{b}");
    // A state read from the first height kept answers.
    rpc_ok(&c, "scheduler_tiers", &json!([first])).await;
    // The checkpoint's own block has none strictly below to rebuild its traces from.
    let (code, _, data) = rpc_err(&c, "devnet_traceBlock", &json!([first])).await;
    assert_eq!(code, -32071);
    assert_eq!(data["first_kept"], json!(first + 1), "{data}");
    rpc_ok(&c, "devnet_traceBlock", &json!([first + 1])).await;
    // A revert below changes nothing.
    let (code, _, _) = rpc_err(&c, "devnet_revertTo", &json!([first - 1])).await;
    assert_eq!(code, -32071);
    let h = rpc_ok(&c, "devnet_blockNumber", &json!([])).await;
    assert_eq!(h, json!(head));
    let now = s.node.query(|n| n.chain().state_root()).await;
    assert_eq!(now.ok(), Some(root));
    // A revert to the first height kept works.
    s.node
        .request(RevertTo { height: first })
        .await
        .expect("revert to the checkpoint");
    assert_eq!(s.node.query(|n| n.height()).await.ok(), Some(first));
}

/// The dashboard's past view (`{` ten blocks back) stops at the oldest height whose state the
/// node reads (`first_state` in the head view) and says why, rather than failing every pane.
#[test]
fn issue31_spec225_the_dashboards_past_view_stops_at_the_first_state_kept() {
    use common::keys::{key, press, screen_at};
    use cowboy_devnet::tui::app::App;
    use cowboy_devnet::tui::keys::KeyMap;
    use cowboy_devnet::tui::local::LocalDevnet;

    let whole = run(usize::MAX).checkpoint_bytes();
    let n = run((whole.held[0] + whole.held[1]) / 2);
    let (first_kept, first) = (n.first_kept(), n.first_queryable());
    assert!(first > first_kept + 50);
    assert_eq!(n.head().first_state, first);
    assert_eq!(n.head().first_kept, first_kept);
    let mut src = LocalDevnet::new(n, Default::default());
    let mut app = App::new(KeyMap::default());
    cowboy_devnet::tui::refresh(&mut src, &mut app);
    for _ in 0..10 {
        press(&mut src, &mut app, &[key('{')]);
    }
    assert_eq!(app.view_at, Some(first));
    let t = app.toast.clone().expect("a toast");
    assert!(t.error && t.text.contains("StateNotKept"), "{t:?}");
    assert!(t.text.contains(&format!("#{first}")), "{t:?}");
    let screen = screen_at(&app, 120, 34);
    assert!(screen.contains(&format!("viewing #{first}")), "{screen}");
}

/// A long jump (one request of 20,000 heights) over the tier migrations leaves the newest
/// checkpoint, the loading's, holding more than the budget alone: a checkpoint is placed at
/// the jump's head and the old one goes, as a busy block's placement would have done (a node
/// idle after the jump would otherwise keep it). The states before the jump answer
/// `StateNotKept`; the head's is the same.
#[test]
fn issue31_spec225_a_long_jump_replaces_a_newest_checkpoint_over_the_budget() {
    let jump = |budget: usize| {
        let (mut n, _) = loaded(budget, HISTORY);
        let before = n.height();
        n.apply(Mine { blocks: 20_000 }).expect("a jump");
        (n, before)
    };
    let (whole, before) = jump(usize::MAX);
    let all = whole.checkpoint_bytes();
    assert_eq!(all.heights.len(), 1, "{all:?}");
    assert!(all.heights[0] < before, "{all:?}");
    let budget = all.held[0] / 2;
    let (thin, _) = jump(budget);
    let kept = thin.checkpoint_bytes();
    let head = thin.height();
    assert_eq!(kept.heights, vec![head], "{kept:?} against {all:?}");
    assert!(kept.total() <= budget, "{kept:?}");
    assert_eq!(thin.chain().head().hash, whole.chain().head().hash);
    assert_eq!(thin.head().first_state, head);
    let h = thin.first_kept();
    assert!(
        matches!(thin.chain_at(h), Err(NodeError::StateNotKept { first, .. }) if first == head)
    );
    let (a, b) = (thin.chain_at(head).unwrap(), whole.chain_at(head).unwrap());
    assert_eq!(a.state_root(), b.state_root());
    // A jump shorter than a checkpoint's span is not checked: 200 heights leave it as it is.
    let (mut short, _) = loaded(budget, HISTORY);
    let cps = short.checkpoint_bytes().heights;
    short.apply(Mine { blocks: 200 }).expect("a short jump");
    assert_eq!(short.checkpoint_bytes().heights, cps);
}
