//! Issue 24, "Record": a session that started from `--load-state` records that file as its
//! base; `devnet_exportFixture` (with a path) and `serve --record` write the fixture and its
//! base beside it (docs/FIXTURES.md "A fixture that starts from a state dump", Spec notes
//! 130-131), and `run` of the export reproduces the session: the same state root and block hash
//! at every height after the base, every expectation ok. A bad base file is refused by name.

use cowboy_devnet::scenario::runner::disk_loader;
use cowboy_devnet::scenario::{LoadedFixture, RunOptions, Scenario};
use cowboy_devnet::vm::DevnetRuntime;
use serde_json::{Value, json};
use std::io::{BufRead, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cowboy-devnet"))
}

/// A fresh directory for one test's files.
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cowboy-base-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A state file: the demo fixture played to its end (`run demo --dump`).
fn demo_state(d: &Path) -> PathBuf {
    let p = d.join("demo.json");
    let o = bin()
        .args(["run", "demo", "-q", "--dump"])
        .arg(&p)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    p
}

/// `serve --port 0` with `args`; the child and its address.
fn serve(args: &[&str]) -> (Child, SocketAddr) {
    let mut child = bin()
        .args(["serve", "--port", "0", "--no-mining"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn cowboy-devnet");
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let addr = loop {
        let l = lines.next().expect("`Listening on`").expect("a line");
        if let Some(rest) = l.strip_prefix("Listening on http://") {
            break rest.split_whitespace().next().unwrap().parse().unwrap();
        }
    };
    (child, addr)
}

fn call(addr: SocketAddr, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let json = &out[out.find("\r\n\r\n").unwrap() + 4..];
    let v: Value = serde_json::from_str(json).unwrap();
    assert!(v.get("error").is_none(), "{method} {params}: {v}");
    v["result"].clone()
}

/// Drives a session over the API: balances, a deploy, timers, an outage, blocks.
fn drive(addr: SocketAddr) {
    let dev = call(addr, "devnet_accounts", json!([]));
    let d1 = dev[1]["address"].clone();
    call(addr, "devnet_setBalance", json!([d1, "1000000000000000"]));
    call(addr, "devnet_mine", json!([1]));
    let r = call(
        addr,
        "actor_deploy",
        json!([{"from": d1, "name": "pinger", "balance": "5000000000"}]),
    );
    let actor = if r.is_string() {
        r
    } else {
        r["address"].clone()
    };
    call(addr, "devnet_mine", json!([1]));
    let h = call(addr, "devnet_blockNumber", json!([]))
        .as_u64()
        .unwrap();
    for after in [3, 9] {
        call(
            addr,
            "timer_schedule",
            json!([{"actor": actor, "from": d1, "height": h + after}]),
        );
    }
    call(addr, "devnet_mine", json!([2]));
    call(addr, "devnet_halt", json!([2]));
    call(addr, "devnet_mine", json!([15]));
}

/// `run` of the fixture at `path` (its base read beside it): every height's hash and root
/// as the live node answers them (`devnet_head` at that height), every expectation ok.
fn replays_as_served(path: &Path, addr: Option<SocketAddr>) -> cowboy_devnet::scenario::Report {
    let lf = LoadedFixture::read(path).unwrap();
    let s = Scenario::prepare(&lf, &DevnetRuntime::new(), &disk_loader)
        .unwrap_or_else(|e| panic!("{e}\n{}", lf.source));
    assert!(s.base().is_some(), "{}", lf.source);
    let mut seen = Vec::new();
    let report = s
        .run(
            DevnetRuntime::shared(),
            RunOptions::default(),
            &mut |b, _| seen.push((b.header.height, b.header.hash, b.header.state_root)),
        )
        .unwrap();
    assert_eq!(report.refused, None);
    assert_eq!(report.summary.unexpected_step_errors, 0, "{}", lf.source);
    assert_eq!(report.summary.expectations_failed, 0, "{}", lf.source);
    assert!(report.summary.expectations_passed > 0);
    if let Some(addr) = addr {
        assert!(!seen.is_empty());
        for (h, hash, root) in seen {
            let head = call(addr, "devnet_head", json!([h]));
            assert_eq!(head["hash"], json!(hash.to_string()), "#{h}");
            assert_eq!(head["state_root"], json!(root.to_string()), "#{h}");
        }
    }
    report
}

#[test]
fn issue24_record_a_session_from_load_state_exports_with_its_base_and_replays_to_the_same_roots() {
    let d = dir("rpc");
    let state = demo_state(&d);
    // Issue 30: the API writes file names under --export-dir.
    let (mut child, addr) = serve(&[
        "--load-state",
        state.to_str().unwrap(),
        "--export-dir",
        d.to_str().unwrap(),
    ]);
    drive(addr);
    // The loaded file is overwritten: the export must not need it.
    std::fs::write(&state, "gone").unwrap();
    let fixture = d.join("session-1.toml");
    let out = call(
        addr,
        "devnet_exportFixture",
        json!([null, "session-1.toml"]),
    );
    assert_eq!(out["path"], "session-1.toml");
    assert_eq!(out["base_path"], "session-1.base.json");
    assert_eq!(out["base_file"], "session-1.base.json");
    let text = std::fs::read_to_string(&fixture).unwrap();
    assert!(text.contains("base = \"session-1.base.json\""), "{text}");
    replays_as_served(&fixture, Some(addr));
    // From a later height: the base is the state as of it.
    let from = call(addr, "devnet_blockNumber", json!([]))
        .as_u64()
        .unwrap()
        - 10;
    let later = d.join("later.toml");
    call(addr, "devnet_exportFixture", json!([from, "later.toml"]));
    let r = replays_as_served(&later, Some(addr));
    assert!(r.summary.blocks <= 10, "{}", r.summary.blocks);
    // Without a path the reply holds the base dump and the name the fixture gives it.
    let out = call(addr, "devnet_exportFixture", json!([]));
    assert_eq!(out["base_file"], "session.base.json");
    assert_eq!(out["base"]["height"], 100);
    // Before the base: HistoryPruned.
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "devnet_exportFixture", "params": [50]});
    let mut s = TcpStream::connect(addr).unwrap();
    let body = body.to_string();
    write!(
        s,
        "POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut resp = String::new();
    s.read_to_string(&mut resp).unwrap();
    assert!(resp.contains("HistoryPruned"), "{resp}");
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn issue24_record_serve_record_writes_the_base_beside_the_fixture() {
    let d = dir("record");
    let state = demo_state(&d);
    let record = d.join("rec.toml");
    // `--state` saves over the file the session started from.
    let (child, addr) = serve(&[
        "--state",
        state.to_str().unwrap(),
        "--record",
        record.to_str().unwrap(),
    ]);
    drive(addr);
    let head = call(addr, "devnet_head", json!([]));
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    let text = std::fs::read_to_string(&record).unwrap();
    assert!(text.contains("base = \"rec.base.json\""), "{text}");
    let saved = cowboy_devnet::rpc::state_file::read(&state).unwrap();
    assert_eq!(
        json!(saved.head.hash.to_string()),
        head["hash"],
        "--state saved the head"
    );
    let r = replays_as_served(&record, None);
    assert_eq!(
        json!(r.summary.final_state_root.to_string()),
        head["state_root"]
    );
    // The recording plays live too, from its base.
    let (mut child, addr) = serve(&["--fixture", record.to_str().unwrap()]);
    assert_eq!(call(addr, "devnet_blockNumber", json!([])), 100);
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&d);
}

/// `check` of `fixture` (written to `d`) refused: its message.
fn refused(d: &Path, fixture: &str) -> String {
    let p = d.join("f.toml");
    std::fs::write(&p, fixture).unwrap();
    let lf = LoadedFixture::read(&p).unwrap();
    Scenario::prepare(&lf, &DevnetRuntime::new(), &disk_loader)
        .err()
        .expect("refused")
        .to_string()
}

#[test]
fn issue24_record_bad_base_files_and_conflicting_settings_are_refused_by_name() {
    let d = dir("bad");
    let state = demo_state(&d);
    std::fs::copy(&state, d.join("good.json")).unwrap();
    let e = refused(&d, "base = \"missing.json\"\n");
    assert!(
        e.contains("f.toml:1: base: cannot read") && e.contains("missing.json"),
        "{e}"
    );
    std::fs::write(d.join("cut.json"), r#"{"format":"cowboy-devnet-state","#).unwrap();
    let e = refused(&d, "base = \"cut.json\"\n");
    assert!(e.contains("cut.json is not a state file"), "{e}");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    v["supply"] = json!("1");
    v["burned"] = json!("1");
    let mut accounts = v["accounts"].as_object().unwrap().clone();
    let first = accounts.keys().next().unwrap().clone();
    accounts[&first]["balance"] = json!("7");
    v["accounts"] = Value::Object(accounts);
    std::fs::write(d.join("tampered.json"), v.to_string()).unwrap();
    let e = refused(&d, "base = \"tampered.json\"\n");
    assert!(
        e.contains("tampered.json does not load") && e.contains("state root"),
        "{e}"
    );
    let e = refused(
        &d,
        "base = \"good.json\"\n\n[chain]\nscheduler = \"eip1559\"\n",
    );
    assert!(
        e.contains("f.toml:4: chain.scheduler") && e.contains("good.json"),
        "{e}"
    );
    let e = refused(
        &d,
        "base = \"good.json\"\n\n[[accounts]]\nname = \"a\"\nbalance = 5\n",
    );
    assert!(e.contains("f.toml:5: accounts[1].balance"), "{e}");
    let e = refused(
        &d,
        "base = \"good.json\"\n\n[[steps]]\nat = 100\naction = \"halt\"\nblocks = 1\n",
    );
    assert!(
        e.contains("f.toml:4: steps[1].at") && e.contains("base's height 100"),
        "{e}"
    );
    // A good base with names and a step after it plays.
    let ok = "base = \"good.json\"\n\n[[steps]]\nat = 101\naction = \"halt\"\nblocks = 1\n";
    let p = d.join("ok.toml");
    std::fs::write(&p, ok).unwrap();
    let o = bin().arg("check").arg(&p).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = bin().arg("run").arg(&p).arg("-q").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let _ = std::fs::remove_dir_all(&d);
}
