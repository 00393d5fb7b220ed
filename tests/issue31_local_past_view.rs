//! Issue 31 item 7 ("past reads off the node's thread"): the in-process dashboard's view of a
//! past height (`[`, `{`) is built from a past state whose replay and queries finish on a
//! past-read thread, the node's thread taking only the snapshots, the tip and the lease. Its
//! panes are those the attached dashboard gets for the same height over JSON-RPC (where past
//! reads were already off the node's thread), at every height of the run.

mod common;

use common::keys::served_demo;
use cowboy_devnet::tui::command::UiCommand;
use cowboy_devnet::tui::data::{DashboardData, ViewQuery};
use cowboy_devnet::tui::model::DashboardSource;

/// The view without the address the attached dashboard reads from (the only field the two
/// sources say differently: the in-process one has none).
fn panes(mut d: DashboardData) -> DashboardData {
    if let Some(s) = d.status.as_mut() {
        s.rpc_address = None;
    }
    d
}

#[test]
fn issue31_the_local_past_view_answers_as_the_attached_one() {
    let (mut local, mut remote, served, _rt) = served_demo();
    local.execute(UiCommand::Mine(20)).expect("mines");
    let tip = local
        .dashboard(&ViewQuery::default())
        .status
        .expect("a status")
        .height;
    assert_eq!(tip, 25);
    for at in (1..tip).step_by(4) {
        let q = ViewQuery {
            at: Some(at),
            ..ViewQuery::default()
        };
        let l = local.dashboard(&q);
        let s = l.status.as_ref().expect("a past view has a status");
        assert_eq!((s.height, s.tip), (at, tip), "#{at}");
        assert_eq!(
            panes(l),
            panes(remote.dashboard(&q)),
            "#{at}: the local and the attached view"
        );
    }
    // The same height again (the kept past state) answers the same.
    let q = ViewQuery {
        at: Some(7),
        ..ViewQuery::default()
    };
    assert_eq!(panes(local.dashboard(&q)), panes(remote.dashboard(&q)));
    // The head itself is the live view.
    let head = ViewQuery {
        at: Some(tip),
        ..ViewQuery::default()
    };
    assert_eq!(
        local.dashboard(&head).buckets,
        local.dashboard(&ViewQuery::default()).buckets
    );
    drop(served);
}
