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
use cowboy_devnet::node::{Mine, MiningMode, NodeConfig, NodeCore, ScheduleTimer, SetMining};
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
    let actor: Address = common::node_deploy(&mut n, ActorCode::rhai("ticker", SCRIPT), "ticker");
    for i in 0..20u64 {
        let args = ScheduleArgs {
            height: 3 + 2 * i,
            payload: vec![i as u8],
            ..ScheduleArgs::default()
        };
        n.apply(ScheduleTimer {
            actor,
            args,
            ..Default::default()
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

/// The ticker's timer due at `height` (the session schedules one every two heights from #3).
fn timer_due(src: &LocalDevnet, height: u64) -> cowboy_devnet::engine::TimerId {
    use cowboy_devnet::node::{TimerFilter, TimersQuery};
    src.devnet()
        .ask(&TimersQuery(TimerFilter::default()))
        .unwrap()
        .into_iter()
        .find(|t| t.height == height)
        .expect("scheduled")
        .timer_id
}

/// Issue 24 ("the timer life overlay and the watch strip read the viewed height"): viewing
/// #19, a timer that fired at #25 is pending in the watch strip and in its life, with its
/// events up to #19 only; back at the head they follow the chain again.
#[test]
fn issue24_life_and_watch_strip_answer_as_of_the_viewed_height() {
    use cowboy_devnet::tui::view::{life_queries, timer_life};
    let (mut src, mut app) = dashboard(1_000, 30);
    let id = timer_due(&src, 25);
    assert_eq!(src.timer_life(&id).unwrap().status, "fired");
    // Watch it from the feed's `w`: simplest through the app's field and a refresh.
    app.watch = Some(id);
    refresh(&mut src, &mut app);
    assert_eq!(app.watch_life.as_ref().unwrap().status, "fired");
    press(&mut src, &mut app, &[key('['), key('{')]);
    assert_eq!(app.shown_at(), Some(19));
    let w = app.watch_life.clone().expect("read again at #19");
    assert_eq!((w.at, w.status.as_str()), (Some(19), "pending"));
    assert!(w.timeline.iter().all(|e| e.height <= 19), "{w:?}");
    assert!(!w.timeline.iter().any(|e| e.what == "TimerFired"));
    // The same as a node stopped at #19 answers (the typed queries with a block tag).
    let mut stopped = LocalDevnet::new(session(1_000, 19), BTreeMap::new());
    let mut want = stopped.timer_life(&id).unwrap();
    want.at = Some(19);
    assert_eq!(*w, want);
    let (t, h, c) = life_queries(id, Some(19));
    let replies = cowboy_devnet::tui::view::LifeReplies {
        timer: src.devnet().ask(&t).unwrap(),
        head: src.devnet().ask(&h).unwrap(),
        config: src.devnet().ask(&c).unwrap(),
        at: Some(19),
    };
    assert_eq!(timer_life(&replies, &src.info().names).as_ref(), Some(&*w));
    let screen = screen_at(&app, 120, 34);
    assert!(screen.contains("as of #19"), "{screen}");
    // Enter on the life: the overlay says the height it is read as of.
    app.focus = cowboy_devnet::tui::app::Pane::Events;
    let shown = app.visible_events(1_000).len();
    assert!(shown > 0);
    let Some(l) = src.timer_life_at(&id, Some(19)) else {
        panic!("known at #19")
    };
    app.overlay = Overlay::Life(Box::new(l));
    let screen = screen_at(&app, 120, 34);
    assert!(screen.contains("pending · as of #19"), "{screen}");
    // `]` moves the open life and the strip with the view.
    press(&mut src, &mut app, &[key(']')]);
    let Overlay::Life(l) = &app.overlay else {
        panic!("still open: {:?}", app.overlay)
    };
    assert_eq!(l.at, Some(20));
    assert_eq!(app.watch_life.as_ref().unwrap().at, Some(20));
    // Back at the head: the chain's life again.
    press(
        &mut src,
        &mut app,
        &[code(KeyCode::Esc), code(KeyCode::Esc)],
    );
    assert_eq!(app.shown_at(), None);
    let w = app.watch_life.clone().unwrap();
    assert_eq!((w.at, w.status.as_str()), (None, "fired"));
}

/// Issue 24: a watched timer scheduled after the viewed height is "not known at #N" in
/// the strip, not its later life.
#[test]
fn issue24_a_timer_scheduled_after_the_viewed_height_is_not_known_then() {
    let mut n = session(1_000, 30);
    let actor = *n.names().iter().find(|(_, v)| *v == "ticker").unwrap().0;
    let late = n
        .apply(ScheduleTimer {
            actor,
            args: ScheduleArgs {
                height: 40,
                payload: vec![99],
                ..ScheduleArgs::default()
            },
            ..Default::default()
        })
        .unwrap()
        .timer_id;
    n.apply(Mine { blocks: 2 }).unwrap();
    let mut src = LocalDevnet::new(n, BTreeMap::new());
    let mut app = App::new(KeyMap::default());
    app.watch = Some(late);
    refresh(&mut src, &mut app);
    assert_eq!(app.watch_life.as_ref().unwrap().status, "pending");
    press(&mut src, &mut app, &[key('{')]);
    let w = app.watch_life.clone().unwrap();
    assert_eq!(w.status, "not known at #22");
    let screen = screen_at(&app, 120, 34);
    assert!(screen.contains("not known at #22"), "{screen}");
}

/// Issue 24 ("a past view is not re-read from a checkpoint on each refresh"): the node keeps
/// the viewed height's state; refresh after refresh reads it from there, the same panes.
#[test]
fn issue24_a_past_view_is_kept_by_the_node_between_refreshes() {
    let (mut src, mut app) = dashboard(1_000, 30);
    assert_eq!(src.devnet().past_states_kept(), 0);
    press(&mut src, &mut app, &[key('{')]);
    assert_eq!(src.devnet().past_states_kept(), 1);
    // (The first refresh at #20 selects its first bucket.)
    refresh(&mut src, &mut app);
    let first = app.data.clone();
    for _ in 0..3 {
        refresh(&mut src, &mut app);
        assert_eq!(app.data, first);
    }
    assert_eq!(src.devnet().past_states_kept(), 1);
}

/// Issue 24 ("right after Esc the status bar shows the viewed height without the banner"):
/// until the refresh answers, the banner, the panes and the feed all stay at the height they
/// were read at, and the banner says where the view is going.
#[test]
fn issue24_the_status_bar_never_mixes_the_viewed_height_and_the_head() {
    use cowboy_devnet::tui::app::{Action, update};
    let (mut src, mut app) = dashboard(1_000, 30);
    press(&mut src, &mut app, &[key('{')]);
    // Esc without its refresh answered yet.
    let effects = update(&mut app, Action::Key(code(KeyCode::Esc)));
    assert!(!effects.is_empty(), "a refresh is asked for");
    assert_eq!(app.view_at, None);
    let first = screen_at(&app, 120, 34);
    let bar = first.lines().next().unwrap();
    assert!(
        bar.contains("viewing #20 · head #30 · to the head…"),
        "{bar}"
    );
    assert!(app.visible_events(1_000).iter().all(|e| e.height <= 20));
    // `[` at the head, its refresh not answered: the head shown, where the view is going.
    refresh(&mut src, &mut app);
    let _ = update(&mut app, Action::Key(key('[')));
    let bar = screen_at(&app, 120, 34);
    let bar = bar.lines().next().unwrap();
    assert!(
        bar.contains("30 · to #29…") && !bar.contains("viewing"),
        "{bar}"
    );
    refresh(&mut src, &mut app);
    let bar = screen_at(&app, 120, 34);
    assert!(
        bar.lines()
            .next()
            .unwrap()
            .contains("viewing #29 · head #30")
    );
}

/// Issue 24: `R` while viewing the past lists the node's snapshots as they are now, and says so.
#[test]
fn issue24_r_while_viewing_the_past_says_the_list_is_the_nodes_now() {
    let (mut src, mut app) = dashboard(1_000, 30);
    src.execute(cowboy_devnet::tui::model::UiCommand::Snapshot)
        .expect("snapshot");
    refresh(&mut src, &mut app);
    press(&mut src, &mut app, &[key('{'), key('R')]);
    let screen = screen_at(&app, 120, 34);
    assert!(
        screen.contains("the node's list now, not as of #20"),
        "{screen}"
    );
    assert!(screen.contains("1 at #30 (0 back)"), "{screen}");
}

/// Issue 34, item 6: after a fork in the past view, the story line no longer tells what the
/// dropped blocks played (before: `the chain halts for 20 blocks` stayed).
#[test]
fn issue34_item6_a_fork_forgets_the_dropped_story() {
    let (mut src, mut app) = dashboard(1_000, 40);
    let story_step = |height: u64, text: String| {
        cowboy_devnet::tui::story::from_node_event(&cowboy_devnet::node::NodeEvent::FixtureStep {
            height,
            line: 10,
            text,
            ok: true,
            label: None,
        })
        .unwrap()
    };
    cowboy_devnet::tui::app::update(
        &mut app,
        cowboy_devnet::tui::app::Action::Story(vec![
            story_step(10, "crowd schedules `s1` for #30".into()),
            story_step(35, "the chain halts for 20 blocks".into()),
        ]),
    );
    assert!(screen_at(&app, 120, 34).contains("halts for 20 blocks"));
    press(&mut src, &mut app, &[key('{')]);
    assert_eq!(app.view_at, Some(30));
    press(&mut src, &mut app, &[key('F'), key('y')]);
    assert_eq!(src.devnet().height(), 30, "forked at #30");
    let s = screen_at(&app, 120, 34);
    assert!(!s.contains("halts for 20 blocks"), "{s}");
    assert!(s.contains("crowd schedules `s1` for #30"), "{s}");
}
