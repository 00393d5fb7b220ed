//! Issue 23 ("the dashboard as an instrument you can trust, and a timer's life a newcomer can
//! follow"), on the app and its render (the tmux cases drive the real binary): ids named in a
//! prompt are resolved or refused, nothing is acted on implicitly, destructive commands ask
//! first, stale estimates are dropped, the watch strip, the story line, the log and the
//! confirmation as drawn (insta snapshots at 80x24).

mod common;

use common::keys::{code, key, press, screen_at, typed};
use cowboy_devnet::engine::TimerId;
use cowboy_devnet::tui::app::{Action, App, Confirmed, Effect, Overlay, Pane, update};
use cowboy_devnet::tui::keys::KeyMap;
use cowboy_devnet::tui::local::LocalDevnet;
use cowboy_devnet::tui::model::{CommandOutcome, DashboardSource, Estimate, UiCommand};
use cowboy_devnet::tui::story::StoryItem;
use cowboy_devnet::tui::{refresh, render};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use insta::assert_snapshot;

/// The shipped demo played headless up to block `height`, manual mining.
fn demo_at(height: u64) -> LocalDevnet {
    common::keys::fixture_at("demo", height)
}

fn app_on(src: &mut LocalDevnet) -> App {
    let mut app = App::new(KeyMap::default());
    refresh(src, &mut app);
    app
}

/// The live timers the feed saw scheduled, in id order.
fn pending(src: &LocalDevnet) -> Vec<TimerId> {
    let mut v: Vec<TimerId> = src
        .chain()
        .engine()
        .queue()
        .pending()
        .iter()
        .map(|t| t.timer_id)
        .collect();
    v.sort();
    v
}

/// Issue 23, "The governance prompt cancels a timer you did not name": the 8-hex short id
/// the panes show names that timer (not the selection), a prefix of no live timer is an
/// error naming it, and nothing falls back to the selection.
#[test]
fn issue23_a_governance_id_is_the_timer_it_names_or_an_error() {
    let mut src = demo_at(27);
    let mut app = app_on(&mut src);
    let live = pending(&src);
    assert!(live.len() >= 2, "{live:?}");
    // Select one timer (bucket list, into the first bucket), name another.
    press(&mut src, &mut app, &[key('j'), code(KeyCode::Enter)]);
    let selected = app.selected_timer().expect("selected").0;
    let named = *live.iter().find(|t| **t != selected).unwrap();

    press(&mut src, &mut app, &[key('g')]);
    press(&mut src, &mut app, &typed("cancel deadbeef"));
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    let Overlay::Prompt(p) = &app.overlay else {
        panic!("the prompt stays: {:?}", app.overlay)
    };
    let err = p.error.clone().unwrap();
    assert!(err.contains("`deadbeef`"), "{err}");
    assert_eq!(pending(&src), live, "nothing cancelled");

    press(&mut src, &mut app, &[code(KeyCode::Esc), key('g')]);
    press(
        &mut src,
        &mut app,
        &typed(&format!("cancel {}", named.short())),
    );
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    let Overlay::Confirm(c) = &app.overlay else {
        panic!("a governance cancel asks first: {:?}", app.overlay)
    };
    assert_eq!(
        c.action,
        Confirmed::Command(UiCommand::GovCancelTimer {
            from: None,
            timer_id: named
        })
    );
    assert!(!c.yes_focused, "the focus starts on Cancel");
    assert!(c.lines.iter().any(|l| l.contains(&named.to_string())));
    // Enter on the focused Cancel: back to the prompt, nothing sent.
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    assert!(matches!(app.overlay, Overlay::Prompt(_)));
    assert_eq!(pending(&src), live);
    press(
        &mut src,
        &mut app,
        &[code(KeyCode::Enter), key('y'), key(' ')],
    );
    assert!(src.chain().timer(&named).is_none(), "the named timer went");
    assert!(
        src.chain().timer(&selected).is_some(),
        "the selected one stays"
    );
}

/// Issue 23, "Implicit selection": `c` before a timer is selected asks for one; after a cancel
/// the selection does not jump to another timer.
#[test]
fn issue23_nothing_is_acted_on_implicitly() {
    let mut src = demo_at(27);
    let mut app = app_on(&mut src);
    let live = pending(&src);
    let effects = update(&mut app, Action::Key(key('c')));
    assert!(effects.is_empty());
    assert!(
        app.toast
            .as_ref()
            .unwrap()
            .text
            .contains("select a timer first")
    );
    assert_eq!(app.overlay, Overlay::None);
    assert!(
        app.selected_timer().is_none(),
        "a highlighted bucket selects no timer"
    );

    press(
        &mut src,
        &mut app,
        &[key('j'), code(KeyCode::Enter), key('c'), key('y')],
    );
    assert_eq!(pending(&src).len(), live.len() - 1);
    press(&mut src, &mut app, &[key(' ')]);
    assert!(
        app.selected_timer().is_none(),
        "no other timer took its place"
    );
    let effects = update(&mut app, Action::Key(key('e')));
    assert!(effects.is_empty());
    assert!(app.toast.as_ref().unwrap().error);
}

/// Issue 23: a reply to an estimate asked for older input is dropped, and an estimate of
/// invalid input shows only the error.
#[test]
fn issue23_a_late_estimate_for_older_input_is_dropped() {
    let mut src = demo_at(27);
    let mut app = app_on(&mut src);
    update(&mut app, Action::Key(key('s')));
    // Down to priority_tier (past the label field, Spec note 191).
    for _ in 0..9 {
        update(&mut app, Action::Key(code(KeyCode::Down)));
    }
    let mut sent = None;
    for k in typed("urgent") {
        for e in update(&mut app, Action::Key(k)) {
            if let Effect::Command(UiCommand::EstimateTimer(r)) = e {
                sent = Some(r);
            }
        }
    }
    let urgent = sent.expect("an estimate asked for the valid input");
    update(
        &mut app,
        Action::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)),
    );
    update(&mut app, Action::Key(key('5')));
    // The reply for `urgent` arrives after `5` was typed.
    let reply = Estimate {
        max_cost: 1,
        fire_height: 33,
        error: None,
        auction: None,
        funding: None,
    };
    update(
        &mut app,
        Action::Done(
            UiCommand::EstimateTimer(urgent),
            Ok(CommandOutcome::Estimated(reply)),
        ),
    );
    let Overlay::Form(f) = &app.overlay else {
        panic!()
    };
    assert_eq!(f.estimate, None, "the stale reply is dropped");
    let err = f.error.clone().expect("the error stays");
    assert!(err.message.contains("priority_tier `5`"), "{err}");
    let s = screen_at(&app, 120, 34);
    assert!(!s.contains("estimate: max cost"), "{s}");
    // No fee hint wraps onto the form's border at 120x34.
    assert!(s.contains("nanos/cycle; empty: 2 × lane basefee"), "{s}");
}

/// Issue 23: back from an outage, the errors it caused leave the status line.
#[test]
fn issue23_reattaching_clears_the_outage_errors() {
    let mut src = demo_at(5);
    let mut app = app_on(&mut src);
    app.set_link(Some("disconnected, retrying".into()));
    update(
        &mut app,
        Action::Done(
            UiCommand::Mine(1),
            Err(cowboy_devnet::tui::model::CommandError::new(
                "Disconnected",
                "no answer",
            )),
        ),
    );
    assert!(app.toast.as_ref().unwrap().text.contains("Disconnected"));
    app.set_link(None);
    assert_eq!(app.toast, None);
    assert!(app.log.iter().any(|e| e.text.contains("Disconnected")));
}

/// The confirmation a cancel asks for, at the minimum size.
#[test]
fn issue23_snapshot_cancel_confirmation_80x24() {
    let mut src = demo_at(27);
    let mut app = app_on(&mut src);
    press(
        &mut src,
        &mut app,
        &[key('j'), code(KeyCode::Enter), key('c')],
    );
    assert!(matches!(app.overlay, Overlay::Confirm(_)));
    assert_snapshot!("confirm_cancel_80x24", screen_at(&app, 80, 24));
}

/// The story line and the watch strip under the status bar, and the message log.
#[test]
fn issue23_snapshot_story_watch_and_log_80x24() {
    let mut src = demo_at(31);
    let mut app = app_on(&mut src);
    // A timer deferred at 30 (the demo's crowd fills the lane).
    let deferred = app
        .feed
        .iter()
        .find(|e| e.kind == "TimerDeferred")
        .and_then(|e| e.timer)
        .expect("a deferral");
    update(
        &mut app,
        Action::Story(vec![
            StoryItem {
                height: Some(20),
                text: "demo:153 crowd schedules `s1` for #30".into(),
                ok: true,
                label: Some(("s1".into(), deferred)),
                kind: Default::default(),
            },
            StoryItem {
                height: None,
                text: "expectation ok line 200: s1 is deferred".into(),
                ok: true,
                label: None,
                kind: Default::default(),
            },
        ]),
    );
    assert_eq!(
        app.watch,
        Some(deferred),
        "the first labelled timer is watched"
    );
    let life = src.timer_life(&deferred).map(Box::new);
    update(&mut app, Action::Life(deferred, None, life));
    let s = screen_at(&app, 80, 24);
    assert!(s.contains("story expectation ok line 200"), "{s}");
    assert!(
        s.contains("watch s1 scheduled #20 → due #30 → deferred ×1 (lane)"),
        "{s}"
    );
    assert_snapshot!("story_and_watch_80x24", s);
    update(&mut app, Action::Key(key('!')));
    assert_snapshot!("message_log_80x24", screen_at(&app, 80, 24));
}

/// `?` at 80x24: the focused pane's meaning and columns first; it scrolls.
#[test]
fn issue23_snapshot_help_scrolls_80x24() {
    let mut src = demo_at(5);
    let mut app = app_on(&mut src);
    app.focus = Pane::Fairness;
    update(&mut app, Action::Key(key('?')));
    let top = screen_at(&app, 80, 24);
    assert!(top.contains("fairness (focused)"), "{top}");
    assert!(top.contains("W          the actor's weight"), "{top}");
    assert_snapshot!("help_fairness_80x24", top);
    update(&mut app, Action::Key(code(KeyCode::PageDown)));
    let next = screen_at(&app, 80, 24);
    assert!(next.contains("· lines 11-"), "{next}");
}

/// Issue 23: a click selects the row under it: a bucket, then one of its timers, then an
/// event of the feed.
#[test]
fn issue23_a_click_selects_the_row_under_it() {
    let mut src = demo_at(27);
    let mut app = app_on(&mut src);
    let (w, h) = (160, 48);
    let a = render::areas_with(ratatui::layout::Rect::new(0, 0, w, h), 0);
    let click = |app: &mut App, src: &mut LocalDevnet, column: u16, row: u16| {
        let effects = update(
            app,
            Action::Click {
                column,
                row,
                width: w,
                height: h,
            },
        );
        cowboy_devnet::tui::apply_effects(src, app, effects);
    };
    // The second bucket (#29, the oracle's): border, header, then rows.
    click(&mut app, &mut src, a.buckets.x + 2, a.buckets.y + 3);
    assert_eq!(app.bucket_sel, 1);
    assert_eq!(app.data.buckets[1].height, app.data.bucket_timers[0].height);
    // Its first timer: border, title, header, then rows.
    click(&mut app, &mut src, a.buckets.x + 32, a.buckets.y + 3);
    let t = app.data.bucket_timers[0].id;
    assert_eq!(app.selected_timer().map(|s| s.0), Some(t));
    // The newest event of the feed (the last row of the pane).
    click(
        &mut app,
        &mut src,
        a.events.x + 2,
        a.events.y + a.events.height - 2,
    );
    assert_eq!(app.focus, Pane::Events);
    assert!(app.feed_pin);
    assert_eq!(app.event_sel, 0);
    // The row above it.
    click(
        &mut app,
        &mut src,
        a.events.x + 2,
        a.events.y + a.events.height - 3,
    );
    assert_eq!(app.event_sel, 1);
}

/// Issue 23: a 1,500-character payload scrolls inside its field; every field below it stays
/// on screen, and no hint wraps onto the border at 120x34.
#[test]
fn issue23_a_long_value_scrolls_inside_its_field() {
    let mut src = demo_at(5);
    let mut app = app_on(&mut src);
    update(&mut app, Action::Key(key('s')));
    // From the height field to the payload.
    update(&mut app, Action::Key(code(KeyCode::Down)));
    update(&mut app, Action::Key(code(KeyCode::Down)));
    for _ in 0..1_500 {
        update(&mut app, Action::Key(key('x')));
    }
    let s = screen_at(&app, 120, 34);
    for label in ["payload", "fee payer", "expires_at", "priority_tier"] {
        assert!(s.contains(label), "`{label}` stays on screen:\n{s}");
    }
    assert!(
        s.contains("…xxxx"),
        "the field shows the end of the value:\n{s}"
    );
    assert!(s.contains("nanos/cycle; empty: tier or p50 tip"), "{s}");
}

/// Issue 23: `y` copies the selected timer's full id, as OSC 52 (base64 of the text).
#[test]
fn issue23_y_copies_the_full_id_with_osc52() {
    let mut src = demo_at(27);
    let mut app = app_on(&mut src);
    update(&mut app, Action::Key(key('y')));
    assert_eq!(app.clipboard, None, "nothing selected, nothing copied");
    press(
        &mut src,
        &mut app,
        &[key('j'), code(KeyCode::Enter), key('y')],
    );
    let id = app.selected_timer().unwrap().0;
    assert_eq!(app.clipboard, Some(id.to_string()));
    assert_eq!(
        cowboy_devnet::tui::term::osc52("0xab"),
        "\u{1b}]52;c;MHhhYg==\u{7}"
    );
}

/// Issue 23 / CIP-5 §5.4: the form's estimate says when the fee payer cannot fund a fire
/// (the demo's `pauper`), instead of "would run" for a timer that will be removed unfunded.
#[test]
fn issue23_the_estimate_says_when_the_fee_payer_cannot_fund_the_fire() {
    let mut src = demo_at(5);
    let mut app = app_on(&mut src);
    let mut asked = None;
    for e in update(&mut app, Action::Key(key('s'))) {
        if let Effect::Command(UiCommand::EstimateTimer(r)) = e {
            asked = Some(r);
        }
    }
    // Up to the actor field, then ▸ through the actors to pauper.
    update(&mut app, Action::Key(code(KeyCode::Up)));
    for _ in 0..app.data.actors.len() {
        let Overlay::Form(f) = &app.overlay else {
            panic!("the form is open")
        };
        if app.data.label(&app.data.actors[f.actor]) == "pauper" {
            break;
        }
        for e in update(&mut app, Action::Key(code(KeyCode::Right))) {
            if let Effect::Command(UiCommand::EstimateTimer(r)) = e {
                asked = Some(r);
            }
        }
    }
    let req = asked.expect("an estimate asked for pauper");
    assert_eq!(app.data.label(&req.actor), "pauper");
    let reply = src.execute(UiCommand::EstimateTimer(req.clone()));
    let Ok(CommandOutcome::Estimated(e)) = &reply else {
        panic!("an estimate: {reply:?}")
    };
    let funding = e.funding.clone().expect("a funding check");
    assert!(
        !funding.funded && funding.balance < funding.needed,
        "{funding:?}"
    );
    update(
        &mut app,
        Action::Done(UiCommand::EstimateTimer(req), reply.clone()),
    );
    let s = screen_at(&app, 120, 34);
    assert!(
        s.contains("fee payer pauper holds") && s.contains("removed unfunded"),
        "{s}"
    );
    assert!(!s.contains("would run"), "{s}");
}

/// Issue 23 ("Enter on a feed row for the detail"): a feed row without a timer (an actor's
/// emit, a deploy) opens its detail, the event in words and every field, instead of "no timer
/// selected"; Esc closes it.
#[test]
fn issue23_enter_on_an_event_without_a_timer_shows_its_detail() {
    let mut src = demo_at(12);
    let mut app = app_on(&mut src);
    app.focus = Pane::Events;
    let newest_first: Vec<_> = app.feed.iter().rev().cloned().collect();
    let i = newest_first
        .iter()
        .position(|e| e.timer.is_none())
        .expect("the demo's feed has an event without a timer");
    let row = newest_first[i].clone();
    app.event_sel = i;
    app.feed_pin = true;
    update(&mut app, Action::Key(code(KeyCode::Enter)));
    assert!(
        matches!(&app.overlay, Overlay::Event(e) if **e == row),
        "{:?}",
        app.overlay
    );
    let s = screen_at(&app, 120, 34);
    assert!(s.contains(&format!("event at #{}", row.height)), "{s}");
    assert!(s.contains(&row.kind), "{s}");
    let first_field = row.fields.split('=').next().unwrap_or_default().to_string();
    assert!(s.contains(&first_field), "{s}");
    update(&mut app, Action::Key(code(KeyCode::Esc)));
    assert!(matches!(app.overlay, Overlay::None));
}
