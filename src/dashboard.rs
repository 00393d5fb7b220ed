//! The default command (issue 15): on a terminal, the node on a fixture (the demo) played live
//! as blocks are mined, its JSON-RPC server (as `serve`) and the dashboard on the same node,
//! so a script and a person drive one devnet. `--attach URL` shows the dashboard of a devnet
//! already running, through its JSON-RPC API.

use crate::cli::{DashArgs, EXIT_OK, EXIT_OUTPUT};
use crate::serve::{save, start_node};
use anyhow::{Context, Result, anyhow};
use cowboy_devnet::rpc::methods::module_with;
use cowboy_devnet::rpc::server::{self, ServerOptions};
use cowboy_devnet::tui::keys::KeyMap;
use cowboy_devnet::tui::local::LocalDevnet;
use cowboy_devnet::tui::remote::RemoteDevnet;
use cowboy_devnet::tui::theme::Theme;
use cowboy_devnet::tui::{self, RunOptions};
use std::time::Duration;

/// The block time of the default command when neither `--block-time` nor `--no-mining` is
/// given (issue 15: one block a second).
pub const DEFAULT_BLOCK_TIME_MS: u64 = 1_000;

fn options(a: &DashArgs) -> Result<RunOptions> {
    let theme = Theme::select(a.theme.as_deref(), Theme::no_color_env()).map_err(|e| anyhow!(e))?;
    let keys = match &a.keys {
        Some(p) => {
            let text =
                std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
            KeyMap::with_overrides(&text).map_err(|e| anyhow!("{}: {e}", p.display()))?
        }
        None => KeyMap::default(),
    };
    Ok(RunOptions {
        theme,
        keys,
        mouse: !a.no_mouse,
        ..Default::default()
    })
}

pub fn dashboard(mut a: DashArgs) -> Result<u8> {
    let opts = options(&a)?;
    if let Some(url) = &a.attach {
        return attach(url, opts);
    }
    let s = &mut a.node;
    if s.fixture.is_none() {
        s.fixture = Some("demo".into());
    }
    if !s.no_mining && s.block_time.is_none() {
        s.block_time = Some(DEFAULT_BLOCK_TIME_MS);
    }
    let s = a.node.clone();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let node = start_node(&s)?;
    crate::serve::warn_exposure(&s);
    let saves = s
        .state
        .as_ref()
        .map(|p| std::sync::Arc::new(cowboy_devnet::rpc::state_file::SaveStatus::new(p)));
    let api = crate::serve::api_options(&s, saves.clone());
    let mut notes = Vec::new();
    let running = rt.block_on(async {
        let mut o = ServerOptions {
            host: s.host.clone(),
            port: s.port(),
            allow_origin: s.allow_origin.clone(),
            allow_remote_writes: s.allow_remote_writes,
            ..ServerOptions::default()
        };
        match server::start(module_with(node.clone(), api.clone()), &o).await {
            Ok(r) => Ok((r, None)),
            // Issue 30: only the default port falls back to a free one (an explicit `--port`
            // that is taken is an error), and the status bar says so.
            Err(e) if s.port.is_none() => {
                o.port = 0;
                let r = server::start(module_with(node.clone(), api.clone()), &o)
                    .await
                    .with_context(|| format!("cannot listen on {}", s.host))?;
                notes.push(format!(
                    "port {} is taken ({e:#}); the JSON-RPC server listens on {} instead",
                    s.port(),
                    r.addr
                ));
                Ok((r, Some(s.port())))
            }
            Err(e) => Err(e).with_context(|| format!("cannot listen on {}:{}", s.host, s.port())),
        }
    })?;
    let (running, taken) = running;
    let addr = running.addr;
    for n in &notes {
        eprintln!("note: {n}");
    }
    if let Some(p) = s.state.clone() {
        let node = node.clone();
        let every = Duration::from_millis(s.state_interval.max(1));
        let status = saves.clone().expect("a status with --state");
        rt.spawn(async move {
            let mut ticks = tokio::time::interval(every);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            ticks.tick().await;
            loop {
                ticks.tick().await;
                // The screen is the UI's: a failure is kept for `devnet_head` (`state_save`)
                // and shows on exit, when the final save is made (issue 30).
                match save(&node, &p).await {
                    Ok(h) => status.saved(h),
                    Err(e) => status.failed(format!(
                        "the state could not be saved to {}: {e:#}",
                        p.display()
                    )),
                }
            }
        });
    }

    let shown = match taken {
        Some(p) => format!("http://{addr} ({p} taken)"),
        None => format!("http://{addr}"),
    };
    let source = LocalDevnet::live(node.clone()).with_rpc_address(shown);
    // This process owns the devnet: quitting stops it, so `q` asks first.
    let opts = RunOptions {
        owns_devnet: true,
        ..opts
    };
    let ui = tui::run(source, opts);

    let _ = running.handle.stop();
    let mut code = EXIT_OK;
    for p in s.state.iter().chain(s.dump_state.iter()) {
        match rt.block_on(save(&node, p)) {
            Ok(h) => eprintln!("state saved to {} (height {h})", p.display()),
            Err(e) => {
                eprintln!("error: {e:#}");
                code = EXIT_OUTPUT;
            }
        }
    }
    node.shutdown();
    for n in &notes {
        eprintln!("note: {n}");
    }
    ui.context("the dashboard")?;
    Ok(code)
}

/// The dashboard on a devnet served elsewhere (`cowboy-devnet serve`), through its JSON-RPC
/// API. A server that does not answer yet shows as "disconnected, retrying".
fn attach(url: &str, opts: RunOptions) -> Result<u8> {
    let source = RemoteDevnet::new(url).map_err(|e| anyhow!("--attach {e}"))?;
    tui::run(source, opts).context("the dashboard")?;
    Ok(EXIT_OK)
}
