//! The timer finder (issue 32, "What the closing note shows": the finder at 100,000 timers, its
//! frame time beside the frame bench). With 100,000 pending timers (ring, epoch and overflow
//! tiers, 1,000 actors): the finder's frame at 200x60 beside the same frame on an empty chain
//! (as `dashboard_frame` measures the panes), and the finder's query (`timer_list` with a page
//! of 1,000, what each keystroke and each sealed block asks) beside the dashboard's whole
//! refresh query on the same chain.
//!
//! Run: `cargo bench --bench finder`.

#[path = "../tests/common/mod.rs"]
mod common;

use cowboy_devnet::engine::{Address, Timer};
use cowboy_devnet::node::{MAX_PAGE, NodeConfig, NodeCore, TimerFilter, TimersPageQuery};
use cowboy_devnet::tui::app::{App, Overlay};
use cowboy_devnet::tui::finder_query::FINDER_PAGE;
use cowboy_devnet::tui::keys::KeyMap;
use cowboy_devnet::tui::local::LocalDevnet;
use cowboy_devnet::tui::model::DashboardSource;
use cowboy_devnet::tui::render::render;
use cowboy_devnet::tui::theme::Theme;
use cowboy_devnet::tui::{handle_key, refresh};
use cowboy_devnet::vm::DevnetRuntime;
use criterion::{Criterion, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::collections::BTreeMap;
use std::hint::black_box;

const PENDING: u64 = 100_000;
const ACTORS: u64 = 1_000;

fn actor(i: u64) -> Address {
    common::fleet::fleet_actor(ACTORS, i)
}

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

fn busy() -> LocalDevnet {
    let mut d = devnet();
    let spread = (0..PENDING).map(|n| timer(n, 2 + (n * 400_000) / PENDING));
    d.test_hook_insert_timers(spread).expect("fresh ids");
    let names = (0..ACTORS)
        .map(|i| (actor(i), format!("actor-{i}")))
        .collect();
    LocalDevnet::new(d, names)
}

/// The dashboard with the finder open (`:`), its first page read.
fn finder_app(src: &mut LocalDevnet) -> App {
    let mut app = App::new(KeyMap::default());
    refresh(src, &mut app);
    handle_key(
        src,
        &mut app,
        KeyEvent::new(KeyCode::Char(':'), KeyModifiers::NONE),
    );
    assert!(matches!(app.overlay, Overlay::Finder(_)));
    app
}

fn bench(c: &mut Criterion) {
    let theme = Theme::default();
    let mut empty = LocalDevnet::new(devnet(), BTreeMap::new());
    let mut full = busy();
    let empty_app = finder_app(&mut empty);
    let full_app = finder_app(&mut full);
    let Overlay::Finder(f) = &full_app.overlay else {
        unreachable!()
    };
    let page = f.page.as_ref().expect("a page");
    assert_eq!(page.matched, PENDING);
    assert_eq!(page.timers.len(), FINDER_PAGE);

    let mut g = c.benchmark_group("finder");
    g.sample_size(20);
    let mut term = Terminal::new(TestBackend::new(200, 60)).unwrap();
    g.bench_function("frame_empty_chain_200x60", |b| {
        b.iter(|| {
            term.draw(|f| render(f, black_box(&empty_app), &theme))
                .unwrap();
        })
    });
    g.bench_function("frame_100k_pending_200x60", |b| {
        b.iter(|| {
            term.draw(|f| render(f, black_box(&full_app), &theme))
                .unwrap();
        })
    });
    let q = TimersPageQuery {
        filter: TimerFilter::default(),
        cursor: None,
        limit: MAX_PAGE,
    };
    g.bench_function("query_page_1000_of_100k", |b| {
        b.iter(|| black_box(full.timer_page(&q)))
    });
    let finder_page = TimersPageQuery {
        limit: FINDER_PAGE,
        ..q.clone()
    };
    g.bench_function("query_finder_page_200_of_100k", |b| {
        b.iter(|| black_box(full.timer_page(&finder_page)))
    });
    let narrow = TimersPageQuery {
        filter: TimerFilter {
            from_height: Some(100_000),
            to_height: Some(100_100),
            ..TimerFilter::default()
        },
        ..q.clone()
    };
    g.bench_function("query_window_100_heights_of_100k", |b| {
        b.iter(|| black_box(full.timer_page(&narrow)))
    });
    g.bench_function("refresh_query_100k_pending", |b| {
        let vq = full_app.query();
        b.iter(|| black_box(full.dashboard(&vq)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
