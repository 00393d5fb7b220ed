//! Issue 34 (the dashboard): the lane pane at the documented size (120x34) and the charts'
//! selectable window of blocks (btop-style). The chart with its legend and units is drawn at
//! 120x34 under fifo, eip1559, cip1-v1 and a CIP-5 draft; every figure is a whole value at
//! 120x34 and 80x24, where the pane says what it hides and that `z` maximises it.

mod common;

use common::keys::{code, key, press, screen_at};
use cowboy_devnet::engine::SchedulerKind;
use cowboy_devnet::tui::app::App;
use cowboy_devnet::tui::keys::KeyMap;
use cowboy_devnet::tui::local::LocalDevnet;
use cowboy_devnet::tui::panes::lane_figures;
use cowboy_devnet::tui::refresh;
use crossterm::event::KeyCode;

fn app_under(fixture: &str, h: u64, k: Option<SchedulerKind>) -> (LocalDevnet, App) {
    let mut src = common::keys::fixture_under(fixture, h, k);
    let mut app = App::new(KeyMap::default());
    refresh(&mut src, &mut app);
    (src, app)
}

/// The four schedulers the issue's closing note asks captures of.
fn cases() -> Vec<(&'static str, u64, Option<SchedulerKind>, &'static str)> {
    vec![
        ("demo", 40, None, "fifo"),
        ("congestion", 20, None, "eip1559"),
        ("demo", 40, Some(SchedulerKind::Cip1V1), "cip1-v1"),
        ("demo", 40, Some(SchedulerKind::Cip5Draft), "cip5-draft"),
    ]
}

/// The right column of a screen (the lane pane's side) at `w` columns.
fn right_column(screen: &str, w: usize) -> Vec<String> {
    let left = w * 55 / 100;
    screen
        .lines()
        .map(|l| l.trim_matches('"').chars().skip(left).collect())
        .collect()
}

/// Issue 34, item 1 (and item 9): at 120x34 the lane pane draws its chart (at least two plot
/// rows, the y axis's `0` and top labels) with its legend and units and the window's ends,
/// under fifo, eip1559, cip1-v1 and cip5-draft (the fires per block: the drafts have no lane).
#[test]
fn issue34_lane_chart_visible_at_120x34_under_every_scheduler() {
    for (fixture, h, k, name) in cases() {
        let (_src, app) = app_under(fixture, h, k);
        let s = screen_at(&app, 120, 34);
        let right = right_column(&s, 120).join("\n");
        let draft = name.starts_with("cip5");
        let legend = if draft {
            vec!["▬fires", "per block · 128 blocks"]
        } else {
            vec!["▬reserved", "▬used", "▬gc", "% of 2000k per block"]
        };
        for want in legend {
            assert!(right.contains(want), "{name}: legend {want}:\n{s}");
        }
        assert!(
            right.contains(&format!("#{h}│")),
            "{name}: the x axis ends at #{h}:\n{s}"
        );
        let top = if draft { "│" } else { "100%│" };
        let rows_with_axis = right
            .lines()
            .filter(|l| l.contains("│0 ") || l.contains("│0│") || l.contains("│0   │"))
            .count();
        assert!(rows_with_axis >= 1, "{name}: the y axis's 0:\n{s}");
        assert!(right.contains(top), "{name}: the y axis's top:\n{s}");
        // Every figure whole (issue 34, item 9: never a value cut mid-number).
        if !draft {
            for c in lane_figures::cells(&app, name == "eip1559") {
                assert!(right.contains(&c.text), "{name}: {:?} whole:\n{s}", c.text);
            }
            assert!(
                !right.contains("hidden"),
                "{name}: nothing hidden at 120x34:\n{s}"
            );
        }
    }
}

/// Issue 34, item 1: at 80x24 the lane pane may not show every figure, but it never ends
/// with a cut value: the figures it shows are whole, and its last figure row says how many
/// are hidden and that `z` maximises the pane; maximised, every figure and the chart show.
#[test]
fn issue34_lane_pane_at_80x24_says_what_it_hides() {
    for (fixture, h, k, name) in cases().into_iter().take(3) {
        let (mut src, mut app) = app_under(fixture, h, k);
        let s = screen_at(&app, 80, 24);
        let right = right_column(&s, 80).join("\n");
        let cells = lane_figures::cells(&app, name == "eip1559");
        let shown = cells.iter().filter(|c| right.contains(&c.text)).count();
        let note = right
            .lines()
            .find(|l| l.contains("hidden"))
            .unwrap_or_else(|| panic!("{name}: the hidden note:\n{s}"));
        assert!(note.contains("z maximises"), "{name}: {note}");
        if let Some(n) = note.split("▾ ").nth(1).and_then(|t| {
            t.split_whitespace()
                .next()
                .and_then(|n| n.parse::<usize>().ok())
        }) {
            assert_eq!(shown + n, cells.len(), "{name}: shown + hidden:\n{s}");
        }
        // The basefee's label holds whole values only.
        assert!(
            right.contains("basefee 1 per cycle (") || right.contains("lane basefee 3.430204774 "),
            "{name}: the basefee label:\n{s}"
        );
        // `z` on the lane pane (Tab focuses it): every figure and the chart.
        app.focus = cowboy_devnet::tui::app::Pane::Lane;
        press(&mut src, &mut app, &[key('z')]);
        // Drawn 240 columns wide and scrolled sideways with →.
        let mut z = screen_at(&app, 80, 24);
        for _ in 0..16 {
            press(&mut src, &mut app, &[code(KeyCode::Right)]);
            z.push_str(&screen_at(&app, 80, 24));
        }
        for c in &cells {
            let head: String = c.text.chars().take(20).collect();
            assert!(z.contains(&head), "{name}: maximised {:?}:\n{z}", c.text);
        }
        assert!(z.contains("▬reserved"), "{name}: the chart maximised:\n{z}");
    }
}

/// Issue 34 (btop): `<` and `>` narrow and widen the charts' window of blocks (32, 64, 128,
/// 256, all kept), named in the lane pane's title; the chart's x axis starts at the window's
/// first block, and the refresh asks the node that many blocks (the same `LaneQuery` an
/// attached dashboard sends as `scheduler_lane`'s `last`).
#[test]
fn issue34_charts_window_of_blocks_is_selectable() {
    let (mut src, mut app) = app_under("demo", 100, None);
    assert_eq!(app.query().queries().lane.last, 128);
    let s = screen_at(&app, 120, 34);
    assert!(s.contains("lane · fifo · 128 blocks </>"), "{s}");
    assert!(s.contains("│#1 ▬reserved"), "{s}");
    // The chart starts at the window's first sealed block (the node keeps a block per busy
    // height: quiet heights have none).
    let first = |app: &App| app.data.lane.first().map(|r| r.height).unwrap();
    for (keys, last, title) in [
        (vec![key('<')], 64, "lane · fifo · 64 blocks"),
        (vec![key('<')], 32, "lane · fifo · 32 blocks"),
    ] {
        press(&mut src, &mut app, &keys);
        assert_eq!(app.query().queries().lane.last, last);
        let s = screen_at(&app, 120, 34);
        assert!(s.contains(title), "{s}");
        assert!(first(&app) > 100 - last, "{last}: {}", first(&app));
        assert!(
            s.contains(&format!("│#{} ▬reserved", first(&app))),
            "{last}: the window's first block:\n{s}"
        );
    }
    press(&mut src, &mut app, &[key('<')]);
    let s = screen_at(&app, 120, 34);
    assert!(s.contains("narrowest window"), "said at the end:\n{s}");
    press(
        &mut src,
        &mut app,
        &[key('>'), key('>'), key('>'), key('>')],
    );
    assert_eq!(
        app.query().queries().lane.last,
        cowboy_devnet::node::MAX_LANE_BLOCKS
    );
    let s = screen_at(&app, 120, 34);
    let n = app.data.lane.len();
    assert!(s.contains(&format!("all kept ({n} blocks)")), "{s}");
    assert_eq!(first(&app), 1);
    assert!(s.contains("│#1 ▬reserved"), "{s}");
}

const SCRIPT: &str = r#"
fn handle_timer(payload) {
    emit("fired", `at height ${block_height()}`);
}
"#;

/// A node keeping `history` blocks (as `serve --history`), an actor with ten timers due at
/// #3, #5, ... each with a JSON payload `{"order":I}`, mined to `head`.
fn session(history: usize, head: u64) -> LocalDevnet {
    use cowboy_devnet::chain::Genesis;
    use cowboy_devnet::chain::runtime::ActorCode;
    use cowboy_devnet::engine::ScheduleArgs;
    use cowboy_devnet::node::{Mine, MiningMode, NodeConfig, NodeCore, ScheduleTimer, SetMining};
    let mut c = NodeConfig::new(
        Genesis::default(),
        cowboy_devnet::vm::DevnetRuntime::shared(),
    );
    c.history = history;
    c.keep_blocks = Some(history);
    let mut n = NodeCore::new(c).expect("genesis");
    n.apply(SetMining(MiningMode::Manual)).expect("manual");
    let actor = common::node_deploy(&mut n, ActorCode::rhai("ticker", SCRIPT), "ticker");
    for i in 0..10u64 {
        let args = ScheduleArgs {
            height: 3 + 2 * i,
            payload: format!("{{\"order\":{i}}}").into_bytes(),
            ..ScheduleArgs::default()
        };
        n.apply(ScheduleTimer {
            actor,
            args,
            ..Default::default()
        })
        .expect("schedule");
    }
    let to = head - n.height();
    n.apply(Mine { blocks: to }).expect("mine");
    LocalDevnet::new(n, std::collections::BTreeMap::new())
}

/// The timer that fired at `height`, from the node's events.
fn fired_at(src: &mut LocalDevnet, height: u64) -> cowboy_devnet::engine::TimerId {
    use cowboy_devnet::tui::model::DashboardSource;
    src.events(1, 10_000)
        .into_iter()
        .find(|e| e.kind == "TimerFired" && e.height == height)
        .and_then(|e| e.timer)
        .expect("a timer fired there")
}

/// The raw view (`v`) of the timer `id` as the dashboard opens it from a selection: its life
/// loaded, then drawn at 120x34.
fn raw_view(src: &mut LocalDevnet, app: &mut App, id: cowboy_devnet::engine::TimerId) -> String {
    use cowboy_devnet::tui::app::{Effect, Overlay};
    app.raw = true;
    app.overlay = Overlay::LifeLoading(id);
    cowboy_devnet::tui::apply_effects(src, app, vec![Effect::LoadLife(id)]);
    screen_at(app, 120, 34)
}

/// Issue 34, item 3: the raw view of a timer that left shows its payload. The node keeps a
/// payload while the timer is pending and the length only once it left (its `TimerScheduled`
/// event, its compact record), so the dashboard reads the timer as of the block before it
/// left (a past read, the request an attached dashboard sends too): the timer that fired at
/// #5 shows `{"order":1}` as hex and as JSON and says where it was read; a refresh keeps it.
#[test]
fn issue34_item3_raw_view_of_a_gone_timer_shows_its_payload() {
    let mut src = session(1_000, 20);
    let mut app = App::new(KeyMap::default());
    refresh(&mut src, &mut app);
    let fired = fired_at(&mut src, 5);
    let s = raw_view(&mut src, &mut app, fired);
    let hex: String = br#"{"order":1}"#.iter().map(|b| format!("{b:02x}")).collect();
    for want in [
        "status: fired".to_string(),
        format!("payload_hex: 0x{hex}"),
        "payload_json:".into(),
        "\"order\": 1".into(),
        "payload_from: as of #4, the block before it left".into(),
    ] {
        assert!(s.contains(&want), "{want}:\n{s}");
    }
    refresh(&mut src, &mut app);
    let s = screen_at(&app, 120, 34);
    assert!(
        s.contains(&format!("payload_hex: 0x{hex}")),
        "kept on refresh:\n{s}"
    );
}

/// Issue 34, item 3: a timer that left before the node's retained window (a node keeping 4
/// blocks at #30, the timer gone at #5): the raw view says plainly that its payload is not
/// kept.
#[test]
fn issue34_item3_raw_view_says_a_payload_left_before_the_window_is_not_kept() {
    let mut whole = session(1_000, 30);
    let fired = fired_at(&mut whole, 5);
    let mut src = session(4, 30);
    let mut app = App::new(KeyMap::default());
    refresh(&mut src, &mut app);
    let s = raw_view(&mut src, &mut app, fired);
    assert!(s.contains("status: fired"), "the node knows it:\n{s}");
    assert!(
        s.contains("payload: payload not kept (left before the retained window)"),
        "{s}"
    );
    assert!(!s.contains("payload_hex"), "{s}");
}
