//! Issue 34 ("the dashboard: every number right and readable at the size people use, under
//! every scheduler"): each numbered item of the issue, on the app and its render (a frame drawn
//! to a test backend at 80x24, 120x34 and 200x60 where the size matters).

mod common;

use common::keys::{code, key, press, screen_at, select_bucket, typed};
use cowboy_devnet::node::NodeEvent;
use cowboy_devnet::tui::app::{Action, App, Overlay, update};
use cowboy_devnet::tui::keys::KeyMap;
use cowboy_devnet::tui::local::LocalDevnet;
use cowboy_devnet::tui::model::DashboardSource;
use cowboy_devnet::tui::refresh;
use cowboy_devnet::tui::story::{StoryItem, from_node_event};
use crossterm::event::KeyCode;

fn demo_at(height: u64) -> LocalDevnet {
    common::keys::fixture_at("demo", height)
}

fn app_on(src: &mut LocalDevnet) -> App {
    let mut app = App::new(KeyMap::default());
    refresh(src, &mut app);
    app
}

/// The `lines A-B of N` range in an overlay's title.
fn range(screen: &str) -> (usize, usize, usize) {
    let at = screen
        .find("lines ")
        .expect("a scrolled overlay shows its range");
    let rest = &screen[at + "lines ".len()..];
    let words: Vec<&str> = rest.split_whitespace().take(3).collect();
    let (a, b) = words[0].split_once('-').unwrap();
    (
        a.parse().unwrap(),
        b.parse().unwrap(),
        words[2].parse().unwrap(),
    )
}

fn story_step(height: u64, text: String) -> StoryItem {
    from_node_event(&NodeEvent::FixtureStep {
        height,
        line: 10,
        text,
        ok: true,
        label: None,
    })
    .unwrap()
}

/// Issue 34, item 1: the message log opened at its end, and the help after `End`, scroll up
/// at once with ↑ and PgUp (before, the offset stayed past the end and only `Home` moved it);
/// the title counts messages and the range counts lines.
#[test]
fn issue34_item1_log_and_help_scroll_up_from_the_end() {
    let mut src = demo_at(5);
    let mut app = app_on(&mut src);
    // 60 messages, each wrapping over two lines at 80 columns.
    let items = (0..60)
        .map(|i| story_step(5, format!("step {i} {}", "x".repeat(90))))
        .collect();
    update(&mut app, Action::Story(items));
    let n = app.log.len();
    update(&mut app, Action::Key(key('!')));
    let s = screen_at(&app, 80, 24);
    assert!(s.contains(&format!("{n} messages")), "{s}");
    let (a, b, total) = range(&s);
    assert_eq!(b, total, "opens at the end: {s}");
    assert!(total > n, "the range counts lines: {s}");
    press(&mut src, &mut app, &[code(KeyCode::Up)]);
    let s = screen_at(&app, 80, 24);
    assert_eq!(range(&s), (a - 1, b - 1, total), "↑ moves one line up: {s}");
    press(&mut src, &mut app, &[code(KeyCode::PageUp)]);
    let s = screen_at(&app, 80, 24);
    assert_eq!(range(&s), (a - 11, b - 11, total), "PgUp moves a page: {s}");
    // Down past the end stays at the end, and ↑ from there moves at once again.
    press(&mut src, &mut app, &[code(KeyCode::PageDown); 30]);
    let _ = screen_at(&app, 80, 24);
    press(&mut src, &mut app, &[code(KeyCode::Up)]);
    let s = screen_at(&app, 80, 24);
    assert_eq!(range(&s), (a - 1, b - 1, total), "{s}");

    // The help: End, then ↑ moves.
    press(&mut src, &mut app, &[code(KeyCode::Esc), key('?')]);
    let _ = screen_at(&app, 80, 24);
    press(&mut src, &mut app, &[code(KeyCode::End)]);
    let s = screen_at(&app, 80, 24);
    let (a, b, total) = range(&s);
    assert_eq!(b, total, "{s}");
    press(&mut src, &mut app, &[code(KeyCode::Up), code(KeyCode::Up)]);
    let s = screen_at(&app, 80, 24);
    assert_eq!(range(&s), (a - 2, b - 2, total), "{s}");
}

/// Issue 34, item 2: a height or delay too large for a height is refused as too large (before,
/// `+18446744073709551615` wrapped to a past height, and a longer number was "not a number").
#[test]
fn issue34_item2_a_number_too_large_says_so() {
    let mut src = demo_at(5);
    let mut app = app_on(&mut src);
    let before = src.chain().height();
    for (typed_when, want) in [
        ("+18446744073709551615", "too large"),
        (
            "99999999999999999999999999",
            "is too large (at most 18446744073709551615)",
        ),
        ("-5", "is not a number"),
    ] {
        press(&mut src, &mut app, &[key('s')]);
        let Overlay::Form(_) = &app.overlay else {
            panic!("s opens the form: {:?}", app.overlay)
        };
        // The first field is the height: clear it, type, send.
        press(&mut src, &mut app, &[cowboy_devnet_ctrl_u()]);
        press(&mut src, &mut app, &typed(typed_when));
        press(&mut src, &mut app, &[code(KeyCode::Enter)]);
        let s = screen_at(&app, 120, 34);
        assert!(s.contains(want), "{typed_when}: {s}");
        assert!(!s.contains("is not in the future"), "{typed_when}: {s}");
        press(&mut src, &mut app, &[code(KeyCode::Esc)]);
        app.overlay = Overlay::None;
    }
    assert_eq!(src.chain().height(), before, "nothing mined");
}

fn cowboy_devnet_ctrl_u() -> crossterm::event::KeyEvent {
    crossterm::event::KeyEvent::new(KeyCode::Char('u'), crossterm::event::KeyModifiers::CONTROL)
}

/// Issue 34, item 3: the story's failure count counts failed expectations and steps, not the
/// end's summary line (before: `21 of 22 ... ok (2 failed ...)` with one failure listed).
#[test]
fn issue34_item3_the_failure_count_matches_the_log() {
    let mut src = demo_at(5);
    let mut app = app_on(&mut src);
    let items = vec![
        from_node_event(&NodeEvent::Expectation {
            line: 200,
            description: "s1 fires".into(),
            passed: false,
            detail: "it was deferred".into(),
        })
        .unwrap(),
        from_node_event(&NodeEvent::FixtureStep {
            height: 100,
            line: 0,
            text: "demo played to its end (#100): 21 of 22 end-of-run expectations ok".into(),
            ok: false,
            label: None,
        })
        .unwrap(),
    ];
    update(&mut app, Action::Story(items));
    let s = screen_at(&app, 200, 60);
    assert!(s.contains("21 of 22 end-of-run expectations ok"), "{s}");
    assert!(s.contains("(1 expectation failed: ! lists each)"), "{s}");
    let errors: Vec<&str> = app
        .log
        .iter()
        .filter(|e| e.error && e.text.contains("FAIL"))
        .map(|e| e.text.as_str())
        .collect();
    assert_eq!(errors.len(), 1, "{:?}", app.log);
    assert!(
        !app.log
            .iter()
            .any(|e| e.text.contains("step failed: demo played")),
        "the end is not a failed step: {:?}",
        app.log
    );
}

/// Issue 34, item 4: `e` prefills an expiry the TTL cap allows, its hint names the cap, and an
/// extension the node clamped says what was asked and what the cap allowed (before: the
/// prefill was past the cap, and the clamp was silent).
#[test]
fn issue34_item4_extend_names_the_ttl_cap() {
    let mut src = demo_at(27);
    let mut app = app_on(&mut src);
    press(&mut src, &mut app, &[key('j'), key('l')]);
    let t = app.data.bucket_timers[0].clone();
    let cap = src.chain().pending_height() + src.chain().timer_config().max_ttl_blocks;
    press(&mut src, &mut app, &[key('e')]);
    let Overlay::Prompt(p) = &app.overlay else {
        panic!("e opens a prompt")
    };
    let prefill: u64 = p.input.parse().unwrap();
    assert!(
        prefill <= cap && prefill > t.expires_at,
        "{prefill} vs cap {cap}"
    );
    let s = screen_at(&app, 120, 34);
    assert!(
        s.contains(&format!("the TTL cap allows up to #{cap}")),
        "{s}"
    );
    assert!(s.contains("move its expiry (not its fire height)"), "{s}");
    // Ask far past the cap: the node clamps, the answer says so.
    press(&mut src, &mut app, &[ctrl_u()]);
    press(&mut src, &mut app, &typed("25921429"));
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    assert_eq!(src.chain().timer(&t.id).unwrap().expires_at, cap);
    let toast = &app.toast.as_ref().unwrap().text;
    assert!(
        toast.contains(&format!(
            "asked #25921429, the TTL cap (height + max_ttl_blocks) allows #{cap}"
        )),
        "{toast}"
    );
}

fn ctrl_u() -> crossterm::event::KeyEvent {
    cowboy_devnet_ctrl_u()
}

/// Issue 34, item 5: a bad `g config` shows its error under the input, on every size, and the
/// status line shows it too (not an older message); nothing is sent.
#[test]
fn issue34_item5_governance_config_errors_show() {
    let mut src = demo_at(5);
    let mut app = app_on(&mut src);
    app.toast = Some(cowboy_devnet::tui::app::Toast {
        text: "an older, unrelated error".into(),
        error: true,
    });
    let before = src.chain().timer_config().clone();
    for (input, want) in [
        ("config foo=1", "no config field `foo`"),
        (
            "config max_ttl_blocks=abc",
            "max_ttl_blocks `abc` is not a number",
        ),
        (
            "config lane_timer_cycles=-5",
            "lane_timer_cycles `-5` is not a number",
        ),
    ] {
        press(&mut src, &mut app, &[key('g')]);
        press(&mut src, &mut app, &typed(input));
        press(&mut src, &mut app, &[code(KeyCode::Enter)]);
        for (w, h) in [(80, 24), (120, 34), (200, 60)] {
            let s = screen_at(&app, w, h);
            assert!(s.contains(want), "{input} at {w}x{h}: {s}");
            assert!(!s.contains("older, unrelated"), "{input} at {w}x{h}: {s}");
        }
        press(&mut src, &mut app, &[code(KeyCode::Esc)]);
    }
    assert_eq!(src.chain().timer_config(), &before);
}

/// Issue 34, item 11: `{` before the first block stops at #1 and says genesis comes before it
/// (nothing is pruned), not `HistoryPruned ... (serve --history)`.
#[test]
fn issue34_item11_genesis_is_not_pruned() {
    let mut src = demo_at(5);
    let mut app = app_on(&mut src);
    press(&mut src, &mut app, &[key('{')]);
    assert_eq!(app.view_at, Some(1));
    let toast = &app.toast.as_ref().unwrap().text;
    assert!(!toast.contains("HistoryPruned"), "{toast}");
    assert!(toast.contains("genesis (#0) comes before it"), "{toast}");
}

/// Issue 34, item 13: one timer is `1 timer`; the confirmation's buttons are `Back` and the
/// act (not `Cancel` beside `cancel the timer`); the event detail names the block and the
/// timer's fire height apart.
#[test]
fn issue34_item13_smaller_wording() {
    let mut src = demo_at(27);
    let mut app = app_on(&mut src);
    press(&mut src, &mut app, &[key('j'), key('l'), key('c')]);
    let s = screen_at(&app, 120, 34);
    assert!(s.contains("[ Back ]"), "{s}");
    assert!(!s.contains("[ Cancel ]"), "{s}");
    press(&mut src, &mut app, &[code(KeyCode::Esc)]);
    let one = app.data.buckets.iter().position(|b| b.count == 1);
    if let Some(i) = one {
        app.bucket_sel = i;
        let s = screen_at(&app, 200, 60);
        assert!(s.contains("1 timer in execution order"), "{s}");
    }
}

/// Issue 34, item 9: at 120x34 (the documented size) the lane pane shows each deferral reason
/// that deferred a timer in the window and whole values (figures in columns), under
/// fifo (demo) and eip1559 (congestion); a basefee that did not move is said in words, not
/// drawn as a solid bar; the basefee label names the scheduler in force.
#[test]
fn issue34_item9_lane_pane_whole_values_at_120x34() {
    for (fixture, h, sched) in [("demo", 40, "fifo"), ("congestion", 20, "eip1559")] {
        let mut src = common::keys::fixture_at(fixture, h);
        let app = app_on(&mut src);
        let s = screen_at(&app, 120, 34);
        // Each reason that deferred a timer in the window, whole; none said as such.
        let hot: Vec<_> = app
            .data
            .defer_reasons
            .iter()
            .filter(|(_, n)| *n > 0)
            .collect();
        for (reason, n) in &hot {
            let want = format!("first deferred {reason} {n}");
            assert!(s.contains(&want), "{fixture}: {want}: {s}");
        }
        if hot.is_empty() {
            assert!(s.contains("first deferrals none"), "{fixture}: {s}");
        }
        if sched == "fifo" {
            assert!(s.contains("flat over these"), "{fixture}: {s}");
            assert!(
                s.contains("basefee 1 per cycle (fifo: no lane basefee)"),
                "{s}"
            );
        } else {
            let rows = &app.data.lane;
            let burned: u128 = rows.iter().map(|r| r.burned).sum();
            let want = format!(
                "burned {}",
                cowboy_devnet::tui::render::short_amount(burned)
            );
            assert!(s.contains(&want), "{fixture}: {want}: {s}");
        }
    }
}

/// Issue 34, item 13: `R` with an id the node does not keep answers `UnknownSnapshot` at once,
/// without asking to confirm first.
#[test]
fn issue34_item13_revert_to_an_unknown_snapshot_is_refused_first() {
    let mut src = demo_at(5);
    let mut app = app_on(&mut src);
    press(&mut src, &mut app, &[key('R')]);
    press(&mut src, &mut app, &[ctrl_u()]);
    press(&mut src, &mut app, &typed("99"));
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    let Overlay::Prompt(p) = &app.overlay else {
        panic!("no confirmation: {:?}", app.overlay)
    };
    assert!(
        p.error
            .as_deref()
            .unwrap_or("")
            .contains("UnknownSnapshot: no snapshot 99"),
        "{p:?}"
    );
    assert_eq!(src.chain().height(), 5);
}

/// Issue 34, item 7: the selection follows the timer, not the row. At 30 the lane takes three
/// of the demo's five crowd timers; the last two are carried to 31. The last one, selected at
/// 29, stays selected in bucket 31 after the block, and `Enter` opens its life.
#[test]
fn issue34_item7_the_selection_follows_a_carried_timer() {
    let mut src = demo_at(29);
    let mut app = app_on(&mut src);
    select_bucket(&mut src, &mut app, 30);
    press(&mut src, &mut app, &[key('l')]);
    let last = app.data.bucket_timers.len() - 1;
    press(&mut src, &mut app, &vec![key('j'); last]);
    let (id, _) = app.selected_timer().expect("a timer selected");
    press(&mut src, &mut app, &[key(' ')]);
    assert_eq!(app.height(), 30);
    let life = src.timer_life(&id).unwrap();
    assert_eq!(life.status, "pending", "it was carried: {life:?}");
    assert_eq!(
        app.selected_timer().map(|t| t.0),
        Some(id),
        "still selected"
    );
    assert_eq!(app.data.buckets[app.bucket_sel].height, 31);
    assert!(app.in_bucket);
    for (w, h) in [(80, 24), (120, 34), (200, 60)] {
        let s = screen_at(&app, w, h);
        assert!(s.contains("#31"), "{w}x{h}: {s}");
    }
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    let Overlay::Life(l) = &app.overlay else {
        panic!("Enter opens its life: {:?}", app.overlay)
    };
    assert_eq!(l.id, id);
}

/// Issue 34, item 8: every deferral count says what it counts. At 30 the demo's lane carries
/// two crowd timers to 31: the lane pane says `deferred this block 2` and counts first
/// deferrals by reason, the fairness table's column is `1st deferrals`, and the bucket's row
/// says `1 blk lane` (blocks carried and the last reason).
#[test]
fn issue34_item8_deferral_counts_are_labelled() {
    let mut src = demo_at(30);
    let mut app = app_on(&mut src);
    select_bucket(&mut src, &mut app, 31);
    press(&mut src, &mut app, &[key('l')]);
    for (w, h) in [(120, 34), (200, 60)] {
        let s = screen_at(&app, w, h);
        // The window's first deferrals by reason (the window is the pane's title).
        let mut wants = vec!["deferred this block 2", "first deferred lane "];
        if w == 200 {
            // The bucket's and the fairness table's right-hand columns, shown from 200.
            wants.extend(["1st deferrals", "1 blk lane", "carried·why"]);
        }
        for want in wants {
            assert!(s.contains(want), "{w}x{h}: {want}: {s}");
        }
        assert!(!s.contains("deferrals (events)"), "{s}");
    }
}

/// Issue 34, item 10: the scheduler's own facts. Under cip1-v1 the fairness table's bar is on
/// the EMA weight's own range (`weight_min`..`weight_max`, from the node's
/// `weight_range_bps`), not eip1559's 1..2.
#[test]
fn issue34_item10_cip1_v1_weights_on_their_own_scale() {
    use cowboy_devnet::engine::SchedulerKind;
    let mut src = common::keys::fixture_under("demo", 30, Some(SchedulerKind::Cip1V1));
    let app = app_on(&mut src);
    assert_eq!(app.data.weight_range, Some((2_500, 20_000)));
    let s = screen_at(&app, 200, 60);
    assert!(s.contains("0.25─2.00"), "{s}");
    assert!(!s.contains("1 ── 2"), "{s}");
    assert!(!s.contains("fifo: the cycle basefee"), "{s}");
    // Under eip1559 the bar keeps W's 1..2.
    let mut src = common::keys::fixture_at("congestion", 20);
    let app = app_on(&mut src);
    assert_eq!(app.data.weight_range, Some((10_000, 20_000)));
    assert!(screen_at(&app, 200, 60).contains("1.00─2.00"));
}

/// Issue 34, item 10: under the drafts (no timer lane) the buckets pane shows no lane size and
/// no `fits` column; under cip5-draft-zh a state watch's registration reads as a watch in the
/// feed, not as `TimerScheduled … for height 3`.
#[test]
fn issue34_item10_drafts_have_no_lane_and_watches_read_as_watches() {
    for (fixture, h) in [("v19_watch", 7), ("v19_replay", 5)] {
        let mut src = common::keys::fixture_at(fixture, h);
        let app = app_on(&mut src);
        for (w, hh) in [(80, 24), (120, 34), (200, 60)] {
            let s = screen_at(&app, w, hh);
            assert!(!s.contains("lane 2000k cycles"), "{fixture} {w}x{hh}: {s}");
            assert!(!s.contains(" NO "), "{fixture} {w}x{hh}: {s}");
            assert!(!s.contains("fits"), "{fixture} {w}x{hh}: {s}");
            assert!(s.contains("no timer lane"), "{fixture} {w}x{hh}: {s}");
        }
    }
    let mut src = common::keys::fixture_at("v19_watch", 7);
    let app = app_on(&mut src);
    let watch = app.data.draft.as_ref().unwrap().watches[0].timer_id;
    let e = app
        .feed
        .iter()
        .find(|e| e.kind == "TimerScheduled" && e.timer == Some(watch))
        .expect("the watch's registration is in the feed");
    let text = cowboy_devnet::tui::feed_text::feed_text(&app, e);
    assert!(text.contains("state watch"), "{text}");
    assert!(text.contains("k1"), "{text}");
    assert!(!text.contains("for height"), "{text}");
}

/// Issue 34, item 9: after activation the status bar keeps `scheduler` at 120 columns.
#[test]
fn issue34_item9_status_keeps_the_scheduler_after_activation() {
    let mut src = common::keys::fixture_at("migration", 25)
        .with_rpc_address("http://127.0.0.1:8545 (8545 taken)".to_string());
    let app = app_on(&mut src);
    for w in [120, 200] {
        let s = screen_at(&app, w, 34);
        let top = s.lines().next().unwrap();
        assert!(top.contains("scheduler eip1559"), "{w}: {top}");
    }
}

/// Issue 34, item 9: under eip1559 a long lane basefee (nine decimals) no longer fits the
/// status bar at 120 columns; dropping it leaves room for the pending count, which stays
/// (before, the bar dropped its parts by rank only and lost `pending` too).
#[test]
fn issue34_item9_status_keeps_what_fits_after_a_drop() {
    let mut src = common::keys::fixture_at("congestion", 20)
        .with_rpc_address("http://127.0.0.1:8545 (8545 taken)".to_string());
    let app = app_on(&mut src);
    let s = screen_at(&app, 120, 34);
    let top = s.lines().next().unwrap();
    assert!(top.contains("scheduler eip1559"), "{top}");
    assert!(top.contains("pending "), "{top}");
    let wide = screen_at(&app, 200, 34);
    let top = wide.lines().next().unwrap();
    assert!(top.contains("lane ") && top.contains("pending "), "{top}");
}

/// Issue 34, item 9: the lane chart has a legend and units at 120 columns (a line above the
/// chart: it never covers the newest blocks at 200 columns), on the x axis's label row; at
/// 120x34 too (tests/dashboard_lane_window.rs).
#[test]
fn issue34_item9_chart_legend_and_units_at_120() {
    for (fixture, h) in [("demo", 27), ("congestion", 20)] {
        let mut src = common::keys::fixture_at(fixture, h);
        let app = app_on(&mut src);
        for (w, hh) in [(120, 34), (120, 40), (200, 60)] {
            let s = screen_at(&app, w, hh);
            if fixture == "congestion" {
                // The lane basefee line holds whole values.
                assert!(!s.contains(", window") || s.contains("window "), "{s}");
                let next = cowboy_devnet::tui::model::fmt_nanos(
                    app.data.status.as_ref().unwrap().lane_basefee.unwrap(),
                );
                assert!(s.contains(&format!("(next {next}")), "{w}x{hh}: {s}");
            }
            for want in ["▬reserved", "▬used", "% of 2000k per block"] {
                assert!(s.contains(want), "{fixture} {w}x{hh}: {want}: {s}");
            }
        }
    }
}

/// Issue 34, item 13: the schedule form states the scheduler's real gas cap (under eip1559
/// the §10 auction cap, 250,000; before: the node's `1..=550000`); ↓ in `R`'s snapshot list,
/// shown newest first, moves to an older snapshot.
#[test]
fn issue34_item13_gas_range_and_newest_first_lists() {
    let mut src = common::keys::fixture_at("congestion", 20);
    let mut app = app_on(&mut src);
    assert_eq!(app.data.status.as_ref().unwrap().gas_cap, 250_000);
    for g in ["0", "300000"] {
        press(&mut src, &mut app, &[key('s')]);
        press(&mut src, &mut app, &[code(KeyCode::Tab); 4]);
        press(&mut src, &mut app, &typed(g));
        press(&mut src, &mut app, &[code(KeyCode::Enter)]);
        let s = screen_at(&app, 120, 34);
        assert!(s.contains("must be in 1..=250000"), "{g}: {s}");
        assert!(!s.contains("550000"), "{g}: {s}");
        app.overlay = Overlay::None;
    }
    // Under fifo the cap is max_cycles_per_fire.
    let mut src = demo_at(5);
    let mut app = app_on(&mut src);
    assert_eq!(app.data.status.as_ref().unwrap().gas_cap, 550_000);

    // Three snapshots; `R` offers the newest, ↓ the one before it, ↑ back.
    press(&mut src, &mut app, &[key('S'), key('S'), key('S')]);
    refresh(&mut src, &mut app);
    let ids = app.snapshot_ids();
    assert!(ids.len() >= 3, "{ids:?}");
    press(&mut src, &mut app, &[key('R')]);
    let input = |app: &App| match &app.overlay {
        Overlay::Prompt(p) => p.input.clone(),
        o => panic!("{o:?}"),
    };
    assert_eq!(input(&app), ids[ids.len() - 1].to_string());
    press(&mut src, &mut app, &[code(KeyCode::Down)]);
    assert_eq!(input(&app), ids[ids.len() - 2].to_string(), "↓: older");
    press(&mut src, &mut app, &[code(KeyCode::Up)]);
    assert_eq!(input(&app), ids[ids.len() - 1].to_string(), "↑: newer");
}

/// Issue 34, item 13: a status-line message expires some blocks after it was shown (before:
/// `mined to #33` still shown at #40), and while the devnet does not answer the link's state
/// outranks a message that is no error (before: `back at the head: live` while disconnected).
#[test]
fn issue34_item13_stale_toasts_expire() {
    use cowboy_devnet::tui::model::UiCommand;
    let mut src = demo_at(5);
    let mut app = app_on(&mut src);
    press(&mut src, &mut app, &[key(' ')]);
    let t = app.toast.clone().expect("a toast");
    assert!(t.text.contains("mined to #6"), "{t:?}");
    src.execute(UiCommand::Mine(4)).unwrap();
    refresh(&mut src, &mut app);
    assert_eq!(app.height(), 10);
    assert_eq!(app.toast, None, "expired 3 blocks later");
    let s = screen_at(&app, 120, 34);
    assert!(!s.contains("mined to #6"), "{s}");

    press(&mut src, &mut app, &[key(' ')]);
    assert!(app.toast.is_some());
    app.link = Some("disconnected, retrying (connection refused)".into());
    let s = screen_at(&app, 80, 24);
    let bottom = s.lines().last().unwrap();
    assert!(bottom.contains("disconnected, retrying"), "{bottom}");
}

/// Issue 34, item 13: the story line says what `demo:111` is (the fixture's file and the line
/// of the step played).
#[test]
fn issue34_item13_the_fixture_line_reference_is_explained() {
    let mut src = demo_at(5);
    let mut app = app_on(&mut src);
    let mut it = story_step(5, "crowd schedules `s1` for #30".into());
    it.text = format!("demo:111 {}", it.text);
    update(&mut app, Action::Story(vec![it]));
    for (w, h) in [(80, 24), (120, 34)] {
        let s = screen_at(&app, w, h);
        assert!(s.contains("demo.toml line 111: crowd schedules"), "{s}");
        assert!(!s.contains("demo:111"), "{s}");
    }
}

/// Issue 34, item 6 (attached half): data from another chain (a server restarted on another
/// fixture, told by the node's `chain_id`) drops the old chain's story, watch and feed; the
/// same chain keeps them.
#[test]
fn issue34_item6_another_chain_drops_the_old_story_and_watch() {
    let mut demo = demo_at(5);
    let mut app = app_on(&mut demo);
    update(
        &mut app,
        Action::Story(vec![story_step(5, "a step".into())]),
    );
    app.watch = app.feed.iter().find_map(|e| e.timer);
    assert!(app.watch.is_some() && !app.feed.is_empty());
    refresh(&mut demo, &mut app);
    assert_eq!(app.story.len(), 1, "the same chain keeps its story");
    assert!(app.watch.is_some());
    let mut other = common::keys::fixture_at("congestion", 3);
    refresh(&mut other, &mut app);
    assert!(app.story.is_empty(), "{:?}", app.story);
    assert_eq!(app.watch, None);
    assert!(app.feed.iter().all(|e| e.height <= 3));
    let s = screen_at(&app, 120, 34);
    assert!(s.contains("another chain answers"), "{s}");
    assert!(!s.contains("a step"), "{s}");
}

/// Issue 31 (Spec note 164 as amended): the selected timer fires, the bucket's others are
/// carried. At 30 the lane takes the first three of the demo's five crowd timers; the first,
/// selected at 29, fires, and the cursor stays inside bucket 31 (the two carried) at its row
/// instead of leaving the bucket: with a standing backlog the first row fires every block.
#[test]
fn issue31_the_cursor_stays_in_the_carried_bucket_when_its_timer_fires() {
    let mut src = demo_at(29);
    let mut app = app_on(&mut src);
    select_bucket(&mut src, &mut app, 30);
    press(&mut src, &mut app, &[key('l')]);
    let (first, _) = app.selected_timer().expect("the first timer selected");
    press(&mut src, &mut app, &[key(' ')]);
    assert_eq!(app.height(), 30);
    let life = src.timer_life(&first).unwrap();
    assert_ne!(life.status, "pending", "it left at 30: {life:?}");
    assert!(app.in_bucket, "still inside a bucket");
    assert_eq!(app.data.buckets[app.bucket_sel].height, 31);
    let (now, _) = app.selected_timer().expect("a carried timer selected");
    assert_ne!(now, first);
    assert_eq!(app.timer_sel, 0, "at its row");
}
