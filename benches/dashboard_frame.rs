//! The dashboard's frame (issue 15, "Tests and speed"): one full `render` at 200x60 with
//! 100,000 pending timers (ring, epoch and overflow tiers, 1,000 actors, a selected bucket of
//! 500) and 100,000 events in the feed, beside the same frame of an empty chain (the target:
//! within 2x of it and at most 5 ms), and beside a naive feed that lays out every event instead
//! of only those on screen. Also the refresh query (`LocalDevnet::dashboard`) that fills the
//! app, on both chains: it runs between frames, not inside a draw.
//!
//! Run: `cargo bench --bench dashboard_frame`.

#[path = "../tests/common/mod.rs"]
mod common;

use cowboy_devnet::engine::{Address, Timer};
use cowboy_devnet::node::{NodeConfig, NodeCore};
use cowboy_devnet::tui::app::{Action, App, update};
use cowboy_devnet::tui::keys::KeyMap;
use cowboy_devnet::tui::local::LocalDevnet;
use cowboy_devnet::tui::model::{DashboardSource, EventRow};
use cowboy_devnet::tui::render::render;
use cowboy_devnet::tui::theme::Theme;
use cowboy_devnet::tui::{EVENTS_PER_REFRESH, refresh};
use cowboy_devnet::vm::DevnetRuntime;
use criterion::{Criterion, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use std::collections::BTreeMap;
use std::hint::black_box;

const PENDING: u64 = 100_000;
const EVENTS: u64 = 100_000;
const ACTORS: u64 = 1_000;

fn actor(i: u64) -> Address {
    common::fleet::fleet_actor(ACTORS, i)
}

/// A bulk timer ([`common::fleet::bulk_timer`]) of `actor(n)`, scheduled at block 1.
fn timer(n: u64, height: u64) -> Timer {
    Timer {
        schedule_block: 1,
        ..common::fleet::bulk_timer(n, actor(n), height)
    }
}

fn devnet() -> NodeCore {
    NodeCore::new(NodeConfig::headless(
        common::fleet::uncapped_genesis(),
        DevnetRuntime::shared(),
        cowboy_devnet::chain::DEFAULT_KEEP_BLOCKS,
    ))
    .expect("genesis")
}

fn names() -> BTreeMap<Address, String> {
    (0..ACTORS)
        .map(|i| (actor(i), format!("actor-{i}")))
        .collect()
}

/// 500 timers due at height 2 (the selected bucket), the rest spread over 400,000 heights.
fn busy() -> LocalDevnet {
    let mut d = devnet();
    let due = (0..500).map(|n| timer(n, 2));
    let spread = (500..PENDING).map(|n| timer(n, 3 + (n * 400_000) / PENDING));
    d.test_hook_insert_timers(due.chain(spread))
        .expect("fresh ids");
    LocalDevnet::new(d, names())
}

fn events() -> Vec<EventRow> {
    (0..EVENTS)
        .map(|n| EventRow {
            height: 1 + n / 100,
            kind: ["TimerScheduled", "TimerFired", "TimerDeferred"][(n % 3) as usize].into(),
            fields: format!(
                "height={} gas_limit_per_fire=10000 handler=handle_timer",
                n + 3
            ),
            timer: Some(timer(n, 2).timer_id),
            actor: Some(actor(n)),
            // The feed shows the headless lines' text (issue 23).
            text: format!(
                "timer {n:08x} of actor{n} ran handle_timer: 2040 cycles, cost 2069, refund 1097931"
            ),
        })
        .collect()
}

fn app(src: &mut LocalDevnet, feed: bool) -> App {
    let mut app = App::new(KeyMap::default());
    refresh(src, &mut app);
    // Select the first bucket that has timers (the busy chain's 500 at height 2).
    if let Some(i) = app.data.buckets.iter().position(|b| b.count > 0) {
        app.bucket_sel = i;
        refresh(src, &mut app);
    }
    if feed {
        update(&mut app, Action::Events(events()));
    }
    app
}

fn bench(c: &mut Criterion) {
    let theme = Theme::default();
    let mut empty = LocalDevnet::new(devnet(), BTreeMap::new());
    let mut full = busy();
    let empty_app = app(&mut empty, false);
    let full_app = app(&mut full, true);
    assert_eq!(
        full_app.data.status.as_ref().unwrap().pending_timers,
        PENDING
    );
    assert_eq!(full_app.data.bucket_timers.len(), 500);
    assert_eq!(full_app.feed.len(), EVENTS as usize);
    assert!(EVENTS as usize > EVENTS_PER_REFRESH);

    let mut g = c.benchmark_group("dashboard_frame");
    let mut term = Terminal::new(TestBackend::new(200, 60)).unwrap();
    g.bench_function("empty_chain_200x60", |b| {
        b.iter(|| {
            term.draw(|f| render(f, black_box(&empty_app), &theme))
                .unwrap();
        })
    });
    g.bench_function("100k_pending_100k_events_200x60", |b| {
        b.iter(|| {
            term.draw(|f| render(f, black_box(&full_app), &theme))
                .unwrap();
        })
    });
    // Naive baseline: the feed pane laid out from every event, the way a List of all rows is.
    g.bench_function("naive_feed_all_events_200x18", |b| {
        let mut t = Terminal::new(TestBackend::new(200, 18)).unwrap();
        b.iter(|| {
            let lines: Vec<Line> = full_app
                .feed
                .iter()
                .map(|e| Line::from(format!("#{} {} {}", e.height, e.kind, e.fields)))
                .collect();
            let n = lines.len() as u16;
            t.draw(|f| {
                f.render_widget(
                    Paragraph::new(lines).scroll((n.saturating_sub(16), 0)),
                    f.area(),
                )
            })
            .unwrap();
        })
    });
    g.bench_function("refresh_query_empty", |b| {
        let q = empty_app.query();
        b.iter(|| black_box(empty.dashboard(&q)))
    });
    g.bench_function("refresh_query_100k_pending", |b| {
        let q = full_app.query();
        b.iter(|| black_box(full.dashboard(&q)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
