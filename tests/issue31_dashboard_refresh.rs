//! Issue 31, "an attached dashboard adds under 5 % CPU to the node" (Spec note 199): the
//! dashboard refreshes when news comes (a block, the story), at most every
//! [`NEWS_GAP`](cowboy_devnet::tui::worker::NEWS_GAP), and otherwise only after a long idle
//! wait while the source sends live updates, not every half second whatever happens.

mod common;

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

/// Spec note 199: refreshed right after each block (on its news), the dashboard still shows
/// the rows of a standing backlog's bucket, which moves to the next height every block (the
/// query named the bucket as last read, which had just come due and drained).
#[test]
fn issue31_a_backlog_bucket_keeps_its_rows_when_refreshed_on_news() {
    use cowboy_devnet::engine::SchedulerKind;
    use cowboy_devnet::engine::timer::Timer;
    use cowboy_devnet::node::SetMining;
    let mut node = common::fleet::carried_bucket_node(
        SchedulerKind::Fifo,
        10,
        (0..2_000u64).map(|k| Timer {
            schedule_block: 1,
            gas_limit_per_fire: 10_000,
            ..common::fleet::bulk_timer(k, common::fleet::fleet_actor(10, k % 10), 3)
        }),
    );
    node.apply(SetMining(MiningMode::Interval { block_time_ms: 100 }))
        .unwrap();
    let mut app = App::new(KeyMap::default());
    let mut client = Client::spawn(
        LocalDevnet::new(node, BTreeMap::new()),
        Duration::from_millis(5),
    );
    client.refresh(&app);
    let (mut shown, mut empty) = (0, 0);
    let (mut was, end) = (true, Instant::now() + Duration::from_millis(1_500));
    while Instant::now() < end {
        client.wait(&mut app, Duration::from_millis(2));
        client.tick(&app, Duration::from_secs(2));
        let now = client.refreshing();
        if !now && was && app.height() > 3 {
            // A refresh just came back: the bucket's rows are there.
            match app.data.bucket_timers.is_empty() {
                true => empty += 1,
                false => shown += 1,
            }
        }
        was = now;
    }
    assert!(shown >= 3, "{shown} refreshes with rows");
    assert_eq!(
        empty, 0,
        "{empty} refreshes showed the drained bucket ({shown} did not)"
    );
}
