//! Issue 32 "Find any timer", finished (brief item 2): Esc in a life opened from the finder goes
//! back to the finder's list with its query and selection (a second Esc closes it); the finder
//! pages on past its page with `timer_list`'s cursor rather than asking to narrow the query;
//! while the panes show a past height the finder's title says it lists the head's timers
//! (Spec note 185).

mod common;

use common::keys::{code, fixture_at, key, press, screen_at, typed};
use cowboy_devnet::engine::{Address, Timer};
use cowboy_devnet::node::{NodeConfig, NodeCore};
use cowboy_devnet::tui::app::{App, Overlay};
use cowboy_devnet::tui::finder_query::FINDER_PAGE;
use cowboy_devnet::tui::keys::KeyMap;
use cowboy_devnet::tui::local::LocalDevnet;
use cowboy_devnet::tui::panes::finder::{Finder, rows};
use cowboy_devnet::tui::refresh;
use cowboy_devnet::vm::DevnetRuntime;
use crossterm::event::KeyCode;
use std::collections::BTreeMap;

fn finder(app: &App) -> &Finder {
    match &app.overlay {
        Overlay::Finder(f) => f,
        other => panic!("the finder is open, got {other:?}"),
    }
}

const PENDING: u64 = 450;

fn actor(i: u64) -> Address {
    common::fleet::fleet_actor(10, i % 10)
}

/// A devnet with `PENDING` timers (more than two finder pages), the dashboard on it.
fn busy() -> (LocalDevnet, App) {
    let mut d = NodeCore::new(NodeConfig::headless(
        common::fleet::uncapped_genesis(),
        DevnetRuntime::shared(),
        cowboy_devnet::chain::DEFAULT_KEEP_BLOCKS,
    ))
    .expect("genesis");
    let timers = (0..PENDING).map(|n| Timer {
        schedule_block: 1,
        ..common::fleet::bulk_timer(n, actor(n), 2 + n)
    });
    d.test_hook_insert_timers(timers).expect("fresh ids");
    let mut src = LocalDevnet::new(d, BTreeMap::new());
    let mut app = App::new(KeyMap::default());
    refresh(&mut src, &mut app);
    (src, app)
}

/// Issue 32 item 2a: Enter opens the life; Esc comes back to the finder with its query and
/// selection; a second Esc closes the finder.
#[test]
fn issue32_item2a_esc_in_a_life_returns_to_the_finder() {
    let mut src = fixture_at("demo", 32);
    let mut app = App::new(KeyMap::default());
    refresh(&mut src, &mut app);
    press(&mut src, &mut app, &[key(':')]);
    press(&mut src, &mut app, &typed("s:fired"));
    press(
        &mut src,
        &mut app,
        &[code(KeyCode::Down), code(KeyCode::Down)],
    );
    let want = rows(&app, finder(&app))[2].timer_id;
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    assert!(
        matches!(&app.overlay, Overlay::Life(l) if l.id == want),
        "the life opens: {:?}",
        app.overlay
    );
    press(&mut src, &mut app, &[code(KeyCode::Esc)]);
    let f = finder(&app);
    assert_eq!(f.text, "s:fired", "the query is kept");
    assert_eq!(f.sel, 2, "the selection is kept");
    assert_eq!(rows(&app, f)[2].timer_id, want);
    press(&mut src, &mut app, &[code(KeyCode::Esc)]);
    assert_eq!(app.overlay, Overlay::None, "a second Esc closes the finder");
    // A life opened elsewhere closes on Esc, as before.
    press(&mut src, &mut app, &[key(':'), code(KeyCode::Enter)]);
    press(
        &mut src,
        &mut app,
        &[code(KeyCode::Esc), code(KeyCode::Esc)],
    );
    assert_eq!(app.overlay, Overlay::None);
}

/// Issue 32 item 2c: more matches than a page: ↓/PgDn past the last row asks the next page
/// with `timer_list`'s cursor, the summary says which rows are shown, PgUp past the first row
/// goes back; the last page lists the rest.
#[test]
fn issue32_item2c_the_finder_pages_on_past_its_page() {
    let (mut src, mut app) = busy();
    press(&mut src, &mut app, &[key(':')]);
    let first: Vec<_> = rows(&app, finder(&app))
        .iter()
        .map(|t| t.timer_id)
        .collect();
    assert_eq!(first.len(), FINDER_PAGE);
    assert_eq!(finder(&app).page.as_ref().unwrap().matched, PENDING);
    let screen = screen_at(&app, 120, 34);
    assert!(screen.contains("1-200 of 450 matched"), "{screen}");
    assert!(!screen.contains("narrow the query"), "{screen}");
    for _ in 0..FINDER_PAGE / 10 {
        press(&mut src, &mut app, &[code(KeyCode::PageDown)]);
    }
    assert_eq!(finder(&app).sel, FINDER_PAGE - 1, "the page's last row");
    press(&mut src, &mut app, &[code(KeyCode::PageDown)]);
    let second: Vec<_> = rows(&app, finder(&app))
        .iter()
        .map(|t| t.timer_id)
        .collect();
    assert_eq!(second.len(), FINDER_PAGE);
    assert!(second.iter().all(|id| !first.contains(id)), "a new page");
    assert_eq!(finder(&app).sel, 0);
    let screen = screen_at(&app, 120, 34);
    assert!(screen.contains("201-400 of 450 matched"), "{screen}");
    press(&mut src, &mut app, &[code(KeyCode::Up)]);
    assert_eq!(rows(&app, finder(&app))[0].timer_id, first[0], "back");
    assert_eq!(finder(&app).sel, FINDER_PAGE - 1, "on the last row");
    for _ in 0..3 {
        press(&mut src, &mut app, &[code(KeyCode::Down)]);
    }
    let mut n = 0;
    while n < 100 && finder(&app).page.as_ref().unwrap().next_cursor.is_some() {
        press(&mut src, &mut app, &[code(KeyCode::PageDown)]);
        n += 1;
    }
    let last = rows(&app, finder(&app)).len() as u64;
    assert_eq!(last, PENDING - 2 * FINDER_PAGE as u64, "the rest");
    let screen = screen_at(&app, 80, 24);
    assert!(screen.contains("401-450 of 450"), "{screen}");
}

/// Issue 32 item 2b (Spec note 185): the finder lists the head's timers; while the panes show a
/// past height its title says so.
#[test]
fn issue32_item2b_the_finder_says_it_lists_the_heads_timers() {
    let mut d = common::history::devnet(64);
    for _ in 0..5 {
        common::history::busy_block(&mut d);
    }
    let mut src = LocalDevnet::new(d, BTreeMap::new());
    let mut app = App::new(KeyMap::default());
    refresh(&mut src, &mut app);
    press(&mut src, &mut app, &[key(':')]);
    let live = screen_at(&app, 120, 34);
    assert!(live.contains("find a timer at the head #5"), "{live}");
    press(
        &mut src,
        &mut app,
        &[code(KeyCode::Esc), key('['), key('[')],
    );
    assert_eq!(app.view_at, Some(3), "the panes show a past height");
    press(&mut src, &mut app, &[key(':')]);
    let past = screen_at(&app, 120, 34);
    assert!(
        past.contains("the head's (#5), the panes show #3"),
        "{past}"
    );
}
