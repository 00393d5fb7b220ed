//! Issue 29, "the dashboard's keys handled per pane from the one key table": the focused pane
//! takes the keys it has a use for (↑/↓, →, Enter, `y` in the fairness table), the dashboard's
//! own keys (mining, sort, help, ...) work whichever pane has the focus, and an open timer
//! life lets through the keys it does not use.

mod common;

use common::keys::{code, fixture_at, key, press};
use cowboy_devnet::tui::app::{App, Overlay, Pane};
use cowboy_devnet::tui::keys::KeyMap;
use cowboy_devnet::tui::local::LocalDevnet;
use cowboy_devnet::tui::refresh;
use crossterm::event::KeyCode;

fn demo() -> (LocalDevnet, App) {
    let mut src = fixture_at("demo", 5);
    let mut app = App::new(KeyMap::default());
    // The second refresh reads the selected bucket's timers (the first knows no bucket yet).
    refresh(&mut src, &mut app);
    refresh(&mut src, &mut app);
    (src, app)
}

/// Tab until `pane` has the focus.
fn focus(src: &mut LocalDevnet, app: &mut App, pane: Pane) {
    for _ in 0..Pane::ALL.len() {
        if app.focus == pane {
            return;
        }
        press(src, app, &[code(KeyCode::Tab)]);
    }
    panic!("{pane:?} never had the focus");
}

/// Where every pane's cursor stands.
fn cursors(app: &App) -> (usize, bool, usize, usize, bool) {
    (
        app.bucket_sel,
        app.in_bucket,
        app.fairness_sel,
        app.event_sel,
        app.feed_pin,
    )
}

#[test]
fn issue29_the_focused_pane_alone_moves_its_cursor() {
    let (mut src, mut app) = demo();
    assert!(app.data.buckets.len() > 1 && app.data.fairness.len() > 1);
    press(&mut src, &mut app, &[code(KeyCode::Down)]);
    assert_eq!(
        cursors(&app),
        (1, false, 0, 0, false),
        "buckets: ↓ moves the bucket"
    );
    // The tiers pane has no cursor: ↓ there moves nothing anywhere.
    focus(&mut src, &mut app, Pane::Tiers);
    press(
        &mut src,
        &mut app,
        &[code(KeyCode::Down), code(KeyCode::Right)],
    );
    assert_eq!(
        cursors(&app),
        (1, false, 0, 0, false),
        "tiers: ↓ and → do nothing"
    );
    focus(&mut src, &mut app, Pane::Fairness);
    press(&mut src, &mut app, &[code(KeyCode::Down)]);
    assert_eq!(
        cursors(&app),
        (1, false, 1, 0, false),
        "fairness: ↓ moves the actor"
    );
    focus(&mut src, &mut app, Pane::Events);
    press(&mut src, &mut app, &[code(KeyCode::Up)]);
    assert_eq!(
        cursors(&app),
        (1, false, 1, 0, true),
        "feed: the first ↑ selects the newest"
    );
    // → goes into a bucket only from the bucket list.
    press(&mut src, &mut app, &[code(KeyCode::Right)]);
    assert!(!app.in_bucket);
    focus(&mut src, &mut app, Pane::Buckets);
    press(&mut src, &mut app, &[code(KeyCode::Right)]);
    assert!(app.in_bucket);
}

#[test]
fn issue29_copy_in_the_fairness_table_copies_its_actor() {
    let (mut src, mut app) = demo();
    focus(&mut src, &mut app, Pane::Fairness);
    press(&mut src, &mut app, &[key('y')]);
    let actor = app.fairness_sorted()[0].actor;
    assert_eq!(app.clipboard.as_deref(), Some(actor.to_string().as_str()));
    // The tiers pane selects nothing: `y` says what to select.
    app.clipboard = None;
    focus(&mut src, &mut app, Pane::Tiers);
    press(&mut src, &mut app, &[key('y')]);
    assert_eq!(app.clipboard, None);
    let toast = app.toast.as_ref().expect("a message");
    assert!(
        toast.error && toast.text.contains("select a timer"),
        "{toast:?}"
    );
}

#[test]
fn issue29_the_dashboards_keys_work_from_every_pane() {
    let (mut src, mut app) = demo();
    for pane in Pane::ALL {
        focus(&mut src, &mut app, pane);
        let (h, sort) = (app.height(), app.fairness_sort);
        press(&mut src, &mut app, &[key('n'), key('o')]);
        assert_eq!(app.height(), h + 1, "{pane:?}: n mines a block");
        assert_ne!(
            app.fairness_sort, sort,
            "{pane:?}: o sorts the fairness table"
        );
        press(&mut src, &mut app, &[key('?')]);
        assert_eq!(app.overlay, Overlay::Help, "{pane:?}: ? opens the help");
        press(&mut src, &mut app, &[code(KeyCode::Esc)]);
        assert_eq!(app.overlay, Overlay::None);
    }
}

#[test]
fn issue29_a_timer_life_lets_through_the_keys_it_does_not_use() {
    let (mut src, mut app) = demo();
    press(&mut src, &mut app, &[code(KeyCode::Right)]);
    assert!(app.in_bucket, "the first bucket has a timer");
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    assert!(matches!(app.overlay, Overlay::Life(_)), "{:?}", app.overlay);
    let h = app.height();
    // ↓ and Tab belong to the life (they do nothing there); `n` is the dashboard's.
    press(
        &mut src,
        &mut app,
        &[code(KeyCode::Down), code(KeyCode::Tab), key('n')],
    );
    assert_eq!(app.height(), h + 1);
    assert_eq!(app.focus, Pane::Buckets);
    assert!(
        matches!(app.overlay, Overlay::Life(_)),
        "the life stays open"
    );
    press(&mut src, &mut app, &[code(KeyCode::Esc)]);
    assert_eq!(app.overlay, Overlay::None);
}
