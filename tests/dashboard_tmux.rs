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

impl Session {
    /// Starts `args` (after the binary) in a new tmux session of `w` x `h`; the shell echoes
    /// `DASHBOARD-EXITED <code>` when it ends.
    fn start(name: &str, w: u16, h: u16, args: &str) -> Session {
        let s = Session(format!("cowboy-{name}-{}", std::process::id()));
        let cmd = format!("{BIN} {args}; echo DASHBOARD-EXITED $?; sleep 60");
        s.tmux(&[
            "new-session",
            "-d",
            "-s",
            &s.0,
            "-x",
            &w.to_string(),
            "-y",
            &h.to_string(),
            &cmd,
        ]);
        s
    }

    /// Waits until `what` is no longer on the screen.
    fn wait_gone(&self, what: &str) -> String {
        let limit = Instant::now() + Duration::from_secs(60);
        loop {
            let s = self.screen();
            if !s.contains(what) {
                return s;
            }
            assert!(Instant::now() < limit, "`{what}` stays on the screen:\n{s}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

fn tmux_missing(test: &str) -> bool {
    let missing = Command::new("tmux").arg("-V").output().is_err();
    if missing {
        eprintln!("SKIPPED {test}: tmux is not installed");
    }
    missing
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

    // The dashboard owns this devnet: `q` asks first (issue 23), `y` accepts.
    s.keys(&["q"]);
    s.wait_for("quit?");
    s.keys(&["y"]);
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
    // The two deferrals of #30 (Spec note 71: recorded by the deferring block) are counted in
    // the lane pane's window; their feed rows have scrolled past by #33.
    s.wait_for("first deferred lane 2");
    s.wait_for("TimerExtendedByGovernance");
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
    // Issue 23: back from the outage, its errors leave the status line (the log keeps them).
    s.wait_gone("devnet_mine failed: Disconnected");
    s.keys(&["!"]);
    s.wait_for("devnet_mine failed: Disconnected");
    s.keys(&["Escape"]);

    s.keys(&["q"]);
    let screen = s.wait_for("DASHBOARD-EXITED 0");
    assert!(
        !screen.contains("cowboy-devnet"),
        "the alternate screen is gone after quit:\n{screen}"
    );
}

// ---- issue 23: never act on the wrong thing; a timer's life a newcomer can follow ----------

/// Issue 23 at the minimum size (80x24), the demo mined by hand to #10: `c` with nothing
/// selected asks for a selection (it used to cancel the highlighted bucket's first timer); a
/// governance id that is no live timer's prefix is refused by name (it used to cancel the
/// selected timer); a governance cancel of a missing timer asks first, names it, and says it
/// did not exist; `q` on the dashboard that owns the devnet asks, with Cancel focused.
#[test]
fn issue23_tmux_never_acts_on_the_wrong_thing() {
    if tmux_missing("issue23_tmux_never_acts_on_the_wrong_thing") {
        return;
    }
    let s = Session::start("wrong", 80, 24, "--port 0 --no-mining");
    s.wait_for("mining manual");
    s.keys(&["N"]);
    s.wait_for("# 10 ");

    s.keys(&["c"]);
    s.wait_for("select a timer first");
    assert!(!s.screen().contains("cancelled timer"));

    s.keys(&["g"]);
    s.text("cancel deadbeef");
    s.keys(&["Enter"]);
    let screen = s.wait_for("no live timer's id starts with `deadbeef`");
    assert!(!screen.contains("governance cancel"), "{screen}");
    s.keys(&["Escape"]);

    let missing = format!("0xff{}", "00".repeat(31));
    s.keys(&["g"]);
    s.text(&format!("cancel {missing}"));
    s.keys(&["Enter"]);
    let screen = s.wait_for("governance cancel (system instruction 48)?");
    assert!(screen.contains("[ Back ]"), "{screen}");
    assert!(screen.contains("not a live timer"), "{screen}");
    s.keys(&["y"]);
    s.wait_for("governance cancel of ff000000 sent");
    s.keys(&["Space"]);
    s.wait_for("timer ff000000 did not exist");

    // Quitting the dashboard that runs the devnet asks; Enter on the focused Cancel stays.
    s.keys(&["q"]);
    s.wait_for("quit?");
    s.keys(&["Enter"]);
    s.wait_for("cancelled: nothing was sent");
    s.keys(&["q", "y"]);
    s.wait_for("DASHBOARD-EXITED 0");
}

/// Issue 23: a late estimate for older input never contradicts validation (tier `urgent`,
/// cleared, `5`: only the error shows); the extend prompt stays open with its input and the
/// error on a rejection; C-u clears the feed filter.
#[test]
fn issue23_tmux_estimates_prompts_and_filter() {
    if tmux_missing("issue23_tmux_estimates_prompts_and_filter") {
        return;
    }
    let s = Session::start("forms", 120, 34, "--port 0 --no-mining");
    s.wait_for("mining manual");
    s.keys(&["N"]);
    s.wait_for("# 10 ");

    s.keys(&["s"]);
    s.wait_for("estimate: max cost");
    // From the height field down to priority_tier (past the label field, Spec note 191).
    for _ in 0..9 {
        s.tmux(&["send-keys", "-t", &s.0, "Down"]);
    }
    s.tmux(&["send-keys", "-t", &s.0, "-l", "urgent"]);
    s.tmux(&["send-keys", "-t", &s.0, "C-u"]);
    s.tmux(&["send-keys", "-t", &s.0, "-l", "5"]);
    s.wait_for("priority_tier `5` is not economy");
    std::thread::sleep(Duration::from_millis(1_500));
    let screen = s.screen();
    assert!(
        screen.contains("priority_tier `5` is not economy"),
        "{screen}"
    );
    assert!(!screen.contains("estimate: max cost"), "{screen}");
    assert!(!screen.contains("would run"), "{screen}");
    s.keys(&["Escape"]);

    // Select the first bucket's first timer, extend it into the past: refused, kept open.
    s.keys(&["Enter", "e", "C-u"]);
    s.text("1");
    s.keys(&["Enter"]);
    let screen = s.wait_for("must be greater than the current height");
    assert!(screen.contains("> 1"), "the input stays:\n{screen}");
    assert!(
        screen.contains("extend timer "),
        "the prompt stays:\n{screen}"
    );
    s.keys(&["Escape"]);

    s.keys(&["/"]);
    s.text("abc");
    s.keys(&["C-u"]);
    s.text("Fired");
    s.keys(&["Enter"]);
    let screen = s.wait_for("filter /Fired");
    assert!(!screen.contains("abc"), "{screen}");
    s.keys(&["q", "y"]);
    s.wait_for("DASHBOARD-EXITED 0");
}

/// Issue 23: `--keys` binding one key to two actions is refused, naming both.
#[test]
fn issue23_keys_clash_is_an_error_naming_both_actions() {
    let dir = std::env::temp_dir().join(format!("cowboy-keys-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("keys.toml");
    std::fs::write(&file, "[keys]\nstep = [\"s\"]\n").unwrap();
    if tmux_missing("issue23_keys_clash_is_an_error_naming_both_actions") {
        return;
    }
    // On a terminal (off one, the binary plays the demo headless and reads no key file).
    let s = Session::start("clash", 120, 34, &format!("--keys {}", file.display()));
    let screen = s.wait_for("DASHBOARD-EXITED");
    assert!(!screen.contains("DASHBOARD-EXITED 0"), "{screen}");
    assert!(
        screen.contains("`step`") && screen.contains("`schedule`"),
        "{screen}"
    );
}

/// Issue 23: attached to nothing, the panes say they wait instead of drawing zeros.
#[test]
fn issue23_tmux_attach_to_nothing_waits() {
    if tmux_missing("issue23_tmux_attach_to_nothing_waits") {
        return;
    }
    let s = Session::start("nothing", 80, 24, "--attach http://127.0.0.1:1");
    let screen = s.wait_for("waiting for the devnet");
    assert!(!screen.contains("lane 0 cycles"), "{screen}");
    assert!(!screen.contains("ring 0 timers"), "{screen}");
    s.keys(&["q"]);
    s.wait_for("DASHBOARD-EXITED 0");
}

/// Issue 23 at 80x24: the story line tells the demo's steps; its first labelled timer is
/// watched; the life overlay follows the chain while open and lets space through; `w` pins
/// the watch strip; `?` scrolls.
#[test]
fn issue23_tmux_story_life_watch_and_help_at_80x24() {
    if tmux_missing("issue23_tmux_story_life_watch_and_help_at_80x24") {
        return;
    }
    let s = Session::start("story", 80, 24, "--port 0 --no-mining");
    s.wait_for("mining manual");
    s.keys(&["N"]);
    let screen = s.wait_for("# 10 ");
    let screen = if screen.contains("story #") {
        screen
    } else {
        s.wait_for("story #")
    };
    // Issue 34, item 13: the fixture line reference in words.
    assert!(screen.contains("demo.toml line "), "{screen}");
    s.wait_for("watch settle-42");
    s.wait_for("fired #8");

    // The first bucket's first timer: its life, open while blocks are mined.
    s.wait_for("bucket #11 · 2 time");
    // Enter opens the bucket, Enter again the first timer's life. Two Enters in one read of
    // the terminal reach the dashboard as one key, and the bucket's rows arrive from the
    // source's thread: press again until the overlay is open (at most five times).
    for _ in 0..5 {
        if s.screen().contains("follows the chain") {
            break;
        }
        s.keys(&["Enter"]);
        std::thread::sleep(Duration::from_millis(700));
    }
    let screen = s.wait_for("follows the chain");
    let title = screen
        .lines()
        .find(|l| l.contains("follows the chain"))
        .unwrap()
        .to_string();
    assert!(title.contains("pending"), "{title}");
    s.keys(&["Space"]);
    s.wait_for("# 11 ");
    s.keys(&["Space"]);
    s.wait_for("# 12 ");
    let screen = s.screen();
    assert!(
        screen.contains("follows the chain"),
        "still open:\n{screen}"
    );
    let title = screen
        .lines()
        .find(|l| l.contains("follows the chain"))
        .unwrap()
        .to_string();
    assert!(
        !title.contains("pending"),
        "the life followed the chain: {title}"
    );
    // `w` in the overlay watches its timer (issue 34: the demo's watch stays pinned above
    // it); the strip stays after the timer left.
    s.keys(&["w", "Escape"]);
    let screen = s.wait_for(" watch ");
    let strip = screen
        .lines()
        .rev()
        .find(|l| l.contains(" watch "))
        .unwrap()
        .to_string();
    assert!(!strip.contains("settle-42"), "{strip}");
    assert!(screen.contains("watch settle-42"), "{screen}");
    assert!(strip.contains("scheduled #"), "{strip}");

    // The help scrolls at 80x24.
    s.keys(&["?"]);
    let screen = s.wait_for("help (? or Esc closes) · lines 1-");
    assert!(screen.contains("buckets (focused)"), "{screen}");
    s.keys(&["PageDown"]);
    s.wait_for("help (? or Esc closes) · lines 11-");
    s.keys(&["Escape", "q", "y"]);
    s.wait_for("DASHBOARD-EXITED 0");
}

/// Issue 24, "Step the dashboard back": the congestion fixture at 80x24, mined on, then
/// stepped back with `[` and `{` (the banner `viewing #N · head #M`), a step refused while
/// viewing, `Esc` back to the head.
#[test]
fn issue24_tmux_steps_back_through_the_congestion_fixture() {
    if tmux_missing("issue24_tmux_steps_back_through_the_congestion_fixture") {
        return;
    }
    let s = Session::start(
        "history",
        80,
        24,
        "--port 0 --no-mining --fixture congestion",
    );
    s.wait_for("mining manual");
    s.keys(&["N"]);
    s.wait_for("# 10 ");
    s.keys(&["N"]);
    s.wait_for("# 20 ");
    s.keys(&["["]);
    s.wait_for("viewing #19 · head #20");
    s.keys(&["{"]);
    s.wait_for("viewing #9 · head #20");
    s.keys(&["Space"]);
    s.wait_for("devnet_mine refused");
    s.keys(&["]"]);
    s.wait_for("viewing #10 · head #20");
    s.keys(&["Escape"]);
    s.wait_gone("viewing #");
    let screen = s.wait_for("# 20 ");
    assert!(!screen.contains("viewing"), "{screen}");
    s.keys(&["q", "y"]);
    s.wait_for("DASHBOARD-EXITED 0");
}
