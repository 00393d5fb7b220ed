//! End to end (issue 15): the real binary (`cowboy-devnet` with no subcommand) driven in a real
//! terminal (tmux): start, pause, step, mine over JSON-RPC while the dashboard runs (one
//! devnet), schedule a timer with the form, see it fire in the filtered feed, quit with the
//! terminal restored. Skipped, with a message, where tmux is missing.
//!
//! The waits below poll the screen until what is expected appears; their limits only keep a
//! broken run from hanging, they assert nothing about speed.

use std::io::{Read, Write};
use std::process::Command;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_cowboy-devnet");

/// One JSON-RPC call over plain HTTP (`addr` is `host:port`): the response body.
fn rpc(addr: &str, method: &str, params: &str) -> String {
    let body = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{params}}}"#);
    let mut c = std::net::TcpStream::connect(addr).expect("the dashboard's RPC server answers");
    write!(
        c,
        "POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    c.read_to_string(&mut out).unwrap();
    out.split("\r\n\r\n").nth(1).unwrap_or_default().to_string()
}

struct Session(String);

impl Session {
    fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux").args(args).output().expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
    fn keys(&self, keys: &[&str]) {
        for k in keys {
            self.tmux(&["send-keys", "-t", &self.0, k]);
            std::thread::sleep(Duration::from_millis(150));
        }
    }
    fn text(&self, s: &str) {
        self.tmux(&["send-keys", "-t", &self.0, "-l", s]);
        std::thread::sleep(Duration::from_millis(150));
    }
    fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", &self.0])
    }
    fn wait_for(&self, what: &str) -> String {
        let limit = Instant::now() + Duration::from_secs(120);
        loop {
            let s = self.screen();
            if s.contains(what) {
                return s;
            }
            assert!(
                Instant::now() < limit,
                "never saw `{what}` on the screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.0])
            .output();
    }
}

/// The number after `label` on the first line that has it.
fn number_after(screen: &str, label: &str) -> u64 {
    let line = screen.lines().find(|l| l.contains(label)).unwrap();
    let rest = &line[line.find(label).unwrap() + label.len()..];
    rest.trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect::<String>()
        .parse()
        .unwrap()
}

#[test]
fn dashboard_in_tmux_pause_step_schedule_fire_quit() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("SKIPPED dashboard_in_tmux: tmux is not installed");
        return;
    }
    let s = Session(format!("cowboy-dash-{}", std::process::id()));
    // Port 0: a free port, shown in the status bar.
    let cmd = format!("{BIN} --port 0; echo DASHBOARD-EXITED $?; sleep 60");
    s.tmux(&[
        "new-session",
        "-d",
        "-s",
        &s.0,
        "-x",
        "160",
        "-y",
        "48",
        &cmd,
    ]);
    // The demo is played live as the node mines a block a second: its actors are deployed
    // in block 1.
    s.wait_for("mining interval 1s");
    s.wait_for("heartbeat");
    s.keys(&["p"]);
    let screen = s.wait_for("mining manual");
    let h = number_after(&screen, "# ");
    s.keys(&["Space"]);
    let screen = s.wait_for(&format!("# {}", h + 1));

    // A script drives the same devnet over JSON-RPC while the dashboard runs.
    let status = screen.lines().next().unwrap();
    let addr = status
        .split("rpc http://")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("the status bar shows the RPC address:\n{screen}"))
        .to_string();
    let reply = rpc(&addr, "devnet_mine", "[2]");
    assert!(reply.contains(&format!(r#""result":{}"#, h + 3)), "{reply}");
    s.wait_for(&format!("# {}", h + 3));
    let h = h + 2;

    s.keys(&["s"]);
    s.wait_for("schedule a timer");
    s.wait_for("estimate: max cost");
    s.keys(&["Enter"]);
    let screen = s.wait_for("scheduled timer ");
    let line = screen
        .lines()
        .find(|l| l.contains("scheduled timer "))
        .unwrap();
    let id = line.split_whitespace().nth(2).unwrap().to_string();
    let due = number_after(line, "for #");
    assert_eq!(due, h + 1 + 1 + 5, "+5 from the block being built");

    s.keys(&["/"]);
    s.text(&id);
    s.keys(&["Enter", "N"]);
    let screen = s.wait_for("TimerFired");
    let fired = screen.lines().find(|l| l.contains("TimerFired")).unwrap();
    assert!(fired.contains(&id), "{fired}");
    assert!(fired.contains(&format!("#{due}")), "{fired}");

    s.keys(&["q"]);
    let screen = s.wait_for("DASHBOARD-EXITED 0");
    assert!(
        !screen.contains("cowboy-devnet"),
        "the alternate screen is gone after quit:\n{screen}"
    );
}

/// A `cowboy-devnet serve` process on the demo fixture, manual mining; killed when dropped.
struct Serve {
    child: std::process::Child,
    addr: String,
}

impl Serve {
    fn start(port: u16) -> Serve {
        use std::io::BufRead;
        let mut child = Command::new(BIN)
            .args(["serve", "--fixture", "demo", "--no-mining", "--port"])
            .arg(port.to_string())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("serve starts");
        let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let addr = loop {
            let line = lines.next().expect("serve prints `Listening on`").unwrap();
            if let Some(rest) = line.strip_prefix("Listening on http://") {
                break rest.split_whitespace().next().unwrap().to_string();
            }
        };
        std::thread::spawn(move || for _ in lines {});
        Serve { child, addr }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `--attach` (issue 15): the dashboard of a devnet `serve`d by another process, through its
/// JSON-RPC API: step, mine from a script, schedule, the fire in the feed; the server killed
/// (the last view stays, "disconnected, retrying"), started again on the same port
/// (reattached), quit with the terminal restored.
#[test]
fn dashboard_in_tmux_attached_to_a_served_devnet() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("SKIPPED dashboard_in_tmux_attached_to_a_served_devnet: tmux is not installed");
        return;
    }
    let serve = Serve::start(0);
    let addr = serve.addr.clone();
    let port: u16 = addr.rsplit(':').next().unwrap().parse().unwrap();
    let s = Session(format!("cowboy-attach-{}", std::process::id()));
    let cmd = format!("{BIN} --attach http://{addr}; echo DASHBOARD-EXITED $?; sleep 60");
    s.tmux(&[
        "new-session",
        "-d",
        "-s",
        &s.0,
        "-x",
        "120",
        "-y",
        "34",
        &cmd,
    ]);
    s.wait_for("mining manual");
    s.wait_for(&format!("rpc {addr}"));
    s.keys(&["Space"]);
    s.wait_for("# 1 ");
    s.wait_for("ActorDeployed");
    s.keys(&["N"]);
    s.wait_for("# 11 ");

    // A script mines on the same devnet: the dashboard follows by its subscriptions.
    let reply = rpc(&addr, "devnet_mine", "[2]");
    assert!(reply.contains(r#""result":13"#), "{reply}");
    s.wait_for("# 13 ");

    s.keys(&["s"]);
    s.wait_for("schedule a timer");
    s.wait_for("estimate: max cost");
    s.keys(&["Enter"]);
    let screen = s.wait_for("scheduled timer ");
    let line = screen
        .lines()
        .find(|l| l.contains("scheduled timer "))
        .unwrap();
    let id = line.split_whitespace().nth(2).unwrap().to_string();
    let due = number_after(line, "for #");
    assert_eq!(due, 13 + 1 + 5, "+5 from the block being built");
    s.keys(&["/"]);
    s.text(&id);
    s.keys(&["Enter", "N"]);
    let screen = s.wait_for("TimerFired");
    let fired = screen.lines().find(|l| l.contains("TimerFired")).unwrap();
    assert!(fired.contains(&id), "{fired}");
    // The filter cleared, ten more blocks: the demo's lane fills and timers are deferred.
    s.keys(&["/", "Escape", "N"]);
    let screen = s.wait_for("# 33 ");
    assert!(
        !screen.contains("retrying"),
        "the subscriptions stay open:\n{screen}"
    );
    s.wait_for("TimerDeferred");
    // The README's capture: `DASHBOARD_CAPTURE_DIR=dir cargo test --test dashboard_tmux`.
    if let Ok(dir) = std::env::var("DASHBOARD_CAPTURE_DIR") {
        std::fs::write(format!("{dir}/attach-120x34.txt"), s.screen()).unwrap();
    }

    // The server goes away: the last view stays, the status bar says so.
    drop(serve);
    let screen = s.wait_for("disconnected, retrying");
    assert!(screen.contains("# 33 "), "the last view stays:\n{screen}");
    s.keys(&["Space"]);
    s.wait_for("devnet_mine failed: Disconnected");

    // A devnet on the same port again: reattached (a fresh chain).
    let _again = Serve::start(port);
    let limit = Instant::now() + Duration::from_secs(120);
    loop {
        let screen = s.screen();
        let status = screen.lines().next().unwrap_or_default();
        if status.contains("# 0 ") && !status.contains("disconnected") {
            break;
        }
        assert!(Instant::now() < limit, "never reattached:\n{screen}");
        std::thread::sleep(Duration::from_millis(100));
    }

    s.keys(&["q"]);
    let screen = s.wait_for("DASHBOARD-EXITED 0");
    assert!(
        !screen.contains("cowboy-devnet"),
        "the alternate screen is gone after quit:\n{screen}"
    );
}
