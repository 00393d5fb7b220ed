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

// ---- Spec note 191: a label given with the schedule (`timer_schedule`'s `label`) -------------

mod rpc_labels {
    use super::common;
    use cowboy_devnet::chain::Genesis;
    use cowboy_devnet::engine::SchedulerKind;
    use cowboy_devnet::node::spawn;
    use jsonrpsee::http_client::{HttpClient, HttpClientBuilder};
    use serde_json::{Value, json};

    async fn ok(c: &HttpClient, method: &str, params: Value) -> Value {
        common::served::rpc_ok(c, method, &params).await
    }

    async fn served(kind: SchedulerKind) -> (common::served::Served, HttpClient) {
        let genesis = Genesis::default().with_scheduler(Some(kind), None).unwrap();
        let node = spawn(common::fleet::node_on(genesis));
        let served = common::served::serve_node(node, &common::served::port0()).await;
        let c = HttpClientBuilder::default()
            .build(format!("http://{}", served.addr))
            .unwrap();
        (served, c)
    }

    async fn actor(c: &HttpClient) -> String {
        let accounts = ok(c, "devnet_accounts", json!([])).await;
        let alice = accounts[1]["address"].as_str().unwrap().to_string();
        let a = ok(
            c,
            "actor_deploy",
            json!([{"from": alice, "balance": "1000000000"}]),
        )
        .await;
        a.as_str().unwrap().to_string()
    }

    fn ids(list: &Value) -> Vec<Value> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|t| t["timer_id"].clone())
            .collect()
    }

    /// Issue 32 / Spec note 191: `timer_schedule` takes `label`; `timer_list` finds the timer
    /// by it, `timer_get` shows it (`null` on a timer without one); a label is not unique (a
    /// second timer may carry the same one, both are listed); a dry run with a label answers
    /// as the real call and labels nothing.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn issue32_timer_schedule_takes_a_label_that_timer_list_and_timer_get_show() {
        let (_s, c) = served(SchedulerKind::Fifo).await;
        let actor = actor(&c).await;
        let head = ok(&c, "devnet_head", json!([])).await["height"]
            .as_u64()
            .unwrap();
        let t = ok(
            &c,
            "timer_schedule",
            json!([{"actor": actor, "height": head + 20, "label": "Settle auction 42 · ü"}]),
        )
        .await;
        let id = t["timer_id"].clone();
        let plain = ok(
            &c,
            "timer_schedule",
            json!([{"actor": actor, "height": head + 21}]),
        )
        .await["timer_id"]
            .clone();
        let got = ok(&c, "timer_get", json!([id])).await;
        assert_eq!(got["label"], json!("Settle auction 42 · ü"), "{got}");
        let got = ok(&c, "timer_get", json!([plain])).await;
        assert_eq!(got["label"], Value::Null, "no label: null ({got})");
        let found = ok(&c, "timer_list", json!([{"label": "settle 42"}])).await;
        assert_eq!(ids(&found), vec![id.clone()], "{found}");
        assert_eq!(found[0]["label"], json!("Settle auction 42 · ü"));
        // The same label again: allowed, both listed (labels are not unique).
        let again = ok(
            &c,
            "timer_schedule",
            json!([{"actor": actor, "height": head + 22, "label": "Settle auction 42 · ü"}]),
        )
        .await["timer_id"]
            .clone();
        let found = ok(&c, "timer_list", json!([{"label": "auction"}])).await;
        assert_eq!(ids(&found), vec![id.clone(), again], "{found}");
        // The longest label takes 64 bytes.
        let long = "x".repeat(64);
        ok(
            &c,
            "timer_schedule",
            json!([{"actor": actor, "height": head + 23, "label": long}]),
        )
        .await;
        assert_eq!(
            ids(&ok(&c, "timer_list", json!([{"label": long}])).await).len(),
            1
        );
        // A dry run takes `label`, answers the timer the real call would make, labels nothing.
        let before = common::served::fingerprint(&c).await;
        let dry = ok(
            &c,
            "devnet_call",
            json!([{"schedule": {"actor": actor, "height": head + 30, "label": "dry only"}}]),
        )
        .await;
        assert_eq!(dry["dry_run"], json!(true), "{dry}");
        assert_eq!(
            common::served::fingerprint(&c).await,
            before,
            "a dry run changes nothing"
        );
        let none = ok(&c, "timer_list", json!([{"label": "dry"}])).await;
        assert_eq!(none, json!([]), "the dry run labelled nothing");
    }

    /// Spec note 191: an empty label, one of spaces, one with a control character and one
    /// over 64 bytes are refused with -32602 naming `label`; nothing changes (root, height,
    /// nonces, balances, timers), over `timer_schedule`, `devnet_call` and (under a draft)
    /// `timer_watch`.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn issue32_bad_labels_are_refused_by_name_and_change_nothing() {
        for kind in [SchedulerKind::Fifo, SchedulerKind::Cip5Draft] {
            let (_s, c) = served(kind).await;
            let actor = actor(&c).await;
            let head = ok(&c, "devnet_head", json!([])).await["height"]
                .as_u64()
                .unwrap();
            let before = common::served::fingerprint(&c).await;
            for bad in [
                "",
                "   ",
                "two\nlines",
                "tab\there",
                "esc\u{1b}[31m",
                &"é".repeat(33),
            ] {
                let mut calls = vec![
                    (
                        "timer_schedule",
                        json!([{"actor": actor, "height": head + 5, "label": bad}]),
                    ),
                    (
                        "devnet_call",
                        json!([{"schedule": {"actor": actor, "height": head + 5, "label": bad}}]),
                    ),
                ];
                if kind == SchedulerKind::Cip5Draft {
                    calls.push((
                        "timer_watch",
                        json!([{"actor": actor, "keys": ["k"], "label": bad}]),
                    ));
                }
                for (method, params) in calls {
                    let (code, message, _) = common::served::rpc_err(&c, method, &params).await;
                    assert_eq!(code, -32602, "{kind}: {method} {bad:?}: {message}");
                    assert!(message.contains("`label`"), "{method} {bad:?}: {message}");
                    assert_eq!(
                        common::served::fingerprint(&c).await,
                        before,
                        "{kind}: {method} with label {bad:?} changed the devnet"
                    );
                }
            }
        }
    }
}

/// Spec note 191 at the node (in process, as the dashboard sends it): a bad label is
/// `InvalidInput` and changes nothing; a good one is kept and shown by `timer_get`'s view.
#[test]
fn issue32_the_node_refuses_a_bad_label_and_keeps_a_good_one() {
    use cowboy_devnet::engine::ScheduleArgs;
    use cowboy_devnet::node::{ScheduleTimer, TimerQuery};
    let mut n = common::fleet::manual_node(cowboy_devnet::chain::Genesis::default());
    let deployer = cowboy_devnet::node::dev_account(1);
    let a = n
        .apply(cowboy_devnet::node::DeployActor {
            from: Some(deployer),
            code: cowboy_devnet::chain::runtime::ActorCode::rhai(
                "a",
                "fn handle_timer(p) {}".to_string(),
            ),
            address: None,
            endowment: 1_000_000_000,
            name: None,
        })
        .expect("deploys");
    n.apply(Mine { blocks: 1 }).unwrap();
    let height = n.chain().height() + 10;
    let req = |label: &str| ScheduleTimer {
        actor: a.address,
        args: ScheduleArgs {
            height,
            ..ScheduleArgs::default()
        },
        label: Some(label.into()),
        ..Default::default()
    };
    let root = n.chain().state_root();
    let nonce = n.chain().nonce(&deployer);
    let err = n.apply(req("bad\u{7}bell")).expect_err("refused");
    assert_eq!(err.kind().as_str(), "InvalidInput", "{err}");
    assert!(err.to_string().contains("label"), "{err}");
    assert_eq!(n.chain().state_root(), root);
    assert_eq!(n.chain().nonce(&deployer), nonce);
    assert!(n.chain().open_events().is_none_or(|e| e.is_empty()));
    let s = n.apply(req("kept")).expect("schedules");
    let v = n.ask(&TimerQuery { id: s.timer_id }).unwrap().unwrap();
    assert_eq!(v.label.as_deref(), Some("kept"));
}

/// Spec note 191 in the dashboard: the schedule form's optional `label` field goes with the
/// schedule; the finder lists the node's label of the timer (a dashboard that never saw it
/// given, its own labels empty, as one attached later); a bad label is named in the form and
/// nothing is sent.
#[test]
fn issue32_the_schedule_forms_label_reaches_the_node_and_the_finder_shows_it() {
    use common::keys::{code, screen_at};
    use cowboy_devnet::node::TimerFilter;
    use crossterm::event::KeyCode;
    let mut src = common::keys::fixture_at("demo", 5);
    let mut app = App::new(KeyMap::default());
    refresh(&mut src, &mut app);
    let by_label = |src: &LocalDevnet| {
        src.devnet().timers(&TimerFilter {
            label: Some("from-the-form".into()),
            ..TimerFilter::default()
        })
    };
    // A label with a control character: named in the form, nothing sent.
    press(&mut src, &mut app, &[key('s')]);
    press(&mut src, &mut app, &[code(KeyCode::Tab); 6]);
    assert!(screen_at(&app, 120, 34).contains("label"));
    press(&mut src, &mut app, &typed("from-the-form"));
    press(&mut src, &mut app, &[code(KeyCode::Char('\u{7}'))]);
    let pending = src.devnet().chain().pending_height();
    let root = src.devnet().chain().state_root();
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    let Overlay::Form(f) = &app.overlay else {
        panic!("the form stays open on a bad label")
    };
    let err = f.error.clone().expect("the label is named");
    assert!(err.message.contains("control character"), "{err}");
    assert_eq!(src.devnet().chain().state_root(), root);
    assert_eq!(src.devnet().chain().pending_height(), pending);
    assert!(by_label(&src).is_empty());
    // The good label goes with the schedule.
    press(&mut src, &mut app, &[code(KeyCode::Backspace)]);
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    assert!(matches!(app.overlay, Overlay::None), "{:?}", app.overlay);
    let got = by_label(&src);
    assert_eq!(got.len(), 1, "the node keeps the form's label");
    assert_eq!(got[0].label.as_deref(), Some("from-the-form"));
    // The finder shows the node's label (its column cut to its width), not one the dashboard
    // remembers.
    app.labels.clear();
    press(&mut src, &mut app, &[key(':')]);
    press(&mut src, &mut app, &typed("form"));
    let Overlay::Finder(f) = &app.overlay else {
        panic!("the finder is open")
    };
    let rows = rows(&app, f);
    assert_eq!(rows.len(), 1, "{f:?}");
    assert_eq!(rows[0].label.as_deref(), Some("from-the-form"));
    let s = screen_at(&app, 120, 34);
    assert!(
        s.lines()
            .any(|l| l.contains(&rows[0].timer_id.short()) && l.contains("from-the-f")),
        "{s}"
    );
}
