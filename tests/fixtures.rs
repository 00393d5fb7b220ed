//! The shipped fixtures run with their expectations, deterministically, and broken fixtures
//! are refused with a named file, line and field.

use cowboy_devnet::engine::{ErrorKind, EventKind, Failure, TimerStatus};
use cowboy_devnet::scenario::builtin;
use cowboy_devnet::scenario::report::BlockRow;
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
        EventKind::TimerScheduled,
        EventKind::TimerFired,
        EventKind::TimerDeferred,
        EventKind::TimerExpired,
        EventKind::TimerCancelledInsufficientFunds,
        EventKind::TimerCancelled,
        EventKind::TimerCancelledByGovernance,
        EventKind::TimerExtended,
        EventKind::TimerExtendedByGovernance,
        EventKind::TimerConfigUpdated,
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
        .filter(|e| e.event.kind() == EventKind::TimerCancelledInsufficientFunds)
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
        // `[cip1.lane]`: each field optional (docs/FIXTURES.md), an unknown one an error
        (
            "[cip1.lane]\ntarget_bps = 4000\nbogus = 1\n".into(),
            "broken.toml:3: cip1.lane.bogus: unknown field `bogus`",
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

// ---- issue 11: numbers that wrap, check = run, the runner's scale ---------------------------

/// Prepares fixture text with the shipped scripts; the error as text.
fn prepare_text(text: &str) -> Result<Scenario, String> {
    let lf = LoadedFixture::parse("t.toml", text.to_string()).map_err(|e| e.to_string())?;
    Scenario::prepare(&lf, &DevnetRuntime::new(), &builtin::script_loader)
        .map_err(|e| e.to_string())
}

fn run_text(text: &str, opts: RunOptions) -> Report {
    let s = prepare_text(text).expect("fixture checks");
    s.run(DevnetRuntime::shared(), opts, &mut |_, _| {})
        .expect("fixture runs")
}

fn assert_refused(text: &str, want: &str) {
    match prepare_text(text) {
        Ok(_) => panic!("accepted, expected `{want}`:\n{text}"),
        Err(e) => assert!(e.contains(want), "expected `{want}` in `{e}`"),
    }
}

const ALICE_AND_W: &str = r#"name = "t"
blocks = 20

[[accounts]]
name = "alice"
balance = 1_000_000_000

[[actors]]
name = "w"
deployer = "alice"
balance = 100_000_000
"#;

#[test]
fn numbers_genesis_balances_past_u128_max_are_named_at_the_account() {
    let text = "[[accounts]]\nname = \"a\"\nbalance = \"340282366920938463463374607431768211455\"\n\n[[accounts]]\nname = \"b\"\nbalance = \"340282366920938463463374607431768211455\"\n";
    assert_refused(
        text,
        "t.toml:7: accounts[2].balance: the genesis balances sum past u128::MAX",
    );
}

#[test]
fn numbers_a_chain_refuses_genesis_balances_past_u128_max() {
    use cowboy_devnet::chain::{Chain, Genesis, GenesisAccount};
    use cowboy_devnet::engine::Address;
    let mut g = Genesis::default();
    for n in ["a", "b"] {
        g.accounts.push(GenesisAccount {
            address: Address::from_label(n),
            balance: u128::MAX,
        });
    }
    let e = Chain::new(g, DevnetRuntime::shared()).expect_err("a wrapped supply");
    assert!(e.to_string().starts_with("InvalidInput"), "{e}");
}

#[test]
fn numbers_a_set_balance_past_the_supply_limit_fails_the_step_and_changes_nothing() {
    let text = r#"
blocks = 5
[[accounts]]
name = "alice"
balance = "340282366920938463463374607431768211455"
[[accounts]]
name = "bob"
[[steps]]
at = 2
action = "set_balance"
account = "bob"
balance = 1
"#;
    let r = run_text(text, RunOptions::default());
    let step = r.steps.iter().find(|s| s.action == "set_balance").unwrap();
    let err = step.error.as_ref().expect("the step fails");
    assert_eq!(err.kind, ErrorKind::InvalidInput, "{err}");
    assert!(
        err.message.contains("`bob`"),
        "named, not an address: {err}"
    );
    assert!(r.summary.funds_conserved);
    assert_eq!(r.summary.supply, u128::MAX);
    assert!(!r.passed());
}

#[test]
fn numbers_the_conservation_check_fails_on_a_corrupted_state() {
    use cowboy_devnet::chain::{Chain, Genesis};
    use cowboy_devnet::engine::Address;
    let mut c = Chain::new(Genesis::default(), DevnetRuntime::shared()).unwrap();
    assert!(c.funds_conserved());
    // Balances whose sum wraps to 0 = supply: a wrapped sum would say "conserved".
    c.test_hook_set_balance_unminted(&Address::from_label("a"), u128::MAX);
    c.test_hook_set_balance_unminted(&Address::from_label("b"), 1);
    assert!(!c.funds_conserved());
    assert_eq!(c.checked_total_balances(), None);
    // A supply that does not match: 10 minted, 9 held.
    let mut c = Chain::new(Genesis::default(), DevnetRuntime::shared()).unwrap();
    c.set_balance(&Address::from_label("a"), 10);
    c.test_hook_set_balance_unminted(&Address::from_label("a"), 9);
    assert!(!c.funds_conserved());
}

#[test]
fn numbers_a_halt_of_u64_max_is_refused_by_check() {
    let text = format!(
        "{ALICE_AND_W}\n[[steps]]\nat = 2\naction = \"halt\"\nblocks = 18446744073709551615\n"
    );
    assert_refused(
        &text,
        "t.toml:16: steps[1].blocks: an outage skips at most 1000000 heights",
    );
}

#[test]
fn numbers_after_and_ttl_past_u64_max_are_named() {
    let step = "\n[[steps]]\nat = 2\naction = \"schedule\"\nactor = \"w\"\n";
    let text = format!("{ALICE_AND_W}{step}after = 18446744073709551615\n");
    assert_refused(
        &text,
        "steps[1].after: at + after (2 + 18446744073709551615) passes u64::MAX",
    );
    let text = format!("{ALICE_AND_W}{step}after = 5\nttl = 18446744073709551615\n");
    assert_refused(
        &text,
        "steps[1].ttl: height + ttl (7 + 18446744073709551615) passes u64::MAX",
    );
    let text = format!(
        "{ALICE_AND_W}{step}after = 5\nlabel = \"x\"\n[[steps]]\nat = 3\naction = \"extend\"\nactor = \"w\"\ntimer = \"x\"\nby = 18446744073709551615\n"
    );
    assert_refused(
        &text,
        "steps[2].by: at + by (3 + 18446744073709551615) passes u64::MAX",
    );
}

#[test]
fn check_refuses_blocks_past_the_longest_run() {
    let text = ALICE_AND_W.replace("blocks = 20", "blocks = 18446744073709551615");
    assert_refused(&text, "t.toml:2: blocks: a run is 1..=100000000 blocks");
}

#[test]
fn check_refuses_a_gov_config_the_chain_refuses_unless_expected() {
    let step = "\n[[steps]]\nat = 2\naction = \"gov_config\"\nset = { lane_timer_cycles = 0 }\n";
    assert_refused(
        &format!("{ALICE_AND_W}{step}"),
        "t.toml:16: steps[1].set: InvalidInput: TimerConfig: lane_timer_cycles",
    );
    let expected = format!("{ALICE_AND_W}{step}expect_error = \"InvalidInput\"\n");
    let r = run_text(&expected, RunOptions::default());
    assert!(r.passed(), "{:?}", r.steps);
}

#[test]
fn check_refuses_a_timer_height_not_after_its_step() {
    let step = "\n[[steps]]\nat = 5\naction = \"schedule\"\nactor = \"w\"\nheight = 2\n";
    assert_refused(
        &format!("{ALICE_AND_W}{step}"),
        "t.toml:17: steps[1].height: the timer's height 2 is not after the step's height 5",
    );
    let expected = format!("{ALICE_AND_W}{step}expect_error = \"InvalidInput\"\n");
    assert!(run_text(&expected, RunOptions::default()).passed());
}

#[test]
fn check_refuses_a_step_on_an_actor_before_its_deploy() {
    let text = ALICE_AND_W.replace("balance = 100_000_000", "balance = 100_000_000\nat = 6");
    let step = "\n[[steps]]\nat = 3\naction = \"call\"\nfrom = \"alice\"\nactor = \"w\"\nhandler = \"go\"\n";
    assert_refused(
        &format!("{text}{step}"),
        "steps[1].actor: `w` is deployed at height 6, after this step's height 3",
    );
    // Expected, it runs, and its error names the actor, not its address.
    let r = run_text(
        &format!("{text}{step}expect_error = \"UnknownActor\"\n"),
        RunOptions::default(),
    );
    assert!(r.passed(), "{:?}", r.steps);
    let err = r
        .steps
        .iter()
        .find(|s| s.action == "call")
        .unwrap()
        .error
        .clone();
    assert_eq!(
        err,
        Some(Failure::new(
            ErrorKind::UnknownActor,
            "`w` is not a deployed actor"
        ))
    );
}

#[test]
fn steps_and_expectations_past_the_end_of_the_run_are_errors() {
    let x = "\n[[expect]]\nbalance_of = \"alice\"\nat = 500\nat_least = 1\n";
    assert_refused(
        &format!("{ALICE_AND_W}{x}"),
        "t.toml:13: expect[1].at: the expectation at height 500 is past the end of the run (height 20)",
    );
    let s =
        "\n[[steps]]\nat = 21\naction = \"transfer\"\nfrom = \"alice\"\nto = \"w\"\namount = 1\n";
    assert_refused(
        &format!("{ALICE_AND_W}{s}"),
        "t.toml:13: steps[1].at: the step at height 21 is past the end of the run (height 20)",
    );
    let a = ALICE_AND_W.replace("balance = 100_000_000", "balance = 100_000_000\nat = 30");
    assert_refused(
        &a,
        "t.toml:8: actors[1].at: the deploy at height 30 is past the end",
    );
}

#[test]
fn a_run_shorter_than_its_steps_is_refused_with_file_line_and_field() {
    let text = format!(
        "{ALICE_AND_W}\n[[steps]]\nat = 9\naction = \"transfer\"\nfrom = \"alice\"\nto = \"w\"\namount = 1\n"
    );
    let r = run_text(
        &text,
        RunOptions {
            blocks: Some(5),
            ..RunOptions::default()
        },
    );
    assert_eq!(
        r.refused.as_deref(),
        Some("t.toml:13: steps[1].at: the step at height 9 is past the end of the run (height 5)")
    );
    assert!(!r.passed());
    assert!(r.to_json().contains("\"refused\""));
}

#[test]
fn state_expectations_at_a_height_an_outage_skips_are_checked() {
    let text = format!(
        "{ALICE_AND_W}\n[[steps]]\nat = 3\naction = \"halt\"\nblocks = 5\n\n[[expect]]\nbalance_of = \"w\"\nat = 5\nequals = 100_000_000\n"
    );
    let r = run_text(&text, RunOptions::default());
    assert_eq!(r.expectations.len(), 1, "the expectation at 5 is checked");
    assert!(r.passed(), "{:?}", r.expectations);
}

#[test]
fn smaller_two_accounts_on_one_address_are_refused() {
    let a = "0x1111111111111111111111111111111111111111";
    let text = format!(
        "[[accounts]]\nname = \"a\"\naddress = \"{a}\"\n[[accounts]]\nname = \"b\"\naddress = \"{a}\"\n"
    );
    assert_refused(&text, "accounts[2].address: `b` has the address of `a`");
}

#[test]
fn smaller_a_broken_steps_header_is_named_as_such() {
    let text = format!("{ALICE_AND_W}\n[[steps]\nat = 2\naction = \"halt\"\nblocks = 1\n");
    let e = prepare_text(&text).err().expect("a broken header");
    assert!(e.starts_with("t.toml:13: steps: "), "{e}");
}

#[test]
fn smaller_count_with_min_or_max_and_min_above_max_are_refused() {
    let x = "\n[[expect]]\nkind = \"TimerFired\"\n";
    assert_refused(
        &format!("{ALICE_AND_W}{x}count = 1\nmin = 5\nmax = 2\n"),
        "expect[1].count: give `count`, or `min` and/or `max`, not both",
    );
    assert_refused(
        &format!("{ALICE_AND_W}{x}min = 5\nmax = 2\n"),
        "expect[1].min: min 5 is above max 2",
    );
}

#[test]
fn smaller_empty_names_are_refused() {
    assert_refused(
        "[[accounts]]\nname = \"\"\n",
        "accounts[1].name: a name must not be empty",
    );
    let text = ALICE_AND_W.replace("name = \"w\"", "name = \" \"");
    assert_refused(&text, "actors[1].name: a name must not be empty");
}

#[test]
fn smaller_the_implicit_governance_account_can_pay_for_its_instructions() {
    let text = format!(
        "{ALICE_AND_W}\n[[steps]]\nat = 2\naction = \"gov_config\"\nset = {{ max_ttl_blocks = 500 }}\n"
    );
    let r = run_text(&text, RunOptions::default());
    assert!(r.passed(), "{:?}", r.steps);
}

#[test]
fn the_readme_example_fixture_checks_and_runs() {
    // The fixture format's example, moved from the README to docs/FIXTURES.md (issue 19).
    let readme = include_str!("../docs/FIXTURES.md");
    let start = readme.find("## The format").expect("section");
    let block = &readme[start..];
    let begin = block.find("```toml\n").expect("example") + "```toml\n".len();
    let end = block[begin..].find("```").expect("end of example");
    let r = run_text(&block[begin..begin + end], RunOptions::default());
    assert!(r.passed(), "{:?} {:?}", r.steps, r.expectations);
}

#[test]
fn runs_of_empty_blocks_are_one_report_row_with_a_count() {
    let text = format!(
        "{ALICE_AND_W}\n[[steps]]\nat = 10\naction = \"transfer\"\nfrom = \"alice\"\nto = \"w\"\namount = 1\n"
    )
    .replace("blocks = 20", "blocks = 50");
    let r = run_text(&text, RunOptions::default());
    assert_eq!(r.summary.blocks, 50);
    let heights: Vec<(u64, u64)> = r.blocks.iter().map(|b| (b.height, b.count)).collect();
    // Block 1 deploys, 2..=9 are empty, 10 transfers, 11..=50 are empty.
    assert_eq!(heights, vec![(1, 1), (2, 8), (10, 1), (11, 40)]);
    assert_eq!(r.blocks.iter().map(|b| b.count).sum::<u64>(), 50);
    let json = r.to_json();
    assert!(json.contains("\"count\": 40"), "{json}");
    let mut streamed = Vec::new();
    r.write_json(&mut streamed).unwrap();
    assert_eq!(String::from_utf8(streamed).unwrap(), json);
}

#[test]
fn without_rows_a_run_keeps_no_block_rows_but_counts_every_block() {
    let r = run_text(
        ALICE_AND_W,
        RunOptions {
            skip_rows: true,
            ..RunOptions::default()
        },
    );
    assert!(r.blocks.is_empty());
    assert_eq!(r.summary.blocks, 20);
    assert_eq!(r.summary.final_height, 20);
}

#[test]
fn block_line_columns_stay_in_place_when_counts_reach_six_digits() {
    use cowboy_devnet::scenario::lines::block_line;
    let s = prepare_text(ALICE_AND_W).unwrap();
    let mut lines = Vec::new();
    s.run(
        DevnetRuntime::shared(),
        RunOptions::default(),
        &mut |b, _| {
            let mut big = b.clone();
            big.header.height = 99_999_999;
            big.eob.fired = 123_456;
            big.eob.deferred = 123_456;
            big.eob.expired = 123_456;
            big.pending = 9_999_999;
            lines.push((block_line(b), block_line(&big)));
        },
    )
    .unwrap();
    let cols = |l: &str| {
        ["txs", "fired", "deferred", "gc", "lane", "pending", "root"]
            .map(|w| l.find(&format!(" {w} ")).expect(w))
    };
    for (small, big) in &lines {
        assert_eq!(cols(small), cols(big), "\n{small}\n{big}");
    }
}

#[test]
fn line_numbers_come_from_one_index_of_the_source() {
    let lf = LoadedFixture::parse("t.toml", "name = \"x\"\n\n\nblocks = 3\n".into()).unwrap();
    assert_eq!(lf.line(0), 1);
    assert_eq!(lf.line(11), 2);
    assert_eq!(lf.line(13), 4);
    assert_eq!(lf.line(22), 4);
}

#[test]
fn numbers_halts_after_one_block_are_bounded_together() {
    let halt = "\n[[steps]]\nat = 2\naction = \"halt\"\nblocks = 600000\n";
    assert_refused(
        &format!("{ALICE_AND_W}{halt}{halt}"),
        "t.toml:21: steps[2].blocks: the halts after block 2 skip 1200000 heights together, at most 1000000",
    );
}

#[test]
fn a_run_keeps_only_the_last_blocks_of_its_chain() {
    use cowboy_devnet::scenario::runner::RUN_KEEP_BLOCKS;
    let text = ALICE_AND_W.replace("blocks = 20", "blocks = 200");
    let s = prepare_text(&text).unwrap();
    let (r, devnet) = s
        .run_devnet(
            DevnetRuntime::shared(),
            RunOptions {
                skip_rows: true,
                ..RunOptions::default()
            },
            &mut |_, _| {},
        )
        .unwrap();
    assert_eq!(r.summary.blocks, 200);
    assert!(devnet.chain().blocks().count() <= RUN_KEEP_BLOCKS);
}

// ---- issue 12: one list of event kinds and timer statuses --------------------------------

/// Every event kind's name round-trips through `EventKind`, the fixture checker accepts exactly
/// those names as an expectation's `kind` (the names the serialized events carry), and the
/// same for `TimerStatus` and an expectation's `status`.
#[test]
fn fixture_kinds_and_statuses_are_exactly_the_event_kind_and_timer_status_lists() {
    // Issue 21 added SchedulerConfigUpdated, TimerBid and WeightUpdated; issue 22's
    // idempotent set TimerUpdated.
    assert_eq!(EventKind::ALL.len(), 19);
    for k in EventKind::ALL {
        assert_eq!(k.as_str().parse::<EventKind>(), Ok(*k));
        let text = format!("[[expect]]\nkind = \"{k}\"\ncount = 0\n");
        assert!(prepare_text(&text).is_ok(), "{k} rejected");
    }
    for bad in ["TimerExploded", "timerfired", "TimerFired ", ""] {
        assert!(bad.parse::<EventKind>().is_err(), "{bad:?}");
        let text = format!("[[expect]]\nkind = \"{bad}\"\n");
        let err = prepare_text(&text).err().expect("unknown kind rejected");
        assert!(err.contains("unknown event kind"), "{err}");
    }
    let setup = "[[accounts]]\nname = \"a\"\n[[actors]]\nname = \"x\"\ndeployer = \"a\"\n\
                 [[steps]]\nat = 2\naction = \"schedule\"\nactor = \"x\"\nheight = 5\nlabel = \"t\"\n";
    for s in TimerStatus::ALL {
        assert_eq!(s.as_str().parse::<TimerStatus>(), Ok(*s));
        let text = format!("{setup}[[expect]]\nstatus = \"{s}\"\ntimer = \"t\"\n");
        assert!(prepare_text(&text).is_ok(), "{s} rejected");
    }
    for bad in ["unknown", "Pending", "canceled"] {
        let text = format!("{setup}[[expect]]\nstatus = \"{bad}\"\ntimer = \"t\"\n");
        let err = prepare_text(&text).err().expect("unknown status rejected");
        assert!(
            err.contains("is not one of pending, fired, expired"),
            "{err}"
        );
    }
}

/// A step's `expect_error` names one of the spec's error kinds: a misspelt name is refused at
/// check, not reported as an unexpected outcome after the run.
#[test]
fn fixture_expect_error_names_an_error_kind() {
    let step = |e: &str| {
        format!(
            "[[accounts]]\nname = \"a\"\nbalance = 5\n[[steps]]\nat = 2\naction = \"transfer\"\n\
             from = \"a\"\nto = \"governance\"\namount = 1\nexpect_error = \"{e}\"\n"
        )
    };
    for k in ErrorKind::ALL {
        assert!(prepare_text(&step(k.as_str())).is_ok(), "{k} rejected");
    }
    let err = prepare_text(&step("Unauthorised"))
        .err()
        .expect("a misspelt error kind is refused");
    assert!(
        err.contains("steps[1].expect_error: unknown error kind `Unauthorised` (known: InvalidInput, Unauthorized,"),
        "{err}"
    );
}

// ---- CIP-1 v3: metric expectations (block and actor figures) -------------------------------

/// The storm fixture with `extra` expectations appended.
fn storm_with(extra: &str) -> String {
    let storm = builtin::FIXTURES
        .iter()
        .find(|(n, _)| *n == "storm")
        .unwrap()
        .1;
    format!("{storm}\n{extra}")
}

#[test]
fn cip1_v3_metric_expectations_check_block_and_actor_figures() {
    let r = run_text(
        &storm_with(
            r#"
[[expect]]
metric = "utilisation_bps"
at = 10
equals = 10_000
above_at = 9

[[expect]]
metric = "deferred"
at = 17
below_at = 10

[[expect]]
metric = "lane_basefee"
at = 12
equals = "1_000_000_000"

[[expect]]
metric = "latency_p99"
actor = "storm-d"
equals = 7
above_actor = "storm-a"

[[expect]]
metric = "fires"
actor = "storm-a"
at = 10
equals = 4
"#,
        ),
        RunOptions::default(),
    );
    let failed: Vec<_> = r.expectations.iter().filter(|e| !e.passed).collect();
    assert!(failed.is_empty(), "{failed:#?}");
    let lat = r
        .expectations
        .iter()
        .find(|e| e.description.starts_with("latency_p99"))
        .unwrap();
    assert_eq!(lat.detail, "latency_p99 is 7, 1 of storm-a");

    // A bound that does not hold fails, with the value in the detail.
    let r = run_text(
        &storm_with("[[expect]]\nmetric = \"fires\"\nactor = \"storm-b\"\nat_most = 3\n"),
        RunOptions::default(),
    );
    let e = r.expectations.last().unwrap();
    assert!(!e.passed);
    assert_eq!(e.detail, "fires is 8");
}

#[test]
fn cip1_v3_metric_expectations_are_checked_before_the_run() {
    assert_refused(
        &storm_with("[[expect]]\nmetric = \"speed\"\nat = 3\nat_least = 1\n"),
        "expect[7].metric: unknown metric `speed`",
    );
    assert_refused(
        &storm_with("[[expect]]\nmetric = \"lane_basefee\"\nat_least = 1\n"),
        "expect[7].at: `lane_basefee` is a block's",
    );
    assert_refused(
        &storm_with("[[expect]]\nmetric = \"lane_basefee\"\nat = 5\nabove_at = 5\n"),
        "expect[7].above_at: compares with an earlier block",
    );
    assert_refused(
        &storm_with("[[expect]]\nmetric = \"weight_bps\"\nequals = 20_000\n"),
        "expect[7].actor: `weight_bps` is an actor's",
    );
    assert_refused(
        &storm_with("[[expect]]\nmetric = \"fires\"\nactor = \"storm-a\"\n"),
        "a metric expectation needs",
    );
    assert_refused(
        &storm_with("[[expect]]\nkind = \"TimerFired\"\nabove_at = 3\n"),
        "compare a `metric`",
    );
}

// ---- CIP-1 v3: the shipped scheduler fixtures, under both policies -------------------------

/// A shipped fixture played under `kind` alone (what `compare` does).
fn shipped_under(
    name: &str,
    kind: cowboy_devnet::engine::SchedulerKind,
) -> (Report, Vec<BlockRow>) {
    let mut s = builtin::scenario(name, &DevnetRuntime::new())
        .expect("shipped")
        .expect("checks");
    s.play_under(kind);
    let mut rows = Vec::new();
    let r = s
        .run(
            DevnetRuntime::shared(),
            RunOptions::default(),
            &mut |b, _| rows.push(BlockRow::of(b)),
        )
        .expect("runs");
    (r, rows)
}

fn actor<'r>(r: &'r Report, name: &str) -> &'r cowboy_devnet::scenario::report::ActorRow {
    r.actors
        .iter()
        .find(|a| a.actor == name)
        .unwrap_or_else(|| panic!("actor {name} in {:?}", r.actors))
}

#[test]
fn cip1_v3_5_congestion_fixture_basefee_climbs_under_demand_and_falls_after_and_fifo_stays_flat() {
    use cowboy_devnet::engine::SchedulerKind;
    let (_, rows) = shipped_under("congestion", SchedulerKind::Eip1559);
    let fee = |h: u64| rows.iter().find(|r| r.height == h).unwrap().lane_basefee;
    // Heights 6..=35 follow blocks at 75 % utilisation: §5's clip (the default
    // `basefee_step`) takes the whole +12.5 % (floored) every block.
    for h in 6..35 {
        assert_eq!(
            fee(h + 1) - fee(h),
            fee(h) / 8,
            "+12.5 % at {h}: {} -> {}",
            fee(h),
            fee(h + 1)
        );
    }
    for h in 36..69 {
        assert!(fee(h + 1) < fee(h) || fee(h) == 8, "falls at {h}");
    }
    assert!(rows.iter().all(|r| r.scheduler == "eip1559"));
    let (_, fifo) = shipped_under("congestion", SchedulerKind::Fifo);
    assert!(
        fifo.iter()
            .all(|r| r.lane_basefee == 1_000_000_000 && r.scheduler == "fifo"),
        "under FIFO the lane basefee is the cycle basefee throughout"
    );
}

#[test]
fn cip1_v3_8_fairness_fixture_w2_lets_the_quiet_actor_fire_on_time_where_fifo_makes_it_wait() {
    use cowboy_devnet::engine::SchedulerKind;
    let (r, _) = shipped_under("fairness", SchedulerKind::Eip1559);
    let quiet = actor(&r, "quiet");
    assert_eq!((quiet.fires, quiet.latency_p99, quiet.deferrals), (1, 0, 0));
    assert_eq!(
        actor(&r, "busy").weight_bps,
        Some(10_000),
        "W = 1 at the median"
    );
    let (f, _) = shipped_under("fairness", SchedulerKind::Fifo);
    let quiet = actor(&f, "quiet");
    assert!(quiet.latency_p99 > 0, "FIFO: behind the backlog: {quiet:?}");
    assert_eq!(quiet.weight_bps, None, "FIFO keeps no fairness window");
}

#[test]
fn cip1_v3_7_2_custom_gba_fixture_outbids_the_default_only_under_eip1559() {
    use cowboy_devnet::engine::SchedulerKind;
    let (r, _) = shipped_under("custom_gba", SchedulerKind::Eip1559);
    let urgent = actor(&r, "urgent");
    assert_eq!((urgent.fires, urgent.latency_p99), (20, 0));
    assert!(
        urgent.tips > 0 && r.summary.tipped == urgent.tips,
        "{urgent:?}"
    );
    assert!(actor(&r, "crowd-a").latency_p99 > 0);
    let (f, _) = shipped_under("custom_gba", SchedulerKind::Fifo);
    let urgent = actor(&f, "urgent");
    assert!(urgent.latency_p99 > 0, "FIFO ignores the GBA: {urgent:?}");
    assert_eq!(f.summary.tipped, 0);
}

#[test]
fn cip1_v3_13_2_migration_fixture_switches_at_its_activation_height() {
    use cowboy_devnet::engine::SchedulerKind;
    let (_, rows) = shipped_under("migration", SchedulerKind::Eip1559);
    let kinds: Vec<(u64, &str)> = rows
        .iter()
        .filter(|r| (18..=21).contains(&r.height))
        .map(|r| (r.height, r.scheduler.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [(18, "fifo"), (19, "fifo"), (20, "eip1559"), (21, "eip1559")]
    );
    let (_, fifo) = shipped_under("migration", SchedulerKind::Fifo);
    assert!(
        fifo.iter().all(|r| r.scheduler == "fifo"),
        "compare's fifo never switches"
    );
}

/// CIP-1 v3 §5 (docs/FIXTURES.md `[cip1]`): a `[cip1.lane]` that gives one field keeps the
/// others' defaults (issue 33: a sweep sets one lane key without restating the table).
#[test]
fn cip1_5_a_lane_table_with_one_field_keeps_the_other_defaults() {
    let text = "name = \"lane\"\nblocks = 3\n[chain]\nscheduler = \"eip1559\"\n\n[cip1.lane]\ntarget_bps = 4000\n";
    let lf = LoadedFixture::parse("lane.toml", text.to_string()).expect("parses");
    let s = Scenario::prepare(&lf, &DevnetRuntime::new(), &disk_loader)
        .expect("a lane table with one field prepares");
    let (_, node) = s
        .run_devnet(
            DevnetRuntime::shared(),
            RunOptions::default(),
            &mut |_, _| {},
        )
        .expect("plays");
    let lane = &node.chain().cip1_config().lane;
    assert_eq!(
        (lane.target_bps, lane.max_step_bps, lane.min_basefee_nanos),
        (4_000, 1_250, 8)
    );
}
