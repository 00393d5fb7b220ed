//! The shipped fixtures run with their expectations, deterministically, and broken fixtures
//! are refused with a named file, line and field.

use cowboy_devnet::scenario::builtin;
use cowboy_devnet::scenario::runner::disk_loader;
use cowboy_devnet::scenario::{LoadedFixture, Report, RunOptions, Scenario};
use cowboy_devnet::vm::DevnetRuntime;
use std::path::Path;

fn run_file(path: &str) -> Report {
    let lf = LoadedFixture::read(Path::new(path)).expect("fixture parses");
    let s = Scenario::prepare(&lf, &DevnetRuntime::new(), &disk_loader).expect("fixture checks");
    s.run(
        DevnetRuntime::shared(),
        RunOptions::default(),
        &mut |_, _| {},
    )
    .expect("fixture runs")
}

fn assert_passes(path: &str) -> Report {
    assert_report_passes(path, run_file(path))
}

fn assert_report_passes(path: &str, r: Report) -> Report {
    for e in &r.expectations {
        assert!(
            e.passed,
            "{path}:{} {} ({})",
            e.line, e.description, e.detail
        );
    }
    for s in &r.steps {
        assert!(
            s.as_expected,
            "{path}:{} step {} at {}: {:?}",
            s.line, s.action, s.at, s.error
        );
    }
    assert!(
        r.summary.funds_conserved,
        "{path}: balances + burned != supply"
    );
    assert!(!r.expectations.is_empty(), "{path} carries expectations");
    r
}

#[test]
fn every_shipped_fixture_is_compiled_in_and_on_disk() {
    for (name, text) in builtin::FIXTURES {
        let on_disk = std::fs::read_to_string(format!("fixtures/{name}.toml")).unwrap();
        assert_eq!(&on_disk, text, "fixtures/{name}.toml");
    }
}

/// Every shipped fixture, by name, through the same path as `cowboy-devnet run <name>`
/// (the embedded fixture text and embedded scripts), with its expectations passing.
#[test]
fn every_shipped_fixture_runs_by_name_with_its_expectations() {
    assert!(builtin::FIXTURES.len() >= 6);
    for (name, _) in builtin::FIXTURES {
        let s = match builtin::scenario(name, &DevnetRuntime::new()) {
            Some(Ok(s)) => s,
            Some(Err(e)) => panic!("`cowboy-devnet run {name}` refuses the fixture: {e}"),
            None => panic!("no shipped fixture `{name}`"),
        };
        let r = s
            .run(
                DevnetRuntime::shared(),
                RunOptions::default(),
                &mut |_, _| {},
            )
            .unwrap_or_else(|e| panic!("`cowboy-devnet run {name}`: {e}"));
        assert_report_passes(name, r);
    }
}

/// Every script in `fixtures/scripts/` is embedded verbatim, every embedded script is on disk,
/// and every script a shipped fixture names is embedded.
#[test]
fn every_shipped_script_is_compiled_in_and_on_disk() {
    let mut on_disk: Vec<String> = std::fs::read_dir("fixtures/scripts")
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".rhai"))
        .map(|n| format!("scripts/{n}"))
        .collect();
    on_disk.sort();
    let mut embedded: Vec<String> = builtin::SCRIPTS
        .iter()
        .map(|(p, _)| p.to_string())
        .collect();
    embedded.sort();
    assert_eq!(on_disk, embedded, "fixtures/scripts/ vs builtin::SCRIPTS");
    for (rel, text) in builtin::SCRIPTS {
        let disk = std::fs::read_to_string(format!("fixtures/{rel}")).unwrap();
        assert_eq!(&disk, text, "fixtures/{rel}");
    }
    for (name, _) in builtin::FIXTURES {
        let lf = builtin::fixture(name).unwrap().unwrap();
        for a in &lf.fixture.actors {
            if let Some(rel) = &a.get_ref().script {
                builtin::script_loader(&lf, rel).unwrap_or_else(|e| {
                    panic!("fixtures/{name}.toml: actor `{}`: {e}", a.get_ref().name)
                });
            }
        }
    }
}

#[test]
fn cip5_6_5_storm_defers_what_the_lane_cannot_hold() {
    let r = assert_passes("fixtures/storm.toml");
    // The lane is reserved by gas_limit_per_fire and never exceeded.
    for b in &r.blocks {
        assert!(
            b.lane_reserved <= 2_000_000,
            "block {} reserved {}",
            b.height,
            b.lane_reserved
        );
        assert!(b.lane_used <= b.lane_reserved);
    }
}

#[test]
fn cip5_8_outage_clears_expired_timers_under_the_gc_budget() {
    let r = assert_passes("fixtures/outage.toml");
    for b in &r.blocks {
        assert!(
            b.gc_cycles <= 5_000_000,
            "block {} used {} GC cycles",
            b.height,
            b.gc_cycles
        );
    }
    let resume = r.blocks.iter().find(|b| b.skipped > 0).expect("an outage");
    assert_eq!((resume.height, resume.skipped), (66, 50));
}

#[test]
fn cip5_5_4_governance_instructions_48_49_50() {
    assert_passes("fixtures/governance.toml");
}

#[test]
fn demo_shows_every_timer_event_kind_within_100_blocks() {
    let r = assert_passes("fixtures/demo.toml");
    for kind in [
        "TimerScheduled",
        "TimerFired",
        "TimerDeferred",
        "TimerExpired",
        "TimerCancelledInsufficientFunds",
        "TimerCancelled",
        "TimerCancelledByGovernance",
        "TimerExtended",
        "TimerExtendedByGovernance",
        "TimerConfigUpdated",
    ] {
        assert!(
            r.events
                .iter()
                .any(|e| e.event.kind() == kind && e.height <= 100),
            "demo never shows {kind}"
        );
    }
}

#[test]
fn cip5_appendix_b_heartbeat_self_and_deployer_funded() {
    assert_passes("fixtures/heartbeat.toml");
}

#[test]
fn cip5_5_4_drain_fee_payer_runs_dry() {
    let r = assert_passes("fixtures/drain.toml");
    let unfunded: Vec<_> = r
        .events
        .iter()
        .filter(|e| e.event.kind() == "TimerCancelledInsufficientFunds")
        .map(|e| serde_json::to_value(&e.event).unwrap())
        .collect();
    // The deployer-funded round: required = 200,000 × 1 + 550,000 × 1, available = 100,000.
    assert!(
        unfunded
            .iter()
            .any(|v| v["required"] == "750000" && v["available"] == "100000"),
        "{unfunded:?}"
    );
}

#[test]
fn the_built_in_demo_is_the_shipped_demo() {
    let lf = builtin::fixture("demo").unwrap().unwrap();
    let s = Scenario::prepare(&lf, &DevnetRuntime::new(), &builtin::script_loader).unwrap();
    let r = s
        .run(
            DevnetRuntime::shared(),
            RunOptions::default(),
            &mut |_, _| {},
        )
        .unwrap();
    assert!(r.passed());
    assert_eq!(
        r.summary.final_state_root,
        run_file("fixtures/demo.toml").summary.final_state_root
    );
}

#[test]
fn same_fixture_same_report_byte_for_byte() {
    for f in [
        "fixtures/demo.toml",
        "fixtures/storm.toml",
        "fixtures/governance.toml",
    ] {
        let a = run_file(f);
        let b = run_file(f);
        assert_eq!(a.to_json(), b.to_json(), "{f}");
        let csv = |r: &Report| r.blocks.iter().map(|b| b.csv()).collect::<Vec<_>>();
        assert_eq!(csv(&a), csv(&b), "{f}");
    }
}

fn prepare_err(text: &str) -> String {
    let lf = match LoadedFixture::parse("broken.toml", text.to_string()) {
        Ok(lf) => lf,
        Err(e) => return e.to_string(),
    };
    match Scenario::prepare(&lf, &DevnetRuntime::new(), &disk_loader) {
        Ok(_) => panic!("broken fixture accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn broken_fixtures_name_file_line_and_field() {
    let cases: &[(&str, &str)] = &[
        // unknown key in a step
        (
            "[[accounts]]\nname = \"a\"\nbalance = 1\n\n[[steps]]\nat = 1\naction = \"halt\"\nblocks = 2\nbogus = 3\n",
            "broken.toml:9: steps[1].bogus: unknown field `bogus`",
        ),
        // bad type
        (
            "blocks = \"many\"\n",
            "broken.toml:1: blocks: invalid type: string \"many\", expected u64",
        ),
        // unknown actor in a step
        (
            "[[steps]]\nat = 3\naction = \"cancel\"\nactor = \"ghost\"\ntimer = \"t\"\n",
            "broken.toml:4: steps[1].actor: `ghost` is not an actor",
        ),
        // label used before it is defined
        (
            "[[accounts]]\nname = \"a\"\n[[actors]]\nname = \"x\"\ndeployer = \"a\"\n[[steps]]\nat = 3\naction = \"cancel\"\nactor = \"x\"\ntimer = \"later\"\n",
            "broken.toml:10: steps[1].timer: no earlier step labels a timer `later`",
        ),
        // missing script file
        (
            "[[accounts]]\nname = \"a\"\n[[actors]]\nname = \"x\"\ndeployer = \"a\"\nscript = \"nope.rhai\"\n",
            "broken.toml:6: actors[1].script: cannot read",
        ),
        // broken native program
        (
            "[[accounts]]\nname = \"a\"\n[[actors]]\nname = \"x\"\ndeployer = \"a\"\nnative = '{\"handle_timer\": [{\"op\": \"fly\"}]}'\n",
            "broken.toml:6: actors[1].native: CompileError",
        ),
        // expectation with two kinds
        (
            "[[expect]]\nkind = \"TimerFired\"\nbalance_of = \"governance\"\nequals = 1\n",
            "broken.toml:2: expect[1].kind: give exactly one of",
        ),
        // unknown event kind
        (
            "[[expect]]\nkind = \"TimerExploded\"\n",
            "unknown event kind `TimerExploded`",
        ),
        // step inside an outage
        (
            "[[accounts]]\nname = \"a\"\nbalance = 5\n[[steps]]\nat = 2\naction = \"halt\"\nblocks = 10\n[[steps]]\nat = 5\naction = \"transfer\"\nfrom = \"a\"\nto = \"governance\"\namount = 1\n",
            "broken.toml:9: steps[2].at: height 5 falls inside the outage",
        ),
        // invalid TimerConfig override
        (
            "name = \"x\"\n\n[chain.timer]\nlane_timer_cycles = 0\n",
            "broken.toml:3: chain.timer: InvalidInput",
        ),
    ];
    for (text, want) in cases {
        let got = prepare_err(text);
        assert!(got.contains(want), "expected `{want}` in `{got}`");
    }
}

#[test]
fn amounts_of_the_wrong_type_say_what_an_amount_is() {
    let expected = r#"expected an integer amount or a decimal string like "1000000""#;
    let cases: &[(&str, &str)] = &[
        (
            "[[accounts]]\nname = \"a\"\nbalance = true\n",
            "broken.toml:3: accounts[1].balance: invalid type: boolean `true`, ",
        ),
        (
            "[[accounts]]\nname = \"a\"\nbalance = 1.5\n",
            "broken.toml:3: accounts[1].balance: invalid type: floating point `1.5`, ",
        ),
        (
            "[[accounts]]\nname = \"a\"\nbalance = \"lots\"\n",
            "broken.toml:3: accounts[1].balance: `lots` is not an amount: ",
        ),
        (
            "[[accounts]]\nname = \"a\"\nbalance = -5\n",
            "broken.toml:3: accounts[1].balance: amount -5 is negative",
        ),
    ];
    for (text, want) in cases {
        let got = prepare_err(text);
        assert!(got.contains(want), "expected `{want}` in `{got}`");
        assert!(
            want.ends_with("negative") || got.ends_with(expected),
            "expected `{expected}` in `{got}`"
        );
        assert!(!got.contains("untagged"), "{got}");
    }
    // Amounts inside a step (deserialized through serde's buffer) say the same.
    let got = prepare_err(
        "[[steps]]\nat = 2\naction = \"transfer\"\nfrom = \"a\"\nto = \"b\"\namount = [1]\n",
    );
    assert!(
        got.contains("broken.toml:6: steps[1].amount: invalid type: sequence"),
        "{got}"
    );
    assert!(got.ends_with(expected), "{got}");
    // Valid amounts still parse: integers and decimal strings with underscores, up to u128.
    let lf = LoadedFixture::parse(
        "ok.toml",
        "[[accounts]]\nname = \"a\"\nbalance = 7\n[[accounts]]\nname = \"b\"\nbalance = \"340_282_366_920_938_463_463_374_607_431_768_211_455\"\n".into(),
    )
    .unwrap();
    let balances: Vec<u128> = lf
        .fixture
        .accounts
        .iter()
        .map(|a| a.get_ref().balance.0)
        .collect();
    assert_eq!(balances, [7, u128::MAX]);
}

/// The audit's case: a type error in the second `[[steps]]` after other tables used to be
/// reported at an earlier table's header, named `actors`.
const STEPS_AFTER_OTHER_TABLES: &str = r#"name = "t"
blocks = 20

[[accounts]]
name = "alice"
balance = 1_000_000_000

[[actors]]
name = "w"
deployer = "alice"

[[steps]]
at = 2
action = "transfer"
from = "alice"
to = "governance"
amount = 1

[[steps]]
at = 3
action = "schedule"
actor = "w"
after = "ten"
"#;

#[test]
fn toml_errors_in_tables_name_the_element_key_and_its_line() {
    let line_of =
        |text: &str, needle: &str| text.lines().position(|l| l.starts_with(needle)).unwrap() + 1;
    let t = STEPS_AFTER_OTHER_TABLES;
    assert_eq!(line_of(t, "after"), 23);
    let cases: Vec<(String, &str)> = vec![
        // a bad type in a step
        (
            t.into(),
            "broken.toml:23: steps[2].after: invalid type: string \"ten\", expected u64",
        ),
        // an unknown key in a step
        (
            t.replace("after = \"ten\"", "after = 4\nbogus = 1"),
            "broken.toml:24: steps[2].bogus: unknown field `bogus`, expected one of `at`, `actor`",
        ),
        // an unknown action
        (
            t.replace("\"schedule\"", "\"fly\""),
            "broken.toml:21: steps[2].action: unknown variant `fly`, expected one of `schedule`",
        ),
        // a missing key: the step's header line
        (
            t.replace("actor = \"w\"\n", "").replace("\"ten\"", "10"),
            "broken.toml:19: steps[2].actor: missing field `actor`",
        ),
        // an amount in a step
        (
            t.replace("amount = 1", "amount = true"),
            "broken.toml:17: steps[1].amount: invalid type: boolean `true`",
        ),
        // a bad value and an unknown key in one step: the bad value is named
        (
            t.replace("after = \"ten\"", "zork = 1\nafter = \"ten\""),
            "broken.toml:24: steps[2].after: invalid type: string \"ten\"",
        ),
        // other arrays of tables and nested tables
        (
            t.replace("after = \"ten\"", "after = 10")
                .replace("deployer = \"alice\"", "deployer = \"alice\"\nat = \"one\""),
            "broken.toml:11: actors[1].at: invalid type: string \"one\", expected u64",
        ),
        (
            t.replace("after = \"ten\"", "after = 10")
                .replace("name = \"alice\"", "name = \"alice\"\nbogus = 1"),
            "broken.toml:6: accounts[1].bogus: unknown field `bogus`",
        ),
        (
            format!(
                "{}\n[[expect]]\nkind = \"TimerFired\"\ncount = \"x\"\n",
                t.replace("after = \"ten\"", "after = 10")
            ),
            "broken.toml:27: expect[1].count: invalid type: string \"x\", expected u64",
        ),
        (
            "blocks = 3\n\n[chain.timer]\nlane_timer_cycles = \"x\"\n".into(),
            "broken.toml:4: chain.timer.lane_timer_cycles: invalid type: string \"x\"",
        ),
        (
            "[chain]\nscheduler = \"fifo\"\nbogus = 1\n".into(),
            "broken.toml:3: chain.bogus: unknown field `bogus`",
        ),
        (
            "name = \"x\"\nbogus = 1\n".into(),
            "broken.toml:2: bogus: unknown field `bogus`",
        ),
        // a syntax error: the key on its line
        (
            "name = \"x\"\nblocks = [1,\n".into(),
            "broken.toml:2: blocks: ",
        ),
    ];
    for (text, want) in &cases {
        let got = prepare_err(text);
        assert!(got.contains(want), "expected `{want}` in `{got}`");
    }
}

/// Errors found after parsing (a name that does not resolve, a label used too early, a height
/// inside an outage) are named and placed like TOML errors: the element (counting from 1, in
/// file order, whatever order the steps run in), the key, and the key's line.
#[test]
fn semantic_errors_name_the_element_key_and_its_line() {
    let t = STEPS_AFTER_OTHER_TABLES.replace("after = \"ten\"", "after = 10");
    let line_of = |text: &str, needle: &str| {
        text.lines()
            .position(|l| l.starts_with(needle))
            .expect(needle)
            + 1
    };
    let cases: Vec<(String, String)> = vec![
        // an unknown actor in the second step
        {
            let x = t.replace("actor = \"w\"", "actor = \"ghost\"");
            let line = line_of(&x, "actor = \"ghost\"");
            (
                x,
                format!("broken.toml:{line}: steps[2].actor: `ghost` is not an actor"),
            )
        },
        // the second step in the file runs first (at 1): still steps[2]
        {
            let x = t
                .replace("at = 3", "at = 1")
                .replace("actor = \"w\"", "actor = \"ghost\"");
            let line = line_of(&x, "actor = \"ghost\"");
            (
                x,
                format!("broken.toml:{line}: steps[2].actor: `ghost` is not an actor"),
            )
        },
        // an unknown sender in the first step
        {
            let x = t.replace("from = \"alice\"", "from = \"nobody\"");
            let line = line_of(&x, "from = \"nobody\"");
            (
                x,
                format!("broken.toml:{line}: steps[1].from: unknown account or actor `nobody`"),
            )
        },
        // a key that the step lacks is named, on the step's header line
        {
            let x = t.replace("after = 10", "after = 10\nheight = 30");
            let line = line_of(&x, "height = 30");
            (
                x,
                format!(
                    "broken.toml:{line}: steps[2].height: give exactly one of `height` or `after`"
                ),
            )
        },
        {
            let x = t.replace("after = 10\n", "");
            // the second `[[steps]]` header
            let header = x
                .lines()
                .enumerate()
                .filter(|(_, l)| *l == "[[steps]]")
                .nth(1)
                .unwrap()
                .0
                + 1;
            (
                x,
                format!(
                    "broken.toml:{header}: steps[2].height: give exactly one of `height` or `after`"
                ),
            )
        },
        // actors, accounts, expectations, the chain table
        {
            let x = t.replace("deployer = \"alice\"", "deployer = \"bob\"");
            let line = line_of(&x, "deployer = \"bob\"");
            (
                x,
                format!("broken.toml:{line}: actors[1].deployer: unknown account `bob`"),
            )
        },
        {
            let x = format!("{t}\n[[accounts]]\nname = \"alice\"\n");
            let line = x.lines().count();
            (
                x,
                format!("broken.toml:{line}: accounts[2].name: account `alice` is defined twice"),
            )
        },
        {
            let x = format!(
                "{t}\n[[expect]]\nkind = \"TimerFired\"\n\n[[expect]]\nbalance_of = \"carol\"\nequals = 1\n"
            );
            let line = line_of(&x, "balance_of");
            (
                x,
                format!("broken.toml:{line}: expect[2].balance_of: unknown account `carol`"),
            )
        },
        {
            let x = t.replace("blocks = 20", "blocks = 20\n\n[chain]\nproposer = \"zed\"");
            let line = line_of(&x, "proposer");
            (
                x,
                format!("broken.toml:{line}: chain.proposer: unknown account `zed`"),
            )
        },
        // a deploy inside an outage
        {
            let x = format!(
                "{}\n[[steps]]\nat = 8\naction = \"halt\"\nblocks = 5\n",
                t.replace("deployer = \"alice\"", "deployer = \"alice\"\nat = 10")
                    // the schedule comes after the deploy (one before it is broken too)
                    .replace("at = 3", "at = 15")
            );
            let line = line_of(&x, "at = 10");
            (
                x,
                format!("broken.toml:{line}: actors[1].at: height 10 falls inside the outage"),
            )
        },
    ];
    for (text, want) in &cases {
        let got = prepare_err(text);
        assert!(got.contains(want.as_str()), "expected `{want}` in `{got}`");
    }
}
