//! Issue 33, "Hunt": `cowboy-devnet hunt` run as the real binary. The same seed gives the
//! same worst and the same fixture bytes with `--jobs 1` and `--jobs 2`; the fixture it writes
//! replays through `run` to the figures it pins; bad specs get named errors before anything
//! runs; a small hunt under all five schedulers ends with their table.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cowboy-devnet"))
}

fn dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("hunt")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run_in(d: &Path, args: &[&str]) -> Output {
    bin()
        .current_dir(d)
        .args(args)
        .output()
        .expect("the binary runs")
}

/// A small hunt: one adversary, a 30-block run, a heartbeat every 3 blocks.
fn spec(schedulers: &str, runs: u64, extra: &str) -> String {
    format!(
        r#"
name = "small"
victim = "heartbeat"
victim_every = 3
blocks = 30
schedulers = [{schedulers}]
measure = "latency_p99"
seed = 11
{extra}
[adversary]
count = 1
funds = "1_000_000_000_000"
max_timers = 12
max_gas_per_block = 2_000_000

[budget]
runs = {runs}
population = 4
keep = 2
shrink = 6
"#
    )
}

fn hunt(d: &Path, spec_text: &str, args: &[&str]) -> Output {
    std::fs::write(d.join("spec.toml"), spec_text).unwrap();
    let mut a = vec!["hunt", "spec.toml"];
    a.extend_from_slice(args);
    run_in(d, &a)
}

#[test]
fn issue33_hunt_same_seed_same_worst_and_fixture_for_any_jobs() {
    let d = dir("determinism");
    let s = spec(r#""fifo""#, 12, "");
    let one = hunt(&d, &s, &["--jobs", "1", "--json", "--out", "j1"]);
    let two = hunt(&d, &s, &["--jobs", "2", "--json", "--out", "j2"]);
    assert!(
        one.status.success(),
        "{}",
        String::from_utf8_lossy(&one.stderr)
    );
    assert_eq!(one.stdout, two.stdout, "the same worst, whatever --jobs");
    let f1 = std::fs::read(d.join("j1/fifo.toml")).unwrap();
    let f2 = std::fs::read(d.join("j2/fifo.toml")).unwrap();
    assert_eq!(f1, f2, "the same fixture bytes");
    let json: serde_json::Value = serde_json::from_slice(&one.stdout).unwrap();
    assert_eq!(json["found"][0]["scheduler"], "fifo");
    assert_eq!(json["found"][0]["runs"], 12);
}

#[test]
fn issue33_hunt_fixture_replays_through_run_to_the_pinned_figures() {
    let d = dir("roundtrip");
    let out = hunt(&d, &spec(r#""eip1559""#, 8, ""), &["--json", "--out", "o"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let f = &json["found"][0];
    assert_eq!(f["fixture_replays"], true);
    assert_eq!(f["replay_same_root"], true);
    let text = std::fs::read_to_string(d.join("o/eip1559.toml")).unwrap();
    let p99 = f["victim_latency_p99"].as_u64().unwrap();
    assert!(
        text.contains(&format!(
            "metric = \"latency_p99\"\nactor = \"victim\"\nequals = {p99}"
        )),
        "the fixture pins the victim's latency: {text}"
    );
    let run = run_in(&d, &["run", "o/eip1559.toml"]);
    assert!(
        run.status.success(),
        "run replays the fixture with every expectation held: {}",
        String::from_utf8_lossy(&run.stdout)
    );
}

#[test]
fn issue33_hunt_bad_specs_are_named_errors_before_anything_runs() {
    let cases: [(String, &str); 6] = [
        (
            spec(r#""fifo""#, 4, "").replace("\"heartbeat\"", "\"nobody\""),
            "UnknownVictim",
        ),
        (
            spec(r#""fifo""#, 4, "").replace("latency_p99", "speed"),
            "UnknownMeasure",
        ),
        (spec(r#""fifo", "lottery""#, 4, ""), "UnknownScheduler"),
        (spec(r#""fifo""#, 0, ""), "ZeroBudget"),
        (
            spec(r#""fifo""#, 4, r#"variants = ["no_such=thing"]"#),
            "UnknownVariant",
        ),
        (spec(r#""fifo""#, 4, "colour = 1"), "BadSpec"),
    ];
    for (i, (text, name)) in cases.iter().enumerate() {
        let d = dir(&format!("bad{i}"));
        let out = hunt(&d, text, &["--out", "o"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "case {name} was accepted");
        assert!(err.contains(name), "case {name}: {err}");
        assert!(!d.join("o").exists(), "case {name}: nothing written");
    }
}

#[test]
fn issue33_hunt_under_all_five_schedulers_ends_with_their_table() {
    let d = dir("all");
    let out = hunt(&d, &spec(r#""all""#, 4, ""), &["--out", "o", "--jobs", "2"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for k in ["fifo", "eip1559", "cip1-v1", "cip5-draft", "cip5-draft-zh"] {
        assert!(
            stdout.lines().any(|l| l.starts_with(&format!("{k} "))),
            "a row for {k}: {stdout}"
        );
        assert!(d.join(format!("o/{k}.toml")).exists(), "{k}'s fixture");
    }
    assert!(stdout.contains("adversary_fees"), "{stdout}");
}

/// `--plot FILE.svg`: one bar group per scheduler of the spec (the worst beside the baseline,
/// and what the adversaries spent), a well-formed SVG naming each scheduler.
#[test]
fn issue33_hunt_plot_draws_every_scheduler() {
    let d = dir("plot");
    let out = hunt(
        &d,
        &spec(r#""fifo", "cip1-v1""#, 4, ""),
        &["--out", "o", "--plot", "h.svg"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = std::fs::read_to_string(d.join("h.svg")).expect("the plot is written");
    let doc = roxmltree::Document::parse(&svg).expect("a well-formed SVG");
    let texts: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text().map(|t| t.trim().to_string()))
        .collect();
    for want in ["fifo", "cip1-v1", "worst", "baseline", "fees", "funds"] {
        assert!(texts.iter().any(|t| t == want), "{want} in {texts:?}");
    }
    let bars = doc.descendants().filter(|n| n.has_tag_name("rect")).count();
    assert!(
        bars >= 8,
        "two schedulers x four bars, and the background: {bars}"
    );
}

/// Issue 33, "What is measured": "A measure can also be an expression over the report's
/// metrics". The expression is the measure the table and `--json` show; the worst is pinned
/// (its `latency_max` too) and replays. An expression naming no metric, or giving no
/// integer, is `UnknownMeasure` before anything runs.
#[test]
fn issue33_hunt_measure_as_an_expression_over_the_metrics() {
    let d = dir("expression");
    let m = "latency_max * 100 + fires_lost * 1000 + lane_share_lost_bps / 100";
    let text = spec(r#""fifo""#, 4, "")
        .replace("measure = \"latency_p99\"", &format!("measure = \"{m}\""));
    let out = hunt(&d, &text, &["--json", "--out", "o"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["measure"], m);
    let f = &json["found"][0];
    assert_eq!(f["fixture_replays"], true);
    // The measure is the expression of the worst's own figures (the victim alone holds the
    // whole lane at baseline: nothing lost, no latency).
    assert_eq!(f["baseline"], "0");
    let fixture = std::fs::read_to_string(d.join("o/fifo.toml")).unwrap();
    assert!(fixture.contains("metric = \"latency_max\""), "{fixture}");
    assert!(run_in(&d, &["run", "o/fifo.toml"]).status.success());

    for (bad, says) in [
        ("latency_p99 + speed", "`speed` is not a metric"),
        ("latency_p99 +", "not an expression"),
        ("\\\"slow\\\"", "not an integer"),
        ("fees; fees", "not an expression"),
    ] {
        let t = spec(r#""fifo""#, 4, "")
            .replace("measure = \"latency_p99\"", &format!("measure = \"{bad}\""));
        let e = dir("expression-bad");
        let out = hunt(&e, &t, &["--out", "o"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
        assert!(
            err.contains("UnknownMeasure") && err.contains(says),
            "{bad}: {err}"
        );
        assert!(!e.join("o").exists());
    }
}

/// Issue 33, "Who plays": "a victim with a fixed, named workload (... or the actors of a given
/// fixture)". The shipped `custom_gba` fixture's `urgent` actor (a script with its own GBA) is
/// the victim: its accounts, actors and steps play beside the adversaries, its script is
/// written beside the worst fixture, which `run` replays; the pins name `urgent`. A fixture or
/// an actor that does not exist is named before anything runs.
#[test]
fn issue33_hunt_victim_given_as_a_fixtures_actors() {
    let d = dir("fixture-victim");
    let text = spec(r#""fifo""#, 4, "").replace(
        "victim = \"heartbeat\"",
        "victim = \"fixture\"\nvictim_fixture = \"custom_gba\"\nvictim_actors = [\"urgent\"]",
    );
    let out = hunt(&d, &text, &["--json", "--out", "o"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let f = &json["found"][0];
    assert_eq!(f["fixture_replays"], true);
    assert!(f["victim_fires"].as_u64().unwrap() > 0, "urgent fires: {f}");
    let fixture = std::fs::read_to_string(d.join("o/fifo.toml")).unwrap();
    assert!(
        fixture.contains("name = \"crowd-a\""),
        "the fixture's actors play"
    );
    assert!(fixture.contains("metric = \"fires\"\nactor = \"urgent\""));
    assert!(
        d.join("o/scripts/urgent.rhai").exists(),
        "the script travels"
    );
    assert!(run_in(&d, &["run", "o/fifo.toml"]).status.success());

    let fixture_victim =
        |extra: &str| spec(r#""fifo""#, 4, "").replace("victim = \"heartbeat\"", extra);
    for (extra, named) in [
        (
            "victim = \"fixture\"\nvictim_fixture = \"no_such\"",
            "UnknownVictim",
        ),
        (
            "victim = \"fixture\"\nvictim_fixture = \"custom_gba\"\nvictim_actors = [\"nobody\"]",
            "UnknownVictim",
        ),
        ("victim = \"fixture\"", "UnknownVictim"),
        (
            "victim = \"heartbeat\"\nvictim_fixture = \"custom_gba\"",
            "BadSpec",
        ),
    ] {
        let e = dir("fixture-victim-bad");
        let out = hunt(&e, &fixture_victim(extra), &["--out", "o"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra}: {err}");
        assert!(err.contains(named), "{extra}: {err}");
        assert!(!e.join("o").exists());
    }
}
