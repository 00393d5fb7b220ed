//! Issue 24, "Step the dashboard back": `W` writes the session as a fixture
//! (`devnet_exportFixture`) to a new file `session-<height>.toml` in the dashboard's current
//! directory, never overwriting, and says where in a toast: in process and attached alike.
//! One test, as it changes the process's current directory.

mod common;

use common::keys::{key, press};
use cowboy_devnet::chain::Genesis;
use cowboy_devnet::node::{NodeConfig, NodeCore};
use cowboy_devnet::tui::app::App;
use cowboy_devnet::tui::keys::KeyMap;
use cowboy_devnet::tui::local::LocalDevnet;
use cowboy_devnet::tui::model::{DashboardSource, UiCommand};
use cowboy_devnet::tui::refresh;
use cowboy_devnet::tui::remote::RemoteDevnet;
use cowboy_devnet::vm::DevnetRuntime;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_cowboy-devnet");

fn read(p: &std::path::Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn issue24_w_writes_the_session_to_a_new_file_here_local_and_attached() {
    let dir = std::env::temp_dir().join(format!("cowboy-tt-export-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::env::set_current_dir(&dir).unwrap();

    // In process.
    let mut c = NodeConfig::new(Genesis::default(), DevnetRuntime::shared());
    c.history = 1_000;
    let node = NodeCore::new(c).expect("genesis");
    let mut src = LocalDevnet::new(node, Default::default());
    let mut app = App::new(KeyMap::default());
    src.execute(UiCommand::Mine(5)).expect("mine");
    refresh(&mut src, &mut app);
    press(&mut src, &mut app, &[key('W')]);
    let t = app.toast.clone().expect("a toast");
    assert!(!t.error && t.text.contains("session-5.toml"), "{t:?}");
    let first = read(&dir.join("session-5.toml"));
    assert!(first.contains("blocks = 5"), "{first}");
    // Again: a new name, the first file untouched.
    std::fs::write(dir.join("session-5.toml"), "kept").unwrap();
    press(&mut src, &mut app, &[key('W')]);
    assert!(
        app.toast
            .as_ref()
            .unwrap()
            .text
            .contains("session-5-2.toml")
    );
    assert_eq!(read(&dir.join("session-5.toml")), "kept");
    assert_eq!(read(&dir.join("session-5-2.toml")), first);
    // Viewing the past, W still writes (it changes nothing).
    press(&mut src, &mut app, &[key('['), key('W')]);
    assert!(
        app.toast
            .as_ref()
            .unwrap()
            .text
            .contains("session-5-3.toml")
    );

    // Attached: the fixture comes over `devnet_exportFixture` and is written here.
    let mut child = Command::new(BIN)
        .args(["serve", "--fixture", "demo", "--no-mining", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("serve starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let addr = loop {
        let line = lines.next().expect("Listening on").unwrap();
        if let Some(rest) = line.strip_prefix("Listening on http://") {
            break rest.split_whitespace().next().unwrap().to_string();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    let mut remote = RemoteDevnet::new(&format!("http://{addr}")).expect("a valid URL");
    let limit = Instant::now() + Duration::from_secs(60);
    while remote.dashboard(&Default::default()).status.is_none() {
        assert!(Instant::now() < limit, "the server answers");
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut app = App::new(KeyMap::default());
    refresh(&mut remote, &mut app);
    let h = app.data.status.as_ref().unwrap().tip;
    press(&mut remote, &mut app, &[key('W')]);
    let name = format!("session-{h}.toml");
    let t = app.toast.clone().expect("a toast");
    let _ = child.kill();
    let _ = child.wait();
    assert!(!t.error && t.text.contains(&name), "{t:?}");
    let text = read(&dir.join(&name));
    assert!(text.contains(&format!("blocks = {h}")), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 34, item 12: `W` (the session's export) keeps the timer labels the session knew: the
/// demo played live along the node labels `settle-42` and `lifeline`, and its export names
/// them so (before: `t1`..`t13`), the timers it has no label for taking the free `t{n}`.
#[test]
fn issue34_item12_the_export_keeps_the_timer_labels() {
    use cowboy_devnet::node::{Mine, MiningMode};
    use cowboy_devnet::scenario::live::FixturePlayer;
    use cowboy_devnet::scenario::{Scenario, builtin};
    use std::sync::Arc;
    let lf = builtin::fixture("demo").unwrap().unwrap();
    let s = Scenario::prepare(&lf, &DevnetRuntime::new(), &builtin::script_loader).unwrap();
    let mut c = NodeConfig::new(s.genesis().clone(), DevnetRuntime::shared());
    c.mining = MiningMode::Manual;
    c.names = s.address_book();
    let mut d = NodeCore::new(c).expect("genesis");
    d.set_hook(Box::new(FixturePlayer::new(Arc::new(s))));
    d.apply(Mine { blocks: 35 }).unwrap();
    let x = cowboy_devnet::scenario::export::export(&d, None).expect("an export");
    for want in [
        "label = \"settle-42\"",
        "label = \"s1\"",
        "label = \"lifeline\"",
        "timer = \"lifeline\"",
    ] {
        assert!(x.fixture.contains(want), "{want}: {}", x.fixture);
    }
    // Each label once.
    assert_eq!(x.fixture.matches("label = \"settle-42\"").count(), 1);
}
