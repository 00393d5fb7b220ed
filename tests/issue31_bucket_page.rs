//! Issue 31, "the dashboard asks for what it shows" (Spec note 197): a bucket is read a page at
//! a time (`node::BucketPageQuery`, `timer_bucketPage`), in the order the block runs it, with
//! the bucket's total and the page that holds a given timer; the dashboard asks only for the
//! rows around its cursor and shows the right rows after scrolling.

mod common;

use common::keys::{code, key, press, screen_at, select_bucket};
use cowboy_devnet::chain::Event;
use cowboy_devnet::engine::{
    Address, FeeCaps, PriorityTier, SchedulerKind, Timer, TimerEvent, TimerId,
};
use cowboy_devnet::node::{
    BucketPage, BucketPageQuery, BucketQuery, DeferralsQuery, EventFilter, EventsQuery,
    MAX_BUCKET_PAGE, Mine, NodeCore, ReasonCount, spawn,
};
use cowboy_devnet::tui::app::App;
use cowboy_devnet::tui::keys::KeyMap;
use cowboy_devnet::tui::local::LocalDevnet;
use cowboy_devnet::tui::refresh;
use crossterm::event::KeyCode;
use jsonrpsee::http_client::HttpClientBuilder;
use serde_json::json;

const GAS: u64 = 10_000;
const ACTORS: u64 = 7;

fn actor(i: u64) -> Address {
    common::fleet::fleet_actor(ACTORS, i)
}

/// A node with `n` timers due at height 3 (a lane of four fires a block, each timer `GAS`
/// cycles), mined to 3 so all but four are carried to 4. Under eip1559 the timers bid: caps
/// with a spread of tips, a tier, the default GBA, or a max fee below the lane basefee.
fn carried_bucket(n: u64, scheduler: SchedulerKind) -> NodeCore {
    common::fleet::carried_bucket_node(
        scheduler,
        ACTORS,
        (0..n).map(|k| Timer {
            schedule_block: 1,
            gas_limit_per_fire: GAS,
            fee_caps: fees(k),
            ..common::fleet::bulk_timer(k, actor(k), 3)
        }),
    )
}

fn fees(k: u64) -> Option<Box<FeeCaps>> {
    let caps = |fee: u128, tip: u128| FeeCaps {
        max_fee_per_cycle: Some(fee),
        max_priority_fee_per_cycle: Some(tip),
        ..FeeCaps::default()
    };
    match k % 5 {
        0 => None,
        1 => Some(caps(50_000_000_000, (k as u128 * 7_919) % 3_000_000_000)),
        2 => Some(FeeCaps {
            priority_tier: Some(PriorityTier::Fast),
            ..FeeCaps::default()
        }),
        3 => Some(caps(1, 1)),
        _ => Some(caps(50_000_000_000, (k as u128 % 4) * 1_000_000_000)),
    }
    .map(Box::new)
}

fn page(node: &NodeCore, offset: u64, limit: u64, timer: Option<TimerId>) -> BucketPage {
    node.ask(&BucketPageQuery {
        height: 4,
        offset,
        limit,
        timer,
        follow_due: false,
    })
    .expect("page")
}

/// Every page of `limit` rows equals the same slice of the whole bucket, at every offset (past
/// the end: no rows), with its positions and the total.
fn pages_are_slices(node: &NodeCore, whole: &BucketPage, limit: u64) {
    let total = whole.total;
    for offset in 0..=total + 1 {
        let p = page(node, offset, limit, None);
        assert_eq!(p.total, total);
        assert_eq!(p.offset, offset);
        assert_eq!(p.ranked, whole.ranked);
        let from = (offset as usize).min(whole.timers.len());
        let to = (offset + limit).min(total) as usize;
        assert_eq!(
            p.timers,
            whole.timers[from..to.max(from)],
            "offset {offset}"
        );
        for (i, e) in p.timers.iter().enumerate() {
            assert_eq!(e.position, offset + i as u64);
        }
    }
}

/// Issue 31, the dashboard asks for what it shows: under fifo a page is a slice of the bucket
/// in queue order (`timer_bucket`'s whole answer), for every offset.
#[test]
fn issue31_fifo_pages_are_slices_of_the_bucket_in_queue_order() {
    let node = carried_bucket(150, SchedulerKind::Fifo);
    let whole = page(&node, 0, MAX_BUCKET_PAGE, None);
    let old = node.ask(&BucketQuery { height: 4 }).unwrap();
    assert_eq!(whole.total, 146, "four fired at 3, the rest carried");
    assert!(!whole.ranked);
    let ids: Vec<TimerId> = whole.timers.iter().map(|e| e.timer.timer_id).collect();
    let old_ids: Vec<TimerId> = old.iter().map(|t| t.timer_id).collect();
    assert_eq!(ids, old_ids, "the queue's order, as timer_bucket answers");
    assert!(whole.timers.iter().all(|e| e.rank.is_none()));
    assert!(whole.timers.iter().all(|e| e.timer.carried == 1));
    for limit in [1, 7, 50] {
        pages_are_slices(&node, &whole, limit);
    }
}

/// Issue 31, the dashboard asks for what it shows: under eip1559 the node ranks the bucket as
/// the auction will (ranks 1.. by effective priority, those below the lane basefee last with
/// no rank), every page is a slice of that order, and the next block fires the first four
/// ranked (a lane of four equal budgets) in rank order.
#[test]
fn issue31_eip1559_pages_are_slices_of_the_auction_order() {
    let mut node = carried_bucket(150, SchedulerKind::Eip1559);
    let whole = page(&node, 0, MAX_BUCKET_PAGE, None);
    assert!(whole.ranked);
    assert_eq!(whole.total, whole.timers.len() as u64);
    let ranked = whole.timers.iter().take_while(|e| e.rank.is_some()).count();
    assert!(ranked > 4 && ranked < whole.timers.len(), "{ranked}");
    for (i, e) in whole.timers.iter().enumerate() {
        assert_eq!(e.rank, (i < ranked).then_some(i as u64 + 1));
        assert_eq!(e.rank.is_some(), e.effective_priority.is_some());
    }
    let effs: Vec<u128> = whole.timers[..ranked]
        .iter()
        .map(|e| e.effective_priority.unwrap())
        .collect();
    assert!(effs.windows(2).all(|w| w[0] >= w[1]), "priority descending");
    assert!(effs.first() > effs.last(), "an auction with different bids");
    for limit in [1, 7, 50] {
        pages_are_slices(&node, &whole, limit);
    }
    // The block runs them in that order.
    node.apply(Mine { blocks: 1 }).expect("mine");
    let fired: Vec<TimerId> = node
        .ask(&EventsQuery(EventFilter {
            from_height: Some(4),
            to_height: Some(4),
            kinds: Some(vec!["TimerFired".into()]),
            ..EventFilter::default()
        }))
        .unwrap()
        .iter()
        .filter_map(|e| match &e.event {
            Event::Timer(TimerEvent::TimerFired { timer_id, .. }) => Some(*timer_id),
            _ => None,
        })
        .collect();
    let top: Vec<TimerId> = whole.timers[..4].iter().map(|e| e.timer.timer_id).collect();
    assert_eq!(fired, top);
}

/// Issue 31, the pinned timer's page: asked with a timer outside the rows asked, the page is
/// the rows around it and says where it is; inside them, the rows asked; a timer not in the
/// bucket changes nothing.
#[test]
fn issue31_the_page_of_a_given_timer() {
    for kind in [SchedulerKind::Fifo, SchedulerKind::Eip1559] {
        let node = carried_bucket(150, kind);
        let whole = page(&node, 0, MAX_BUCKET_PAGE, None);
        for at in [0u64, 3, 60, 145] {
            let id = whole.timers[at as usize].timer.timer_id;
            let p = page(&node, 100, 20, Some(id));
            assert_eq!(p.timer_position, Some(at), "{kind:?}");
            let expect = if (100..120).contains(&at) {
                100
            } else {
                at.saturating_sub(10)
            };
            assert_eq!(p.offset, expect);
            assert!(p.timers.iter().any(|e| e.timer.timer_id == id));
            let to = (expect + 20).min(whole.total) as usize;
            assert_eq!(p.timers, whole.timers[expect as usize..to]);
        }
        let gone = common::fleet::bulk_id(1_000_000);
        let p = page(&node, 30, 20, Some(gone));
        assert_eq!(p.timer_position, None);
        assert_eq!(p.offset, 30);
        assert_eq!(p.timers, whole.timers[30..50]);
    }
}

/// Issue 31, the pinned timer's page after a block: the bucket asked came due and its timers
/// were carried (CIP-5 §6.5), so the page is of the next block's bucket, where the timer is;
/// without a timer, or with one that left, the drained bucket answers no rows.
#[test]
fn issue31_the_page_of_a_carried_timer_is_the_next_bucket() {
    let mut node = carried_bucket(150, SchedulerKind::Fifo);
    let id = page(&node, 0, 100, None).timers[60].timer.timer_id;
    node.apply(Mine { blocks: 1 }).expect("mine");
    let p = page(&node, 50, 20, Some(id));
    assert_eq!((p.height, p.total, p.timer_position), (5, 142, Some(56)));
    assert!(p.timers.iter().any(|e| e.timer.timer_id == id));
    let drained = page(&node, 0, 20, None);
    assert_eq!((drained.height, drained.total), (4, 0));
    let gone = page(&node, 0, 20, Some(common::fleet::bulk_id(1_000_000)));
    assert_eq!(
        (gone.height, gone.total, gone.timer_position),
        (5, 142, None)
    );
}

/// Issue 31, the deferrals' counts (`scheduler_deferrals`): the node counts a window's
/// `TimerDeferred` events by reason, the same counts as the events it answers, and the
/// dashboard's lane pane shows them.
#[test]
fn issue31_deferrals_are_counted_by_the_node() {
    let node = carried_bucket(150, SchedulerKind::Fifo);
    let events = node
        .ask(&EventsQuery(EventFilter {
            from_height: Some(1),
            to_height: Some(3),
            kinds: Some(vec!["TimerDeferred".into()]),
            ..EventFilter::default()
        }))
        .unwrap();
    assert_eq!(events.len(), 146, "a first deferral per carried timer");
    let counts = node
        .ask(&DeferralsQuery {
            from_height: 1,
            to_height: 3,
        })
        .unwrap();
    assert_eq!(
        counts,
        vec![ReasonCount {
            reason: "lane".into(),
            count: 146
        }]
    );
    let none = node
        .ask(&DeferralsQuery {
            from_height: 4,
            to_height: 9,
        })
        .unwrap();
    assert!(none.is_empty());
    let mut src = LocalDevnet::new(node, Default::default());
    let mut app = App::new(KeyMap::default());
    refresh(&mut src, &mut app);
    assert_eq!(app.data.defer_reasons[0], ("lane".to_string(), 146));
}

/// Issue 31: the page size is capped (in process `InvalidInput`; over JSON-RPC `-32602` naming
/// the param), and a refused call changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue31_bad_page_params_are_refused_and_change_nothing() {
    let node = carried_bucket(40, SchedulerKind::Fifo);
    for limit in [0, MAX_BUCKET_PAGE + 1] {
        let e = node
            .ask(&BucketPageQuery {
                height: 4,
                offset: 0,
                limit,
                timer: None,
                follow_due: false,
            })
            .unwrap_err();
        assert!(e.to_string().starts_with("InvalidInput"), "{e}");
    }
    let served = common::served::serve_node(spawn(node), &common::served::port0()).await;
    let c = HttpClientBuilder::default()
        .build(format!("http://{}", served.addr))
        .unwrap();
    let before = common::served::fingerprint(&c).await;
    let ok = common::served::rpc_ok(&c, "timer_bucketPage", &json!([4, 30, 5])).await;
    assert_eq!(ok["total"], 36);
    assert_eq!(ok["offset"], 30);
    assert_eq!(ok["timers"].as_array().unwrap().len(), 5);
    assert_eq!(ok["timers"][0]["position"], 30);
    let all = common::served::rpc_ok(&c, "timer_bucketPage", &json!([4])).await;
    assert_eq!(
        all["timers"].as_array().unwrap().len(),
        36,
        "default limit 100"
    );
    for (params, field) in [
        (json!([4, 0, 0]), "limit"),
        (json!([4, 0, 1001]), "limit"),
        (json!([4, -1]), "offset"),
        (json!([4, "x"]), "offset"),
        (json!([4, 0, 2.5]), "limit"),
        (json!([4, 0, 10, "0x12"]), "timer_id"),
        (json!([]), "height"),
    ] {
        let (code, message, _) = common::served::rpc_err(&c, "timer_bucketPage", &params).await;
        assert_eq!(code, -32602, "{params}: {message}");
        assert!(
            message.contains(&format!("`{field}`")),
            "{params}: {message}"
        );
    }
    assert_eq!(common::served::fingerprint(&c).await, before);
}

fn dashboard(n: u64) -> (LocalDevnet, App) {
    let node = carried_bucket(n, SchedulerKind::Fifo);
    let mut src = LocalDevnet::new(node, Default::default());
    let mut app = App::new(KeyMap::default());
    refresh(&mut src, &mut app);
    select_bucket(&mut src, &mut app, 4);
    (src, app)
}

/// Issue 31, the dashboard asks for what it shows: with a bucket of 3,000 carried timers the
/// dashboard holds a page (never the bucket), `j` past the page's end asks the next one, and at
/// 80x24 and 120x34 the rows on screen are the bucket's rows above the cursor, the cursor's
/// row last; after a block (four fire) the selection follows its timer to its new place, and
/// `PgDn` moves 20 rows at a time.
#[test]
fn issue31_the_dashboard_shows_the_right_rows_of_a_big_bucket() {
    let (mut src, mut app) = dashboard(3_000);
    let whole: Vec<TimerId> = {
        let node = src.devnet();
        let p = |o| page(node, o, MAX_BUCKET_PAGE, None);
        [p(0), p(1_000), p(2_000)]
            .iter()
            .flat_map(|p| p.timers.iter().map(|e| e.timer.timer_id))
            .collect()
    };
    assert_eq!(whole.len(), 2_996);
    assert_eq!(app.data.bucket_total, 2_996);
    press(&mut src, &mut app, &[key('l')]);
    assert_eq!(app.selected_timer().map(|t| t.0), Some(whole[0]));
    press(&mut src, &mut app, &vec![key('j'); 400]);
    assert_eq!(app.timer_sel, 400);
    assert_eq!(app.selected_timer().map(|t| t.0), Some(whole[400]));
    assert!(app.data.bucket_timers.len() as u64 <= MAX_BUCKET_PAGE);
    assert!(app.data.bucket_timers.len() < 200, "a page, not the bucket");
    for (w, h, rows) in [(80, 24, 5), (120, 34, 10)] {
        let s = screen_at(&app, w, h);
        for (pos, id) in whole.iter().enumerate().take(401).skip(400 - rows + 1) {
            assert!(s.contains(&id.short()), "{w}x{h} row {pos}:\n{s}");
            assert!(
                s.contains(&format!("{}", pos + 1)),
                "{w}x{h} #{}:\n{s}",
                pos + 1
            );
        }
        assert!(
            !s.contains(&whole[401].short()),
            "{w}x{h}: below the cursor\n{s}"
        );
        assert!(!s.contains(&whole[0].short()), "{w}x{h}: the top\n{s}");
    }
    // `k` back up past the page's top asks the page above.
    press(&mut src, &mut app, &vec![key('k'); 300]);
    assert_eq!(app.selected_timer().map(|t| t.0), Some(whole[100]));
    assert!(screen_at(&app, 120, 34).contains(&whole[100].short()));
    // A block: the first four fire, the selected timer moves up four places and stays selected.
    press(&mut src, &mut app, &[key(' ')]);
    assert_eq!(app.selected_timer().map(|t| t.0), Some(whole[100]));
    assert_eq!(app.timer_sel, 96);
    assert_eq!(app.data.bucket_total, 2_992);
    assert!(screen_at(&app, 80, 24).contains(&whole[100].short()));
    // `PgDn` five times: 100 rows further, past the page read (positions moved up four).
    press(&mut src, &mut app, &[code(KeyCode::PageDown); 5]);
    assert_eq!(app.timer_sel, 196);
    assert_eq!(app.selected_timer().map(|t| t.0), Some(whole[200]));
    let s = screen_at(&app, 120, 34);
    assert!(s.contains(&whole[200].short()) && s.contains("197"), "{s}");
}

/// Spec note 199: a bucket that came due is empty (its timers were carried to the next
/// block's); asked with `follow_due`, the page is the next block's bucket, and the reply says
/// which.
#[test]
fn issue31_a_bucket_that_came_due_follows_to_the_next_block_when_asked() {
    let mut node = carried_bucket(300, SchedulerKind::Fifo);
    node.apply(cowboy_devnet::node::Mine { blocks: 1 }).unwrap();
    let ask = |follow_due| {
        node.ask(&BucketPageQuery {
            height: 4,
            offset: 0,
            limit: 10,
            timer: None,
            follow_due,
        })
        .unwrap()
    };
    let literal = ask(false);
    assert_eq!(
        (literal.height, literal.total),
        (4, 0),
        "#4 came due and drained"
    );
    let followed = ask(true);
    assert_eq!(followed.height, 5);
    assert_eq!(followed.total, 300 - 8, "four fired at #3 and four at #4");
    assert_eq!(followed.timers.len(), 10);
}
