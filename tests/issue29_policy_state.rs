//! Issue 29, "Schedulers as plug-ins: a policy owns its state": the policies' state (the
//! CIP-1 family's part and the drafts' part, Spec note 211) is the chain's whole, whichever
//! policy plans. Shipped fixtures are played under each of the five schedulers — leaving an
//! interval armed to fire again, a watch armed, an activated lane, a fairness window and EMA
//! weights in play — dumped and loaded; the loaded chain answers the same dump and seals the
//! same next blocks (state roots and block hashes, the interval's next fires included) as the
//! chain it was dumped from.

mod common;

use common::schema::played_under;
use cowboy_devnet::chain::{Chain, ChainDump};
use cowboy_devnet::engine::SchedulerKind;
use cowboy_devnet::vm::DevnetRuntime;
use std::path::Path;

/// The chain of the shipped `fixture` played to its end under `scheduler` (`None`: it does
/// not play under it, or played no block).
fn played(fixture: &str, scheduler: SchedulerKind) -> Option<Chain> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("fixtures/{fixture}.toml"));
    played_under(&path, scheduler).filter(|c| c.height() > 0)
}

/// The chain's dump as its JSON says it (a dump is compared by what it writes: the drafts'
/// state keeps block-local fields, the open block's parent root and written keys, that it
/// does not write).
fn dumped(c: &Chain) -> serde_json::Value {
    serde_json::to_value(c.dump().expect("no open block after a run")).unwrap()
}

fn reload(c: &Chain) -> Chain {
    let back: ChainDump = serde_json::from_value(dumped(c)).unwrap();
    Chain::load(back, DevnetRuntime::shared()).expect("the dump loads")
}

#[test]
fn issue29_the_policies_state_travels_whole_through_a_dump_under_every_scheduler() {
    // An interval armed (v19_period), a watch armed (v19_watch), the lane activated at 20
    // (migration), a fairness window (fairness; under the drafts its backlog is carried
    // behind the next height's own timers, in an order their heights and seqs do not give:
    // Spec note 212).
    let fixtures = ["v19_period", "v19_watch", "migration", "fairness"];
    let mut ran = Vec::new();
    let (mut with_drafts, mut activated) = (0, 0);
    for fixture in fixtures {
        for scheduler in SchedulerKind::ALL {
            let Some(mut a) = played(fixture, scheduler) else {
                continue;
            };
            let d = a.dump().expect("no open block after a run");
            with_drafts += usize::from(d.draft.as_ref().is_some_and(|s| !s.meta.is_empty()));
            let from = d.cip1.as_ref().and_then(|c| c.activation_height);
            activated += usize::from(from.is_some_and(|h| h > 1 && h <= d.height));
            let mut b = reload(&a);
            let what = format!("{fixture} under {scheduler}, to height {}", a.height());
            assert_eq!(b.state_root(), a.state_root(), "{what}: root after load");
            assert_eq!(
                dumped(&b),
                dumped(&a),
                "{what}: the loaded chain dumps the same"
            );
            for _ in 0..24 {
                let ba = a.seal_block().clone();
                let bb = b.seal_block().clone();
                assert_eq!(bb, ba, "{what}: block {} after load", ba.header.height);
            }
            assert_eq!(dumped(&b), dumped(&a), "{what}: 24 blocks on");
            ran.push(what);
        }
    }
    // Both parts in play: timers the drafts registered, and a lane activated mid-run.
    assert!(with_drafts > 0 && activated > 0, "{ran:?}");
    // Every scheduler played at least one fixture (the drafts' fixtures play only under a draft).
    for scheduler in SchedulerKind::ALL {
        let name = format!("under {scheduler},");
        assert!(
            ran.iter().any(|p| p.contains(&name)),
            "{scheduler} played no fixture: {ran:?}"
        );
    }
}
