//! Issue 33 ("Speed": a hunt's runs) and CIP-1 v3 §2.3 (the state commitment): a run that
//! commits its state root once, at its end (`Scenario::final_root_only`, what a hunt's
//! candidates play with), reaches the same final state root as the run that commits it every
//! block, and everything it reports is the same: each block's events and receipts, the
//! summary (fires, expiries, burn, supply), the per-actor figures and the step outcomes. Only
//! the block hashes differ. Every shipped fixture, under its own scheduler, fifo, eip1559 and
//! cip1-v1.

use cowboy_devnet::engine::SchedulerKind;
use cowboy_devnet::scenario::report::Report;
use cowboy_devnet::scenario::{RunOptions, builtin};
use cowboy_devnet::vm::DevnetRuntime;

/// What a run's blocks recorded (events, receipts, end-of-block figures) and their hashes.
#[derive(Default)]
struct Blocks {
    records: Vec<String>,
    hashes: Vec<String>,
}

/// A run's report beside what its blocks recorded.
fn play(name: &str, under: Option<SchedulerKind>, final_only: bool) -> (Report, Blocks) {
    let mut s = builtin::scenario(name, &DevnetRuntime::new())
        .expect("shipped")
        .expect("checks");
    if let Some(k) = under {
        s.play_under(k);
    }
    s.final_root_only = final_only;
    let mut seen = Blocks::default();
    let report = s
        .run(
            DevnetRuntime::shared(),
            RunOptions::default(),
            &mut |b, _| {
                seen.records.push(format!(
                    "{} {:?} {:?} {:?}",
                    b.header.height, b.events, b.receipts, b.eob
                ));
                seen.hashes.push(b.header.hash.to_string());
            },
        )
        .expect("plays");
    (report, seen)
}

#[test]
fn a_run_with_one_final_commit_reports_what_per_block_commits_report() {
    let (mut compared, mut hashes_differ) = (0, 0);
    for (name, _) in builtin::FIXTURES {
        let mut labels = Vec::new();
        for under in [
            None,
            Some(SchedulerKind::Fifo),
            Some(SchedulerKind::Eip1559),
            Some(SchedulerKind::Cip1V1),
        ] {
            let (every, blocks_every) = play(name, under, false);
            let label = format!("{name} under {}", every.scheduler);
            if labels.contains(&label) {
                continue;
            }
            labels.push(label.clone());
            let (once, blocks_once) = play(name, under, true);
            assert_eq!(
                every.summary.final_state_root, once.summary.final_state_root,
                "{label}: the final state root"
            );
            assert_eq!(every.summary, once.summary, "{label}: the summary");
            assert_eq!(every.actors, once.actors, "{label}: the actors' figures");
            assert_eq!(every.steps, once.steps, "{label}: the steps");
            assert_eq!(
                blocks_every.records, blocks_once.records,
                "{label}: the blocks' records"
            );
            compared += 1;
            hashes_differ += usize::from(blocks_every.hashes != blocks_once.hashes);
        }
    }
    assert!(
        compared >= builtin::FIXTURES.len(),
        "{compared} runs compared"
    );
    // The deferral took effect: the headers carry placeholder roots, so the hashes moved.
    assert_eq!(hashes_differ, compared, "runs whose block hashes moved");
}
