//! Issue 33, "Sweep": `cowboy-devnet sweep` run as the real binary: a sweep whole and as N
//! shards merged gives the same bytes (with GNU parallel where installed, else as separate
//! processes); a run that fails is a row with its error; `--jobs` changes nothing in the rows;
//! bad specs, shards and merges get named errors before anything runs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cowboy-devnet"))
}

/// A fresh folder for one test.
fn dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("sweep")
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

/// The congestion fixture over two variants and three lane targets, the last one a target
/// the chain refuses (0): six runs, two of them error rows.
const SPEC: &str = r#"
name = "congestion-lane"
fixtures = ["congestion"]
schedulers = ["eip1559"]

[set]
"cip1.lane" = { target_bps = 5000, max_step_bps = 1250, min_basefee_nanos = 8 }

[variants]
basefee_step = ["clip", "proportional"]

[params]
"cip1.lane.target_bps" = [5000, 7500, 0]
"#;

fn read(p: PathBuf) -> String {
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn issue33_sweep_rows_do_not_depend_on_jobs() {
    let d = dir("jobs");
    let spec = SPEC.replace("[5000, 7500, 0]", "[5000, 7500]");
    std::fs::write(d.join("spec.toml"), spec).unwrap();
    let one = run_in(&d, &["sweep", "spec.toml", "--out", "one", "--jobs", "1"]);
    let three = run_in(&d, &["sweep", "spec.toml", "--out", "three", "--jobs", "3"]);
    assert!(one.status.success() && three.status.success());
    assert_eq!(
        read(d.join("one/runs.jsonl")),
        read(d.join("three/runs.jsonl"))
    );
}

/// The sweep whole and as 4 shards (separate processes) merged: byte-identical CSV and JSON
/// lines; the refused lane target (0) is a row with its error, not a crashed sweep.
#[test]
fn issue33_four_shards_merge_to_the_whole_sweep() {
    let d = dir("shards");
    std::fs::write(d.join("spec.toml"), SPEC).unwrap();
    let whole = run_in(&d, &["sweep", "spec.toml", "--out", "whole", "--jobs", "2"]);
    assert!(
        whole.status.success(),
        "{}",
        String::from_utf8_lossy(&whole.stderr)
    );
    let plan = run_in(&d, &["sweep", "plan", "spec.toml", "--out", "plan.json"]);
    assert!(plan.status.success());
    let mut shards = vec![];
    for k in 1..=4 {
        let out = format!("s{k}.jsonl");
        let r = run_in(
            &d,
            &[
                "sweep",
                "run",
                "plan.json",
                "--shard",
                &format!("{k}/4"),
                "--out",
                &out,
            ],
        );
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        shards.push(out);
    }
    let mut args = vec!["sweep", "merge"];
    args.extend(shards.iter().map(String::as_str));
    args.extend(["--out", "merged"]);
    assert!(run_in(&d, &args).status.success());
    for f in ["runs.csv", "runs.jsonl"] {
        assert_eq!(
            read(d.join("whole").join(f)),
            read(d.join("merged").join(f)),
            "{f}"
        );
    }
    // The summary plots are drawn from the rows: the same files, the same bytes.
    let plots = |w: &str| -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = std::fs::read_dir(d.join(w).join("plots"))
            .unwrap()
            .map(|e| {
                let p = e.unwrap().path();
                (
                    p.file_name().unwrap().to_string_lossy().into_owned(),
                    read(p),
                )
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(plots("whole"), plots("merged"));
    let csv = read(d.join("whole/runs.csv"));
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 6);
    assert_eq!(
        rows.iter().filter(|r| r.contains(",error,")).count(),
        2,
        "{csv}"
    );
    assert!(
        rows.iter()
            .filter(|r| !r.contains(",error,"))
            .all(|r| r.contains(",180,")),
        "{csv}"
    );
    // A shard missing from the merge is named.
    let part = run_in(
        &d,
        &["sweep", "merge", "s1.jsonl", "s2.jsonl", "--out", "part"],
    );
    assert_eq!(part.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&part.stderr).contains("IncompleteMerge"));
}

/// Bad specs and shards: named errors before anything runs, nothing written.
#[test]
fn issue33_bad_specs_and_shards_are_named() {
    let d = dir("bad");
    let cases = [
        (
            "scheduler",
            SPEC.replace(r#"["eip1559"]"#, r#"["lifo"]"#),
            "UnknownScheduler",
        ),
        (
            "variant",
            SPEC.replace("basefee_step =", "no_such_variant ="),
            "UnknownVariant",
        ),
        (
            "fixture",
            SPEC.replace(r#"["congestion"]"#, r#"["no-such-fixture"]"#),
            "UnknownFixture",
        ),
    ];
    for (name, spec, error) in cases {
        let f = format!("{name}.toml");
        std::fs::write(d.join(&f), spec).unwrap();
        let out = format!("out-{name}");
        let r = run_in(&d, &["sweep", &f, "--out", &out]);
        assert_eq!(r.status.code(), Some(2), "{name}");
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(err.contains(error), "{name}: {err}");
        assert!(!d.join(&out).join("runs.csv").exists(), "{name} wrote rows");
    }
    std::fs::write(d.join("spec.toml"), SPEC).unwrap();
    let r = run_in(
        &d,
        &[
            "sweep",
            "run",
            "spec.toml",
            "--shard",
            "5/4",
            "--out",
            "x.jsonl",
        ],
    );
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("BadShard"));
    assert!(!d.join("x.jsonl").exists());
}

/// Issue 33, "Sweep": "summary plots (a measure against a parameter, per scheduler)". The lane
/// target swept over numbers gives one chart per measure, each with a line per variant set
/// (the scheduler named in the legend) and a point per played run; `sweep plot` draws any
/// numeric column, and names a column or a parameter that is not there.
#[test]
fn issue33_sweep_plots_a_measure_against_each_parameter() {
    let d = dir("plots");
    let spec = SPEC.replace("[5000, 7500, 0]", "[5000, 6000, 7500]");
    std::fs::write(d.join("spec.toml"), spec).unwrap();
    let r = run_in(&d, &["sweep", "spec.toml", "--out", "out", "--jobs", "2"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(String::from_utf8_lossy(&r.stdout).contains("plots: 6 in out/plots"));
    let svg = read(d.join("out/plots/lane_basefee_max-by-cip1.lane.target_bps.svg"));
    assert!(svg.starts_with("<svg"));
    let flat = svg.replace('\n', "");
    for text in [
        "lane_basefee_max against cip1.lane.target_bps",
        "eip1559 basefee_step=clip",
        "eip1559 basefee_step=proportional",
    ] {
        assert!(flat.contains(text), "{text} missing");
    }
    // Two lines of three runs each: six points.
    assert_eq!(svg.matches("<circle").count(), 6);

    let p = run_in(
        &d,
        &[
            "sweep",
            "plot",
            "out/runs.jsonl",
            "--x",
            "cip1.lane.target_bps",
            "--y",
            "deferred",
            "--out",
            "deferred.svg",
        ],
    );
    assert!(p.status.success(), "{}", String::from_utf8_lossy(&p.stderr));
    assert!(read(d.join("deferred.svg")).contains("deferred against cip1.lane.target_bps"));
    for (x, y, named) in [
        ("cip1.lane.target_bps", "state_root", "UnknownMeasure"),
        ("chain.timer.lane_timer_cycles", "fired", "UnknownParameter"),
    ] {
        let bad = run_in(
            &d,
            &[
                "sweep",
                "plot",
                "out/runs.jsonl",
                "--x",
                x,
                "--y",
                y,
                "--out",
                "bad.svg",
            ],
        );
        assert_eq!(bad.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&bad.stderr).contains(named));
        assert!(!d.join("bad.svg").exists());
    }

    // A sweep with no parameter over numbers draws nothing, and says so.
    let only_variants = SPEC.replace("\"cip1.lane.target_bps\" = [5000, 7500, 0]", "");
    std::fs::write(d.join("variants.toml"), only_variants).unwrap();
    let v = run_in(&d, &["sweep", "variants.toml", "--out", "v"]);
    assert!(v.status.success());
    assert!(String::from_utf8_lossy(&v.stdout).contains("plots: none"));
    assert!(!d.join("v/plots").exists());
}
