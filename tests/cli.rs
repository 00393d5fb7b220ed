//! The command line, run as the real binary: output streams, closed pipes, a full disk, exit
//! codes, fixture names against paths.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cowboy-devnet"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("the binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A fixture file in this test's own directory.
fn fixture_file(name: &str, body: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p
}

#[test]
fn cli_block_lines_go_to_stdout_also_with_a_progress_bar() {
    let o = run(&["run", "storm", "--progress"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    for h in 1..=30 {
        assert!(
            out.lines().any(|l| l.starts_with(&format!("#{h} "))),
            "block {h} on stdout:\n{out}"
        );
    }
    assert!(!text(&o.stderr).contains("#10 "));
}

#[test]
fn cli_a_closed_pipe_ends_the_run_quietly() {
    let p = fixture_file("long.toml", "name = \"long\"\nblocks = 2000000\n");
    let mut child = bin()
        .args(["run", p.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // The reader is dropped: the pipe is closed.
    let o = child.wait_with_output().unwrap();
    assert!(first.starts_with("cowboy-devnet: long"), "{first}");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stderr), "", "quietly");
}

#[test]
fn cli_a_full_disk_is_exit_3_with_a_message() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    let o = bin()
        .args(["run", "demo"])
        .stdout(Stdio::from(full))
        .output()
        .unwrap();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("cannot write to stdout"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn cli_a_missing_path_is_an_error_naming_it_even_with_a_shipped_stem() {
    for args in [
        ["run", "/nonexistent/dir/storm.toml"],
        ["check", "demo.rhai"],
        ["check", "./demo"],
    ] {
        let o = run(&args);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(&format!("no fixture file `{}`", args[1])),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn cli_a_bare_name_is_a_shipped_fixture() {
    let o = run(&["check", "storm"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).starts_with("fixtures/storm.toml: ok"));
    let o = run(&["check", "nosuch"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("no shipped fixture `nosuch`"));
}

#[test]
fn cli_usage_errors_have_their_own_exit_code() {
    for args in [&["run", "--bogus", "demo"][..], &["run"][..], &["fly"][..]] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(64), "{args:?}");
    }
    assert_eq!(run(&["--help"]).status.code(), Some(0));
    let o = run(&["run", "demo", "--blocks", "18446744073709551615"]);
    assert_eq!(o.status.code(), Some(64), "{}", text(&o.stderr));
    // Issue 31 (Spec note 194): the checkpoints' budget is 1 MiB..=1 TiB, named when refused.
    for budget in ["0", "1048577", "-1", "lots"] {
        let o = run(&["serve", &format!("--checkpoint-budget={budget}")]);
        assert_eq!(o.status.code(), Some(64), "{budget}");
        assert!(text(&o.stderr).contains("--checkpoint-budget"), "{budget}");
    }
}

#[test]
fn cli_check_refuses_what_run_refuses() {
    let p = fixture_file(
        "blocks_max.toml",
        "name = \"x\"\nblocks = 18446744073709551615\n",
    );
    let o = run(&["check", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("blocks_max.toml:2: blocks: a run is 1..=100000000 blocks"));
}

#[test]
fn cli_a_refused_run_names_file_line_field_and_still_writes_its_summary_and_report() {
    let p = fixture_file(
        "short.toml",
        "name = \"short\"\nblocks = 20\n[[accounts]]\nname = \"a\"\nbalance = 5\n[[steps]]\nat = 9\naction = \"transfer\"\nfrom = \"a\"\nto = \"governance\"\namount = 1\n",
    );
    let report = p.with_extension("json");
    let _ = std::fs::remove_file(&report);
    let o = run(&[
        "run",
        p.to_str().unwrap(),
        "--blocks",
        "5",
        "--report",
        report.to_str().unwrap(),
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "short.toml:6: steps[1].at: the step at height 9 is past the end of the run (height 5)"
        ),
        "{err}"
    );
    assert!(text(&o.stdout).contains("summary: "));
    let json = std::fs::read_to_string(&report).expect("the report is written");
    assert!(json.contains("\"refused\""));
}

#[test]
fn cli_fixtures_listing_cuts_descriptions_at_a_word() {
    let o = run(&["fixtures"]);
    assert_eq!(o.status.code(), Some(0));
    let list = text(&o.stdout);
    for (name, src) in cowboy_devnet::scenario::builtin::FIXTURES {
        let lf = cowboy_devnet::scenario::LoadedFixture::parse(name, src.to_string()).unwrap();
        let full: Vec<String> = lf
            .fixture
            .description
            .unwrap_or_default()
            .split_whitespace()
            .map(String::from)
            .collect();
        let line = list
            .lines()
            .find(|l| l.split_whitespace().next() == Some(*name))
            .expect(name);
        let shown = line[12..].trim().trim_end_matches('…');
        let words: Vec<&str> = shown.split_whitespace().collect();
        assert_eq!(
            words[..],
            full.iter().map(String::as_str).collect::<Vec<_>>()[..words.len()],
            "{line}"
        );
        assert!(line.ends_with('…') || words.len() == full.len(), "{line}");
        assert!(line.chars().count() <= 80, "{line}");
    }
}

#[test]
fn cli_no_subcommand_off_a_terminal_plays_the_demo_headless_and_says_so() {
    let o = run(&[]);
    let d = run(&["run", "demo", "--events"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), text(&d.stdout), "as `run demo --events`");
    let err = text(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("not a terminal") && err.contains("opens the dashboard"),
        "{err}"
    );
}

#[test]
fn cli_attach_refuses_the_flags_of_a_node_it_does_not_start() {
    let o = run(&["--attach", "http://127.0.0.1:1", "--fixture", "demo"]);
    assert_eq!(o.status.code(), Some(64), "{}", text(&o.stderr));
}

#[test]
fn cli_attach_names_a_url_it_cannot_use_before_taking_the_terminal() {
    let o = run(&["--attach", "https://127.0.0.1:1"]);
    assert_ne!(o.status.code(), Some(0));
    let err = text(&o.stderr);
    assert!(err.contains("--attach https://127.0.0.1:1"), "{err}");
    assert!(err.contains("plain http:// and ws://"), "{err}");
}

/// The text of every `<text>` element of an SVG, after checking it parses as XML.
fn svg_texts(path: &std::path::Path) -> (Vec<String>, usize) {
    let src = std::fs::read_to_string(path).expect("the SVG is written");
    let doc = roxmltree::Document::parse(&src).expect("the SVG is well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let texts = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or("").trim().to_string())
        .collect();
    let lines = doc
        .descendants()
        .filter(|n| n.has_tag_name("polyline") || n.has_tag_name("path"))
        .count();
    (texts, lines)
}

#[test]
fn cip1_v3_run_plot_draws_lane_basefee_utilisation_and_latency_to_an_svg() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli");
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("storm-run.svg");
    let _ = std::fs::remove_file(&svg);
    let o = run(&["run", "storm", "-q", "--plot", svg.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("plot: "), "{}", text(&o.stdout));
    let (texts, lines) = svg_texts(&svg);
    for want in [
        "lane basefee (base units per cycle)",
        "lane utilisation (% of LANE_TIMER_CYCLES)",
        "fifo lane basefee",
        "fifo utilisation",
        "fifo latency",
        "storm-d",
    ] {
        assert!(texts.iter().any(|t| t == want), "`{want}` in {texts:?}");
    }
    assert!(lines >= 2, "the series are drawn as lines");
}

#[test]
fn cip1_v3_compare_prints_one_side_by_side_table_and_json() {
    let o = run(&["compare", "storm", "--schedulers", "fifo"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let cols = out
        .lines()
        .find(|l| l.starts_with("actor"))
        .expect("a header row");
    for c in ["fires", "deferrals", "lat_p50", "lat_p99", "fees", "tips"] {
        assert!(cols.contains(c), "column {c} in {cols}");
    }
    let d = out
        .lines()
        .find(|l| l.starts_with("storm-d"))
        .expect("a row per actor");
    let cells: Vec<&str> = d.split_whitespace().collect();
    // storm-d: 8 fires, 8 timers deferred (Spec note 71: one `TimerDeferred` each, however
    // long it waits), latency p50 6, p99 7 under FIFO.
    assert_eq!(&cells[1..6], &["|", "8", "8", "6", "7"], "{d}");
    for r in ["burned", "tipped", "full-lane blocks"] {
        assert!(out.lines().any(|l| l.starts_with(r)), "row {r} in\n{out}");
    }

    let o = run(&["compare", "storm", "--schedulers", "fifo", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let r = &v["runs"][0];
    assert_eq!(r["scheduler"], "fifo");
    assert_eq!(r["tipped"], "0");
    let d = r["actors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["actor"] == "storm-d")
        .unwrap();
    assert_eq!(d["fires"], 8);
    assert_eq!(d["latency_p99"], 7);
}

/// Issue 22: `compare` plays the CIP-5 drafts beside the others and names the steps a policy
/// cannot express (a state watch under fifo, an interval under the English draft).
#[test]
fn cip5_drafts_compare_names_the_steps_a_policy_cannot_express() {
    let o = run(&[
        "compare",
        "v19_period",
        "--schedulers",
        "fifo,cip5-draft,cip5-draft-zh",
    ]);
    let out = text(&o.stdout);
    let row = out
        .lines()
        .find(|l| l.starts_with("cannot express"))
        .expect(&out);
    let cells: Vec<&str> = row.split('|').skip(1).map(str::trim).collect();
    assert_eq!(cells, ["2", "2", "0"], "{row}");
    assert!(out.contains("needs a CIP-5 draft scheduler"), "{out}");
    assert!(out.contains("not in the English CIP-5 draft"), "{out}");
}

/// Issue 22 ("`compare` runs these policies beside the others"): `--schedulers all` plays the
/// five schedulers in order; `all` with one of them names it twice.
#[test]
fn issue22_compare_schedulers_all_plays_the_five() {
    let o = run(&["compare", "v19_watch", "--schedulers", "all", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let names: Vec<&str> = v["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["scheduler"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["fifo", "eip1559", "cip1-v1", "cip5-draft", "cip5-draft-zh"]
    );
    // Only eip1559 has a lane basefee (CIP-1 v3 §5): the others show none, not a constant.
    for r in v["runs"].as_array().unwrap() {
        let eip = r["scheduler"] == "eip1559";
        assert_eq!(r["lane_basefee_min"].is_string(), eip, "{r}");
        assert_eq!(r["lane_basefee_max"].is_null(), !eip, "{r}");
    }
    let o = run(&["compare", "v19_watch", "--schedulers", "all,fifo"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("twice"), "{}", text(&o.stderr));
    let o = run(&["compare", "v19_watch", "--schedulers", "every"]);
    assert_eq!(o.status.code(), Some(64), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("or all"), "{}", text(&o.stderr));
}

#[test]
fn cip1_v3_compare_refuses_an_unknown_scheduler_as_a_usage_error() {
    let o = run(&["compare", "storm", "--schedulers", "fifo,lottery"]);
    assert_eq!(o.status.code(), Some(64), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("lottery"), "{}", text(&o.stderr));
    let o = run(&["compare", "storm", "--schedulers", "fifo,fifo"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("twice"), "{}", text(&o.stderr));
}

#[test]
fn cip1_v3_compare_plays_fifo_and_eip1559_side_by_side_with_a_plot_of_both() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli");
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("fairness-compare.svg");
    let _ = std::fs::remove_file(&svg);
    let o = run(&["compare", "fairness", "--plot", svg.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let head = out.lines().nth(1).unwrap();
    assert!(head.contains("fifo") && head.contains("eip1559"), "{out}");
    let quiet: Vec<&str> = out
        .lines()
        .find(|l| l.starts_with("quiet"))
        .unwrap()
        .split('|')
        .map(str::trim)
        .collect();
    // fires, deferrals, lat_p50, lat_p99, ...: FIFO makes the quiet actor wait, eip1559 not.
    let cells = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
    assert_ne!(cells(quiet[1])[3], "0", "{out}");
    assert_eq!(cells(quiet[2])[3], "0", "{out}");
    let tipped = out.lines().find(|l| l.starts_with("tipped")).unwrap();
    let t: Vec<&str> = tipped.split('|').map(str::trim).collect();
    assert_eq!(t[1], "0", "{tipped}");
    assert_ne!(t[2], "0", "{tipped}");
    let (texts, _) = svg_texts(&svg);
    for want in [
        "fifo lane basefee",
        "eip1559 lane basefee",
        "fifo latency",
        "eip1559 latency",
    ] {
        assert!(texts.iter().any(|t| t == want), "`{want}` in {texts:?}");
    }
}

// ---- issue 21: named variants, compare any set -------------------------------------------------

#[test]
fn issue21_variants_lists_every_variant_with_its_default_and_spec_section() {
    let o = run(&["variants"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    for (name, default, spec) in [
        ("basefee_step", "clip", "CIP-1 v3 §5"),
        ("utilisation", "consumed", "CIP-1 v3 §5"),
        ("p50_even", "lower", "§7.1"),
        ("below_basefee", "defer", "§3 step 6"),
        ("lane_basefee_in_max_cost", "yes", "§3 step 8"),
        ("deferred_place", "front", "CIP-5 §6.5"),
        ("over_cap", "capped", "§10"),
        ("tie_break", "timer_id", "§3 step 7"),
        ("fifo_lane", "strict", "open point 3"),
        ("fairness_median", "lower", "§8"),
    ] {
        let l = out
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{name} in\n{out}"));
        assert!(l.contains(default) && l.contains(spec), "{l}");
    }
    let o = run(&["variants", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(
        v.as_array().unwrap().len(),
        16,
        "issue 30 added fifo_lane and fairness_median"
    );
}

#[test]
fn issue21_variant_flags_are_checked_and_shown_in_the_report_header() {
    let o = run(&["run", "congestion", "-q", "--variant", "basefee_step=steep"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("clip | proportional"),
        "{}",
        text(&o.stderr)
    );
    let o = run(&["check", "congestion", "--variant", "nothing=1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("is not a variant"));
    let o = run(&["check", "congestion", "--variant", "p50_even=mean"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("variants: p50_even=mean"));
    let o = run(&[
        "run",
        "storm",
        "--blocks",
        "2",
        "--variant",
        "deferred_place=back",
    ]);
    assert!(
        text(&o.stdout).contains("variants: deferred_place=back"),
        "{}",
        text(&o.stdout)
    );
}

#[test]
fn issue21_compare_with_adds_a_run_per_variant_set() {
    let o = run(&[
        "compare",
        "congestion",
        "--with",
        "basefee_step=proportional",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2, "default against proportional");
    assert_eq!(runs[0]["run"], "eip1559");
    assert_eq!(runs[1]["run"], "eip1559 basefee_step=proportional");
    assert_eq!(runs[1]["variants"]["basefee_step"], "proportional");
    let max = |r: &serde_json::Value| {
        r["lane_basefee_max"]
            .as_str()
            .unwrap()
            .parse::<u128>()
            .unwrap()
    };
    assert!(max(&runs[0]) > max(&runs[1]), "clip climbs faster");
    assert_eq!(runs[0]["fired"], runs[1]["fired"]);
    let o = run(&["compare", "congestion", "--with", "basefee_step=steep"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn issue21_compare_jobs_gives_the_serial_output() {
    let args = |jobs: &'static str, json: bool| {
        let mut a = vec![
            "compare",
            "fairness",
            "--schedulers",
            "fifo,eip1559",
            "--with",
            "basefee_step=proportional",
            "--with",
            "p50_even=mean,utilisation=consumed",
            "--jobs",
            jobs,
        ];
        if json {
            a.push("--json");
        }
        a
    };
    for json in [false, true] {
        let serial = run(&args("1", json));
        let parallel = run(&args("4", json));
        assert_eq!(serial.status.code(), Some(0), "{}", text(&serial.stderr));
        assert_eq!(text(&serial.stdout), text(&parallel.stdout));
        assert_eq!(serial.status.code(), parallel.status.code());
    }
    let out = text(&run(&args("2", false)).stdout);
    assert!(
        out.contains("6: eip1559 p50_even=mean,"),
        "six runs:\n{out}"
    );
    assert!(
        out.lines().any(|l| l.trim_start().starts_with("lane ")),
        "{out}"
    );
}

#[test]
fn issue21_compare_plot_shows_zero_latencies_and_keeps_legends_beside_the_charts() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli");
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("congestion-with.svg");
    let _ = std::fs::remove_file(&svg);
    let o = run(&[
        "compare",
        "congestion",
        "--with",
        "basefee_step=proportional",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let (texts, _) = svg_texts(&svg);
    for want in [
        "eip1559 lane basefee",
        "eip1559 basefee_step=proportional lane basefee",
        "eip1559 latency",
        "every fire on time: all latencies are 0 blocks",
        "0/0",
    ] {
        assert!(texts.iter().any(|t| t == want), "`{want}` in {texts:?}");
    }
}

/// Issue 29: `--help` of `run` and `serve` lists every scheduler the node runs (it listed three
/// of the five), from the one list the parser takes.
#[test]
fn issue29_help_lists_every_scheduler() {
    for sub in ["run", "serve"] {
        let out = bin().args([sub, "--help"]).output().unwrap();
        let help = String::from_utf8_lossy(&out.stdout);
        for k in cowboy_devnet::engine::SchedulerKind::ALL {
            assert!(help.contains(k.as_str()), "{sub} --help lacks {k}:\n{help}");
        }
    }
    let out = bin()
        .args(["run", "demo", "--scheduler", "lifo"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(64),
        "a wrong scheduler is a usage error"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cip5-draft-zh"), "{err}");
}
