//! Issue 34, "What users of k9s, lazygit, btop and Temporal's UI would expect": the mouse
//! optional (`m`, `--no-mouse`), back to where I was (`b`), a maximised pane scrolled sideways
//! (`z`, ←/→), the raw view of a timer and of an event (`v`, `y` copies it).

mod common;

use common::keys::{code, fixture_at, key, press, screen_at, select_bucket};
use cowboy_devnet::tui::app::{App, Overlay};
use cowboy_devnet::tui::keys::KeyMap;
use cowboy_devnet::tui::local::LocalDevnet;
use cowboy_devnet::tui::refresh;
use crossterm::event::KeyCode;

/// The demo played live along a node that keeps its history (past views answer), to `height`.
fn live_demo(height: u64) -> LocalDevnet {
    use cowboy_devnet::node::{Mine, MiningMode, NodeConfig, NodeCore};
    use cowboy_devnet::scenario::live::FixturePlayer;
    use cowboy_devnet::scenario::{Scenario, builtin};
    use cowboy_devnet::vm::DevnetRuntime;
    let lf = builtin::fixture("demo").unwrap().unwrap();
    let s = Scenario::prepare(&lf, &DevnetRuntime::new(), &builtin::script_loader).unwrap();
    let mut c = NodeConfig::new(s.genesis().clone(), DevnetRuntime::shared());
    c.mining = MiningMode::Manual;
    c.history = 1_000;
    c.names = s.address_book();
    let names = s.address_book();
    let mut d = NodeCore::new(c).expect("genesis");
    d.set_hook(Box::new(FixturePlayer::new(std::sync::Arc::new(s))));
    d.apply(Mine { blocks: height }).unwrap();
    LocalDevnet::new(d, names)
}

fn app_on(src: &mut LocalDevnet) -> App {
    let mut app = App::new(KeyMap::default());
    refresh(src, &mut app);
    app
}

#[test]
fn issue34_mouse_capture_toggles_and_says_so() {
    let mut src = fixture_at("demo", 5);
    let mut app = app_on(&mut src);
    assert!(app.mouse, "on by default");
    assert!(cowboy_devnet::tui::RunOptions::default().mouse);
    press(&mut src, &mut app, &[key('m')]);
    assert!(!app.mouse);
    let s = screen_at(&app, 120, 34);
    assert!(s.lines().next().unwrap().contains("mouse off (m)"), "{s}");
    assert!(s.contains("the terminal selects text"), "{s}");
    press(&mut src, &mut app, &[key('?')]);
    let mut pages = String::new();
    for _ in 0..12 {
        pages.push_str(&screen_at(&app, 120, 34));
        press(&mut src, &mut app, &[code(KeyCode::PageDown)]);
    }
    assert!(pages.contains("mouse capture on/off"), "{pages}");
    press(&mut src, &mut app, &[code(KeyCode::Esc), key('m')]);
    assert!(app.mouse);
    let s = screen_at(&app, 120, 34);
    assert!(!s.lines().next().unwrap().contains("mouse off"), "{s}");
}

#[test]
fn issue34_no_mouse_flag_is_offered() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cowboy-devnet"))
        .arg("--help")
        .output()
        .expect("the binary runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("--no-mouse"), "{text}");
}

/// `b` returns to the height and the selection before a jump into the past, and again.
#[test]
fn issue34_back_to_where_i_was() {
    let mut src = live_demo(30);
    let mut app = app_on(&mut src);
    refresh(&mut src, &mut app);
    press(&mut src, &mut app, &[key('l')]);
    let pin = app.timer_pin;
    assert!(pin.is_some(), "a timer selected");
    press(
        &mut src,
        &mut app,
        &[key('['), key('['), key('['), key('h')],
    );
    assert_eq!(
        app.shown_at(),
        Some(27),
        "{:?} {:?}",
        app.view_at,
        app.toast
    );
    assert_eq!(app.timer_pin, None);
    press(&mut src, &mut app, &[key('b')]);
    assert_eq!(app.shown_at(), None, "back at the head");
    assert_eq!(app.timer_pin, pin, "and the timer selected there");
    let s = screen_at(&app, 120, 34);
    assert!(s.contains("back to the head #30"), "{s}");
    let mark = app.mark.clone();
    press(&mut src, &mut app, &[key('b')]);
    assert_eq!(
        app.shown_at(),
        Some(27),
        "b again: where it was in the past: {mark:?} {:?} {:?}",
        app.view_at,
        app.toast
    );
}

/// `z` maximises the focused pane: at 120x34 the lane pane's figures are whole (the basefee
/// line with its window), and ←/→ scroll it sideways.
#[test]
fn issue34_maximise_a_pane_and_scroll_it() {
    let mut src = fixture_at("congestion", 20);
    let mut app = app_on(&mut src);
    press(
        &mut src,
        &mut app,
        &[code(KeyCode::Tab), code(KeyCode::Tab)],
    );
    let before = screen_at(&app, 120, 34);
    assert!(!before.contains(", window "), "{before}");
    press(&mut src, &mut app, &[key('z')]);
    let s = screen_at(&app, 120, 34);
    assert!(s.contains(", window "), "{s}");
    assert!(s.contains("maximised"), "{s}");
    assert!(!s.contains("calendar queue tiers"), "{s}");
    press(&mut src, &mut app, &[code(KeyCode::Right)]);
    assert_eq!(app.hscroll, 10);
    let moved = screen_at(&app, 120, 34);
    assert_ne!(moved, s, "scrolled sideways");
    press(&mut src, &mut app, &[code(KeyCode::Left), key('z')]);
    assert!(!app.zoom);
    assert!(screen_at(&app, 120, 34).contains("calendar queue tiers"));
}

/// `v` shows a timer raw (every field, the payload as hex and decoded) and an event raw; `y`
/// copies what it shows.
#[test]
fn issue34_raw_view_of_a_timer_and_an_event() {
    let mut src = fixture_at("demo", 29);
    let mut app = app_on(&mut src);
    select_bucket(&mut src, &mut app, 30);
    press(&mut src, &mut app, &[key('l'), key('v')]);
    let Overlay::Life(l) = &app.overlay else {
        panic!("{:?}", app.overlay)
    };
    let id = l.id;
    let s = screen_at(&app, 120, 34);
    for want in [
        "timer_id: ",
        "payload_hex: 0x",
        "gas_limit: 550000",
        "handler: ",
    ] {
        assert!(s.contains(want), "{want}: {s}");
    }
    press(&mut src, &mut app, &[key('y')]);
    let copied = app.clipboard.clone().expect("copied");
    assert!(copied.contains(&id.to_string()), "{copied}");
    assert!(copied.contains("payload_hex: 0x"), "{copied}");
    press(&mut src, &mut app, &[code(KeyCode::Esc)]);
    assert!(!app.raw);

    // An event: the feed's newest selected, then v.
    press(
        &mut src,
        &mut app,
        &[code(KeyCode::BackTab), code(KeyCode::Up), key('v')],
    );
    let Overlay::Event(e) = &app.overlay else {
        panic!("{:?}", app.overlay)
    };
    let kind = e.kind.clone();
    let s = screen_at(&app, 120, 34);
    assert!(s.contains(&format!("kind: {kind}")), "{s}");
    assert!(s.contains("height: "), "{s}");
}

/// The payload decoded: JSON pretty-printed, UTF-8 as text, else said.
#[test]
fn issue34_raw_payload_decoding() {
    use cowboy_devnet::tui::panes::raw::payload_lines;
    let j = payload_lines(br#"{"a":1}"#).join("\n");
    assert!(
        j.contains("payload_hex: 0x7b22") && j.contains("\"a\": 1"),
        "{j}"
    );
    let t = payload_lines(b"tick").join("\n");
    assert!(t.contains("payload_utf8: \"tick\""), "{t}");
    let b = payload_lines(&[0xff, 0x00]).join("\n");
    assert!(b.contains("0xff00") && b.contains("not UTF-8"), "{b}");
}

/// Several watched timers are pinned in the strip at once, each with its own line, each read
/// again as blocks pass; `w` on one of them stops watching it alone.
#[test]
fn issue34_several_watched_timers_pinned() {
    let mut src = fixture_at("demo", 29);
    let mut app = app_on(&mut src);
    app.watch = None;
    app.watch_life = None;
    select_bucket(&mut src, &mut app, 30);
    press(
        &mut src,
        &mut app,
        &[key('l'), key('w'), key('j'), key('w')],
    );
    let first = app.data.bucket_timers[0].id;
    let second = app.data.bucket_timers[1].id;
    assert_eq!(app.watch, Some(second));
    assert!(app.is_watched(&first) && app.is_watched(&second));
    let s = screen_at(&app, 120, 34);
    let lines: Vec<&str> = s.lines().filter(|l| l.contains(" watch ")).collect();
    assert_eq!(lines.len(), 2, "{s}");
    assert!(
        lines.iter().all(|l| l.contains("scheduled #")),
        "each read: {s}"
    );
    // w on the selected (the second) stops it alone; the first takes the line.
    press(&mut src, &mut app, &[key('w')]);
    assert_eq!(app.watch, Some(first));
    assert!(app.pinned.is_empty());
    // Both again; a block later the pinned one is read again.
    press(&mut src, &mut app, &[key('w')]);
    assert_eq!(app.pinned.len(), 1);
    app.pinned[0].1 = None;
    press(&mut src, &mut app, &[key(' ')]);
    assert!(app.pinned[0].1.as_ref().is_some_and(|l| l.id == first));
}

/// Issue 34 (the dashboard at 80x24): a timer's label wider than the bucket's id column is cut
/// with `…`, so `settle-42` never reads as another label `settle-4`.
#[test]
fn issue34_a_label_cut_in_the_bucket_list_ends_in_an_ellipsis() {
    let mut src = fixture_at("demo", 7);
    let mut app = app_on(&mut src);
    select_bucket(&mut src, &mut app, 8);
    // The label the demo's story gives the timer (a live dashboard learns it from the story).
    let id = app.data.bucket_row(0).expect("the bucket's timer").id;
    app.labels.insert(id, "settle-42".into());
    let s = screen_at(&app, 80, 24);
    assert!(s.contains("settle-…"), "{s}");
    assert!(!s.contains("settle-4 "), "{s}");
    // Wide enough, the whole label.
    assert!(screen_at(&app, 200, 50).contains("settle-42"));
}
