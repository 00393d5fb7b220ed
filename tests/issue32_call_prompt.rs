//! Issue 32, "Dry runs" (Spec note 193): the dashboard's call prompt (`a`). `ACTOR METHOD
//! [ARGS as a JSON array] [from=NAME]`: Enter sends `actor_call` and its receipt shows in the
//! status line; `C-d` runs the call as a dry run (`devnet_call`) in the overlay the schedule
//! form's dry run uses (Spec note 190), changing nothing; bad input (an unknown actor,
//! malformed JSON) is named in the prompt and nothing is sent; refused while the panes show a
//! past height, as every change.

mod common;

use common::keys::{code, key, press, screen_at, typed};
use cowboy_devnet::tui::app::{App, Overlay};
use cowboy_devnet::tui::keys::KeyMap;
use cowboy_devnet::tui::local::LocalDevnet;
use cowboy_devnet::tui::refresh;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn demo() -> (LocalDevnet, App) {
    let mut src = common::keys::live_fixture_at("demo", 5);
    let mut app = App::new(KeyMap::default());
    refresh(&mut src, &mut app);
    (src, app)
}

fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

/// What a dry run or a refused call must leave as it was: height, the open block's
/// transactions, every balance and nonce, the state root.
fn state(src: &LocalDevnet) -> (u64, usize, Vec<(u128, u64)>, String) {
    let c = src.chain();
    let accounts = c
        .accounts()
        .keys()
        .map(|a| (c.balance(a), c.nonce(a)))
        .collect();
    (
        c.height(),
        c.open_receipts().len(),
        accounts,
        c.state_root().to_string(),
    )
}

/// Opens the call prompt and types `line`.
fn prompt<S: cowboy_devnet::tui::model::DashboardSource>(src: &mut S, app: &mut App, line: &str) {
    press(src, app, &[key('a')]);
    assert!(
        matches!(app.overlay, Overlay::Prompt(_)),
        "`a` opens the prompt"
    );
    press(src, app, &typed(line));
}

fn prompt_error(app: &App) -> String {
    match &app.overlay {
        Overlay::Prompt(p) => p.error.clone().unwrap_or_default(),
        o => panic!("the prompt stays open: {o:?}"),
    }
}

/// Spec note 193: `C-d` runs the call against the head and shows what it would do (its
/// success, cycles, fee, the storage it would write, the trace); nothing changes; Esc goes back
/// to the prompt with its input.
#[test]
fn issue32_a_dry_run_of_a_call_changes_nothing_and_shows_its_diff() {
    let (mut src, mut app) = demo();
    let before = state(&src);
    prompt(&mut src, &mut app, r#"worker settle ["x", 1] from=alice"#);
    press(&mut src, &mut app, &[ctrl('d')]);
    let Overlay::DryRun(d) = &app.overlay else {
        panic!("the dry run's answer opens: {:?}", app.overlay)
    };
    let v = d.reply.1.as_ref().expect("the dry run ran");
    assert!(v.receipt.success, "{v:?}");
    assert!(v.registration.is_none(), "a call names no timer");
    assert_eq!(v.diff.storage.len(), 1, "{:?}", v.diff);
    assert_eq!(state(&src), before, "a dry run changes nothing");
    for (w, h) in [(120, 34), (80, 24)] {
        let s = screen_at(&app, w, h);
        assert!(s.contains("would succeed"), "{w}x{h}: {s}");
        assert!(s.contains("settled"), "{w}x{h}: the storage key: {s}");
        assert!(s.contains("dry run: call worker.settle"), "{w}x{h}: {s}");
    }
    press(&mut src, &mut app, &[code(KeyCode::Esc)]);
    let Overlay::Prompt(p) = &app.overlay else {
        panic!("Esc returns to the prompt: {:?}", app.overlay)
    };
    assert_eq!(p.input, r#"worker settle ["x", 1] from=alice"#);
    // A failing handler's dry run: the error, its writes discarded.
    press(&mut src, &mut app, &[ctrl('u')]);
    press(&mut src, &mut app, &typed(r#"worker fail ["y"]"#));
    press(&mut src, &mut app, &[ctrl('d')]);
    let s = screen_at(&app, 120, 34);
    assert!(
        s.contains(r#"would fail: Reverted: cannot settle ["y"]"#),
        "the error as the status line writes it: {s}"
    );
    assert_eq!(
        state(&src),
        before,
        "a failing dry run changes nothing either"
    );
}

/// Spec note 193: Enter sends `actor_call` (the open block holds it) and the receipt shows
/// in the status line; the prompt closes.
#[test]
fn issue32_enter_sends_the_call_and_its_receipt_shows() {
    let (mut src, mut app) = demo();
    let pending = src.chain().open_receipts().len();
    prompt(&mut src, &mut app, r#"worker settle ["x"] from=alice"#);
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    assert!(matches!(app.overlay, Overlay::None), "{:?}", app.overlay);
    let receipts = src.chain().open_receipts();
    assert_eq!(receipts.len(), pending + 1, "the call is in the open block");
    let r = receipts.last().unwrap();
    assert!(r.success, "{r:?}");
    assert_eq!(r.kind, "call");
    let toast = app.toast.clone().expect("the receipt in the status line");
    assert!(!toast.error, "{toast:?}");
    assert!(
        toast.text.contains("actor_call settle: succeeded")
            && toast.text.contains(&r.tx_hash.to_string()[..10])
            && toast.text.contains(&format!("cycles {}", r.cycles_used)),
        "{toast:?}"
    );
}

/// Spec note 193: an unknown actor, malformed JSON args, a missing method, a `value=` and an
/// unknown account are named in the prompt; nothing is sent; Tab completes an actor's name.
#[test]
fn issue32_bad_call_input_is_named_and_sends_nothing() {
    let (mut src, mut app) = demo();
    let before = state(&src);
    for (line, named) in [
        ("nobody settle", "names no actor"),
        (r#"worker settle [1, "#, "not a JSON array"),
        ("worker", "name the method"),
        ("worker settle [] value=5", "carries no value"),
        ("worker settle [] from=mallory", "names no account"),
    ] {
        prompt(&mut src, &mut app, line);
        press(&mut src, &mut app, &[code(KeyCode::Enter)]);
        let err = prompt_error(&app);
        assert!(err.contains(named), "{line}: {err}");
        assert!(err.starts_with("InvalidInput"), "{line}: {err}");
        press(&mut src, &mut app, &[ctrl('d')]);
        assert!(
            matches!(app.overlay, Overlay::Prompt(_)),
            "{line}: C-d runs nothing"
        );
        assert_eq!(state(&src), before, "{line}: nothing sent");
        press(&mut src, &mut app, &[code(KeyCode::Esc)]);
    }
    // Tab completes the actor from the node's actors.
    prompt(&mut src, &mut app, "wor");
    press(&mut src, &mut app, &[code(KeyCode::Tab)]);
    let Overlay::Prompt(p) = &app.overlay else {
        panic!("the prompt is open")
    };
    assert_eq!(p.input, "worker ");
}

/// Spec note 193: while the panes show a past height, Enter's `actor_call` is refused as
/// every change is; nothing is sent.
#[test]
fn issue32_the_call_is_refused_while_viewing_the_past() {
    let (mut src, mut app) = demo();
    press(&mut src, &mut app, &[key('[')]);
    assert!(app.view_at.is_some(), "viewing the past");
    let before = state(&src);
    prompt(&mut src, &mut app, r#"worker settle ["x"] from=alice"#);
    press(&mut src, &mut app, &[code(KeyCode::Enter)]);
    let toast = app.toast.clone().expect("refused in the status line");
    assert!(toast.error, "{toast:?}");
    assert!(
        toast.text.contains("actor_call refused: viewing the past"),
        "{toast:?}"
    );
    assert_eq!(state(&src), before, "nothing sent");
    // The prompt waits for no answer: back at the head, Enter would send it again.
    let Overlay::Prompt(p) = &app.overlay else {
        panic!("the prompt stays open: {:?}", app.overlay)
    };
    assert!(p.sent.is_none(), "{p:?}");
}

/// Spec note 193: attached (`--attach`), the prompt's dry run is `devnet_call` with the call
/// as `actor_call` takes it, read back into the same answer as in process; Enter sends
/// `actor_call` over JSON-RPC and the in-process view sees it pending.
#[test]
fn issue32_the_call_prompt_works_attached_as_in_process() {
    use cowboy_devnet::tui::model::DashboardSource;
    let (mut local, mut remote, _running, _rt) = common::keys::served_demo();
    let mut app = App::new(KeyMap::default());
    refresh(&mut remote, &mut app);
    let line = r#"worker settle ["x"] from=alice"#;
    prompt(&mut remote, &mut app, line);
    press(&mut remote, &mut app, &[ctrl('d')]);
    let Overlay::DryRun(d) = &app.overlay else {
        panic!("the dry run's answer opens: {:?}", app.overlay)
    };
    let there = d.reply.1.clone().expect("a dry run over JSON-RPC");
    let here = local.dry_run(&d.reply.0).expect("a dry run in process");
    assert_eq!(here, there, "the same dry run either way");
    assert_eq!(local.pending_txs().unwrap(), Vec::new(), "nothing was sent");
    press(
        &mut remote,
        &mut app,
        &[code(KeyCode::Esc), code(KeyCode::Enter)],
    );
    let toast = app.toast.clone().expect("the receipt");
    assert!(
        toast.text.contains("actor_call settle: succeeded"),
        "{toast:?}"
    );
    assert_eq!(local.pending_txs().unwrap().len(), 1, "the call is pending");
}
