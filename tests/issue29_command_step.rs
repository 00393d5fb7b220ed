//! Issue 29, "One command vocabulary": a fixture step may be one command of the node's
//! vocabulary as written (`action = "command"`, `command = { method, params }`, `"@name"` for a
//! fixture name's address). It plays as the equivalent named step does (same roots), its
//! `label` names the timer it creates for later steps, and a command a step cannot send, an
//! unknown name or params that do not fit are refused by name when the fixture is prepared.

use cowboy_devnet::engine::H256;
use cowboy_devnet::scenario::Report;
use cowboy_devnet::scenario::builtin;
use cowboy_devnet::scenario::fixture::LoadedFixture;
use cowboy_devnet::scenario::runner::{RunOptions, Scenario};
use cowboy_devnet::vm::DevnetRuntime;

const HEAD: &str = r#"
name = "t"
blocks = 30

[[accounts]]
name = "alice"
balance = "1_000_000_000"

[[actors]]
name = "worker"
script = "scripts/worker.rhai"
deployer = "alice"
balance = "100_000_000"
"#;

fn prepare(steps: &str) -> Result<Scenario, String> {
    let text = format!("{HEAD}{steps}");
    let lf = LoadedFixture::parse("t.toml", text).map_err(|e| e.to_string())?;
    Scenario::prepare(&lf, &DevnetRuntime::new(), &builtin::script_loader)
        .map_err(|e| e.to_string())
}

fn play(steps: &str) -> Report {
    let sc = prepare(steps).expect("prepares");
    let (report, _) = sc
        .run_devnet(
            DevnetRuntime::shared(),
            RunOptions::default(),
            &mut |_, _| {},
        )
        .expect("runs");
    report
}

fn root(r: &Report) -> H256 {
    r.summary.final_state_root
}

#[test]
fn a_command_step_plays_as_the_named_step_does() {
    let named = play(
        r#"
[[steps]]
at = 3
action = "schedule"
actor = "worker"
height = 10
"#,
    );
    let command = play(
        r#"
[[steps]]
at = 3
action = "command"
command = { method = "timer_schedule", params = { actor = "@worker", args = { height = 10 } } }
"#,
    );
    assert!(named.passed() && command.passed(), "{named:?}\n{command:?}");
    assert_eq!(named.summary.fired, 1);
    assert_eq!(command.summary.fired, 1, "the command's timer fired");
    assert_eq!(
        root(&named),
        root(&command),
        "the same chain, root for root"
    );
}

#[test]
fn a_command_steps_label_names_its_timer_for_later_steps() {
    let r = play(
        r#"
[[steps]]
at = 3
action = "command"
label = "later"
command = { method = "timer_schedule", params = { actor = "@worker", args = { height = 20 } } }

[[steps]]
at = 5
action = "cancel"
actor = "worker"
timer = "later"

[[expect]]
kind = "TimerCancelled"
timer = "later"
count = 1
"#,
    );
    assert!(r.passed(), "{r:?}");
    assert_eq!(r.summary.fired, 0, "cancelled before its height");
}

#[test]
fn a_refused_command_is_an_expected_error_and_changes_nothing() {
    let quiet = play("");
    let r = play(
        r#"
[[steps]]
at = 3
action = "command"
expect_error = "TimerNotFound"
command = { method = "timer_cancel", params = { actor = "@worker", timer_id = "0x0000000000000000000000000000000000000000000000000000000000000001" } }
"#,
    );
    assert!(r.passed(), "{r:?}");
    assert_eq!(root(&r), root(&quiet), "no fee, no nonce, no block");
}

#[test]
fn commands_a_step_cannot_send_and_bad_names_are_refused_when_prepared() {
    let cases = [
        (
            r#"command = { method = "devnet_mine", params = { blocks = 1 } }"#,
            "`devnet_mine` is not a command a fixture step can send",
        ),
        (
            r#"command = { method = "timer_schedule", params = { actor = "@nobody", args = { height = 9 } } }"#,
            "unknown account or actor `nobody`",
        ),
        (
            r#"command = { method = "timer_schedule", params = { actor = "@worker" } }"#,
            "`timer_schedule`: missing field `args`",
        ),
        (
            r#"command = { params = {} }"#,
            "a command is a table with a `method`",
        ),
    ];
    for (command, want) in cases {
        let steps = format!("[[steps]]\nat = 3\naction = \"command\"\n{command}\n");
        let e = prepare(&steps)
            .err()
            .unwrap_or_else(|| panic!("{command} prepared"));
        assert!(e.contains(want), "{command}: {e}");
    }
}
