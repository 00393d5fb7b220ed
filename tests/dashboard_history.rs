//! Issue 24, "Step the dashboard back": `[` `]` `{` `}` view the dashboard as of a past sealed
//! block (every pane, the feed up to it, the banner `viewing #N · head #M`), `Esc` returns to
//! the head, commands that change the chain are refused meanwhile except `F` (fork here:
//! `devnet_revertTo`, after a confirmation), and heights older than the kept history are a
//! `HistoryPruned` toast naming what is kept (Spec note 73).

mod common;

use common::keys::{code, key, press, screen_at};
use cowboy_devnet::chain::Genesis;
use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::engine::{Address, ScheduleArgs};
use cowboy_devnet::node::{
    DeployActor, Mine, MiningMode, NodeConfig, NodeCore, ScheduleTimer, SetMining, dev_account,
};
use cowboy_devnet::tui::app::{App, Overlay};
use cowboy_devnet::tui::keys::KeyMap;
use cowboy_devnet::tui::local::LocalDevnet;
use cowboy_devnet::tui::model::{DashboardSource, ViewQuery};
use cowboy_devnet::tui::refresh;
use cowboy_devnet::vm::DevnetRuntime;
use crossterm::event::KeyCode;
use std::collections::BTreeMap;

const SCRIPT: &str = r#"
fn handle_timer(payload) {
    emit("fired", `at height ${block_height()}`);
}
"#;

/// A manual-mining node keeping `history` heights: an actor with timers due over the first
/// 40 heights, mined to `head`. The same calls give the same chain.
fn session(history: usize, head: u64) -> NodeCore {
    let mut c = NodeConfig::new(Genesis::default(), DevnetRuntime::shared());
    c.history = history;
    c.keep_blocks = Some(history);
    let mut n = NodeCore::new(c).expect("genesis");
    n.apply(SetMining(MiningMode::Manual)).expect("manual");
    let actor: Address = n
        .apply(DeployActor {
            from: Some(dev_account(1)),
            code: ActorCode::rhai("ticker", SCRIPT),
            address: None,
            endowment: 50_000_000_000,
            name: Some("ticker".into()),
        })
        .expect("deploy")
        .address;
    for i in 0..20u64 {
        let args = ScheduleArgs {
            height: 3 + 2 * i,
            payload: vec![i as u8],
            ..ScheduleArgs::default()
        };
        n.apply(ScheduleTimer {
            actor,
            from: None,
            args,
        })
        .expect("schedule");
    }
    let to = head - n.height();
    n.apply(Mine { blocks: to }).expect("mine");
    assert_eq!(n.height(), head);
    n
}

fn dashboard(history: usize, head: u64) -> (LocalDevnet, App) {
    let mut src = LocalDevnet::new(session(history, head), BTreeMap::new());
    let mut app = App::new(KeyMap::default());
    refresh(&mut src, &mut app);
    (src, app)
}

#[test]
fn issue24_step_back_views_every_pane_as_of_that_block() {
    let (mut src, mut app) = dashboard(1_000, 30);
    press(&mut src, &mut app, &[key('['), key('{')]);
    assert_eq!(app.view_at, Some(19));
    let s = app.data.status.clone().unwrap();
    assert_eq!((s.height, s.tip), (19, 30));
    // The same session stopped at #19 shows the same panes.
    let mut stopped = LocalDevnet::new(session(1_000, 19), BTreeMap::new());
    let mut want = stopped.dashboard(&ViewQuery::default());
    want.status.as_mut().unwrap().tip = 30;
    let q = ViewQuery {
        at: Some(19),
        ..ViewQuery::default()
    };
    assert_eq!(src.dashboard(&q), want);
    assert!(!want.buckets.is_empty(), "timers are pending at #19");
    // The banner says what is viewed and where the head is.
    let screen = screen_at(&app, 80, 24);
    assert!(screen.contains("viewing #19 · head #30"), "{screen}");
    // The feed shows the events up to #19 only.
    assert!(
        app.feed.iter().any(|e| e.height > 19),
        "the feed has later events"
    );
    let shown = app.visible_events(1_000);
    assert!(!shown.is_empty());
    assert!(shown.iter().all(|e| e.height <= 19));
    // `]` one forward; `}` past the head is the head again.
    press(&mut src, &mut app, &[key(']')]);
    assert_eq!(app.data.status.as_ref().unwrap().height, 20);
    press(&mut src, &mut app, &[key('}')]);
    assert_eq!(app.view_at, None);
    assert_eq!(app.data.status.as_ref().unwrap().height, 30);
}

#[test]
fn issue24_esc_returns_to_the_head_and_the_chain_goes_on_meanwhile() {
    let (mut src, mut app) = dashboard(1_000, 30);
    press(&mut src, &mut app, &[key('{')]);
    // The chain mines on (another client): the view stays, the banner's head follows.
    src.execute(cowboy_devnet::tui::model::UiCommand::Mine(2))
        .expect("mine");
    refresh(&mut src, &mut app);
    let s = app.data.status.clone().unwrap();
    assert_eq!((s.height, s.tip), (20, 32));
    press(&mut src, &mut app, &[code(KeyCode::Esc)]);
    assert_eq!(app.view_at, None);
    assert_eq!(app.data.status.as_ref().unwrap().height, 32);
    assert!(!screen_at(&app, 80, 24).contains("viewing"));
}

#[test]
fn issue24_commands_that_change_the_chain_are_refused_while_viewing_the_past() {
    let (mut src, mut app) = dashboard(1_000, 30);
    press(&mut src, &mut app, &[key('['), key(' '), key('N')]);
    assert_eq!(src.devnet().height(), 30, "nothing was mined");
    let t = app.toast.clone().expect("a toast");
    assert!(t.error && t.text.contains("devnet_mine refused"), "{t:?}");
    assert!(t.text.contains("viewing the past (#29)"), "{t:?}");
    press(&mut src, &mut app, &[key('S')]);
    assert!(
        app.toast
            .as_ref()
            .unwrap()
            .text
            .contains("devnet_snapshot refused")
    );
}

#[test]
fn issue24_heights_older_than_the_kept_history_toast_what_is_kept() {
    // `--history 8` at #30: #23..#30 are kept.
    let (mut src, mut app) = dashboard(8, 30);
    press(&mut src, &mut app, &[key('{')]);
    let t = app.toast.clone().expect("a toast");
    assert!(t.error && t.text.contains("HistoryPruned"), "{t:?}");
    assert!(t.text.contains("#23..#30"), "{t:?}");
    assert_eq!(app.view_at, Some(23));
    assert_eq!(app.data.status.as_ref().unwrap().height, 23);
}

#[test]
fn issue24_f_forks_at_the_viewed_height_after_a_confirmation() {
    let (mut src, mut app) = dashboard(1_000, 30);
    // At the head, F says how to use it and sends nothing.
    press(&mut src, &mut app, &[key('F')]);
    assert!(app.toast.as_ref().unwrap().text.contains("step back"));
    press(
        &mut src,
        &mut app,
        &[key('['), key('['), key('['), key('F')],
    );
    let Overlay::Confirm(c) = &app.overlay else {
        panic!("a confirmation: {:?}", app.overlay)
    };
    let text = c.lines.join("\n");
    assert!(
        text.contains("#27") && text.contains("drops 3 blocks"),
        "{text}"
    );
    // Cancelled: nothing happens.
    press(&mut src, &mut app, &[key('n')]);
    assert_eq!(src.devnet().height(), 30);
    press(&mut src, &mut app, &[key('F'), key('y')]);
    assert_eq!(src.devnet().height(), 27);
    assert_eq!(app.view_at, None);
    assert_eq!(app.data.status.as_ref().unwrap().height, 27);
    // The forked chain takes commands again.
    press(&mut src, &mut app, &[key(' ')]);
    assert_eq!(src.devnet().height(), 28);
}

#[test]
fn issue24_banner_at_80x24() {
    let (mut src, mut app) = dashboard(1_000, 30);
    press(&mut src, &mut app, &[key('{')]);
    let screen = screen_at(&app, 80, 24);
    let first = screen.lines().next().unwrap_or_default().to_string();
    insta::assert_snapshot!("history_banner_80x24", first);
}
