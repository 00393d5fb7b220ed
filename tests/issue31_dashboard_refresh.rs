//! Issue 31, "an attached dashboard adds under 5 % CPU to the node" (Spec note 199): the
//! dashboard refreshes when news comes (a block, the story), at most every
//! [`NEWS_GAP`](cowboy_devnet::tui::worker::NEWS_GAP), and otherwise only after a long idle
//! wait while the source sends live updates, not every half second whatever happens.

use cowboy_devnet::chain::Genesis;
use cowboy_devnet::node::{MiningMode, NodeConfig, NodeCore};
use cowboy_devnet::tui::app::App;
use cowboy_devnet::tui::keys::KeyMap;
use cowboy_devnet::tui::local::LocalDevnet;
use cowboy_devnet::tui::worker::{Client, NEWS_GAP};
use cowboy_devnet::vm::DevnetRuntime;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The refreshes a dashboard loop sends over `span` on a node mining as `mining`, with an idle
/// wait of `idle`, and the heights it showed.
fn refreshes(mining: MiningMode, span: Duration, idle: Duration) -> (usize, u64) {
    let mut cfg = NodeConfig::new(Genesis::default(), DevnetRuntime::shared());
    cfg.mining = mining;
    let src = LocalDevnet::new(NodeCore::new(cfg).unwrap(), BTreeMap::new());
    let mut app = App::new(KeyMap::default());
    let mut client = Client::spawn(src, Duration::from_millis(5));
    client.refresh(&app);
    let (mut sent, mut was) = (1, true);
    let end = Instant::now() + span;
    while Instant::now() < end {
        client.wait(&mut app, Duration::from_millis(2));
        client.pump(&mut app);
        client.tick(&app, idle);
        let now = client.refreshing();
        if now && !was {
            sent += 1;
        }
        was = now;
    }
    (sent, app.height())
}

#[test]
fn issue31_blocks_refresh_at_most_every_news_gap() {
    let span = Duration::from_millis(1_500);
    // A block every 10 ms: about 150 blocks of news.
    let (sent, height) = refreshes(
        MiningMode::Interval { block_time_ms: 10 },
        span,
        Duration::from_secs(2),
    );
    let most = (span.as_millis() / NEWS_GAP.as_millis()) as usize + 2;
    assert!(
        sent <= most,
        "{sent} refreshes for {span:?} of blocks (at most {most})"
    );
    assert!(sent >= 2, "news refreshes the panes: {sent}");
    assert!(height > 0, "the blocks are shown");
}

#[test]
fn issue31_a_quiet_devnet_is_not_refreshed_every_half_second() {
    // Manual mining, nothing happens: the first refresh, and none until the idle wait ends.
    let (sent, _) = refreshes(
        MiningMode::Manual,
        Duration::from_millis(1_200),
        Duration::from_secs(2),
    );
    assert_eq!(sent, 1, "a refresh every half second would be 3");
    // Without live updates (the shorter idle wait), the safety net refreshes.
    let (sent, _) = refreshes(
        MiningMode::Manual,
        Duration::from_millis(1_200),
        Duration::from_millis(500),
    );
    assert!((2..=4).contains(&sent), "{sent}");
}
