//! Issue 29, "Schedulers as plug-ins": one registry lists the schedulers, and every front end
//! lists exactly its entries, in its order: `rpc.discover`'s scheduler enum, `serve --help` and
//! `run --help` (names and summaries), the "expected one of" errors of `--scheduler`, of a hunt
//! spec and of a sweep spec.

use cowboy_devnet::engine::SchedulerKind;
use cowboy_devnet::engine::scheduler::policy::REGISTRY;
use cowboy_devnet::rpc::openrpc;
use cowboy_devnet::scenario::hunt::HuntSpec;
use cowboy_devnet::scenario::sweep::Plan;
use std::path::PathBuf;
use std::process::Command;

fn registry_names() -> Vec<String> {
    REGISTRY.iter().map(|e| e.name.to_string()).collect()
}

/// The names a message lists after `is not a scheduler (`: `a, b, c or d`, without `all`.
fn listed(msg: &str) -> Vec<String> {
    let from = msg
        .find("is not a scheduler (")
        .unwrap_or_else(|| panic!("no list in {msg}"))
        + "is not a scheduler (".len();
    let inner = &msg[from..from + msg[from..].find(')').expect("closed")];
    let inner = inner.strip_prefix("expected ").unwrap_or(inner);
    inner
        .replace(" or ", ", ")
        .split(", ")
        .map(str::to_string)
        .filter(|n| n != "all")
        .collect()
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cowboy-devnet"))
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("issue29-registry-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn issue29_the_registry_has_the_five_and_the_kinds_follow_it() {
    assert_eq!(
        registry_names(),
        ["fifo", "eip1559", "cip1-v1", "cip5-draft", "cip5-draft-zh"]
    );
    let kinds: Vec<SchedulerKind> = REGISTRY.iter().map(|e| e.kind).collect();
    assert_eq!(kinds, SchedulerKind::ALL.to_vec());
    for e in REGISTRY {
        assert_eq!(e.kind.as_str(), e.name);
        assert_eq!(e.name.parse::<SchedulerKind>(), Ok(e.kind));
        assert_eq!(serde_json::to_value(e.kind).unwrap(), e.name);
    }
    let err = "lifo".parse::<SchedulerKind>().unwrap_err();
    assert_eq!(listed(&err), registry_names(), "{err}");
}

#[test]
fn issue29_rpc_discover_lists_the_registry() {
    let doc = openrpc::document();
    let names: Vec<serde_json::Value> = registry_names().into_iter().map(Into::into).collect();
    assert_eq!(
        doc["components"]["schemas"]["Scheduler"]["enum"],
        serde_json::Value::Array(names)
    );
}

#[test]
fn issue29_serve_and_run_help_list_the_registry() {
    for sub in ["serve", "run"] {
        let out = bin().args([sub, "--help"]).output().unwrap();
        assert!(out.status.success(), "{sub} --help");
        let help = String::from_utf8_lossy(&out.stdout);
        // clap's long help lists each possible value with its help: `- NAME: SUMMARY`.
        let block = &help[help.find("--scheduler").expect("the flag")..];
        let block = &block[..block
            .find("--activation-height <N>")
            .expect("the next flag")];
        let rows: Vec<(String, String)> = block
            .lines()
            .filter_map(|l| l.trim().strip_prefix("- "))
            .filter_map(|l| l.split_once(": "))
            .map(|(n, s)| {
                (
                    n.to_string(),
                    s.split_whitespace().collect::<Vec<_>>().join(" "),
                )
            })
            .collect();
        let want: Vec<(String, String)> = REGISTRY
            .iter()
            .map(|e| (e.name.to_string(), e.summary.to_string()))
            .collect();
        assert_eq!(rows, want, "{sub} --help:\n{block}");
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
    let line = err
        .lines()
        .find(|l| l.contains("possible values"))
        .expect("the list");
    let names: Vec<String> = line[line.find(':').unwrap() + 1..]
        .trim_end()
        .trim_end_matches(']')
        .split(',')
        .map(|n| n.trim().to_string())
        .collect();
    assert_eq!(names, registry_names(), "{err}");
}

#[test]
fn issue29_hunt_and_sweep_spec_errors_list_the_registry() {
    let d = temp("specs");
    let hunt = d.join("hunt.toml");
    std::fs::write(
        &hunt,
        r#"
name = "small"
victim = "heartbeat"
victim_every = 3
blocks = 30
schedulers = ["fifo", "lottery"]
measure = "latency_p99"
seed = 11
[adversary]
count = 1
funds = "1_000_000_000_000"
max_timers = 12
max_gas_per_block = 2_000_000
[budget]
runs = 4
population = 4
keep = 2
shrink = 6
"#,
    )
    .unwrap();
    let err = HuntSpec::read(&hunt)
        .and_then(|s| s.check())
        .map(|_| ())
        .expect_err("an unknown scheduler")
        .to_string();
    assert!(err.starts_with("UnknownScheduler"), "{err}");
    assert_eq!(listed(&err), registry_names(), "{err}");

    let sweep = d.join("sweep.toml");
    std::fs::write(
        &sweep,
        "name = \"s\"\nfixtures = [\"congestion\"]\nschedulers = [\"lifo\"]\n",
    )
    .unwrap();
    let err = Plan::read(&sweep)
        .map(|_| ())
        .expect_err("an unknown scheduler")
        .to_string();
    assert!(err.starts_with("UnknownScheduler"), "{err}");
    assert_eq!(listed(&err), registry_names(), "{err}");
    std::fs::remove_dir_all(&d).ok();
}

/// Every `.rs` file under `dir`, recursively, in a fixed order.
fn rust_files(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Issue 29: "outside the policy modules and the registry nothing names a particular policy":
/// no `SchedulerKind::<Variant>` path, no `is_draft()` call and no scheduler's name as a whole
/// string literal in `src/` outside `src/engine/scheduler/` (code asks `facts()` instead).
#[test]
fn issue29_nothing_outside_the_policies_names_one() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let scheduler_dir = root.join("src/engine/scheduler");
    let mut needles: Vec<String> = vec![".is_draft()".into()];
    for e in REGISTRY {
        needles.push(format!("\"{}\"", e.name));
        needles.push(format!("SchedulerKind::{:?}", e.kind));
    }
    let mut bad = Vec::new();
    for f in files.iter().filter(|f| !f.starts_with(&scheduler_dir)) {
        let text = std::fs::read_to_string(f).unwrap();
        for n in &needles {
            let named = text.match_indices(n.as_str()).any(|(i, _)| {
                // `SchedulerKind::Cip5Draft` is not `SchedulerKind::Cip5DraftZh`'s prefix here.
                !n.starts_with("SchedulerKind::")
                    || !text[i + n.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
            });
            if named {
                bad.push(format!(
                    "{} names {n}",
                    f.strip_prefix(root).unwrap().display()
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Issue 29 ("under `--scheduler cip5-draft`, `timer_estimate` answers `scheduler: fifo`"): the
/// estimate names the scheduler that orders the fire's block, as the registry spells it, and
/// under the drafts (no lane auction: quotas pick the fires) it answers no auction standing.
#[test]
fn issue29_timer_estimate_names_the_scheduler_in_force() {
    use cowboy_devnet::chain::Genesis;
    use cowboy_devnet::chain::runtime::ActorCode;
    use cowboy_devnet::engine::ScheduleArgs;
    use cowboy_devnet::node::{DeployActor, EstimateTimer, NodeConfig, NodeCore, ScheduleTimer};
    use cowboy_devnet::vm::DevnetRuntime;
    for kind in SchedulerKind::ALL {
        let genesis = Genesis::default().with_scheduler(Some(kind), None).unwrap();
        let mut n = NodeCore::new(NodeConfig::new(genesis, DevnetRuntime::shared())).unwrap();
        let from = n.dev_accounts()[1];
        let actor = n
            .apply(DeployActor {
                from: Some(from),
                code: ActorCode::none(),
                address: None,
                endowment: 1_000_000_000,
                name: None,
            })
            .unwrap();
        let est = n
            .apply(EstimateTimer(ScheduleTimer {
                actor: actor.address,
                args: ScheduleArgs {
                    height: n.height() + 5,
                    ..Default::default()
                },
                ..Default::default()
            }))
            .unwrap();
        assert!(est.error.is_none(), "{kind}: {:?}", est.error);
        match est.auction {
            Some(a) => {
                assert!(!kind.facts().drafts, "{kind}: an auction standing");
                assert_eq!(a.scheduler, kind, "{kind}");
            }
            None => assert!(kind.facts().drafts, "{kind}: no auction standing"),
        }
    }
}
