//! Issue 32 item 3 (Spec note 186): `timer_list` takes the finder's `label` filter. The node
//! keeps the labels a fixture's `schedule` steps give timers (not part of the state: the same
//! roots with and without them), `timer_list` with `label` lists the timers whose label holds
//! each of its words, and the dashboard's finder asks the node for them, so a dashboard that
//! never saw the fixture's story (attached later) finds them too.

mod common;

use common::keys::{key, press, typed};
use cowboy_devnet::node::{
    Mine, MiningMode, NodeConfig, NodeCore, TimerFilter, TimersPageQuery, TimersQuery,
};
use cowboy_devnet::scenario::builtin;
use cowboy_devnet::scenario::live::FixturePlayer;
use cowboy_devnet::tui::app::{App, Overlay};
use cowboy_devnet::tui::keys::KeyMap;
use cowboy_devnet::tui::local::LocalDevnet;
use cowboy_devnet::tui::panes::finder::rows;
use cowboy_devnet::tui::refresh;
use cowboy_devnet::vm::DevnetRuntime;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The demo fixture played live on a node (as `serve --fixture demo` plays it), `blocks` mined;
/// `hook: false` mines the same blocks with nothing played.
fn demo(blocks: u64, hook: bool) -> NodeCore {
    let sc = Arc::new(
        builtin::scenario("demo", &DevnetRuntime::new())
            .expect("the fixture ships")
            .expect("the fixture prepares"),
    );
    let mut cfg = NodeConfig::new(sc.genesis().clone(), DevnetRuntime::shared());
    cfg.mining = MiningMode::Manual;
    cfg.names = sc.address_book();
    cfg.dev_accounts = 0;
    let mut core = NodeCore::new(cfg).expect("genesis");
    if hook {
        core.set_hook(Box::new(FixturePlayer::new(sc)));
    }
    core.apply(Mine { blocks }).expect("mines");
    while core.poll_event().is_some() {}
    core
}

fn labelled(n: &NodeCore, label: &str) -> Vec<cowboy_devnet::engine::TimerId> {
    let f = TimerFilter {
        label: Some(label.into()),
        ..TimerFilter::default()
    };
    let q = TimersPageQuery {
        filter: f.clone(),
        cursor: None,
        limit: 1000,
    };
    let page = n.ask(&q).expect("a page");
    let all = n.ask(&TimersQuery(f)).expect("a list");
    let mut a: Vec<_> = page.timers.iter().map(|t| t.timer_id).collect();
    let mut b: Vec<_> = all.iter().map(|t| t.timer_id).collect();
    a.sort();
    b.sort();
    assert_eq!(
        a, b,
        "timer_list with and without a page agree on `{label}`"
    );
    a
}

/// Issue 32 item 3: the node knows the fixture's labels; `label` matches each word, any case;
/// a timer without a label never matches a label filter.
#[test]
fn issue32_item3_timer_list_filters_by_a_fixtures_label() {
    let n = demo(40, true);
    let settle = labelled(&n, "settle-42");
    assert_eq!(settle.len(), 1, "one timer labelled settle-42");
    assert_eq!(n.timer_label(&settle[0]), Some("settle-42"));
    assert_eq!(labelled(&n, "SETTLE"), settle, "any case, a part of it");
    assert_eq!(labelled(&n, "settle 42"), settle, "each word");
    assert!(labelled(&n, "settle nope").is_empty());
    let s = labelled(&n, "s");
    assert!(s.len() >= 5, "s1..s5 and more: {}", s.len());
    let unlabelled = n
        .ask(&TimersQuery(TimerFilter::default()))
        .unwrap()
        .into_iter()
        .filter(|t| n.timer_label(&t.timer_id).is_none())
        .count();
    assert!(
        unlabelled > 0,
        "the demo schedules timers without a label too"
    );
    let every = n.ask(&TimersQuery(TimerFilter::default())).unwrap().len();
    assert!(labelled(&n, "").len() <= every);
}

/// Issue 32 item 3: labels are not state: the node that played the fixture live (keeping its
/// labels) seals the root the headless run of the same fixture (which keeps none) seals at
/// that height; a dashboard whose app never saw
/// the fixture's story (its `labels` empty, as an attached one that came late) finds the
/// labelled timer through the node.
#[test]
fn issue32_item3_labels_change_no_root_and_the_finder_asks_the_node() {
    let n = demo(40, true);
    let root = n.chain().state_root();
    let headless = common::keys::fixture_at("demo", 40);
    assert_eq!(headless.devnet().height(), 40);
    assert_eq!(
        headless.devnet().chain().state_root(),
        root,
        "the same root"
    );
    let mut src = LocalDevnet::new(n, BTreeMap::new());
    let mut app = App::new(KeyMap::default());
    refresh(&mut src, &mut app);
    app.labels.clear();
    press(&mut src, &mut app, &[key(':')]);
    press(&mut src, &mut app, &typed("label:settle"));
    let Overlay::Finder(f) = &app.overlay else {
        panic!("the finder is open")
    };
    assert_eq!(f.page.as_ref().map(|p| p.matched), Some(1), "{f:?}");
    assert_eq!(rows(&app, f).len(), 1);
}

/// Issue 32 item 3: label words over 64 bytes are named under the finder's query and not sent.
#[test]
fn issue32_item3_a_label_filter_too_long_is_refused_by_the_finder() {
    let mut src = LocalDevnet::new(demo(5, false), BTreeMap::new());
    let mut app = App::new(KeyMap::default());
    refresh(&mut src, &mut app);
    press(&mut src, &mut app, &[key(':')]);
    press(&mut src, &mut app, &typed(&"x".repeat(70)));
    let Overlay::Finder(f) = &app.overlay else {
        panic!("the finder is open")
    };
    assert!(
        f.error.as_deref().is_some_and(|e| e.contains("at most 64")),
        "{f:?}"
    );
}
