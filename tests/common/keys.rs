//! Key presses and drawn screens for the dashboard's tests: keys as crossterm sends them, sent
//! through the same handler as the terminal's, and a frame drawn to a test backend as text.

use cowboy_devnet::tui::app::App;
use cowboy_devnet::tui::model::DashboardSource;
use cowboy_devnet::tui::theme::Theme;
use cowboy_devnet::tui::{handle_key, render};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::{Terminal, backend::TestBackend};

/// A character key (shifted when upper case).
pub fn key(c: char) -> KeyEvent {
    let m = if c.is_ascii_uppercase() {
        KeyModifiers::SHIFT
    } else {
        KeyModifiers::NONE
    };
    KeyEvent::new(KeyCode::Char(c), m)
}

/// A key without modifiers.
pub fn code(c: KeyCode) -> KeyEvent {
    KeyEvent::new(c, KeyModifiers::NONE)
}

/// The keys of a typed text.
pub fn typed(s: &str) -> Vec<KeyEvent> {
    s.chars().map(key).collect()
}

/// Presses `keys` in order on `app`, against `src`.
pub fn press<S: DashboardSource + ?Sized>(src: &mut S, app: &mut App, keys: &[KeyEvent]) {
    for k in keys {
        handle_key(src, app, *k);
    }
}

/// Selects the coming bucket at `height` in the list of heights (it must be listed) and reads
/// its timers (a refresh).
pub fn select_bucket<S: DashboardSource + ?Sized>(src: &mut S, app: &mut App, height: u64) {
    app.bucket_sel = app
        .data
        .buckets
        .iter()
        .position(|b| b.height == height)
        .unwrap_or_else(|| panic!("bucket {height} is not listed"));
    cowboy_devnet::tui::refresh(src, app);
}

/// `app` drawn at `w`x`h` in the default theme, as text.
pub fn screen_at(app: &App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| render::render(f, app, &Theme::default()))
        .unwrap();
    t.backend().to_string()
}

/// A shipped fixture played headless up to block `height` (the steps of later heights not
/// played), manual mining, as the dashboard's tests start. The run is the fixture's whole
/// length, stopped after that block: a shorter run would end before the fixture's later steps
/// and expectations, which makes the fixture broken (Spec note 24) and plays nothing.
pub fn fixture_at(name: &str, height: u64) -> cowboy_devnet::tui::local::LocalDevnet {
    fixture_under(name, height, None)
}

/// [`fixture_at`] played under `scheduler` (as `--scheduler` plays it) when one is given.
pub fn fixture_under(
    name: &str,
    height: u64,
    scheduler: Option<cowboy_devnet::engine::SchedulerKind>,
) -> cowboy_devnet::tui::local::LocalDevnet {
    use cowboy_devnet::scenario::{RunOptions, builtin};
    use cowboy_devnet::vm::DevnetRuntime;
    use std::ops::ControlFlow;
    let mut sc = builtin::scenario(name, &DevnetRuntime::new())
        .expect("the fixture ships")
        .expect("the fixture prepares");
    if let Some(k) = scheduler {
        sc.play_under(k);
    }
    let (report, devnet) = sc
        .run_with(
            DevnetRuntime::shared(),
            RunOptions {
                blocks: None,
                skip_rows: true,
                keep_blocks: Some(cowboy_devnet::chain::DEFAULT_KEEP_BLOCKS),
            },
            &mut |b, _| {
                if b.header.height >= height {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
        )
        .expect("the fixture runs");
    assert_eq!(report.refused, None, "the fixture plays");
    assert_eq!(
        devnet.chain().height(),
        height,
        "{name} is played to #{height}"
    );
    cowboy_devnet::tui::local::LocalDevnet::new(devnet, sc.address_book())
}

/// A shipped fixture played live along a node that keeps its history (as the dashboard's
/// does: its steps are the node's hook, so a drop can rebuild the open block from the head), to
/// block `height`, manual mining (a transaction stays pending until a block is mined).
pub fn live_fixture_at(name: &str, height: u64) -> cowboy_devnet::tui::local::LocalDevnet {
    let (node, names) = live_fixture_node(name, height);
    cowboy_devnet::tui::local::LocalDevnet::new(node, names)
}

/// The node of [`live_fixture_at`] and the fixture's names.
fn live_fixture_node(
    name: &str,
    height: u64,
) -> (
    cowboy_devnet::node::NodeCore,
    std::collections::BTreeMap<cowboy_devnet::engine::Address, String>,
) {
    use cowboy_devnet::node::{Mine, MiningMode, NodeConfig, NodeCore};
    use cowboy_devnet::scenario::live::FixturePlayer;
    use cowboy_devnet::scenario::{Scenario, builtin};
    use cowboy_devnet::vm::DevnetRuntime;
    let lf = builtin::fixture(name)
        .expect("the fixture ships")
        .expect("the fixture parses");
    let s = Scenario::prepare(&lf, &DevnetRuntime::new(), &builtin::script_loader)
        .expect("the fixture prepares");
    let mut c = NodeConfig::new(s.genesis().clone(), DevnetRuntime::shared());
    c.mining = MiningMode::Manual;
    c.names = s.address_book();
    let names = s.address_book();
    let mut d = NodeCore::new(c).expect("genesis");
    d.set_hook(Box::new(FixturePlayer::new(std::sync::Arc::new(s))));
    d.apply(Mine { blocks: height }).expect("mines");
    (d, names)
}

/// The demo along a manual-mining node at #5 ([`live_fixture_at`]'s node), served on a free
/// port: the in-process source and the attached one (`--attach`) on the same node, the server
/// and its runtime (keep them alive).
pub fn served_demo() -> (
    cowboy_devnet::tui::local::LocalDevnet<cowboy_devnet::tui::local::LiveNode>,
    cowboy_devnet::tui::remote::RemoteDevnet,
    super::served::Served,
    tokio::runtime::Runtime,
) {
    let (core, _) = live_fixture_node("demo", 5);
    let node = cowboy_devnet::node::spawn(core);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let served = rt.block_on(super::served::serve_node(
        node.clone(),
        &super::served::port0(),
    ));
    let url = format!("http://{}", served.addr);
    let local = cowboy_devnet::tui::local::LocalDevnet::live(node);
    let remote = cowboy_devnet::tui::remote::RemoteDevnet::new(&url).unwrap();
    (local, remote, served, rt)
}
