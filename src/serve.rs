//! `cowboy-devnet serve`: the live devnet behind the JSON-RPC API (issue 13).

use crate::cli::{EXIT_OK, ServeArgs};
use anyhow::{Context, Result};
use cowboy_devnet::chain::{ChainDump, Genesis};
use cowboy_devnet::engine::Address;
use cowboy_devnet::node::{
    AccountView, LoadState, MiningMode, NodeConfig, NodeCore, NodeEvent, NodeHandle, SaveState,
    spawn,
};
use cowboy_devnet::rpc::files::ExportDir;
use cowboy_devnet::rpc::methods::{ApiOptions, mining_json, module_with};
use cowboy_devnet::rpc::server::{self, ServerOptions, is_loopback};
use cowboy_devnet::rpc::state_file::{self, SaveStatus};
use cowboy_devnet::scenario::live::FixturePlayer;
use cowboy_devnet::vm::DevnetRuntime;
use serde_json::json;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

pub fn serve(a: ServeArgs) -> Result<u8> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    rt.block_on(serve_async(a))
}

/// The node as the flags ask, with its state loaded; nothing is served if any of it fails.
pub(crate) fn start_node(a: &ServeArgs) -> Result<NodeHandle> {
    let scenario = match &a.fixture {
        Some(f) => Some(Arc::new(crate::commands::load(f)?)),
        None => None,
    };
    let (genesis, names) = match &scenario {
        Some(s) => (s.genesis().clone(), s.address_book()),
        None => (Genesis::default(), BTreeMap::new()),
    };
    // A fixture with a base starts from it (issue 24, Spec note 130): its state holds the
    // scheduler and variants, and `--load-state` would replace it.
    let base = scenario.as_ref().and_then(|s| s.base());
    if let Some(b) = base {
        let flags = a.sched.scheduler.is_some()
            || a.sched.activation_height.is_some()
            || !a.sched.variant.is_empty();
        if flags {
            anyhow::bail!(
                "the fixture starts from its base {}, whose scheduler and variants are part of its state: --scheduler, --activation-height and --variant cannot change them",
                b.path
            );
        }
        if a.load_state.is_some() {
            anyhow::bail!(
                "the fixture starts from its base {}: give --load-state or a fixture with `base`, not both",
                b.path
            );
        }
    }
    let genesis = genesis
        .with_scheduler(a.sched.scheduler, a.sched.activation_height)
        .and_then(|g| g.with_variants(&a.sched.variant))
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    // A state file that cannot be written fails now, not at every save (issue 20).
    for p in a.state.iter().chain(a.dump_state.iter()) {
        state_file::check_writable(p).map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    // The file is read and checked before the node exists: a bad file never half-loads.
    let read = |p: &Path| state_file::read_bounded(p, a.max_state_size);
    let initial = match (&a.state, &a.load_state) {
        (Some(p), _) if p.exists() => Some((p.display().to_string(), read(p)?)),
        (_, Some(p)) => Some((p.display().to_string(), read(p)?)),
        _ => base.map(|b| (b.path.clone(), ChainDump::clone(&b.dump))),
    };
    // Issue 30 (Spec note 143): a loaded state carries its scheduler and variants; a flag that
    // says otherwise is refused, as a fixture's `base` refuses it, never silently ignored.
    if let Some((p, d)) = &initial
        && base.is_none()
    {
        if let Some(k) = a.sched.scheduler
            && k != d.scheduler
        {
            anyhow::bail!(
                "the state in {p} runs the {} scheduler, part of its state: --scheduler {} cannot change it (drop the flag, or start without the state)",
                d.scheduler,
                k
            );
        }
        if a.sched.activation_height.is_some() || !a.sched.variant.is_empty() {
            anyhow::bail!(
                "the state in {p} holds its scheduler's activation height and variants: --activation-height and --variant cannot change them (drop the flags, or start without the state)"
            );
        }
    }
    let from_base = base.is_some() && !a.state.as_ref().is_some_and(|p| p.exists());
    let mut cfg = NodeConfig::new(genesis, DevnetRuntime::shared());
    cfg.mining = match (a.no_mining, a.block_time) {
        (true, _) => MiningMode::Manual,
        (false, Some(ms)) => MiningMode::Interval { block_time_ms: ms },
        (false, None) => MiningMode::Auto,
    };
    cfg.max_snapshots = a.snapshots as usize;
    cfg.history = a.history as usize;
    cfg.keep_blocks = Some(a.history as usize);
    cfg.checkpoint_budget = usize::try_from(a.checkpoint_budget << 20).unwrap_or(usize::MAX);
    cfg.past_budget = usize::try_from(a.past_budget << 20).unwrap_or(usize::MAX);
    cfg.dev_accounts = a.accounts as usize;
    cfg.dev_balance = a.balance;
    cfg.names = names;
    let mut core = NodeCore::new(cfg).context("the genesis is not valid")?;
    core.set_tracing(a.trace);
    // The fixture's steps are played at their heights as blocks are mined, its expectations
    // checked as they become checkable (printed by `serve_async`). Set before the state is
    // loaded, so that a state file with the player's position puts it back (issue 20).
    if let Some(s) = scenario {
        if s.needs_tracing() {
            core.set_tracing(true);
        }
        core.set_hook(Box::new(FixturePlayer::new(s)));
    }
    if let Some((p, dump)) = initial {
        core.apply(LoadState(Box::new(dump)))
            .with_context(|| format!("state file {p} refused"))?;
        // The session's base (issue 24): what a recording says it started from.
        core.set_session_file(p);
        // A fixture's base is where its steps start: a reset goes back to it.
        if from_base {
            core.reset_to_loaded();
        }
        // What loading reported is history by the time anyone subscribes.
        while core.poll_event().is_some() {}
    }
    Ok(spawn(core))
}

async fn serve_async(a: ServeArgs) -> Result<u8> {
    let node = start_node(&a)?;
    if let Some(f) = &a.fixture {
        echo_expectations(&node, f.clone());
    }
    let opts = ServerOptions {
        host: a.host.clone(),
        port: a.port(),
        allow_origin: a.allow_origin.clone(),
        allow_remote_writes: a.allow_remote_writes,
        ..ServerOptions::default()
    };
    let saves = a
        .state
        .as_ref()
        .map(|p| Arc::new(state_file::SaveStatus::new(p)));
    let running = server::start(
        module_with(node.clone(), api_options(&a, saves.clone())),
        &opts,
    )
    .await
    .with_context(|| format!("cannot listen on {}:{}", a.host, a.port()))?;
    let addr = running.addr;
    let accounts = node.query(|c| c.accounts()).await?;
    let dev: Vec<_> = node.query(|c| c.dev_accounts().to_vec()).await?;
    let mining = node.head().mining;
    let mut out = std::io::stdout().lock();
    print_banner(&mut out, &a, &accounts, &dev, mining)?;
    // Written before `Listening on` is printed, so a script that waits for that line finds it.
    if let Some(p) = &a.config_out {
        write_config(p, addr, mining, &accounts, &dev)?;
    }
    writeln!(out, "\nListening on http://{addr} (WebSocket: ws://{addr})")?;
    out.flush()?;
    drop(out);
    warn_exposure(&a);
    run_until_stopped(&a, &node, &running, saves.as_deref()).await;
    let _ = running.handle.stop();
    let code = final_saves(&a, &node).await;
    node.shutdown();
    Ok(code)
}

/// Under `--fixture`: prints each expectation's outcome as the fixture plays.
fn echo_expectations(node: &NodeHandle, fixture: String) {
    let mut rx = node.subscribe();
    tokio::spawn(async move {
        loop {
            match rx.recv().await {
                Ok(ev) => {
                    if let NodeEvent::Expectation {
                        line,
                        description,
                        passed,
                        detail,
                    } = &*ev
                    {
                        let mark = if *passed { "ok  " } else { "FAIL" };
                        println!("expectation {mark} {fixture}:{line} {description} ({detail})");
                    }
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                    eprintln!("warning: {n} notifications missed; expectations may be missing");
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
            }
        }
    });
}

/// The start banner: the version, the dev accounts and the others, mining, the state file.
fn print_banner(
    out: &mut impl Write,
    a: &ServeArgs,
    accounts: &[AccountView],
    dev: &[Address],
    mining: MiningMode,
) -> Result<()> {
    let deployer = |acc: &AccountView| {
        if acc.system_deployer {
            "  system deployer"
        } else {
            ""
        }
    };
    writeln!(out, "cowboy-devnet {}", env!("CARGO_PKG_VERSION"))?;
    writeln!(
        out,
        "\nDev accounts (system deployers may send governance instructions 48/49/50):"
    )?;
    for (i, acc) in accounts
        .iter()
        .filter(|ac| dev.contains(&ac.address))
        .enumerate()
    {
        writeln!(
            out,
            "  ({i}) {}  balance {}{}",
            acc.address,
            acc.balance,
            deployer(acc)
        )?;
    }
    let others: Vec<_> = accounts
        .iter()
        .filter(|ac| !dev.contains(&ac.address))
        .collect();
    if !others.is_empty() {
        writeln!(out, "\nOther accounts:")?;
        for acc in others {
            writeln!(
                out,
                "  {}  {}  balance {}{}",
                acc.address,
                acc.name.as_deref().unwrap_or("-"),
                acc.balance,
                deployer(acc)
            )?;
        }
    }
    writeln!(out, "\nMining: {}", mining_json(mining))?;
    if let Some(p) = &a.state {
        writeln!(
            out,
            "State: {} (saved every {} ms and on exit)",
            p.display(),
            a.state_interval
        )?;
    }
    Ok(())
}

/// `--config-out`: where to reach the server and its accounts, as JSON.
fn write_config(
    p: &Path,
    addr: std::net::SocketAddr,
    mining: MiningMode,
    accounts: &[AccountView],
    dev: &[Address],
) -> Result<()> {
    let cfg = json!({
        "rpc_url": format!("http://{addr}"),
        "ws_url": format!("ws://{addr}"),
        "host": addr.ip().to_string(),
        "port": addr.port(),
        "mining": mining_json(mining),
        "accounts": accounts.iter().map(|ac| json!({
            "address": ac.address,
            "balance": ac.balance.to_string(),
            "system_deployer": ac.system_deployer,
            "dev": dev.contains(&ac.address),
            "name": ac.name,
        })).collect::<Vec<_>>(),
    });
    std::fs::write(p, serde_json::to_string_pretty(&cfg)? + "\n")
        .with_context(|| format!("writing {}", p.display()))
}

/// Saves (`--state`) and records (`--record`) every `--state-interval` until a signal or the
/// server stops.
async fn run_until_stopped(
    a: &ServeArgs,
    node: &NodeHandle,
    running: &server::Running,
    saves: Option<&state_file::SaveStatus>,
) {
    let mut ticks = tokio::time::interval(Duration::from_millis(a.state_interval.max(1)));
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    ticks.tick().await;
    let stop = shutdown_signal();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            _ = &mut stop => break,
            _ = ticks.tick(), if a.state.is_some() => {
                if let Some(p) = &a.state {
                    save_reported(node, p, saves).await;
                }
                if let Some(p) = &a.record
                    && let Err(e) = record(node, p).await
                {
                    eprintln!("error: {e:#}");
                }
            }
            _ = running.handle.clone().stopped() => break,
        }
    }
}

/// The saves on exit (`--state`, `--dump-state`) and the last record: the exit code says
/// whether one failed.
async fn final_saves(a: &ServeArgs, node: &NodeHandle) -> u8 {
    let mut code = EXIT_OK;
    for p in a.state.iter().chain(a.dump_state.iter()) {
        match save(node, p).await {
            Ok(h) => eprintln!("state saved to {} (height {h})", p.display()),
            Err(e) => {
                eprintln!(
                    "error: the state could not be saved to {}: {e:#}",
                    p.display()
                );
                code = crate::cli::EXIT_OUTPUT;
            }
        }
    }
    if let Some(p) = &a.record {
        match record(node, p).await {
            Ok(()) => eprintln!("session recorded to {}", p.display()),
            Err(e) => {
                eprintln!("error: {e:#}");
                code = crate::cli::EXIT_OUTPUT;
            }
        }
    }
    code
}

/// Writes the session as a fixture to `p` (`--record`, issue 24), and the state it starts from
/// beside it when it has one (`<stem>.base.json`, Spec note 131: the loaded file may be gone
/// or saved over by `--state`).
pub(crate) async fn record(node: &NodeHandle, p: &Path) -> Result<()> {
    use cowboy_devnet::scenario::export;
    // Issue 31 item 7: on an immutable copy, off the node's thread.
    let mut out = node.frozen(|c| export::export(c, None)).await??;
    let p = p.to_path_buf();
    tokio::task::spawn_blocking(move || -> Result<()> {
        let file = export::base_file_for(&p);
        out.name_base(&file);
        if let Some(d) = out.base.take() {
            state_file::write(&p.with_file_name(&file), &d)
                .context("the session's base could not be written")?;
        }
        std::fs::write(&p, out.fixture).context("the session could not be written")
    })
    .await
    .context("the record task failed")??;
    Ok(())
}

/// Saves the state to `p` (atomically, see [`state_file::write`]); returns the height saved.
/// A block open with transactions is sealed first (issue 30, Spec note 141: a save never
/// fails because a block is open).
///
/// Issue 31 item 7: the node's thread only takes a copy of the state; the dump and its text
/// are made on a blocking thread and written into the file as they are made.
pub(crate) async fn save(node: &NodeHandle, p: &Path) -> Result<u64> {
    let copy = node.request(SaveState).await?;
    let height = copy.height();
    let p = p.to_path_buf();
    tokio::task::spawn_blocking(move || state_file::write(&p, &copy.dump()))
        .await
        .context("the save task failed")??;
    Ok(height)
}

/// A periodic save: its outcome in `status` (`devnet_head`'s `state_save`), a failure also
/// on stderr (issue 30: never only a log line).
pub(crate) async fn save_reported(node: &NodeHandle, p: &Path, status: Option<&SaveStatus>) {
    match save(node, p).await {
        Ok(h) => {
            if let Some(s) = status {
                s.saved(h);
            }
        }
        Err(e) => {
            let msg = format!("the state could not be saved to {}: {e:#}", p.display());
            eprintln!("error: {msg}");
            if let Some(s) = status {
                s.failed(msg);
            }
        }
    }
}

/// What the API may do beside the node, from the flags (issue 30).
pub(crate) fn api_options(a: &ServeArgs, saves: Option<Arc<SaveStatus>>) -> ApiOptions {
    ApiOptions {
        export_dir: ExportDir::from_flags(a.export_dir.as_deref(), a.state.as_deref()),
        saves,
    }
}

/// Says on stderr what `--host` and `--allow-origin` open (issue 30, Spec note 140).
pub(crate) fn warn_exposure(a: &ServeArgs) {
    if !is_loopback(&a.host) {
        eprintln!(
            "warning: listening on {} exposes the devnet and its dev accounts to the network; \
             use --host 127.0.0.1 unless that is what you want",
            a.host
        );
        if a.allow_remote_writes {
            eprintln!(
                "warning: --allow-remote-writes: anyone who reaches {} may mine, send \
                 transactions, set balances, load states and write exports",
                a.host
            );
        } else {
            eprintln!(
                "note: off loopback this server answers reads only; calls that change the devnet \
                 or write files are refused (RemoteWriteRefused) without --allow-remote-writes"
            );
        }
    }
    if a.allow_origin.iter().any(|o| o.trim() == "*") {
        eprintln!(
            "warning: --allow-origin '*': a page on any web site open in a browser on a machine \
             that reaches this server may call every method of the devnet"
        );
    }
}

/// SIGINT (Ctrl-C) or SIGTERM.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = match signal(SignalKind::terminate()) {
            Ok(s) => s,
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
                return;
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
