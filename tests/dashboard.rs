//! The dashboard (issue 15): snapshots of every pane and overlay on fixed demo heights (colour
//! dropped), buffer assertions for styles, and key tests from a key press to the node command
//! and its visible result, errors included.

mod common;

use common::keys::{code, fixture_at, key, press, screen_at, typed};
use cowboy_devnet::engine::TimerId;
use cowboy_devnet::tui::app::{App, Overlay, Pane};
use cowboy_devnet::tui::keys::KeyMap;
use cowboy_devnet::tui::local::LocalDevnet;
use cowboy_devnet::tui::model::{DashboardSource, MiningMode, UiCommand, ViewQuery, fmt_nanos};
use cowboy_devnet::tui::term::{TermEvent, filter_event};
use cowboy_devnet::tui::theme::Theme;
use cowboy_devnet::tui::{handle_key, panes, refresh, render};
use cowboy_devnet::vm::DevnetRuntime;
use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers, MouseButton, MouseEvent,
    MouseEventKind,
};
use insta::assert_snapshot;
use ratatui::Frame;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};

/// The shipped demo fixture played up to block `height`, manual mining ([`fixture_at`]).
fn demo_at(height: u64) -> LocalDevnet {
    fixture_at("demo", height)
}

fn app_on(src: &mut LocalDevnet) -> App {
    let mut app = App::new(KeyMap::default());
    refresh(src, &mut app);
    app
}

fn draw(app: &App, theme: &Theme, w: u16, h: u16) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| render::render(f, app, theme)).unwrap();
    t.backend().buffer().clone()
}

type PaneFn = fn(&mut Frame, Rect, &App, &Theme);

fn draw_pane(pane: PaneFn, app: &App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| pane(f, f.area(), app, &Theme::default()))
        .unwrap();
    t.backend().to_string()
}

fn text(b: &Buffer) -> String {
    let w = b.area.width as usize;
    b.content
        .chunks(w)
        .map(|row| row.iter().map(|c| c.symbol()).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

fn screen(app: &App) -> String {
    screen_at(app, 160, 48)
}

/// Finds the cell where `needle` starts on screen.
fn find(b: &Buffer, needle: &str) -> Option<(u16, u16)> {
    let t = text(b);
    for (y, line) in t.lines().enumerate() {
        if let Some(byte) = line.find(needle) {
            let x = line[..byte].chars().count();
            return Some((x as u16, y as u16));
        }
    }
    None
}

fn first_deferred_timer(src: &mut LocalDevnet) -> TimerId {
    src.events(0, usize::MAX)
        .into_iter()
        .find(|e| e.kind == "TimerDeferred")
        .and_then(|e| e.timer)
        .expect("the demo defers timers at 30")
}

// ---- snapshots ------------------------------------------------------------------------------

#[test]
fn snapshot_full_dashboard_at_demo_height_27() {
    let mut src = demo_at(27);
    let app = app_on(&mut src);
    assert_snapshot!("full_200x60_h27", {
        let mut t = Terminal::new(TestBackend::new(200, 60)).unwrap();
        t.draw(|f| render::render(f, &app, &Theme::default()))
            .unwrap();
        t.backend().to_string()
    });
    assert_snapshot!("full_120x40_h27", {
        let mut t = Terminal::new(TestBackend::new(120, 40)).unwrap();
        t.draw(|f| render::render(f, &app, &Theme::default()))
            .unwrap();
        t.backend().to_string()
    });
}

#[test]
fn snapshot_each_pane_at_demo_height_27() {
    let mut src = demo_at(27);
    let mut app = app_on(&mut src);
    // Select bucket #30 (five 550,000-cycle timers: over the lane) and enter its timer list.
    press(&mut src, &mut app, &[key('j'), key('j'), key('l')]);
    assert_eq!(app.data.buckets[app.bucket_sel].height, 30);
    assert_snapshot!(
        "pane_status",
        draw_pane(panes::status::render, &app, 120, 1)
    );
    assert_snapshot!(
        "pane_buckets",
        draw_pane(panes::buckets::render, &app, 110, 12)
    );
    assert_snapshot!("pane_tiers", draw_pane(panes::tiers::render, &app, 100, 9));
    assert_snapshot!("pane_lane", draw_pane(panes::lane::render, &app, 90, 16));
    assert_snapshot!(
        "pane_fairness",
        draw_pane(panes::fairness::render, &app, 70, 8)
    );
    assert_snapshot!(
        "pane_events",
        draw_pane(panes::events::render, &app, 150, 12)
    );
    assert_snapshot!(
        "pane_hints",
        draw_pane(panes::status::render_hints, &app, 120, 1)
    );
}

#[test]
fn snapshot_overlays() {
    let mut src = demo_at(32);
    let mut app = app_on(&mut src);

    press(&mut src, &mut app, &[key('?')]);
    assert_snapshot!("overlay_help", screen(&app));
    press(&mut src, &mut app, &[code(KeyCode::Esc)]);
    assert_eq!(app.overlay, Overlay::None);

    // A timer deferred by the full lane at 30: its life runs scheduled, deferred, then fired
    // or expired at 31.
    let id = first_deferred_timer(&mut src);
    app.focus = Pane::Events;
    press(&mut src, &mut app, &typed("/"));
    press(&mut src, &mut app, &typed(&id.short()));
    press(
        &mut src,
        &mut app,
        &[code(KeyCode::Enter), code(KeyCode::Enter)],
    );
    let Overlay::Life(life) = &app.overlay else {
        panic!(
            "Enter on a feed event opens its timer's life, got {:?}",
            app.overlay
        );
    };
    assert_eq!(life.id, id);
    let whats: Vec<&str> = life.timeline.iter().map(|e| e.what.as_str()).collect();
    assert_eq!(whats[0], "TimerScheduled");
    assert!(whats.contains(&"TimerDeferred"), "{whats:?}");
    assert_eq!(life.deferrals, 1);
    assert_snapshot!("overlay_timer_life", screen(&app));
    press(
        &mut src,
        &mut app,
        &[code(KeyCode::Esc), code(KeyCode::Esc)],
    );

    app.focus = Pane::Buckets;
    press(&mut src, &mut app, &[key('s')]);
    assert!(matches!(app.overlay, Overlay::Form(_)));
    assert_snapshot!("overlay_schedule_form", screen(&app));
    press(&mut src, &mut app, &[code(KeyCode::Esc), key('g')]);
    assert_snapshot!("overlay_governance_prompt", screen(&app));
}

#[test]
fn snapshot_terminal_too_small() {
    let mut src = demo_at(5);
    let app = app_on(&mut src);
    let b = draw(&app, &Theme::default(), 60, 12);
    let t = text(&b);
    assert!(t.contains("terminal too small"), "{t}");
    assert!(t.contains("need 80x24, have 60x12"), "{t}");
    let mut term = Terminal::new(TestBackend::new(60, 12)).unwrap();
    term.draw(|f| render::render(f, &app, &Theme::default()))
        .unwrap();
    assert_snapshot!("too_small_60x12", term.backend().to_string());
}

// ---- styles ---------------------------------------------------------------------------------

#[test]
fn selection_and_theme_colours_are_drawn() {
    let mut src = demo_at(27);
    let mut app = app_on(&mut src);
    let dark = Theme::default();
    app.focus = Pane::Fairness;
    let b = draw(&app, &dark, 160, 48);
    // The first fairness row is selected: its cells carry the theme's selection style.
    let first = app.fairness_sorted()[0].actor;
    let name = app.data.label(&first);
    let (_, y) = find(&b, "fairness").expect("fairness title");
    let row = y + 2;
    let line: String = (0..b.area.width)
        .map(|x| b[(x, row)].symbol().to_string())
        .collect();
    let col = line.find(&name).expect("selected actor on its row");
    let col = line[..col].chars().count() as u16;
    assert_eq!(b[(col, row)].bg, Color::Yellow, "selection background");
    assert_eq!(b[(col, row)].fg, Color::Black, "selection foreground");

    // Event kinds are coloured by the theme: TimerFired green in the dark theme.
    let (x, y) = find(&b, "TimerFired").expect("a fired event in the feed");
    assert_eq!(b[(x, y)].fg, Color::Green);
    // A bucket over the lane is drawn with bucket_over (red, bold).
    let (x, y) = find(&b, "#30 ").expect("bucket #30");
    assert_eq!(b[(x, y)].fg, Color::Red);
    assert!(b[(x, y)].modifier.contains(Modifier::BOLD));

    // Another theme changes the colours, not the text.
    let light = Theme::shipped("light").unwrap();
    let bl = draw(&app, &light, 160, 48);
    assert_eq!(text(&bl), text(&b));
    assert_eq!(bl[(col, row)].bg, Color::Blue);
}

#[test]
fn mono_theme_uses_only_modifiers() {
    let mut src = demo_at(27);
    let mut app = app_on(&mut src);
    app.focus = Pane::Fairness;
    let mono = Theme::select(Some("dark"), true).unwrap();
    assert_eq!(mono.name, "mono");
    let b = draw(&app, &mono, 160, 48);
    for c in &b.content {
        assert_eq!(c.fg, Color::Reset, "mono draws no foreground colour");
        assert_eq!(c.bg, Color::Reset, "mono draws no background colour");
    }
    let reversed = b
        .content
        .iter()
        .filter(|c| c.modifier.contains(Modifier::REVERSED))
        .count();
    let bold = b
        .content
        .iter()
        .filter(|c| c.modifier.contains(Modifier::BOLD))
        .count();
    assert!(reversed > 100, "status bar and selection are reversed");
    assert!(bold > 0);
    let (x, y) = find(&b, "TimerFired").unwrap();
    assert!(b[(x, y)].modifier.contains(Modifier::BOLD));
}

// ---- keys -----------------------------------------------------------------------------------

#[test]
fn only_key_presses_count() {
    let mut k = key('q');
    assert_eq!(filter_event(Event::Key(k)), Some(TermEvent::Key(k)));
    k.kind = KeyEventKind::Release;
    assert_eq!(filter_event(Event::Key(k)), None);
    k.kind = KeyEventKind::Repeat;
    k.state = KeyEventState::NONE;
    assert_eq!(filter_event(Event::Key(k)), None);
    assert_eq!(filter_event(Event::Resize(80, 24)), Some(TermEvent::Resize));
    let click = |kind| {
        Event::Mouse(MouseEvent {
            kind,
            column: 3,
            row: 4,
            modifiers: KeyModifiers::NONE,
        })
    };
    assert_eq!(
        filter_event(click(MouseEventKind::Down(MouseButton::Left))),
        Some(TermEvent::Click { column: 3, row: 4 })
    );
    assert_eq!(filter_event(click(MouseEventKind::Moved)), None);
}

#[test]
fn a_click_focuses_the_pane_under_it() {
    use cowboy_devnet::tui::app::{Action, update};
    let mut src = demo_at(5);
    let mut app = app_on(&mut src);
    let a = render::areas(Rect::new(0, 0, 160, 48));
    for (pane, r) in [
        (Pane::Fairness, a.fairness),
        (Pane::Events, a.events),
        (Pane::Tiers, a.tiers),
        (Pane::Lane, a.lane),
        (Pane::Buckets, a.buckets),
    ] {
        update(
            &mut app,
            Action::Click {
                column: r.x + 1,
                row: r.y + 1,
                width: 160,
                height: 48,
            },
        );
        assert_eq!(app.focus, pane);
    }
}

#[test]
fn step_keys_mine_and_show_the_new_height() {
    let mut src = demo_at(27);
    let mut app = app_on(&mut src);
    use cowboy_devnet::tui::app::{Action, Effect, update};
    assert_eq!(
        update(&mut app.clone(), Action::Key(key(' '))),
        vec![Effect::Command(UiCommand::Mine(1))]
    );
    assert_eq!(
        update(&mut app.clone(), Action::Key(key('N'))),
        vec![Effect::Command(UiCommand::Mine(10))]
    );
    press(&mut src, &mut app, &[key(' ')]);
    assert_eq!(src.chain().height(), 28);
    let s = screen(&app);
    assert!(s.contains("# 28"), "status bar shows the height\n{s}");
    assert!(s.contains("mined to #28"), "{s}");
    press(&mut src, &mut app, &[key('n'), key('N')]);
    assert_eq!(src.chain().height(), 39);
    // The full lane at 30 shows in the feed: two deferrals, recorded by the block that made
    // them (Spec note 71), and the lane chart counts them at 30.
    let deferred: Vec<_> = app
        .feed
        .iter()
        .filter(|e| e.kind == "TimerDeferred")
        .collect();
    assert_eq!(deferred.len(), 2, "{deferred:?}");
    for e in &deferred {
        assert_eq!(e.height, 30);
        assert!(e.fields.starts_with("height=30 reason=lane"), "{e:?}");
    }
    let s = screen(&app);
    assert!(s.contains("#30     TimerDeferred"), "{s}");
    let at30 = app.data.lane.iter().find(|r| r.height == 30).unwrap();
    assert_eq!((at30.fired, at30.deferred), (3, 2));
}

#[test]
fn pause_and_block_time_keys_set_the_mining_mode() {
    let mut src = demo_at(5);
    let mut app = app_on(&mut src);
    press(&mut src, &mut app, &[key('p')]);
    assert_eq!(src.mining(), MiningMode::Interval { ms: 1_000 });
    assert!(screen(&app).contains("mining interval 1s"));
    press(&mut src, &mut app, &[key('+')]);
    assert_eq!(src.mining(), MiningMode::Interval { ms: 500 });
    assert!(screen(&app).contains("mining interval 0.5s"));
    press(&mut src, &mut app, &[key('-'), key('-')]);
    assert_eq!(src.mining(), MiningMode::Interval { ms: 2_000 });
    press(&mut src, &mut app, &[key('p')]);
    assert_eq!(src.mining(), MiningMode::Manual);
    assert!(screen(&app).contains("mining manual"));
    // The node's interval miner seals when told time has passed (no clock read by the
    // source): its first tick starts the clock, and a tick held up past several block times
    // gets one block, not a burst, and the next a block time (2 s here) later (issue 13).
    press(&mut src, &mut app, &[key('p')]);
    let t0 = std::time::Instant::now();
    assert!(!src.tick(t0));
    assert!(src.tick(t0 + std::time::Duration::from_millis(4_100)));
    assert_eq!(src.chain().height(), 6);
    assert!(!src.tick(t0 + std::time::Duration::from_millis(4_200)));
    assert!(src.tick(t0 + std::time::Duration::from_millis(6_100)));
    assert_eq!(src.chain().height(), 7);
}

#[test]
fn schedule_form_schedules_and_the_timer_fires_in_the_feed() {
    let mut src = demo_at(27);
    let mut app = app_on(&mut src);
    press(&mut src, &mut app, &[key('s')]);
    let Overlay::Form(f) = &app.overlay else {
        panic!("s opens the form");
    };
    // Live estimate with the defaults (+5: height 27 + 1 + 5 = 33).
    let e = f
        .estimate
        .as_ref()
        .expect("an estimate as soon as the form opens");
    assert_eq!(e.fire_height, 33);
    assert!(e.error.is_none(), "{e:?}");
    let actor = app.data.actors[f.actor];
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    assert_eq!(
        app.overlay,
        Overlay::None,
        "a scheduled timer closes the form"
    );
    let toast = app.toast.clone().expect("a result in place");
    assert!(
        !toast.error && toast.text.starts_with("scheduled timer"),
        "{toast:?}"
    );
    let short = toast.text.split_whitespace().nth(2).unwrap().to_string();
    let pending = src
        .chain()
        .engine()
        .queue()
        .pending()
        .into_iter()
        .find(|t| t.timer_id.short() == short)
        .expect("the timer is pending")
        .clone();
    assert_eq!(pending.actor_address, actor);
    assert_eq!(pending.height, 33);
    for _ in 0..6 {
        press(&mut src, &mut app, &[key(' ')]);
    }
    let fired = app
        .feed
        .iter()
        .find(|e| e.kind == "TimerFired" && e.timer == Some(pending.timer_id))
        .expect("the feed shows the fire");
    assert_eq!(fired.height, 33);
    assert!(screen(&app).contains(&short));
}

#[test]
fn schedule_errors_show_in_the_form_and_schedule_nothing() {
    let mut src = demo_at(27);
    let mut app = app_on(&mut src);
    let before = src.chain().engine().queue().len();
    press(&mut src, &mut app, &[key('s')]);
    // Height 10 is in the past: the estimate already says so, and sending is refused.
    press(
        &mut src,
        &mut app,
        &[code(KeyCode::Backspace), code(KeyCode::Backspace)],
    );
    press(&mut src, &mut app, &typed("10"));
    let Overlay::Form(f) = &app.overlay else {
        panic!()
    };
    let err = f.error.clone().expect("estimate reports the error");
    assert_eq!(err.reason, "InvalidInput");
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    assert!(
        matches!(app.overlay, Overlay::Form(_)),
        "the form stays open"
    );
    let toast = app.toast.clone().unwrap();
    assert!(toast.error);
    assert!(
        toast
            .text
            .starts_with("timer_schedule failed: InvalidInput"),
        "{toast:?}"
    );
    assert_eq!(src.chain().engine().queue().len(), before);
    let s = screen(&app);
    assert!(
        s.contains("InvalidInput: height 10 is not in the future"),
        "{s}"
    );
}

#[test]
fn cancel_and_extend_keys_act_on_the_selected_timer() {
    let mut src = demo_at(27);
    let mut app = app_on(&mut src);
    // Bucket #29 holds the oracle's timer; enter it and cancel.
    press(&mut src, &mut app, &[key('j'), key('l')]);
    let t = app.data.bucket_timers[0].clone();
    assert_eq!(app.data.label(&t.actor), "oracle");
    press(&mut src, &mut app, &[key('e')]);
    let Overlay::Prompt(p) = &app.overlay else {
        panic!("e opens a prompt")
    };
    // CIP-5 clamps an extension to the TTL cap from the block it lands in: the prompt
    // prefills a value the cap allows (issue 34, item 4).
    let cap = src.chain().pending_height() + src.chain().timer_config().max_ttl_blocks;
    let want = (t.expires_at + 100).min(cap);
    assert_eq!(p.input, want.to_string());
    assert!(want > t.expires_at);
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    assert_eq!(src.chain().timer(&t.id).unwrap().expires_at, want);
    assert_eq!(
        app.toast.as_ref().unwrap().text,
        format!(
            "extended timer {}: it now expires at #{want} (its fire height is unchanged)",
            t.id.short()
        )
    );
    // Issue 23: the cancel asks first, naming the timer, with Cancel focused; `y` accepts.
    press(&mut src, &mut app, &[key('l'), key('c')]);
    let Overlay::Confirm(c) = &app.overlay else {
        panic!("c asks for confirmation: {:?}", app.overlay)
    };
    assert!(!c.yes_focused);
    assert!(
        c.lines.iter().any(|l| l.contains(&t.id.to_string())),
        "{c:?}"
    );
    assert!(
        src.chain().timer(&t.id).is_some(),
        "nothing sent before the yes"
    );
    press(&mut src, &mut app, &[key('y')]);
    assert!(src.chain().timer(&t.id).is_none(), "cancelled");
    let toast = app.toast.clone().unwrap();
    assert_eq!(toast.text, format!("cancelled timer {}", t.id.short()));
    press(&mut src, &mut app, &[key(' ')]);
    assert!(
        app.feed
            .iter()
            .any(|e| e.kind == "TimerCancelled" && e.timer == Some(t.id))
    );
    // Nothing selected: the key says so instead of sending anything.
    app.focus = Pane::Lane;
    let h = src.chain().height();
    press(&mut src, &mut app, &[key('c')]);
    assert!(app.toast.as_ref().unwrap().error);
    assert_eq!(src.chain().height(), h);
}

#[test]
fn node_errors_are_shown_in_place() {
    let mut src = demo_at(27);
    let mut app = app_on(&mut src);
    press(&mut src, &mut app, &[key('R')]);
    press(&mut src, &mut app, &typed("99"));
    // Refused before any confirmation (issue 34, item 13): no `y` is asked for.
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    let toast = app.toast.clone().unwrap();
    assert!(toast.error);
    assert_eq!(
        toast.text,
        "UnknownSnapshot: no snapshot 99; the node keeps none (S takes one)"
    );
    assert!(screen(&app).contains("UnknownSnapshot: no snapshot 99"));
    // The prompt stays open with its input after the refusal (issue 23).
    assert!(matches!(&app.overlay, Overlay::Prompt(p) if p.input == "99"));
    press(&mut src, &mut app, &[code(KeyCode::Esc)]);

    // Governance from the governor: a config change; an activation height is refused by name.
    press(&mut src, &mut app, &[key('g')]);
    press(
        &mut src,
        &mut app,
        &typed("config gc_cycles_per_block=50000"),
    );
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    assert!(!app.toast.as_ref().unwrap().error, "{:?}", app.toast);
    press(&mut src, &mut app, &[key(' ')]);
    assert_eq!(src.chain().timer_config().gc_cycles_per_block, 50_000);
    // The activation height (`gov_setActivationHeight`'s node request): a height already
    // passed is refused by name and changes nothing; a coming one is set and shown.
    press(&mut src, &mut app, &[key('g')]);
    press(&mut src, &mut app, &typed("activate 5"));
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    let t = app.toast.clone().unwrap();
    assert!(t.error && t.text.contains("InvalidInput"), "{t:?}");
    assert_eq!(src.chain().activation_height(), None);
    press(&mut src, &mut app, &[code(KeyCode::Esc)]);
    press(&mut src, &mut app, &[key('g')]);
    press(&mut src, &mut app, &typed("activate 100"));
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    let t = app.toast.clone().unwrap();
    assert!(!t.error, "{t:?}");
    assert_eq!(t.text, "governance set the activation height to #100");
    assert_eq!(src.chain().activation_height(), Some(100));
    assert_eq!(
        app.data.status.as_ref().unwrap().activation_height,
        Some(100)
    );
    assert!(screen(&app).contains("fifo (eip1559 at #100)"));
}

/// Issue 23 ("`R` asks for a snapshot id blindly: list the snapshots"): `R` lists the devnet's
/// snapshots with the height each was taken at, those taken elsewhere (a script) included, and
/// ↑/↓ choose among them.
#[test]
fn revert_lists_the_devnets_snapshots_with_their_heights() {
    let mut src = demo_at(27);
    // Taken by a script, not by this dashboard.
    src.execute(UiCommand::Snapshot).unwrap();
    src.execute(UiCommand::Mine(5)).unwrap();
    src.execute(UiCommand::Snapshot).unwrap();
    src.execute(UiCommand::Mine(3)).unwrap();
    let mut app = app_on(&mut src);
    assert!(app.snapshots.is_empty());
    press(&mut src, &mut app, &[key('R')]);
    let Overlay::Prompt(p) = &app.overlay else {
        panic!("R opens the revert prompt");
    };
    assert_eq!(p.input, "2", "the newest is offered first");
    assert!(
        p.help.contains("2 at #32 (3 back), 1 at #27 (8 back)"),
        "{}",
        p.help
    );
    // The list is newest first: ↓ goes to the older one (issue 34, item 13).
    press(&mut src, &mut app, &[code(KeyCode::Down)]);
    assert!(matches!(&app.overlay, Overlay::Prompt(p) if p.input == "1"));
    press(&mut src, &mut app, &[code(KeyCode::Enter), key('y')]);
    assert_eq!(src.chain().height(), 27);
}

#[test]
fn snapshot_and_revert_keys_go_back() {
    let mut src = demo_at(27);
    let mut app = app_on(&mut src);
    press(&mut src, &mut app, &[key('S')]);
    assert_eq!(app.snapshots, vec![1]);
    press(&mut src, &mut app, &[key('N')]);
    assert_eq!(src.chain().height(), 37);
    press(&mut src, &mut app, &[key('R'), code(KeyCode::Enter)]);
    assert_eq!(src.chain().height(), 37, "a revert asks first");
    press(&mut src, &mut app, &[key('y')]);
    assert_eq!(src.chain().height(), 27);
    assert_eq!(app.height(), 27);
    assert!(
        app.feed.iter().all(|e| e.height <= 27),
        "the feed restarted"
    );
    assert!(
        app.toast
            .as_ref()
            .unwrap()
            .text
            .contains("reverted to snapshot 1")
    );
}

#[test]
fn filter_and_pause_the_feed() {
    let mut src = demo_at(32);
    let mut app = app_on(&mut src);
    press(&mut src, &mut app, &typed("/kind:deferred"));
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    let shown = app.visible_events(50);
    assert_eq!(shown.len(), 2);
    assert!(shown.iter().all(|e| e.kind == "TimerDeferred"));
    let s = screen(&app);
    assert!(s.contains("filter /kind:deferred"));
    assert!(!s.contains("TimerFired "), "{s}");
    // An actor by name.
    press(&mut src, &mut app, &typed("/"));
    press(&mut src, &mut app, &[code(KeyCode::Esc)]);
    press(&mut src, &mut app, &typed("/heartbeat fired"));
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    let shown = app.visible_events(100);
    assert!(!shown.is_empty());
    assert!(shown.iter().all(
        |e| e.kind == "TimerFired" && app.data.label(e.actor.as_ref().unwrap()) == "heartbeat"
    ));

    // Paused, new events wait; resumed, they appear.
    press(&mut src, &mut app, &[key('f')]);
    let kept = app.feed.len();
    press(&mut src, &mut app, &[key('N')]);
    assert_eq!(app.feed.len(), kept);
    assert!(!app.held.is_empty());
    assert!(screen(&app).contains("PAUSED"));
    press(&mut src, &mut app, &[key('f')]);
    assert!(app.feed.len() > kept);
    assert!(app.held.is_empty());
}

#[test]
fn the_key_table_drives_keys_hints_and_help() {
    let keys = KeyMap::with_overrides("[keys]\nstep = [\"x\"]\n").unwrap();
    let mut src = demo_at(5);
    let mut app = App::new(keys);
    refresh(&mut src, &mut app);
    press(&mut src, &mut app, &[key(' ')]);
    assert_eq!(src.chain().height(), 5, "space no longer steps");
    press(&mut src, &mut app, &[key('x')]);
    assert_eq!(src.chain().height(), 6);
    app.toast = None;
    let s = screen(&app);
    assert!(s.contains(" x step "), "hint bar from the table\n{s}");
    press(&mut src, &mut app, &[key('?')]);
    let s = screen(&app);
    assert!(s.contains("x             mine one block"), "{s}");
    // The help scrolls (issue 23): every binding is in its text.
    let text: String = panes::modal::help_lines(&app, &Theme::default())
        .iter()
        .map(|l| l.to_string() + "\n")
        .collect();
    for b in app.keys.bindings() {
        assert!(text.contains(b.help), "help lists `{}`", b.help);
    }
    press(&mut src, &mut app, &[key('q')]);
    assert!(app.quit, "q quits from the help overlay too");
    let mut app = App::new(KeyMap::default());
    handle_key(
        &mut src,
        &mut app,
        KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL),
    );
    assert!(app.quit);
}

#[test]
fn tiers_show_the_epoch_and_overflow_tiers() {
    let mut src = demo_at(5);
    let mut app = app_on(&mut src);
    // Beyond the ring (2 x 3,600 heights) and beyond the epoch queue (24 epochs).
    press(&mut src, &mut app, &[key('s')]);
    press(
        &mut src,
        &mut app,
        &[code(KeyCode::Backspace), code(KeyCode::Backspace)],
    );
    press(&mut src, &mut app, &typed("20000"));
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    assert!(!app.toast.as_ref().unwrap().error, "{:?}", app.toast);
    press(&mut src, &mut app, &[key('s')]);
    press(
        &mut src,
        &mut app,
        &[code(KeyCode::Backspace), code(KeyCode::Backspace)],
    );
    press(&mut src, &mut app, &typed("200000"));
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    assert!(!app.toast.as_ref().unwrap().error, "{:?}", app.toast);
    // The overflow root shown is the committed one: mine the block that scheduled them.
    press(&mut src, &mut app, &[key('n')]);
    let t = &app.data.tiers;
    assert!(
        t.overflow_root.is_some_and(|r| r != Default::default()),
        "committed at the seal"
    );
    assert_eq!(t.epoch_total, 1);
    assert_eq!(t.overflow_size, 1);
    assert_eq!(t.overflow_epochs, vec![(198_000, 1)]);
    assert_snapshot!(
        "pane_tiers_epoch_overflow",
        draw_pane(panes::tiers::render, &app, 100, 9)
    );
}

#[test]
fn governance_and_feed_selection_keys() {
    let mut src = demo_at(27);
    let mut app = app_on(&mut src);
    // Governance cancel (system instruction 48) of the selected bucket timer, by the governor.
    press(&mut src, &mut app, &[key('j'), key('l'), key('g')]);
    let t = app.data.bucket_timers[0].clone();
    press(&mut src, &mut app, &typed("cancel"));
    press(
        &mut src,
        &mut app,
        &[code(KeyCode::Enter), key('y'), key(' ')],
    );
    assert!(src.chain().timer(&t.id).is_none());
    assert!(
        app.feed
            .iter()
            .any(|e| e.kind == "TimerCancelledByGovernance" && e.timer == Some(t.id))
    );
    let life = src.timer_life(&t.id).unwrap();
    assert_eq!(life.status, "cancelled_by_governance");
    assert_eq!(
        life.timeline.last().unwrap().reason,
        "system instruction 48"
    );
    assert!(src.timer_life(&TimerId([7; 32])).is_none());
    // In the feed, Up selects older events and Enter opens the selected one's timer.
    app.focus = Pane::Events;
    press(&mut src, &mut app, &typed("/kind:scheduled"));
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    let newest_two: Vec<TimerId> = app
        .visible_events(2)
        .iter()
        .map(|e| e.timer.unwrap())
        .collect();
    // Issue 23: the first Up selects the newest event (nothing is selected before it).
    press(
        &mut src,
        &mut app,
        &[key('k'), key('k'), code(KeyCode::Enter)],
    );
    let Overlay::Life(l) = &app.overlay else {
        panic!("{:?}", app.overlay)
    };
    assert_eq!(l.id, newest_two[0], "one up from the newest");
    // A form field clears with Ctrl-U.
    press(&mut src, &mut app, &[code(KeyCode::Esc), key('s')]);
    press(
        &mut src,
        &mut app,
        &[KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)],
    );
    press(&mut src, &mut app, &typed("40"));
    let Overlay::Form(f) = &app.overlay else {
        panic!()
    };
    assert_eq!(f.values[1], "40");
}

#[test]
fn dashboard_queries_change_no_state_root() {
    // The view folds the overflow commitment early; the roots must not notice.
    let mut watched = demo_at(20);
    let mut plain = demo_at(20);
    let mut app = app_on(&mut watched);
    for _ in 0..15 {
        press(&mut watched, &mut app, &[key(' ')]);
        let _ = watched.dashboard(&app.query());
        plain.execute(UiCommand::Mine(1)).unwrap();
    }
    assert_eq!(watched.chain().height(), 35);
    assert_eq!(watched.chain().head(), plain.chain().head());
}

#[test]
fn snapshot_lane_after_the_outage() {
    // The demo halts at 50 for 20 heights; at 71 the throttled GC lane clears expired timers
    // (10 a block) and the backlog is deferred.
    let mut src = demo_at(75);
    let app = app_on(&mut src);
    let at71 = app.data.lane.iter().find(|r| r.height == 71).unwrap();
    assert_eq!(at71.gc_cycles, 50_000);
    assert!(at71.deferred >= 20);
    assert_snapshot!(
        "pane_lane_after_outage",
        draw_pane(panes::lane::render, &app, 90, 16)
    );
}

#[test]
fn a_selected_event_stays_selected_as_new_events_arrive() {
    let mut src = demo_at(27);
    let mut app = app_on(&mut src);
    app.focus = Pane::Events;
    press(&mut src, &mut app, &[key('k'), key('k')]);
    let before = app.selected_event().cloned().unwrap();
    press(&mut src, &mut app, &[key('N')]);
    assert!(app.feed.len() > 60, "ten blocks brought events");
    assert_eq!(app.selected_event(), Some(&before));
}

#[test]
fn cip5_6_2_buckets_and_estimates_use_the_fire_budget_under_a_lowered_cap() {
    use cowboy_devnet::tui::model::{CommandOutcome, ScheduleRequest};
    let mut src = demo_at(27);
    let mut app = app_on(&mut src);
    let at30 = |app: &App| {
        app.data
            .buckets
            .iter()
            .find(|b| b.height == 30)
            .cloned()
            .unwrap()
    };
    assert_eq!((at30(&app).gas, at30(&app).fits_lane), (2_750_000, false));
    // Governance lowers the cap to 100,000 (in force from block 29): the five 550,000-cycle
    // timers at 30 then fire with 100,000 each (Spec note 16), and all fit the lane.
    press(&mut src, &mut app, &[key('g')]);
    press(
        &mut src,
        &mut app,
        &typed("config max_cycles_per_fire=100000"),
    );
    press(&mut src, &mut app, &[code(KeyCode::Enter), key(' ')]);
    assert_eq!(src.chain().timer_config().max_cycles_per_fire, 100_000);
    let b = at30(&app);
    assert_eq!((b.count, b.gas, b.fits_lane), (5, 500_000, true));
    // The bucket's timers show the budget they fire with and the max cost charged on it (at
    // 28 the buckets start at #29: #30 is the second).
    press(&mut src, &mut app, &[key('j'), key('l')]);
    assert_eq!(app.data.buckets[app.bucket_sel].height, 30);
    let quote = src.chain().fee_quote();
    let cells = src.chain().timer_config().max_cells_per_fire;
    let want_cost = cowboy_devnet::engine::eob::max_cost(100_000, cells, &quote, 0);
    assert_eq!(app.data.bucket_timers.len(), 5);
    for t in &app.data.bucket_timers {
        assert_eq!((t.gas_limit, t.max_cost), (100_000, want_cost), "{t:?}");
    }
    // A sixth timer at 30 fits beside them.
    let crowd = src
        .chain()
        .actors()
        .keys()
        .copied()
        .find(|a| app.data.label(a) == "crowd")
        .unwrap();
    let req = ScheduleRequest {
        actor: crowd,
        height: 30,
        ..Default::default()
    };
    let Ok(CommandOutcome::Estimated(e)) = src.execute(UiCommand::EstimateTimer(req)) else {
        panic!("an estimate")
    };
    assert_eq!(e.fire_height, 30, "{e:?}");
    // What the pane said is what happened: all five fire at 30, none is deferred.
    press(&mut src, &mut app, &[key(' '), key(' '), key(' ')]);
    let row = app.data.lane.iter().find(|r| r.height == 30).unwrap();
    assert_eq!((row.fired, row.deferred), (5, 0), "{row:?}");
}

#[test]
fn cip5_6_5_a_deferral_shows_in_the_block_that_made_it() {
    // At 30 the lane takes three of the five crowd timers; the two others are deferred. Their
    // `TimerDeferred` events are recorded by block 30 itself (Spec note 71, issue 23), and
    // fairness and the timer's life count each deferral once.
    let mut src = demo_at(30);
    let mut app = app_on(&mut src);
    let recorded: Vec<_> = app
        .feed
        .iter()
        .filter(|e| e.kind == "TimerDeferred")
        .collect();
    assert_eq!(recorded.len(), 2);
    assert!(recorded.iter().all(|e| e.height == 30));
    let at30 = app.data.lane.iter().find(|r| r.height == 30).unwrap();
    assert_eq!(at30.deferred, 2);
    let crowd = |app: &App| {
        app.data
            .fairness
            .iter()
            .find(|r| app.data.label(&r.actor) == "crowd")
            .cloned()
            .unwrap()
    };
    assert_eq!(crowd(&app).deferrals, 2);
    let carried = src
        .chain()
        .block(30)
        .unwrap()
        .events
        .iter()
        .find_map(|r| match &r.event {
            cowboy_devnet::chain::Event::Timer(
                cowboy_devnet::engine::TimerEvent::TimerDeferred { timer_id, .. },
            ) => Some(*timer_id),
            _ => None,
        })
        .unwrap();
    let life = src.timer_life(&carried).unwrap();
    assert_eq!(life.status, "pending");
    assert_eq!(life.deferrals, 1);
    let last = life.timeline.last().unwrap();
    assert_eq!(
        (last.height, last.what.as_str(), last.reason.as_str()),
        (
            30,
            "TimerDeferred",
            "lane: carried to the next block (carried 1 block)"
        )
    );

    // Block 31 records no second event for the same deferral; nothing is counted twice.
    press(&mut src, &mut app, &[key(' ')]);
    let recorded = app
        .feed
        .iter()
        .filter(|e| e.kind == "TimerDeferred")
        .count();
    assert_eq!(recorded, 2);
    assert_eq!(crowd(&app).deferrals, 2);
    let life = src.timer_life(&carried).unwrap();
    assert_eq!(life.deferrals, 1);
}

/// Issue 15 ("Rendering never waits on block production"): with the node's thread held busy
/// (a query that waits for the test, standing for a long `Mine` or a slow block), the UI still
/// takes keys and draws; the step it sent waits in the worker and shows once the node is free.
#[test]
fn issue15_the_ui_answers_keys_and_draws_while_the_node_is_busy() {
    use cowboy_devnet::chain::Genesis;
    use cowboy_devnet::node::{self, NodeConfig, NodeCore};
    use cowboy_devnet::tui::worker::Client;
    use std::time::Duration;

    let mut cfg = NodeConfig::new(Genesis::default(), DevnetRuntime::shared());
    cfg.mining = node::MiningMode::Manual;
    let handle = node::spawn(NodeCore::new(cfg).expect("genesis"));
    let source = LocalDevnet::live(handle.clone());
    // Hold the node's thread until the test lets it go.
    let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
    let (started_tx, started_rx) = std::sync::mpsc::channel::<()>();
    let busy = handle.clone();
    let held = std::thread::spawn(move || {
        busy.query_blocking(move |_| {
            let _ = started_tx.send(());
            go_rx.recv().ok();
        })
    });
    started_rx.recv().unwrap();

    let mut app = App::new(KeyMap::default());
    let mut client = Client::spawn(source, Duration::from_millis(10));
    client.refresh(&app);
    client.handle_key(&mut app, key('n'));
    client.handle_key(&mut app, code(KeyCode::Tab));
    client.handle_key(&mut app, key('?'));
    assert_eq!(app.focus, Pane::Tiers);
    assert_eq!(app.overlay, Overlay::Help);
    assert_eq!(app.waiting, ["devnet_mine"]);
    client.handle_key(&mut app, code(KeyCode::Esc));
    let s = screen(&app);
    assert!(s.contains("waiting: devnet_mine"), "{s}");
    // Nothing can have come back: the node has not answered anything yet.
    assert!(!client.pump(&mut app));
    assert!(app.data.status.is_none());

    go_tx.send(()).unwrap();
    held.join().unwrap().unwrap();
    for _ in 0..600 {
        if app.height() == 1 && app.waiting.is_empty() {
            break;
        }
        client.wait(&mut app, Duration::from_millis(100));
    }
    assert_eq!(app.height(), 1);
    assert!(app.waiting.is_empty());
    assert!(!screen(&app).contains("waiting:"));
    handle.shutdown();
}

/// Issue 15 ("a panic in any task included"): a panic on another thread while the dashboard
/// holds the terminal restores it from the panic hook and is recorded, so the dashboard's loop
/// stops instead of drawing on the restored screen.
#[test]
fn issue15_a_panic_on_another_thread_restores_the_terminal_and_stops_the_ui() {
    use cowboy_devnet::tui::term;
    assert_eq!(term::panicked(), None);
    term::test_hook_mark_active();
    let r = std::thread::Builder::new()
        .name("rpc-task".into())
        .spawn(|| panic!("boom in a server task"))
        .unwrap()
        .join();
    assert!(r.is_err());
    let what = term::panicked().expect("the panic is recorded");
    assert!(what.contains("rpc-task") && what.contains("boom"), "{what}");
    // Restored already: a second restore has nothing to do.
    assert!(!term::restore());
}

/// Issue 15 (the RPC address was cut off below 130 columns): the status bar shows every part
/// in full when it fits, else in short (no `http://`, basefees as `cycle/cell/lane`), else it
/// drops the least important parts first; the height and the RPC address stay at 100 and 80
/// columns, and so do the link's state and what is awaited.
#[test]
fn issue15_status_bar_degrades_by_priority_at_100_and_80_columns() {
    let mut src = demo_at(27)
        .with_mining(MiningMode::Interval { ms: 1_000 })
        .with_rpc_address("http://127.0.0.1:8645");
    let mut app = app_on(&mut src);
    let line = |app: &App, w: u16| draw_pane(panes::status::render, app, w, 1);
    for w in [160, 130, 100, 80] {
        let l = line(&app, w);
        assert!(l.contains("# 27"), "{w}: {l}");
        assert!(l.contains("127.0.0.1:8645"), "{w}: {l}");
    }
    assert!(line(&app, 160).contains("rpc http://127.0.0.1:8645"));
    assert_snapshot!("status_160", line(&app, 160));
    assert_snapshot!("status_100", line(&app, 100));
    assert_snapshot!("status_80", line(&app, 80));
    assert_snapshot!(
        "full_100x30_h27",
        text(&draw(&app, &Theme::default(), 100, 30))
    );
    assert_snapshot!(
        "full_80x24_h27",
        text(&draw(&app, &Theme::default(), 80, 24))
    );

    // Disconnected with a command in flight: both stay visible at 80 columns, the detail in
    // the hint line.
    app.link = Some("disconnected, retrying (http://127.0.0.1:8645: connection refused)".into());
    app.waiting = vec!["devnet_mine"];
    let l = line(&app, 80);
    assert!(l.contains("# 27"), "{l}");
    assert!(l.contains("disconnected, retrying"), "{l}");
    assert!(l.contains("waiting: devnet_mine"), "{l}");
    assert_snapshot!("status_80_disconnected", l);
    let hints = draw_pane(panes::status::render_hints, &app, 100, 1);
    assert!(hints.contains("connection refused"), "{hints}");
}

/// Issue 15 (README: the key table must be current): the README's key table is the default
/// key table, row for row (keys as the hint line writes them, the help overlay's words).
#[test]
fn issue15_readme_key_table_is_the_default_key_table() {
    let mut rows = vec!["| keys | action |".to_string(), "| --- | --- |".to_string()];
    for b in KeyMap::default().bindings() {
        let keys: Vec<String> = b.keys.iter().map(|k| format!("`{}`", k.label())).collect();
        rows.push(format!("| {} | {} |", keys.join(" "), b.help));
    }
    let expected = rows.join("\n");
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let start = readme
        .find("<!-- keys -->")
        .expect("the key table's start marker")
        + 13;
    let end = readme
        .find("<!-- /keys -->")
        .expect("the key table's end marker");
    assert_eq!(
        readme[start..end].trim(),
        expected,
        "the README's key table differs from tui/keys.rs; it should read:\n{expected}"
    );
}

// ---- CIP-1 v3 panes and keys ------------------------------------------------------------------

/// The foreground colour of the cell at `(x, y)`.
fn fg_at(b: &Buffer, x: u16, y: u16) -> Option<Color> {
    b.cell((x, y)).map(|c| c.fg)
}

#[test]
fn cip1_v3_5_lane_pane_shows_the_lane_basefee_in_base_units_under_eip1559() {
    let mut src = fixture_at("congestion", 20);
    let app = app_on(&mut src);
    let last = src.chain().block(20).unwrap().lane.clone();
    assert_eq!(last.scheduler.to_string(), "eip1559");
    let row = app.data.lane.last().unwrap();
    assert_eq!((row.height, row.basefee), (20, last.basefee));
    assert_eq!(row.p50_tip, Some(last.p50_tip));
    // The basefee climbed above the start (1 base unit) under 75 % use.
    assert!(last.basefee > 1_000_000_000, "{last:?}");
    let pane = draw_pane(panes::lane::render, &app, 110, 18);
    assert!(pane.contains("lane · eip1559 since #1"), "{pane}");
    assert!(
        pane.contains(&format!(
            "lane basefee {} per cycle",
            fmt_nanos(last.basefee)
        )),
        "{pane}"
    );
    assert!(pane.contains("target 50%"), "{pane}");
    insta::assert_snapshot!("pane_lane_eip1559_congestion_h20", pane);
    // The status bar shows the next lane basefee in base units too.
    let next = fmt_nanos(src.chain().lane_basefee());
    assert!(
        screen(&app).contains(&format!("lane {next}")),
        "{}",
        screen(&app)
    );
}

#[test]
fn cip1_v3_5_lane_pane_marks_where_the_policy_switched() {
    let mut src = demo_at(27);
    let mut app = app_on(&mut src);
    press(&mut src, &mut app, &[key('g')]);
    press(&mut src, &mut app, &typed("activate 30"));
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    assert!(!app.toast.as_ref().unwrap().error, "{:?}", app.toast);
    for _ in 0..5 {
        press(&mut src, &mut app, &[key(' ')]);
    }
    let kinds: Vec<(u64, &str)> = app
        .data
        .lane
        .iter()
        .map(|r| (r.height, r.scheduler.as_str()))
        .filter(|(h, _)| (29..=31).contains(h))
        .collect();
    assert_eq!(kinds, [(29, "fifo"), (30, "eip1559"), (31, "eip1559")]);
    assert!(
        app.feed
            .iter()
            .any(|e| e.kind == "SchedulerActivated" && e.height == 30),
        "the feed shows the activation"
    );
    let b = {
        let mut t = Terminal::new(TestBackend::new(110, 18)).unwrap();
        t.draw(|f| panes::lane::render(f, f.area(), &app, &Theme::default()))
            .unwrap();
        t.backend().buffer().clone()
    };
    let s = text(&b);
    assert!(s.contains("eip1559 since #30"), "{s}");
    // The marker is drawn in the warn colour.
    let warn = Theme::default().get("warn").fg;
    let marked = (0..b.area.height)
        .flat_map(|y| (0..b.area.width).map(move |x| (x, y)))
        .any(|(x, y)| b.cell((x, y)).unwrap().symbol() == "•" && fg_at(&b, x, y) == warn);
    assert!(marked, "a marker where the scheduler switched:\n{s}");
}

#[test]
fn cip1_v3_8_fairness_pane_shows_w_the_window_and_its_median() {
    let mut src = fixture_at("fairness", 30);
    let app = app_on(&mut src);
    let f = src.chain().fairness();
    assert_eq!(
        app.data.fairness_window,
        Some((f.window_blocks(), f.median()))
    );
    for r in f.rows() {
        let row = app
            .data
            .fairness
            .iter()
            .find(|x| x.actor == r.actor)
            .unwrap();
        assert_eq!(
            (row.fires, row.deferrals, row.w_bps),
            (r.recent_fires, r.recent_deferrals, Some(r.weight_bps))
        );
    }
    let pane = draw_pane(panes::fairness::render, &app, 90, 10);
    assert!(
        pane.contains(&format!(
            "eip1559 W(actor) · window {} blocks · median fires {}",
            f.window_blocks(),
            f.median()
        )),
        "{pane}"
    );
    insta::assert_snapshot!("pane_fairness_eip1559_fairness_h30", pane);
}

#[test]
fn cip1_v3_3_a_bucket_lists_its_timers_in_eip1559_execution_order() {
    let mut src = fixture_at("congestion", 20);
    let h = src.chain().height() + 1;
    let d = src.dashboard(&ViewQuery {
        selected_bucket: Some(h),
        ..ViewQuery::default()
    });
    let rows = &d.bucket_timers;
    assert!(rows.len() >= 2, "{rows:?}");
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r.rank, Some(i as u64 + 1), "{r:?}");
    }
    for w in rows.windows(2) {
        let (a, b) = (
            w[0].effective_priority.unwrap(),
            w[1].effective_priority.unwrap(),
        );
        assert!(a > b || (a == b && w[0].id < w[1].id), "{rows:?}");
    }
}

#[test]
fn cip1_v3_6_the_schedule_form_sends_fee_caps_and_tier_and_shows_the_auction() {
    let mut src = fixture_at("congestion", 20);
    let mut app = app_on(&mut src);
    press(&mut src, &mut app, &[key('s')]);
    // From "height or +delay" to max_fee_per_cycle: seven fields on (past the label).
    press(&mut src, &mut app, &[code(KeyCode::Tab); 7]);
    press(&mut src, &mut app, &typed("9000000000"));
    press(&mut src, &mut app, &[code(KeyCode::Tab)]);
    press(&mut src, &mut app, &typed("2_000_000_000"));
    press(&mut src, &mut app, &[code(KeyCode::Tab)]);
    // A tip and a tier both: the node names the conflict (the tier sets the tip, §7.3).
    press(&mut src, &mut app, &typed("fast"));
    let Overlay::Form(f) = &app.overlay else {
        panic!("the form is open")
    };
    let err = f.error.clone().expect("the estimate names the conflict");
    assert_eq!(err.reason, "InvalidInput", "{err}");
    assert!(err.message.contains("not both"), "{err}");
    press(&mut src, &mut app, &[code(KeyCode::BackTab)]);
    for _ in 0..13 {
        press(&mut src, &mut app, &[code(KeyCode::Backspace)]);
    }
    press(&mut src, &mut app, &[code(KeyCode::Tab)]);
    for _ in 0..4 {
        press(&mut src, &mut app, &[code(KeyCode::Backspace)]);
    }
    press(&mut src, &mut app, &typed("turbo"));
    let Overlay::Form(f) = &app.overlay else {
        panic!("the form is open")
    };
    let err = f.error.clone().expect("a bad tier is named");
    assert_eq!(err.reason, "InvalidInput");
    assert!(err.message.contains("priority_tier `turbo`"), "{err}");
    for _ in 0..5 {
        press(&mut src, &mut app, &[code(KeyCode::Backspace)]);
    }
    press(&mut src, &mut app, &typed("fast"));
    let Overlay::Form(f) = &app.overlay else {
        panic!("the form is open")
    };
    assert!(f.error.is_none(), "{:?}", f.error);
    let a = f
        .estimate
        .as_ref()
        .and_then(|e| e.auction.as_deref().cloned())
        .expect("timer_estimate's auction standing");
    assert_eq!(a.scheduler.to_string(), "eip1559");
    assert!(a.rank >= 1 && a.would_be_selected, "{a:?}");
    assert!(
        screen(&app).contains("auction: eip1559: rank"),
        "{}",
        screen(&app)
    );
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    let toast = app.toast.clone().unwrap();
    assert!(!toast.error, "{toast:?}");
    let short = toast.text.split_whitespace().nth(2).unwrap().to_string();
    let t = src
        .chain()
        .engine()
        .queue()
        .pending()
        .into_iter()
        .find(|t| t.timer_id.short() == short)
        .expect("pending")
        .clone();
    let caps = t.fee_caps.as_deref().expect("fee caps recorded");
    assert_eq!(caps.max_fee_per_cycle, Some(9_000_000_000));
    assert_eq!(caps.max_priority_fee_per_cycle, None);
    assert_eq!(caps.priority_tier.map(|p| p.as_str()), Some("fast"));
    // A max fee below the lane basefee is refused by name, nothing scheduled.
    let before = src.chain().engine().queue().len();
    press(&mut src, &mut app, &[key('s')]);
    press(&mut src, &mut app, &[code(KeyCode::Tab); 7]);
    press(&mut src, &mut app, &typed("1"));
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    let toast = app.toast.clone().unwrap();
    assert!(toast.error, "{toast:?}");
    assert!(
        toast.text.starts_with("timer_schedule failed: "),
        "{toast:?}"
    );
    assert_eq!(src.chain().engine().queue().len(), before);
}

#[test]
fn cip1_v3_6_the_feed_and_a_timers_life_read_a_clamped_tip_in_base_units() {
    use cowboy_devnet::tui::model::{CommandOutcome, ScheduleRequest};
    let mut src = fixture_at("congestion", 20);
    let mut app = app_on(&mut src);
    let actor = app.data.actors[0];
    let basefee = src.chain().lane_basefee();
    // A tip above `max_fee − lane basefee` is clamped at schedule (§6).
    let req = ScheduleRequest {
        actor,
        height: 40,
        max_fee_per_cycle: Some(basefee + 500_000_000),
        max_priority_fee_per_cycle: Some(3_000_000_000),
        ..Default::default()
    };
    let Ok(CommandOutcome::Scheduled { timer_id, .. }) = src.execute(UiCommand::ScheduleTimer(req))
    else {
        panic!("scheduled")
    };
    press(&mut src, &mut app, &[key(' ')]);
    let row = app
        .feed
        .iter()
        .find(|e| e.kind == "TimerPriorityClampedAtSchedule" && e.timer == Some(timer_id))
        .expect("the feed shows the clamp");
    assert!(
        row.fields.contains("stated=3/cycle") && row.fields.contains("clamped=0.5/cycle"),
        "{row:?}"
    );
    let life = src.timer_life(&timer_id).unwrap();
    let step = life
        .timeline
        .iter()
        .find(|e| e.what == "TimerPriorityClampedAtSchedule")
        .expect("in its life");
    assert_eq!(
        step.reason,
        "priority 3 clamped to 0.5 per cycle (max fee − lane basefee)"
    );
}

/// Issue 31 (a 100,000-timer backlog at height 10,000 and more, seen at 80x24): the list of
/// heights never cuts a height or a header. Where its usual columns do not fit beside the
/// bucket's timers, each column is as wide as its values and the rightmost are left out
/// (`fits` first: the over-lane colour still marks such a bucket).
#[test]
fn issue31_the_bucket_list_never_cuts_a_height_at_80_columns() {
    let mut src = demo_at(27);
    let mut app = app_on(&mut src);
    for (i, b) in app.data.buckets.iter_mut().enumerate() {
        b.height = 10_053 + i as u64;
        b.count = 99_928;
    }
    // The buckets pane at 80 columns is 42 wide.
    let narrow = draw_pane(panes::buckets::render, &app, 42, 8);
    assert!(narrow.contains("#10053 "), "{narrow}");
    assert!(narrow.contains("99928"), "{narrow}");
    assert!(narrow.contains("height timers"), "{narrow}");
    assert!(!narrow.contains("fits"), "{narrow}");
    assert!(narrow.contains(" bucket #"), "{narrow}");
    // With room, the usual columns.
    let wide = draw_pane(panes::buckets::render, &app, 70, 8);
    assert!(wide.contains("height   timers gas    fits"), "{wide}");
    assert!(wide.contains("#10053   99928"), "{wide}");
}
