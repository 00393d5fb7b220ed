//! Issue 32, "Traces": the dashboard's timer life opens a fire's trace (`t`): the host calls
//! in order with their cycles, the storage writes as `key: old → new`, the output, and a
//! failure in the error colour; Esc returns to the life. The demo's node does not trace, so the
//! trace shown is rebuilt by replay (Spec note 163).

mod common;

use common::keys::{code, key, press, screen_at, typed};
use cowboy_devnet::tui::app::{App, Overlay};
use cowboy_devnet::tui::keys::KeyMap;
use cowboy_devnet::tui::refresh;
use crossterm::event::KeyCode;

/// The life of the demo's timer whose id starts with `label` (the demo's ids are fixed:
/// `settle-42` is 0x12233d08, `boom` 0xf10fbe20, `doomed` 0x84ebba46), opened from the finder.
fn life_of(label: &str, height: u64) -> (cowboy_devnet::tui::local::LocalDevnet, App) {
    let mut src = common::keys::live_fixture_at("demo", height);
    let mut app = App::new(KeyMap::default());
    refresh(&mut src, &mut app);
    press(&mut src, &mut app, &[key(':')]);
    press(&mut src, &mut app, &typed(label));
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    assert!(
        matches!(app.overlay, Overlay::Life(_)),
        "the finder opened the life of {label}"
    );
    (src, app)
}

#[test]
fn issue32_t_in_a_life_shows_the_fires_trace() {
    let (mut src, mut app) = life_of("0x12233d08", 10);
    press(&mut src, &mut app, &[key('t')]);
    for (w, h) in [(120, 34), (80, 24)] {
        let s = screen_at(&app, w, h);
        assert!(s.contains("trace of timer"), "{s}");
        assert!(s.contains("worker.settle ok"), "{w}x{h}: {s}");
        assert!(
            s.contains("storage_set(settled: none → order-42)"),
            "{w}x{h}: {s}"
        );
    }
    press(&mut src, &mut app, &[code(KeyCode::Esc)]);
    assert!(
        matches!(app.overlay, Overlay::Life(_)),
        "Esc returns to the life"
    );
}

#[test]
fn issue32_a_failing_fire_says_where_it_failed() {
    let (mut src, mut app) = life_of("0xf10fbe20", 20);
    press(&mut src, &mut app, &[key('t')]);
    let s = screen_at(&app, 120, 34);
    assert!(
        s.contains("worker.fail failed: Reverted: cannot settle order-43"),
        "{s}"
    );
    assert!(s.contains("revert(reason=cannot settle order-43)"), "{s}");
    assert!(s.contains("failed in revert"), "{s}");
}

#[test]
fn issue32_t_on_a_timer_that_never_fired_says_so() {
    let (mut src, mut app) = life_of("0x84ebba46", 10);
    press(&mut src, &mut app, &[key('t')]);
    let s = screen_at(&app, 120, 34);
    assert!(s.contains("no trace:") && s.contains("cancelled"), "{s}");
}
