//! Issue 22 ("everywhere a user meets it"): the dashboard under a CIP-5 draft policy. The lane
//! pane's place shows the drafts' pane (English §5.3 Globalbox, §5.2 watch index, zh §9.3 quota
//! skips), read with `scheduler_draft` only when the scheduler is a draft; snapshots on the §19
//! fixtures at 120x34 and 80x24.

mod common;

use common::keys::{fixture_at, screen_at};
use cowboy_devnet::tui::app::App;
use cowboy_devnet::tui::keys::KeyMap;
use cowboy_devnet::tui::local::LocalDevnet;
use cowboy_devnet::tui::refresh;
use insta::assert_snapshot;

fn app_on(src: &mut LocalDevnet) -> App {
    let mut app = App::new(KeyMap::default());
    refresh(src, &mut app);
    app
}

#[test]
fn issue22_draft_pane_shows_the_watch_index_under_cip5_draft_zh() {
    let mut src = fixture_at("v19_watch", 7);
    let app = app_on(&mut src);
    let d = app
        .data
        .draft
        .as_ref()
        .expect("a draft scheduler reads its state");
    assert_eq!(d.watches.len(), 1, "the fixture's one watch");
    assert_eq!(d.watches[0].keys, vec!["k1".to_string()]);
    assert_eq!(d.watches[0].fire_seq, 1, "fired at 6");
    let s = screen_at(&app, 120, 34);
    assert!(s.contains("cip5-draft-zh"), "{s}");
    assert!(s.contains("quota skips"), "{s}");
    assert!(s.contains("k1"), "{s}");
    assert_snapshot!("draft_v19_watch_h7_120x34", s);
    assert_snapshot!("draft_v19_watch_h7_80x24", screen_at(&app, 80, 24));
}

#[test]
fn issue22_draft_pane_shows_the_globalbox_under_cip5_draft() {
    let mut src = fixture_at("v19_replay", 5);
    let app = app_on(&mut src);
    let d = app
        .data
        .draft
        .as_ref()
        .expect("a draft scheduler reads its state");
    assert!(!d.globalbox.is_empty(), "fires left queued at 5");
    let s = screen_at(&app, 120, 34);
    assert!(s.contains("quota skips 2"), "{s}");
    // The Globalbox head first, with its frozen scores.
    assert!(s.contains("score  anchor"), "{s}");
    assert!(s.contains(&d.globalbox[0].timer_id.short()), "{s}");
    assert_snapshot!("draft_v19_replay_h5_120x34", s);
    assert_snapshot!("draft_v19_replay_h5_80x24", screen_at(&app, 80, 24));
}

#[test]
fn issue22_other_policies_do_not_ask_for_the_drafts_state() {
    let mut src = fixture_at("demo", 5);
    let app = app_on(&mut src);
    assert!(
        app.data.draft.is_none(),
        "fifo: no draft query, no draft pane"
    );
}

/// Issue 22 ("keys to schedule a watch and an interval"): `D` registers a state watch and an
/// interval timer through the same node requests as `timer_watch` / `timer_interval`; a bad
/// line is refused in place and changes nothing; under fifo the node's refusal is shown.
#[test]
fn issue22_d_registers_a_watch_and_an_interval_from_the_dashboard() {
    use common::keys::{code, key, press, typed};
    use cowboy_devnet::tui::app::Overlay;
    use crossterm::event::KeyCode;
    let mut src = fixture_at("v19_watch", 3);
    let mut app = app_on(&mut src);
    let watches = app.data.draft.as_ref().unwrap().watches.len();
    press(&mut src, &mut app, &[key('D')]);
    press(&mut src, &mut app, &typed("watch target k9,k10 gas=100000"));
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    // Spec note 129: the first Enter shows the estimate, the second registers.
    assert!(
        matches!(&app.overlay, Overlay::Prompt(p) if p.estimate.as_ref().is_some_and(|e| e.1.contains("a write from #") && e.1.contains("score"))),
        "{:?}",
        app.overlay
    );
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    let t = app.toast.clone().expect("a toast");
    assert!(
        !t.error && t.text.contains("registered state watch"),
        "{t:?}"
    );
    press(&mut src, &mut app, &[key(' ')]);
    let d = app.data.draft.as_ref().unwrap();
    assert_eq!(d.watches.len(), watches + 1);
    assert!(
        d.watches
            .iter()
            .any(|w| w.keys == vec!["k9".to_string(), "k10".to_string()])
    );
    // An interval under the zh draft.
    press(&mut src, &mut app, &[key('D')]);
    press(&mut src, &mut app, &typed("interval target 5 payload=tick"));
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    assert!(
        matches!(&app.overlay, Overlay::Prompt(p) if p.estimate.as_ref().is_some_and(|e| e.1.contains("fires at #"))),
        "{:?}",
        app.overlay
    );
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    let t = app.toast.clone().expect("a toast");
    assert!(!t.error && t.text.contains("every 5 blocks"), "{t:?}");
    // A line that names no actor: refused in place, the prompt keeps the input.
    let h = src.chain().height();
    press(&mut src, &mut app, &[key('D')]);
    press(&mut src, &mut app, &typed("watch nobody k1"));
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    assert!(
        matches!(&app.overlay, Overlay::Prompt(p) if p.error.as_ref().is_some_and(|e| e.contains("names no actor")))
    );
    assert_eq!(src.chain().height(), h, "nothing sent");
}

/// Issue 22: under a canonical scheduler a watch is the node's named refusal, shown in place.
#[test]
fn issue22_d_under_fifo_shows_the_nodes_refusal() {
    use common::keys::{code, key, press, typed};
    use cowboy_devnet::tui::app::Overlay;
    use crossterm::event::KeyCode;
    let mut src = fixture_at("heartbeat", 3);
    let mut app = app_on(&mut src);
    let actor = app.data.label(&app.data.actors[0]);
    press(&mut src, &mut app, &[key('D')]);
    press(&mut src, &mut app, &typed(&format!("watch {actor} k1")));
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    let shown = match &app.overlay {
        Overlay::Prompt(p) => p.error.clone().unwrap_or_default(),
        _ => app.toast.clone().map(|t| t.text).unwrap_or_default(),
    };
    assert!(
        shown.contains("InvalidInput") && shown.contains("draft"),
        "{shown}"
    );
}

/// Issue 22 ("the drafts' pane as an instrument"): the last block's Mailbox entries are
/// listed (English §9: deliver_seq, timer, target, kind, fire_seq, deliver_id); `Tab` focuses
/// the pane, `↓` selects and scrolls through the Globalbox, the Mailbox and the watches, and
/// `Enter` opens the selected row's timer life; the selection follows its row as blocks pass
/// and is cleared when it leaves.
#[test]
fn issue22_draft_pane_lists_the_mailbox_and_selects_scrolls_and_opens_a_row() {
    use common::keys::{code, key, press};
    use cowboy_devnet::tui::app::{Overlay, Pane};
    use cowboy_devnet::tui::draft_cursor::{DraftList, rows};
    use crossterm::event::KeyCode;
    let mut src = fixture_at("v19_replay", 5);
    let mut app = app_on(&mut src);
    let d = app.data.draft.clone().unwrap();
    assert_eq!(d.mailbox.len(), 2);
    let s = screen_at(&app, 120, 34);
    for m in &d.mailbox {
        let deliver: String = m
            .deliver_id
            .trim_start_matches("0x")
            .chars()
            .take(8)
            .collect();
        assert!(s.contains(&deliver), "{deliver}\n{s}");
        assert!(s.contains(&m.timer_id.short()), "{s}");
    }
    assert!(
        s.contains("seq  timer    target   kind    fire   deliver"),
        "{s}"
    );
    // Focus the pane (buckets → tiers → drafts).
    press(
        &mut src,
        &mut app,
        &[code(KeyCode::Tab), code(KeyCode::Tab)],
    );
    assert_eq!(app.focus, Pane::Lane);
    let all = rows(&d);
    assert_eq!(
        all.len(),
        d.globalbox.len() + d.mailbox.len() + d.watches.len()
    );
    // The watch, the last row, is below the pane at 80x24 until the selection reaches it:
    // the pane ends at the watches' heading (issue 34 gave the pane one row more).
    let watch_row_shown = |s: &str| {
        let lines: Vec<&str> = s.lines().collect();
        lines
            .iter()
            .position(|l| l.contains("fire watch"))
            .is_some_and(|i| {
                lines
                    .get(i + 1)
                    .is_some_and(|next| !next.contains('└') && !next.contains('┌'))
            })
    };
    assert!(!watch_row_shown(&screen_at(&app, 80, 24)));
    press(&mut src, &mut app, &[code(KeyCode::Down)]);
    assert_eq!(
        app.draft.pin,
        Some(all[0]),
        "the first ↓ selects the first row"
    );
    for _ in 0..all.len() {
        press(&mut src, &mut app, &[code(KeyCode::Down)]);
    }
    let last = *all.last().unwrap();
    assert_eq!(last.list, DraftList::Watches);
    assert_eq!(app.draft.pin, Some(last));
    let small = screen_at(&app, 80, 24);
    assert!(watch_row_shown(&small), "scrolled to the watch:\n{small}");
    // Enter: the watch's life.
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    let Overlay::Life(l) = &app.overlay else {
        panic!("a life: {:?}", app.overlay)
    };
    assert_eq!(l.id, last.timer);
    press(&mut src, &mut app, &[code(KeyCode::Esc)]);
    // A Globalbox row: its life too, and `w` watches it.
    press(
        &mut src,
        &mut app,
        &[key('k'), key('k'), key('k'), key('k')],
    );
    assert_eq!(app.draft.pin.map(|r| r.list), Some(DraftList::Globalbox));
    let g = app.draft.pin.unwrap().timer;
    press(&mut src, &mut app, &[key('w'), code(KeyCode::Enter)]);
    assert_eq!(app.watch, Some(g));
    assert!(matches!(&app.overlay, Overlay::Life(l) if l.id == g));
    press(&mut src, &mut app, &[code(KeyCode::Esc)]);
    // A block later the Globalbox row fired and left: nothing is selected (never another).
    press(&mut src, &mut app, &[key(' ')]);
    let now = app.data.draft.clone().unwrap();
    if !now.globalbox.iter().any(|x| x.timer_id == g) {
        assert_eq!(app.draft.pin, None);
    }
}

/// English §6.2 (Spec notes 122-125): `D … nonce=N` registers with a `client_nonce`; the same
/// line again names the same timer (one watch), and the status line says it was a repeat.
#[test]
fn issue22_d_with_a_nonce_repeats_onto_the_same_watch() {
    use common::keys::{code, key, press, typed};
    use crossterm::event::KeyCode;
    let mut src = fixture_at("v19_watch", 3);
    let mut app = app_on(&mut src);
    let watches = app.data.draft.as_ref().unwrap().watches.len();
    for (line, want) in [
        ("watch target k9 nonce=5", "registered state watch"),
        (
            "watch target k9 nonce=5 payload=v2",
            "client_nonce 5 repeated",
        ),
    ] {
        press(&mut src, &mut app, &[key('D')]);
        press(&mut src, &mut app, &typed(line));
        // Spec note 129: the first Enter shows the estimate, the second registers.
        press(
            &mut src,
            &mut app,
            &[code(KeyCode::Enter), code(KeyCode::Enter)],
        );
        let t = app.toast.clone().expect("a toast");
        assert!(!t.error && t.text.contains(want), "{line}: {t:?}");
    }
    press(&mut src, &mut app, &[key(' ')]);
    let d = app.data.draft.as_ref().unwrap();
    assert_eq!(d.watches.len(), watches + 1, "one watch for the nonce");
    assert!(d.watches.iter().any(|w| w.client_nonce == Some(5)));
}

/// Issue 29 ("under `--scheduler cip5-draft` the `s` form offers CIP-1 fee and tier fields"):
/// under a draft scheduler the schedule form shows no fee fields (the drafts have no timer
/// lane), Tab cycles through the fields it shows, and no auction standing is estimated; under
/// fifo (which an activation can turn into eip1559) the fee fields stay.
#[test]
fn issue29_the_schedule_form_under_a_draft_has_no_fee_fields() {
    use common::keys::{code, key, press};
    use cowboy_devnet::tui::app::Overlay;
    use crossterm::event::KeyCode;
    let mut src = fixture_at("v19_replay", 5);
    let mut app = app_on(&mut src);
    press(&mut src, &mut app, &[key('s')]);
    let s = screen_at(&app, 120, 34);
    assert!(!s.contains("max_fee_per_cycle"), "{s}");
    assert!(!s.contains("priority_tier"), "{s}");
    assert!(s.contains("expires_at"), "{s}");
    assert!(!s.contains("auction:"), "{s}");
    let Overlay::Form(f) = &app.overlay else {
        panic!("the form is open")
    };
    let shown = f.shown;
    for _ in 0..shown {
        press(&mut src, &mut app, &[code(KeyCode::Tab)]);
    }
    let Overlay::Form(f) = &app.overlay else {
        panic!("the form is open")
    };
    assert_eq!(f.field, 1, "Tab came round to where it started");
    assert!(shown < 10);
    let mut fifo = fixture_at("demo", 5);
    let mut app = app_on(&mut fifo);
    press(&mut fifo, &mut app, &[key('s')]);
    assert!(screen_at(&app, 120, 34).contains("max_fee_per_cycle"));
}
