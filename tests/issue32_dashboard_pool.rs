//! Issue 32, "Dry runs, receipts, the pool": the dashboard's pool overlay (`P`) lists the
//! open block's pending transactions and drops one after asking (Spec note 189); the schedule
//! form's `C-d` runs its request as a dry run and shows the answer, changing nothing (Spec
//! note 190).

mod common;

use common::keys::{code, key, press, screen_at};
use cowboy_devnet::engine::Address;
use cowboy_devnet::tui::app::{App, Overlay};
use cowboy_devnet::tui::keys::KeyMap;
use cowboy_devnet::tui::local::LocalDevnet;
use cowboy_devnet::tui::model::{CommandOutcome, DashboardSource, ScheduleRequest, UiCommand};
use cowboy_devnet::tui::refresh;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn demo() -> (LocalDevnet, App) {
    let mut src = common::keys::live_fixture_at("demo", 5);
    let mut app = App::new(KeyMap::default());
    refresh(&mut src, &mut app);
    (src, app)
}

fn schedule(actor: Address, height: u64) -> ScheduleRequest {
    ScheduleRequest {
        actor,
        height,
        ..Default::default()
    }
}

/// Everything a dry run or a drop must leave as it was (or restore).
fn state(src: &LocalDevnet) -> (u64, usize, Vec<u128>, u64) {
    let c = src.chain();
    let balances = c.accounts().keys().map(|a| c.balance(a)).collect();
    let root = c.state_root();
    (
        c.height(),
        c.open_receipts().len(),
        balances,
        u64::from_le_bytes(root.0[..8].try_into().unwrap()),
    )
}

#[test]
fn issue32_pool_lists_a_pending_transaction_and_drops_it_after_asking() {
    let (mut src, mut app) = demo();
    let before = state(&src);
    press(&mut src, &mut app, &[key('P')]);
    let s = screen_at(&app, 120, 34);
    assert!(
        s.contains("holds no transaction"),
        "empty pool says so: {s}"
    );
    press(&mut src, &mut app, &[code(KeyCode::Esc)]);

    let actor = app.data.actors[0];
    let sent = src.execute(UiCommand::ScheduleTimer(schedule(actor, 30)));
    assert!(
        matches!(sent, Ok(CommandOutcome::Scheduled { .. })),
        "{sent:?}"
    );
    let hash = src.chain().open_receipts()[0].tx_hash;
    let short = &hash.to_string()[..10];
    refresh(&mut src, &mut app);
    press(&mut src, &mut app, &[key('P')]);
    for (w, h) in [(120, 34), (80, 24)] {
        let s = screen_at(&app, w, h);
        assert!(s.contains("1 pending"), "{w}x{h}: {s}");
        assert!(s.contains(short), "{w}x{h}: the hash {short}: {s}");
        assert!(s.contains("act_as"), "{w}x{h}: the kind: {s}");
    }
    press(&mut src, &mut app, &[key('d')]);
    assert!(matches!(app.overlay, Overlay::Confirm(_)), "d asks first");
    let s = screen_at(&app, 120, 34);
    assert!(s.contains(&format!("drop transaction {short}")), "{s}");
    assert_eq!(src.chain().open_receipts().len(), 1, "nothing dropped yet");
    press(&mut src, &mut app, &[key('y')]);
    assert!(
        src.chain().open_receipts().is_empty(),
        "the pool is empty: {:?}",
        app.toast
    );
    assert_eq!(state(&src), before, "as before the transaction");
    let s = screen_at(&app, 120, 34);
    assert!(
        s.contains("holds no transaction"),
        "the list refreshed: {s}"
    );
    assert!(
        s.contains("dropped transaction"),
        "the status line says it: {s}"
    );
}

#[test]
fn issue32_drop_is_refused_while_viewing_the_past() {
    let (mut src, mut app) = demo();
    let actor = app.data.actors[0];
    src.execute(UiCommand::ScheduleTimer(schedule(actor, 30)))
        .unwrap();
    refresh(&mut src, &mut app);
    press(&mut src, &mut app, &[key('['), key('P'), key('d')]);
    assert_eq!(src.chain().open_receipts().len(), 1, "nothing dropped");
    let s = screen_at(&app, 120, 34);
    assert!(s.contains("refused: viewing the past"), "{s}");
}

#[test]
fn issue32_dry_run_from_the_schedule_form_changes_nothing_and_shows_the_diff() {
    let (mut src, mut app) = demo();
    let before = state(&src);
    press(&mut src, &mut app, &[key('s')]);
    assert!(matches!(app.overlay, Overlay::Form(_)));
    let ctrl_d = KeyEvent::new(KeyCode::Char('d'), KeyModifiers::CONTROL);
    press(&mut src, &mut app, &[ctrl_d]);
    assert!(
        matches!(app.overlay, Overlay::DryRun(_)),
        "{:?}",
        app.overlay
    );
    for (w, h) in [(120, 34), (80, 24)] {
        let s = screen_at(&app, w, h);
        assert!(s.contains("dry run"), "{w}x{h}: {s}");
        assert!(s.contains("would create timer"), "{w}x{h}: {s}");
        assert!(s.contains("timer scheduled"), "{w}x{h}: the diff: {s}");
        assert!(s.contains("balance"), "{w}x{h}: the diff: {s}");
    }
    assert_eq!(state(&src), before, "a dry run changes nothing");
    press(&mut src, &mut app, &[code(KeyCode::Esc)]);
    assert!(
        matches!(app.overlay, Overlay::Form(_)),
        "Esc: back to the form"
    );
}

#[test]
fn issue32_pool_and_dry_run_answer_the_same_attached_and_in_process() {
    let (mut local, mut remote, _running, _rt) = common::keys::served_demo();
    let mut app = App::new(KeyMap::default());
    refresh(&mut local, &mut app);
    let req = schedule(app.data.actors[0], 30);
    let dry = cowboy_devnet::tui::command::DryRequest::Schedule(req.clone());
    let here = local.dry_run(&dry).expect("a dry run in process");
    let there = remote.dry_run(&dry).expect("a dry run over JSON-RPC");
    assert_eq!(here, there, "the same dry run either way");
    assert!(here.registration.is_some_and(|r| r.created), "{here:?}");
    assert_eq!(local.pending_txs().unwrap(), Vec::new(), "nothing was sent");
    local
        .execute(UiCommand::ScheduleTimer(req))
        .expect("scheduled");
    let pending = remote.pending_txs().expect("the pool over JSON-RPC");
    assert_eq!(pending.len(), 1);
    assert_eq!(pending, local.pending_txs().unwrap());
    let dropped = remote.execute(UiCommand::DropTransaction(pending[0].hash));
    assert!(
        matches!(dropped, Ok(CommandOutcome::Applied { .. })),
        "{dropped:?}"
    );
    assert_eq!(
        local.pending_txs().unwrap(),
        Vec::new(),
        "dropped over JSON-RPC"
    );
}

#[test]
fn issue32_a_refused_drop_shows_the_nodes_message() {
    // A node played headless keeps no history before the run's last blocks: the drop's
    // rebuild is refused (`HistoryPruned`), and the status line says so.
    let mut src = common::keys::fixture_at("demo", 5);
    let mut app = App::new(KeyMap::default());
    refresh(&mut src, &mut app);
    let actor = app.data.actors[0];
    src.execute(UiCommand::ScheduleTimer(schedule(actor, 30)))
        .unwrap();
    press(&mut src, &mut app, &[key('P'), key('d'), key('y')]);
    assert_eq!(src.chain().open_receipts().len(), 1, "nothing dropped");
    let s = screen_at(&app, 120, 34);
    assert!(
        s.contains("devnet_dropTransaction failed: HistoryPruned"),
        "{s}"
    );
}
