//! The specs' open points as named variants (issue 21): one test per variant, each proving the
//! variant changes the outcome it names and nothing else, against the default run of the same
//! fixture. Sections: CIP-1 v3 §5 (basefee step, utilisation), §7.1 (p50 of an even count),
//! §3 step 6 (a max fee below the lane basefee), §3 step 8 / §5 (the lane basefee in
//! `max_cost`), CIP-5 §6.5 (a deferred timer's place), CIP-1 v3 §10 / §13.2 / §14 (timers over
//! the auction cap); and the `[variants]` table's named errors.

use cowboy_devnet::chain::Event;
use cowboy_devnet::engine::{TimerEvent, TimerId, Variants};
use cowboy_devnet::scenario::builtin;
use cowboy_devnet::scenario::report::BlockRow;
use cowboy_devnet::scenario::{LoadedFixture, Report, RunOptions, Scenario};
use cowboy_devnet::vm::DevnetRuntime;
use std::collections::BTreeMap;

fn play(mut s: Scenario, variants: &[&str]) -> (Report, Vec<BlockRow>) {
    s.set_variants(variants).expect("variants apply");
    let mut rows = Vec::new();
    let r = s
        .run(
            DevnetRuntime::shared(),
            RunOptions::default(),
            &mut |b, _| rows.push(BlockRow::of(b)),
        )
        .expect("runs");
    assert!(r.refused.is_none(), "{:?}", r.refused);
    (r, rows)
}

fn shipped(name: &str, variants: &[&str]) -> (Report, Vec<BlockRow>) {
    let s = builtin::scenario(name, &DevnetRuntime::new())
        .expect("shipped")
        .expect("checks");
    play(s, variants)
}

fn prepare(text: &str) -> Result<Scenario, String> {
    let lf = LoadedFixture::parse("t.toml", text.to_string()).map_err(|e| e.to_string())?;
    Scenario::prepare(&lf, &DevnetRuntime::new(), &builtin::script_loader)
        .map_err(|e| e.to_string())
}

fn text(t: &str, variants: &[&str]) -> (Report, Vec<BlockRow>) {
    play(prepare(t).expect("fixture checks"), variants)
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

fn basefees(rows: &[BlockRow]) -> Vec<u128> {
    rows.iter().map(|r| r.lane_basefee).collect()
}

fn p50s(rows: &[BlockRow]) -> Vec<u128> {
    rows.iter().map(|r| r.p50_tip).collect()
}

/// The timer scheduled in block `at` for height `height` (a fixture step's timer).
fn scheduled(r: &Report, at: u64, height: u64) -> TimerId {
    r.events
        .iter()
        .find_map(|e| match &e.event {
            Event::Timer(TimerEvent::TimerScheduled {
                timer_id,
                height: h,
                ..
            }) if e.height == at && *h == height => Some(*timer_id),
            _ => None,
        })
        .unwrap_or_else(|| panic!("a timer scheduled at {at} for {height}"))
}

#[test]
fn cip1_v3_5_basefee_step_clip_is_the_default_and_proportional_only_changes_the_basefee() {
    let (def, def_rows) = shipped("congestion", &[]);
    let (prop, prop_rows) = shipped("congestion", &["basefee_step=proportional"]);
    assert!(def.variants.is_empty());
    assert_eq!(prop.variants["basefee_step"], "proportional");
    // At 72.3 % utilisation (1,446,000 of 2,000,000 cycles consumed, Spec note 152): +12.5 %
    // (clip: 6.25 points or more above target take the whole step) against the proportional
    // step, floor(b × 446,000 × 1,250 / (1,000,000 × 10,000)), about +5.6 %.
    let at = |rows: &[BlockRow], h: u64| rows.iter().find(|r| r.height == h).unwrap().lane_basefee;
    assert_eq!(at(&def_rows, 7), at(&def_rows, 6) + at(&def_rows, 6) / 8);
    let b = at(&prop_rows, 6);
    assert_eq!(at(&prop_rows, 7), b + b * 446_000 * 1_250 / 10_000_000_000);
    assert_ne!(basefees(&def_rows), basefees(&prop_rows));
    // Nothing else: the same timers fire at the same heights.
    assert_eq!(fires(&def), fires(&prop));
    assert_eq!(def.summary.deferred, prop.summary.deferred);
}

#[test]
fn cip1_v3_5_utilisation_consumed_follows_the_cycles_used_not_the_budgets() {
    // Congestion reserves 6 × 250,000 = 75 % a block, and each handler burns 240,000 cycles
    // (+1,000 base): 1,446,000 consumed = 72.3 %. The default follows the cycles consumed
    // (Spec note 152), `utilisation = reserved` the budgets; under the proportional step the
    // two readings give different basefees from the same fires.
    let step = ["basefee_step=proportional"];
    let (def, def_rows) = shipped("congestion", &step);
    let (res, res_rows) = shipped(
        "congestion",
        &["basefee_step=proportional", "utilisation=reserved"],
    );
    let at = |rows: &[BlockRow], h: u64| rows.iter().find(|r| r.height == h).unwrap().lane_basefee;
    let (b, r) = (at(&def_rows, 6), at(&res_rows, 6));
    assert_eq!(
        at(&def_rows, 7),
        b + b * 446_000 * 1_250 / 10_000_000_000,
        "consumed"
    );
    assert_eq!(
        at(&res_rows, 7),
        r + r / 16,
        "reserved: 75 %, half the step"
    );
    let util =
        |rows: &[BlockRow], h: u64| rows.iter().find(|r| r.height == h).unwrap().utilisation_bps;
    assert_eq!(
        (util(&def_rows, 7), util(&res_rows, 7)),
        (7_230, 7_500),
        "the figure the basefee followed"
    );
    assert_eq!(fires(&def), fires(&res));
    assert_eq!(
        def_rows.iter().map(|r| r.lane_reserved).collect::<Vec<_>>(),
        res_rows.iter().map(|r| r.lane_reserved).collect::<Vec<_>>()
    );
}

/// Two timers due at 5 with stated tips 1,000 and 3,000 nanos: an even count.
const TWO_TIPS: &str = r#"name = "t"
blocks = 8
[chain]
scheduler = "eip1559"
[[accounts]]
name = "alice"
balance = "100_000_000_000"
[[actors]]
name = "a"
deployer = "alice"
balance = "10_000_000_000"
native = '{"handle_timer":[{"op":"burn","cycles":1000}]}'
[[steps]]
at = 1
action = "schedule"
actor = "a"
height = 5
max_fee_per_cycle = "100_000_000_000"
max_priority_fee_per_cycle = "1_000"
[[steps]]
at = 1
action = "schedule"
actor = "a"
height = 5
max_fee_per_cycle = "100_000_000_000"
max_priority_fee_per_cycle = "3_000"
"#;

#[test]
fn cip1_v3_7_1_p50_even_mean_only_changes_the_p50_tip() {
    let (def, def_rows) = text(TWO_TIPS, &[]);
    let (mean, mean_rows) = text(TWO_TIPS, &["p50_even=mean"]);
    let p50 = |rows: &[BlockRow]| rows.iter().find(|r| r.height == 5).unwrap().p50_tip;
    assert_eq!(p50(&def_rows), 1_000, "the lower median");
    assert_eq!(p50(&mean_rows), 2_000, "the mean of the middle two");
    assert_ne!(p50s(&def_rows), p50s(&mean_rows));
    assert_eq!(fires(&def), fires(&mean));
    assert_eq!(basefees(&def_rows), basefees(&mean_rows));
}

/// The congestion load with one more timer whose max fee (10⁹ nanos) is above the lane
/// basefee when scheduled at 8 and below it when due at 20 (the basefee climbs 12.5 % a block).
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
fn cip1_v3_3_6_below_basefee_fire_without_tip_fires_the_timer_at_its_height() {
    let t = congestion_plus_low_fee();
    let (def, _) = text(&t, &[]);
    let (fwt, _) = text(&t, &["below_basefee=fire_without_tip"]);
    let low = scheduled(&def, 8, 20);
    assert_eq!(scheduled(&fwt, 8, 20), low);
    let (df, ff) = (fires(&def), fires(&fwt));
    assert_eq!(ff[&low], 20, "fired at its height with no tip");
    assert!(
        df[&low] > 34,
        "default: deferred below_basefee until the fee falls"
    );
    let tip = fwt.events.iter().find_map(|e| match &e.event {
        Event::Timer(TimerEvent::TimerFired { timer_id, tip, .. }) if *timer_id == low => {
            Some(*tip)
        }
        _ => None,
    });
    assert_eq!(tip, Some(0));
    // Every other timer fires where it did.
    let others = |m: &BTreeMap<TimerId, u64>| {
        m.iter()
            .filter(|(k, _)| **k != low)
            .map(|(k, v)| (*k, *v))
            .collect::<Vec<_>>()
    };
    assert_eq!(others(&df), others(&ff));
}

#[test]
fn cip1_v3_3_8_lane_basefee_in_max_cost_no_charges_only_cycle_basefee_and_tip() {
    let (def, def_rows) = shipped("congestion", &[]);
    let (no, no_rows) = shipped("congestion", &["lane_basefee_in_max_cost=no"]);
    assert!(no.summary.burned < def.summary.burned);
    // What is burned is the CIP-3 cycle and cell basefee alone: the lane part is 0.
    let lane_burned = |r: &Report| {
        r.events
            .iter()
            .filter_map(|e| match &e.event {
                Event::Timer(TimerEvent::TimerFired {
                    cycles_used,
                    burned,
                    ..
                }) => Some(*burned - *cycles_used as u128),
                _ => None,
            })
            .sum::<u128>()
    };
    assert_eq!(
        lane_burned(&no),
        0,
        "cycle basefee 1, no cells: burned = cycles"
    );
    assert!(lane_burned(&def) > 0);
    assert_eq!(fires(&def), fires(&no));
    assert_eq!(basefees(&def_rows), basefees(&no_rows));
}

/// FIFO: ten 500,000-cycle timers of `a` due at 5 (four fit the 2,000,000-cycle lane), four
/// of `b` due at 6.
const CARRY: &str = r#"name = "t"
blocks = 12
[[accounts]]
name = "alice"
balance = "100_000_000_000"
[[actors]]
name = "a"
deployer = "alice"
balance = "10_000_000_000"
native = '{"deploy":[{"op":"schedule_many","count":10,"delta":4,"spread":1,"gas_limit":500000}],"handle_timer":[{"op":"burn","cycles":1000}]}'
[[actors]]
name = "b"
deployer = "alice"
balance = "10_000_000_000"
native = '{"deploy":[{"op":"schedule_many","count":4,"delta":5,"spread":1,"gas_limit":500000}],"handle_timer":[{"op":"burn","cycles":1000}]}'
"#;

#[test]
fn cip5_6_5_deferred_place_back_lets_the_next_heights_own_timers_go_first() {
    let (def, _) = text(CARRY, &[]);
    let (back, _) = text(CARRY, &["deferred_place=back"]);
    let row = |r: &Report, n: &str| r.actors.iter().find(|a| a.actor == n).unwrap().clone();
    assert!(
        row(&def, "b").latency_p99 > 0,
        "front: b waits behind a's carried timers"
    );
    assert_eq!(
        row(&back, "b").latency_p99,
        0,
        "back: b's timers fire on time"
    );
    assert!(row(&back, "a").latency_p99 > row(&def, "a").latency_p99);
    // The same timers fire, in the same number of blocks.
    let (df, bf) = (fires(&def), fires(&back));
    assert_eq!(df.keys().collect::<Vec<_>>(), bf.keys().collect::<Vec<_>>());
    assert_eq!(def.summary.fired, 14);
    assert_eq!(df.values().max(), bf.values().max());
}

#[test]
fn cip1_v3_10_over_cap_capped_and_own_budget_let_a_pre_activation_timer_compete() {
    let (def, _) = shipped("migration", &[]);
    let big = scheduled(&def, 2, 24);
    assert!(
        fires(&def).contains_key(&big),
        "default (`capped`, Spec note 153): it competes and fires"
    );
    let (deferred, _) = shipped("migration", &["over_cap=defer"]);
    assert!(
        !fires(&deferred).contains_key(&big),
        "`over_cap = defer`: over_cap until its TTL"
    );
    let budget = |r: &Report| {
        r.events.iter().find_map(|e| match &e.event {
            Event::Timer(TimerEvent::TimerFired {
                timer_id, max_cost, ..
            }) if *timer_id == big => Some((e.height, *max_cost)),
            _ => None,
        })
    };
    let (capped, _) = shipped("migration", &["over_cap=capped"]);
    let (own, _) = shipped("migration", &["over_cap=own_budget"]);
    let (hc, cost_c) = budget(&capped).expect("capped: fires");
    let (ho, cost_o) = budget(&own).expect("own_budget: fires");
    assert_eq!((hc, ho), (24, 24), "both at its own height");
    assert!(
        cost_o > cost_c,
        "own budget 500,000 against the 250,000 cap"
    );
    // Nothing else: the worker's fires are where they were.
    let others = |r: &Report| {
        fires(r)
            .into_iter()
            .filter(|(k, _)| *k != big)
            .collect::<Vec<_>>()
    };
    assert_eq!(others(&def), others(&deferred));
    assert_eq!(others(&def), others(&own));
}

#[test]
fn issue_21_variants_table_is_validated_with_named_errors_and_changes_the_root_only_when_named() {
    let with = |t: &str| TWO_TIPS.replace("[chain]", &format!("[variants]\n{t}\n[chain]"));
    let e = prepare(&with("basefee_step = \"steep\"")).err().unwrap();
    assert!(
        e.contains("variants.basefee_step") && e.contains("clip | proportional"),
        "{e}"
    );
    let e = prepare(&with("nonsense = \"x\"")).err().unwrap();
    assert!(
        e.contains("variants.nonsense") && e.contains("is not a variant"),
        "{e}"
    );
    let e = prepare(&with("p50_even = 1")).err().unwrap();
    assert!(e.contains("must be a string"), "{e}");
    let s = prepare(&with("p50_even = \"mean\"")).unwrap();
    assert_eq!(s.variants().p50_even.as_str(), "mean");
    // Naming the default is the default: the same state roots.
    let (a, _) = text(TWO_TIPS, &[]);
    let (b, _) = text(&with("basefee_step = \"clip\""), &[]);
    assert_eq!(a.summary.final_state_root, b.summary.final_state_root);
    let (c, _) = text(TWO_TIPS, &["utilisation=reserved"]);
    assert_ne!(a.summary.final_state_root, c.summary.final_state_root);
    let mut v = Variants::default();
    assert!(v.set_pair("over_cap=sometimes").is_err());
    assert!(v.is_default());
}
