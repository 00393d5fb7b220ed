//! Issue 32 "Find any timer" (Spec note 173): the dashboard's timer finder opens on `:` (or
//! `C-f`), lists every timer the node knows (pending in any tier and the ones that left),
//! narrows as the query is typed, opens the selected timer's life on Enter, closes on Esc and
//! follows the chain as blocks seal.

mod common;

use common::keys::{code, fixture_at, key, press, screen_at, typed};
use cowboy_devnet::node::TimerStatus;
use cowboy_devnet::tui::app::{App, Overlay};
use cowboy_devnet::tui::keys::KeyMap;
use cowboy_devnet::tui::local::LocalDevnet;
use cowboy_devnet::tui::model::{DashboardSource, UiCommand};
use cowboy_devnet::tui::panes::finder::{Finder, parse, rows};
use cowboy_devnet::tui::refresh;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use insta::assert_snapshot;

fn demo_at(height: u64) -> (LocalDevnet, App) {
    let mut src = fixture_at("demo", height);
    let mut app = App::new(KeyMap::default());
    refresh(&mut src, &mut app);
    (src, app)
}

fn finder(app: &App) -> &Finder {
    match &app.overlay {
        Overlay::Finder(f) => f,
        other => panic!("the finder is open, got {other:?}"),
    }
}

/// The statuses of the rows shown.
fn statuses(app: &App) -> Vec<TimerStatus> {
    rows(app, finder(app)).iter().map(|t| t.status).collect()
}

fn clear(src: &mut LocalDevnet, app: &mut App) {
    let ctrl_u = KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL);
    press(src, app, &[ctrl_u]);
}

/// Issue 32: `:` opens the finder on every timer the node knows, pending and gone, in the
/// order they were scheduled; Esc closes it. Captured at 120x34 and 80x24.
#[test]
fn issue32_finder_lists_pending_and_gone_timers() {
    let (mut src, mut app) = demo_at(32);
    press(&mut src, &mut app, &[key(':')]);
    let page = finder(&app).page.clone().expect("the node answered");
    let all = statuses(&app);
    assert_eq!(
        all.len() as u64,
        page.matched,
        "nothing cut at the demo's size"
    );
    assert!(all.contains(&TimerStatus::Pending), "{all:?}");
    assert!(
        all.contains(&TimerStatus::Fired),
        "the ones that left too: {all:?}"
    );
    assert_snapshot!("finder_120x34", screen_at(&app, 120, 34));
    assert_snapshot!("finder_80x24", screen_at(&app, 80, 24));
    press(&mut src, &mut app, &[code(KeyCode::Esc)]);
    assert_eq!(app.overlay, Overlay::None);
    // C-f opens it too.
    press(
        &mut src,
        &mut app,
        &[KeyEvent::new(KeyCode::Char('f'), KeyModifiers::CONTROL)],
    );
    finder(&app);
}

/// Issue 32: the query narrows the list as it is typed: status, height window, handler,
/// actor by name, id prefix, a fixture's label; a word it does not read says so and lists
/// nothing.
#[test]
fn issue32_finder_narrows_as_the_query_is_typed() {
    let (mut src, mut app) = demo_at(32);
    press(&mut src, &mut app, &[key(':')]);
    let every = rows(&app, finder(&app)).len();

    press(&mut src, &mut app, &typed("s:fired"));
    let fired = statuses(&app);
    assert!(!fired.is_empty() && fired.len() < every);
    assert!(fired.iter().all(|s| *s == TimerStatus::Fired), "{fired:?}");

    clear(&mut src, &mut app);
    press(&mut src, &mut app, &typed("h:30..31"));
    let shown = rows(&app, finder(&app));
    assert!(!shown.is_empty());
    assert!(shown.iter().all(|t| (30..=31).contains(&t.height)));

    clear(&mut src, &mut app);
    press(&mut src, &mut app, &typed("handler:settle actor:worker"));
    let shown = rows(&app, finder(&app));
    assert!(!shown.is_empty(), "the demo's worker settles");
    assert!(shown.iter().all(|t| t.handler == "settle"));

    let id = shown[0].timer_id;
    clear(&mut src, &mut app);
    press(&mut src, &mut app, &typed(&format!("0x{}", id.short())));
    let ids: Vec<_> = rows(&app, finder(&app))
        .iter()
        .map(|t| t.timer_id)
        .collect();
    assert_eq!(ids, vec![id]);

    if let Some((labelled, label)) = app.labels.iter().next().map(|(i, l)| (*i, l.clone())) {
        clear(&mut src, &mut app);
        press(&mut src, &mut app, &typed(&label));
        let ids: Vec<_> = rows(&app, finder(&app))
            .iter()
            .map(|t| t.timer_id)
            .collect();
        assert!(ids.contains(&labelled), "label {label}: {ids:?}");
    }

    clear(&mut src, &mut app);
    press(&mut src, &mut app, &typed("h:9..3"));
    assert!(finder(&app).error.as_deref().unwrap().contains("empty"));
    assert!(
        rows(&app, finder(&app)).is_empty(),
        "a bad query lists nothing"
    );
    assert!(parse("when:now", &Default::default()).is_err());
    assert!(parse("s:gone", &Default::default()).is_err());
}

/// Issue 32: ↓ and Enter open the selected timer's life (the existing overlay).
#[test]
fn issue32_finder_enter_opens_the_selected_timers_life() {
    let (mut src, mut app) = demo_at(32);
    press(&mut src, &mut app, &[key(':')]);
    press(&mut src, &mut app, &[code(KeyCode::Down)]);
    let want = rows(&app, finder(&app))[1].timer_id;
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    match &app.overlay {
        Overlay::Life(l) => assert_eq!(l.id, want),
        other => panic!("Enter opens the life, got {other:?}"),
    }
}

/// Issue 32: the list follows the chain: a pending timer that fires while the finder is open
/// shows as fired after the next refresh.
#[test]
fn issue32_finder_follows_the_chain() {
    let (mut src, mut app) = demo_at(27);
    press(&mut src, &mut app, &[key(':')]);
    press(&mut src, &mut app, &typed("s:pending"));
    let before = rows(&app, finder(&app))
        .iter()
        .map(|t| (t.timer_id, t.height))
        .min_by_key(|(_, h)| *h)
        .expect("pending timers at 27");
    src.execute(UiCommand::Mine(before.1 - 27 + 1))
        .expect("mines");
    refresh(&mut src, &mut app);
    let ids: Vec<_> = rows(&app, finder(&app))
        .iter()
        .map(|t| t.timer_id)
        .collect();
    assert!(
        !ids.contains(&before.0),
        "the timer due at #{} is no longer pending",
        before.1
    );
}

/// Issue 32: a selection below the screen's last row scrolls the list so it stays in view.
#[test]
fn issue32_finder_keeps_the_selection_on_screen() {
    let (mut src, mut app) = demo_at(32);
    press(&mut src, &mut app, &[key(':')]);
    let n = rows(&app, finder(&app)).len();
    assert!(n > 20, "the demo has {n} timers");
    for _ in 0..n {
        press(&mut src, &mut app, &[code(KeyCode::Down)]);
    }
    let last = rows(&app, finder(&app))[n - 1].timer_id.short();
    let first = rows(&app, finder(&app))[0].timer_id.short();
    let screen = screen_at(&app, 80, 24);
    assert!(screen.contains(&last), "the last row is shown:\n{screen}");
    assert!(!screen.contains(&first), "the list scrolled:\n{screen}");
}

/// Issue 32 (Spec note 173): the finder's title offers "? syntax": `?` typed alone shows the
/// query syntax in place of the list (no query sent), and a query nothing matches says so
/// and points there.
#[test]
fn issue32_finder_question_mark_shows_the_syntax_and_no_match_says_so() {
    let (mut src, mut app) = demo_at(32);
    press(&mut src, &mut app, &[key(':'), key('?')]);
    let screen = screen_at(&app, 120, 34);
    assert!(screen.contains("the query syntax"), "{screen}");
    assert!(
        screen.contains("status:fired"),
        "the syntax lines: {screen}"
    );
    // At 80x24 the lines wrap rather than being cut at the edge (the last line's end).
    let narrow = screen_at(&app, 80, 24);
    assert!(narrow.contains("follows"), "{narrow}");
    clear(&mut src, &mut app);
    press(&mut src, &mut app, &typed("nosuchlabel"));
    let screen = screen_at(&app, 120, 34);
    assert!(
        screen.contains("no timer matched `nosuchlabel`"),
        "{screen}"
    );
    assert!(statuses(&app).is_empty());
}
