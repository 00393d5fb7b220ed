//! Issue 21 §2's last variants, each changing the outcome it names and nothing else against
//! the default run of the same fixture: `tie_break = schedule_order` (CIP-1 v3 §3 step 7, open
//! point 10) and `below_basefee = self_destruct` (CIP-1 v3 §3 / CIP-5 §5.4 path 2 applied).

use cowboy_devnet::chain::Event;
use cowboy_devnet::engine::{TimerEvent, TimerId, Variants};
use cowboy_devnet::scenario::builtin;
use cowboy_devnet::scenario::{LoadedFixture, Report, RunOptions, Scenario};
use cowboy_devnet::vm::DevnetRuntime;
use std::collections::BTreeMap;

fn text(t: &str, variants: &[&str]) -> Report {
    let lf = LoadedFixture::parse("t.toml", t.to_string()).expect("parses");
    let mut s = Scenario::prepare(&lf, &DevnetRuntime::new(), &builtin::script_loader)
        .expect("fixture checks");
    s.set_variants(variants).expect("variants apply");
    let r = s
        .run(
            DevnetRuntime::shared(),
            RunOptions::default(),
            &mut |_, _| {},
        )
        .expect("runs");
    assert!(r.refused.is_none(), "{:?}", r.refused);
    r
}

/// Every fire: timer id -> the block it fired in.
fn fires(r: &Report) -> BTreeMap<TimerId, u64> {
    r.events
        .iter()
        .filter_map(|e| match &e.event {
            Event::Timer(TimerEvent::TimerFired { timer_id, .. }) => Some((*timer_id, e.height)),
            _ => None,
        })
        .collect()
}

/// Timers scheduled in block `at`.
fn scheduled_in(r: &Report, at: u64) -> Vec<TimerId> {
    r.events
        .iter()
        .filter_map(|e| match &e.event {
            Event::Timer(TimerEvent::TimerScheduled { timer_id, .. }) if e.height == at => {
                Some(*timer_id)
            }
            _ => None,
        })
        .collect()
}

/// eip1559 from genesis: `early` schedules four 500,000-cycle timers for height 6 at its deploy
/// (block 1), `late` four more for the same height in block 3. All bid the default GBA's tip
/// (the p50, 0 on a cold start) with W = 2: equal effective priorities; four fit the
/// 1,000,000-cycle lane.
const TIES: &str = r#"name = "ties"
blocks = 10
[chain]
scheduler = "eip1559"
[chain.timer]
lane_timer_cycles = 1_000_000
[[accounts]]
name = "alice"
balance = "100_000_000_000"
[[actors]]
name = "early"
deployer = "alice"
balance = "10_000_000_000"
native = '{"deploy":[{"op":"schedule_many","count":4,"delta":5,"spread":1,"gas_limit":250000}],"handle_timer":[{"op":"burn","cycles":1000}]}'
[[actors]]
name = "late"
deployer = "alice"
balance = "10_000_000_000"
[[steps]]
at = 3
action = "schedule"
actor = "late"
height = 6
gas_limit = 250000
[[steps]]
at = 3
action = "schedule"
actor = "late"
height = 6
gas_limit = 250000
payload = "b"
[[steps]]
at = 3
action = "schedule"
actor = "late"
height = 6
gas_limit = 250000
payload = "c"
[[steps]]
at = 3
action = "schedule"
actor = "late"
height = 6
gas_limit = 250000
payload = "d"
"#;

#[test]
fn cip1_v3_3_7_tie_break_schedule_order_fires_equal_priorities_first_come_first_served() {
    let def = text(TIES, &[]);
    let so = text(TIES, &["tie_break=schedule_order"]);
    let early = scheduled_in(&def, 1);
    let late = scheduled_in(&def, 3);
    assert_eq!((early.len(), late.len()), (4, 4));
    assert_eq!(
        (scheduled_in(&so, 1), scheduled_in(&so, 3)),
        (early.clone(), late.clone())
    );
    let (df, sf) = (fires(&def), fires(&so));
    // schedule_order: the four scheduled first fire at 6, the later four at 7.
    assert!(early.iter().all(|id| sf[id] == 6), "{sf:?}");
    assert!(late.iter().all(|id| sf[id] == 7), "{sf:?}");
    // timer_id order (the default): the four lowest ids fire at 6, whoever scheduled first.
    let mut all: Vec<TimerId> = early.iter().chain(&late).copied().collect();
    all.sort();
    assert!(all[..4].iter().all(|id| df[id] == 6));
    assert!(all[4..].iter().all(|id| df[id] == 7));
    assert_ne!(df, sf, "the ids do not sort in schedule order here");
    // Nothing else changes: the same timers fire, as many in each block (who pays which
    // block's basefee follows who fires when).
    assert_eq!(def.summary.fired, so.summary.fired);
    let heights = |m: &BTreeMap<TimerId, u64>| {
        let mut v: Vec<u64> = m.values().copied().collect();
        v.sort();
        v
    };
    assert_eq!(heights(&df), heights(&sf));
}

/// The congestion load with one more timer whose max fee (10⁹ nanos) is above the lane
/// basefee when scheduled at 8 and below it when due at 20.
fn congestion_plus_low_fee() -> String {
    let base = builtin::FIXTURES
        .iter()
        .find(|(n, _)| *n == "congestion")
        .unwrap()
        .1;
    let cut = base.find("[[expect]]").unwrap();
    format!(
        "{}\n[[steps]]\nat = 8\naction = \"schedule\"\nactor = \"load-a\"\nheight = 20\ngas_limit = 10_000\nmax_fee_per_cycle = \"1_000_000_000\"\nlabel = \"low\"\n",
        &base[..cut]
    )
}

#[test]
fn cip1_v3_3_below_basefee_self_destruct_removes_the_timer_under_the_gc_lane() {
    let t = congestion_plus_low_fee();
    let def = text(&t, &[]);
    let sd = text(&t, &["below_basefee=self_destruct"]);
    let low = *scheduled_in(&def, 8).first().expect("the low-fee timer");
    let (df, sf) = (fires(&def), fires(&sd));
    assert!(
        df[&low] > 34,
        "default: deferred below_basefee until the fee falls"
    );
    assert!(!sf.contains_key(&low), "self_destruct: it never fires");
    let gone = sd.events.iter().find_map(|e| match &e.event {
        Event::Timer(TimerEvent::TimerCancelledInsufficientFunds {
            timer_id,
            required,
            available,
            ..
        }) if *timer_id == low => Some((e.height, *required, *available)),
        _ => None,
    });
    let (h, required, available) = gone.expect("CIP-5 §5.4 path 2");
    assert_eq!(h, 20, "removed when due");
    assert!(
        required > 0 && available > required,
        "it could pay; its cap could not"
    );
    // Every other timer fires where it did.
    let others = |m: &BTreeMap<TimerId, u64>| {
        m.iter()
            .filter(|(k, _)| **k != low)
            .map(|(k, v)| (*k, *v))
            .collect::<Vec<_>>()
    };
    assert_eq!(others(&df), others(&sf));
}

#[test]
fn issue_21_the_last_variants_are_listed_and_change_the_root_only_when_named() {
    let mut v = Variants::default();
    v.set_pair("tie_break=schedule_order").unwrap();
    assert_eq!(v.label(), "tie_break=schedule_order");
    v.set_pair("below_basefee=self_destruct").unwrap();
    assert!(v.set_pair("tie_break=random").is_err());
    let names: Vec<&str> = cowboy_devnet::engine::scheduler::CATALOG
        .iter()
        .map(|c| c.name)
        .collect();
    assert!(names.contains(&"tie_break"));
    let bb = cowboy_devnet::engine::scheduler::CATALOG
        .iter()
        .find(|c| c.name == "below_basefee")
        .unwrap();
    assert!(bb.values.contains(&"self_destruct"));
    // The default run of a fixture keeps its root; a named variant commits.
    let t = congestion_plus_low_fee();
    let a = text(&t, &[]);
    let b = text(&t, &["tie_break=timer_id"]);
    let c = text(&t, &["tie_break=schedule_order"]);
    assert_eq!(a.summary.final_state_root, b.summary.final_state_root);
    assert_ne!(a.summary.final_state_root, c.summary.final_state_root);
}
