//! A fixture played live (`serve --fixture`) keeps its place through a state file (issue 20,
//! Spec note 43 extended from snapshots to `devnet_dumpState` / `devnet_loadState` and `serve
//! --state`): after a load it goes on from the step it had reached at the dump, and the run
//! ends in the state a headless run reaches.

use cowboy_devnet::node::{
    DumpState, LoadState, Mine, MiningMode, NodeConfig, NodeCore, NodeError, NodeEvent,
};
use cowboy_devnet::rpc::state_file;
use cowboy_devnet::scenario::builtin;
use cowboy_devnet::scenario::live::FixturePlayer;
use cowboy_devnet::scenario::runner::{RunOptions, Scenario};
use cowboy_devnet::vm::DevnetRuntime;
use std::sync::Arc;

fn node_playing(s: &Arc<Scenario>) -> NodeCore {
    let mut c = NodeConfig::new(s.genesis().clone(), DevnetRuntime::shared());
    c.mining = MiningMode::Manual;
    c.dev_accounts = 0;
    let mut d = NodeCore::new(c).unwrap();
    d.set_hook(Box::new(FixturePlayer::new(s.clone())));
    d
}

/// Mines to the fixture's last height; the expectations reported on the way, as (line, passed).
fn play_to(d: &mut NodeCore, last: u64) -> Vec<(usize, bool)> {
    let mut checks = Vec::new();
    while d.chain().pending_height() <= last {
        d.apply(Mine { blocks: 1 }).unwrap();
        while let Some(e) = d.poll_event() {
            if let NodeEvent::Expectation { line, passed, .. } = e {
                checks.push((line, passed));
            }
        }
    }
    checks.sort();
    checks
}

fn demo() -> Arc<Scenario> {
    let rt = DevnetRuntime::shared();
    Arc::new(builtin::scenario("demo", &*rt).unwrap().unwrap())
}

/// The dump as `devnet_dumpState` gives it and `devnet_loadState` reads it back (JSON).
fn through_json(d: &cowboy_devnet::chain::ChainDump) -> cowboy_devnet::chain::ChainDump {
    state_file::parse(&serde_json::to_string(d).unwrap()).expect("a dump reads back")
}

#[test]
fn a_loaded_state_goes_on_from_the_step_the_fixture_had_reached() {
    let s = demo();
    let last = s.default_blocks;
    let report = s
        .run(
            DevnetRuntime::shared(),
            RunOptions::default(),
            &mut |_, _| {},
        )
        .unwrap();

    // Played to height 5, dumped, played to the end.
    let mut a = node_playing(&s);
    a.apply(Mine { blocks: 5 }).unwrap();
    while a.poll_event().is_some() {}
    let at5 = through_json(&a.apply(DumpState).unwrap());
    assert!(at5.fixture_player.is_some(), "the dump holds the player");
    let after_dump = play_to(&mut a, last);
    assert_eq!(a.head().state_root, report.summary.final_state_root);

    // The same node, past the end of the fixture, loads the height-5 state: the steps after
    // 5 are played again (before: the player stayed at its end and played none of them).
    a.apply(LoadState(Box::new(at5.clone()))).unwrap();
    assert_eq!(a.height(), 5);
    while a.poll_event().is_some() {}
    assert_eq!(play_to(&mut a, last), after_dump, "the same expectations");
    assert_eq!(
        a.head().state_root,
        report.summary.final_state_root,
        "the state a headless run reaches"
    );

    // A new node (as `serve --fixture demo --state s.json` restarted): its player starts at
    // the first step, and takes the dumped position (before: it played the steps of heights
    // 1..=5 again on top of the loaded state).
    let mut b = node_playing(&s);
    b.apply(LoadState(Box::new(at5))).unwrap();
    while b.poll_event().is_some() {}
    assert_eq!(play_to(&mut b, last), after_dump);
    assert_eq!(b.head().state_root, report.summary.final_state_root);
}

#[test]
fn a_state_dumped_playing_another_fixture_is_refused_and_changes_nothing() {
    let rt = DevnetRuntime::shared();
    let storm = Arc::new(builtin::scenario("storm", &*rt).unwrap().unwrap());
    let mut other = node_playing(&storm);
    other.apply(Mine { blocks: 3 }).unwrap();
    let dump = other.apply(DumpState).unwrap();

    let s = demo();
    let mut d = node_playing(&s);
    d.apply(Mine { blocks: 2 }).unwrap();
    let before = d.apply(DumpState).unwrap();
    let err = d.apply(LoadState(dump)).unwrap_err();
    assert!(matches!(err, NodeError::InvalidInput(_)), "{err}");
    assert!(err.to_string().contains("storm"), "{err}");
    let after = d.apply(DumpState).unwrap();
    assert_eq!(
        serde_json::to_value(&*before).unwrap(),
        serde_json::to_value(&*after).unwrap()
    );
}

#[test]
fn a_dump_without_a_fixture_holds_no_player() {
    let c = NodeConfig::new(
        cowboy_devnet::chain::Genesis::default(),
        DevnetRuntime::shared(),
    );
    let mut d = NodeCore::new(c).unwrap();
    d.apply(Mine { blocks: 1 }).unwrap();
    let dump = d.apply(DumpState).unwrap();
    assert!(dump.fixture_player.is_none());
    assert!(
        !serde_json::to_string(&*dump)
            .unwrap()
            .contains("fixture_player")
    );
}
