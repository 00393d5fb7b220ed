//! End to end (issue 15): the dashboard example driven in a real terminal (tmux): start, pause,
//! step, schedule a timer with the form, see it fire in the filtered feed, quit with the
//! terminal restored. Skipped, with a message, where tmux or the example binary is missing.
//!
//! The waits below poll the screen until what is expected appears; their limits only keep a
//! broken run from hanging, they assert nothing about speed.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

fn example() -> Option<PathBuf> {
    // target/<profile>/deps/<this test> -> target/<profile>/examples/dashboard
    let exe = std::env::current_exe().ok()?;
    let p = exe.parent()?.parent()?.join("examples").join("dashboard");
    p.exists().then_some(p)
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
    let Some(bin) = example() else {
        eprintln!(
            "SKIPPED dashboard_in_tmux: the example binary is not built (cargo test builds it; \
             or cargo build --example dashboard)"
        );
        return;
    };
    let s = Session(format!("cowboy-dash-{}", std::process::id()));
    let cmd = format!("{}; echo DASHBOARD-EXITED $?; sleep 60", bin.display());
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
    s.wait_for("cowboy-devnet");
    s.keys(&["p"]);
    let screen = s.wait_for("mining manual");
    let h = number_after(&screen, "# ");
    // The example opens on the demo played to #20: its actors deployed, then mined live.
    assert!(h >= 20, "the demo was played to #20 first:\n{screen}");
    assert!(screen.contains("heartbeat"), "{screen}");
    s.keys(&["Space"]);
    s.wait_for(&format!("# {}", h + 1));

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
