//! The headless runner's lines and report, through the real binary (issue 20, "Found in the
//! headless runner and reports"): every event kind has a line, a block's lane column is the
//! capacity the block ran with, and the actor table rounds W (CIP-1 v3 §8) as the dashboard.

use cowboy_devnet::chain::{ChainEvent, Event};
use cowboy_devnet::engine::{
    Address, DeferReason, ErrorKind, EventKind, Failure, TimerConfig, TimerEvent, TimerId,
};
use cowboy_devnet::scenario::lines::event_line;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cowboy-devnet"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Every fixture shipped in fixtures/, found by listing the folder.
fn shipped_fixtures() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixtures/ lists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    v
}

/// Issue 20: `run congestion --events` (and migration, and any eip1559 run) panicked on the
/// CIP-1 v3 kinds (`SchedulerActivated`, `TimerPriorityClampedAtSchedule`, `GbaFallback`).
/// Every shipped fixture plays with `--events` and every event gets a line of its kind.
#[test]
fn every_shipped_fixture_plays_with_events_and_each_event_has_a_line() {
    let fixtures = shipped_fixtures();
    assert!(fixtures.len() >= 10, "{fixtures:?}");
    let mut kinds_seen = std::collections::BTreeSet::new();
    for f in &fixtures {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("runner_lines");
        std::fs::create_dir_all(&dir).unwrap();
        let report = dir.join(format!("{}.json", f.file_stem().unwrap().to_string_lossy()));
        let o = run(&[
            "run",
            f.to_str().unwrap(),
            "--events",
            "--report",
            report.to_str().unwrap(),
        ]);
        let err = text(&o.stderr);
        assert!(!err.contains("panicked"), "{}: {err}", f.display());
        assert_eq!(o.status.code(), Some(0), "{}: {err}", f.display());
        let out = text(&o.stdout);
        // As many event lines of each kind as the report has events of that kind.
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        let by_kind = r["summary"]["events_by_kind"]
            .as_object()
            .expect("events_by_kind");
        for (kind, n) in by_kind {
            let lines = out
                .lines()
                .filter(|l| l.starts_with(&format!("         {kind} ")))
                .count() as u64;
            assert_eq!(
                lines,
                n.as_u64().unwrap(),
                "{}: lines of {kind}",
                f.display()
            );
            kinds_seen.insert(kind.clone());
        }
    }
    assert!(kinds_seen.contains("SchedulerActivated"), "{kinds_seen:?}");
}

/// One event of `kind` (the match names every kind, so a new kind does not compile here
/// until it has a sample).
fn sample(kind: EventKind) -> Event {
    use TimerEvent as T;
    let (timer_id, actor) = (TimerId([7; 32]), Address([1; 20]));
    let t = match kind {
        EventKind::ActorDeployed => {
            return Event::Chain(ChainEvent::ActorDeployed {
                actor,
                deployer: Address([2; 20]),
            });
        }
        EventKind::ActorEmitted => {
            return Event::Chain(ChainEvent::ActorEmitted {
                actor,
                topic: "t".into(),
                data: "d".into(),
            });
        }
        EventKind::TimerScheduled => T::TimerScheduled {
            timer_id,
            actor,
            height: 5,
            fee_payer: actor,
            gas_limit_per_fire: 1,
            expires_at: 9,
            handler: "h".into(),
            payload_len: 0,
        },
        EventKind::TimerFired => T::TimerFired {
            timer_id,
            actor,
            fee_payer: actor,
            height: 5,
            handler: "h".into(),
            cycles_used: 1,
            cells_used: 0,
            max_cost: 3,
            cost: 2,
            refund: 1,
            burned: 2,
            tip: 0,
            success: false,
            error: Some(Failure::new(ErrorKind::OutOfCycles, "out")),
            cancelled_while_running: false,
        },
        EventKind::TimerDeferred => T::TimerDeferred {
            timer_id,
            actor,
            height: 5,
            reason: DeferReason::Lane,
            carried: 1,
        },
        EventKind::TimerExpired => T::TimerExpired {
            timer_id,
            actor,
            expires_at: 5,
            current_height: 6,
        },
        EventKind::TimerCancelledInsufficientFunds => T::TimerCancelledInsufficientFunds {
            timer_id,
            actor,
            fee_payer: actor,
            required: 2,
            available: 1,
        },
        EventKind::TimerCancelled => T::TimerCancelled {
            timer_id,
            actor,
            refund: 0,
        },
        EventKind::TimerCancelledByGovernance => T::TimerCancelledByGovernance {
            timer_id,
            existed: true,
        },
        EventKind::TimerExtended => T::TimerExtended {
            timer_id,
            actor,
            old_expires_at: 5,
            new_expires_at: 6,
            no_effect: false,
        },
        EventKind::TimerExtendedByGovernance => T::TimerExtendedByGovernance {
            timer_id,
            old_expires_at: 5,
            new_expires_at: 6,
        },
        EventKind::TimerConfigUpdated => T::TimerConfigUpdated {
            config: TimerConfig::default(),
        },
        EventKind::TimerPriorityClampedAtSchedule => T::TimerPriorityClampedAtSchedule {
            timer_id,
            actor,
            stated: 9,
            clamped: 4,
        },
        EventKind::GbaFallback => T::GbaFallback {
            timer_id,
            actor,
            reason: ErrorKind::OutOfCycles,
        },
        EventKind::SchedulerActivated => T::SchedulerActivated { height: 5 },
        EventKind::TimerBid => T::TimerBid {
            timer_id,
            actor,
            max_fee_per_cycle: 9,
            tip_per_cycle: 4,
        },
        EventKind::WeightUpdated => T::WeightUpdated {
            actor,
            old_bps: 10_000,
            new_bps: 9_375,
            score_bps: Some(6_875),
        },
        EventKind::TimerUpdated => T::TimerUpdated {
            timer_id,
            actor,
            client_nonce: 7,
            payload_len: 3,
            gas_limit_per_fire: 60_000,
            bid: 4,
            fifo_rank_raised: true,
        },
        EventKind::SchedulerConfigUpdated => T::SchedulerConfigUpdated {
            config: cowboy_devnet::engine::Cip1Config::default().scheduler_params(),
            draft: None,
        },
    };
    Event::Timer(t)
}

/// Issue 20: every event kind (`EventKind::ALL`) has a readable line led by its name; the
/// three CIP-1 v3 kinds that panicked the runner among them.
#[test]
fn every_event_kind_has_a_line() {
    let book = BTreeMap::new();
    for &kind in EventKind::ALL {
        let e = sample(kind);
        assert_eq!(e.kind(), kind);
        let line = event_line(&e, &book);
        let body = line
            .trim_start()
            .strip_prefix(kind.as_str())
            .unwrap_or_else(|| panic!("{kind}: {line}"));
        assert!(body.trim().len() > 5, "{kind}: {line}");
    }
}

/// CIP-1 v3 §6: a priority fee above `max_fee − lane basefee` is clamped at schedule time
/// (`TimerPriorityClampedAtSchedule`, which no shipped fixture emits): its line names both fees.
#[test]
fn a_clamped_priority_fee_has_a_line() {
    let toml = "name = \"clamp\"\nblocks = 4\n\n[chain]\nscheduler = \"eip1559\"\n\n\
                [[accounts]]\nname = \"alice\"\nbalance = \"10_000_000_000_000_000\"\n\n\
                [[actors]]\nname = \"a\"\ndeployer = \"alice\"\nbalance = \"1_000_000_000_000_000\"\n\n\
                [[steps]]\nat = 1\naction = \"schedule\"\nactor = \"a\"\nheight = 3\n\
                max_fee_per_cycle = \"1_500_000_000\"\nmax_priority_fee_per_cycle = \"1_000_000_000\"\n";
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("runner_lines");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("clamp.toml");
    std::fs::write(&p, toml).unwrap();
    let o = run(&["run", p.to_str().unwrap(), "--events"]);
    let err = text(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(o.status.code(), Some(0), "{err}");
    let out = text(&o.stdout);
    let line = out
        .lines()
        .find(|l| l.starts_with("         TimerPriorityClampedAtSchedule "))
        .unwrap_or_else(|| panic!("no clamp line:\n{out}"));
    assert!(
        line.contains("1000000000") && line.contains("500000000"),
        "{line}"
    );
}

/// Issue 20: a block whose transactions change `lane_timer_cycles` printed the new capacity
/// beside what the old one admitted. CIP-5 §6.4: governance's config applies from the next
/// block, so block 8 of governance.toml (which halves the lane) ran with 2,000,000 cycles.
#[test]
fn a_block_line_shows_the_lane_capacity_the_block_ran_with() {
    let o = run(&["run", "governance"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let line = |h: u64| {
        out.lines()
            .find(|l| l.starts_with(&format!("#{h} ")))
            .unwrap_or_else(|| panic!("no line for #{h}:\n{out}"))
            .to_string()
    };
    assert!(line(8).contains("/2000000 "), "{}", line(8));
    assert!(line(9).contains("/1000000 "), "{}", line(9));
}

/// CIP-1 v3 §8 W(actor) = 2 − recent/median: an actor with 1 fire beside a median of 3 has
/// W = 16,667 bps, which the report shows as `1.67` (rounded, as the dashboard), not `1.66`.
#[test]
fn the_actor_table_rounds_w_as_the_dashboard_does() {
    assert_eq!(cowboy_devnet::node::fmt_w(16_667), "1.67");
    assert_eq!(cowboy_devnet::node::fmt_w(10_000), "1.00");
    assert_eq!(cowboy_devnet::node::fmt_w(20_000), "2.00");
    assert_eq!(cowboy_devnet::node::fmt_w(19_995), "2.00");
    assert_eq!(cowboy_devnet::node::fmt_w(10_049), "1.00");
    assert_eq!(
        cowboy_devnet::tui::model::fmt_w(16_667),
        cowboy_devnet::node::fmt_w(16_667)
    );

    let mut toml = String::from(
        "name = \"w-third\"\nblocks = 10\n\n[chain]\nscheduler = \"eip1559\"\n\n\
         [[accounts]]\nname = \"alice\"\nbalance = \"1_000_000_000_000\"\n",
    );
    for a in ["a", "b", "c"] {
        toml += &format!(
            "\n[[actors]]\nname = \"{a}\"\ndeployer = \"alice\"\nbalance = \"10_000_000_000\"\n"
        );
    }
    let fires = [("a", 3), ("b", 3), ("c", 1)];
    for (a, n) in fires {
        for h in 4..4 + n {
            toml += &format!(
                "\n[[steps]]\nat = 1\naction = \"schedule\"\nactor = \"{a}\"\nheight = {h}\n"
            );
        }
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("runner_lines");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("w_third.toml");
    std::fs::write(&p, toml).unwrap();
    let o = run(&["run", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let row = out
        .lines()
        .find(|l| l.trim_start().starts_with("c "))
        .unwrap_or_else(|| panic!("no row for c:\n{out}"));
    assert!(row.trim_end().ends_with(" 1.67"), "{row}");
}
