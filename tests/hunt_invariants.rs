//! Issue 33, "What is measured": the invariants a hunt checks on every run. Every shipped
//! fixture keeps them under its own scheduler; a report made to break one (a timer that leaves
//! twice, a block whose fires pass the lane, a weight outside [1, 2]) is caught and named.

use cowboy_devnet::chain::{Event, Genesis};
use cowboy_devnet::engine::{SchedulerKind, TimerEvent};
use cowboy_devnet::scenario::builtin::FIXTURES;
use cowboy_devnet::scenario::hunt::eval::{play_limited, play_text};
use cowboy_devnet::scenario::hunt::invariants::{Limits, broken};
use cowboy_devnet::scenario::report::Report;

fn report(text: &str) -> Report {
    play_text(text, &[]).expect("no panic").expect("it plays")
}

fn limits(s: SchedulerKind) -> Limits {
    Limits::of(&Genesis {
        scheduler: s,
        ..Genesis::default()
    })
}

fn demo() -> Report {
    let text = FIXTURES.iter().find(|(n, _)| *n == "demo").unwrap().1;
    report(text)
}

#[test]
fn issue33_every_shipped_fixture_keeps_the_invariants() {
    let mut checked = 0;
    for (name, text) in FIXTURES {
        let Ok(Ok((r, lim))) = play_limited(text, &[]) else {
            continue; // a fixture with a base file is played by tests/fixtures.rs
        };
        assert_eq!(broken(&r, &lim), None, "{name}");
        checked += 1;
    }
    assert!(checked >= 15, "{checked} fixtures checked");
}

#[test]
fn issue33_a_timer_that_leaves_twice_is_caught() {
    let mut r = demo();
    let exit = r
        .events
        .iter()
        .find(|e| matches!(e.event, Event::Timer(TimerEvent::TimerExpired { .. })))
        .cloned()
        .expect("the demo expires timers");
    r.events.push(exit);
    let why = broken(&r, &limits(SchedulerKind::Fifo)).expect("caught");
    assert!(why.contains("left twice"), "{why}");
}

#[test]
fn issue33_fires_over_the_lane_are_caught() {
    let mut r = demo();
    let mut lim = limits(SchedulerKind::Fifo);
    // The demo fills the lane with three 550,000-cycle timers at 30: a lane of 1,000 cycles
    // could not have held them.
    lim.lane_timer_cycles = 1_000;
    let why = broken(&r, &lim).expect("caught");
    assert!(why.contains("over the lane"), "{why}");
    // Under the drafts the per-block quota is what holds.
    lim.scheduler = SchedulerKind::Cip5Draft;
    lim.max_fires_per_block = 1;
    let why = broken(&r, &lim).expect("caught");
    assert!(why.contains("max_fires_per_block"), "{why}");
    r.events.clear();
    assert_eq!(broken(&r, &lim), None);
}

#[test]
fn issue33_a_weight_outside_one_to_two_is_caught() {
    let mut r = demo();
    let a = r.actors.first_mut().expect("actors");
    a.weight_bps = Some(20_001);
    let why = broken(&r, &limits(SchedulerKind::Eip1559)).expect("caught");
    assert!(why.contains("outside [1, 2]"), "{why}");
}
