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
blocks = 40

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
