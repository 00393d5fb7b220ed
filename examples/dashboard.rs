//! The dashboard on an in-process devnet: the shipped demo fixture played to height 20 (its
//! actors deployed, its first timers pending), then mined live every second.
//!
//! `cargo run --example dashboard [-- --theme NAME|FILE] [--keys FILE] [--at HEIGHT]
//! [--block-time SECONDS]`. `NO_COLOR=1` draws in mono.

use cowboy_devnet::chain::runtime::ActorRuntime;
use cowboy_devnet::node::{NodeConfig, NodeCore};
use cowboy_devnet::scenario::{RunOptions, Scenario, builtin};
use cowboy_devnet::tui::keys::KeyMap;
use cowboy_devnet::tui::local::LocalDevnet;
use cowboy_devnet::tui::model::MiningMode;
use cowboy_devnet::tui::theme::Theme;
use cowboy_devnet::vm::DevnetRuntime;
use std::io::IsTerminal;
use std::ops::ControlFlow;
use std::process::ExitCode;
use std::sync::Arc;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let mut theme = None;
    let mut keys = None;
    let mut at = 20;
    let mut block_ms = 1_000;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--theme" => theme = Some(value()?),
            "--keys" => keys = Some(value()?),
            "--at" => at = value()?.parse().map_err(|e| format!("--at: {e}"))?,
            "--block-time" => {
                let s: f64 = value()?.parse().map_err(|e| format!("--block-time: {e}"))?;
                block_ms = (s * 1000.0).round() as u64;
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if !std::io::stdout().is_terminal() {
        return Err("the dashboard needs a terminal (stdout is not one)".into());
    }
    let theme = Theme::select(theme.as_deref(), Theme::no_color_env())?;
    let keys = match keys {
        Some(p) => {
            KeyMap::with_overrides(&std::fs::read_to_string(&p).map_err(|e| format!("{p}: {e}"))?)?
        }
        None => KeyMap::default(),
    };

    let rt = DevnetRuntime::shared();
    let scenario = builtin::scenario("demo", &DevnetRuntime::new())
        .expect("the demo fixture ships")
        .map_err(|e| e.to_string())?;
    let devnet = play(&scenario, rt, at)?;
    let source = LocalDevnet::new(devnet, scenario.address_book())
        .with_mining(MiningMode::Interval { ms: block_ms });
    cowboy_devnet::tui::run(
        source,
        cowboy_devnet::tui::RunOptions {
            theme,
            keys,
            ..Default::default()
        },
    )
    .map_err(|e| e.to_string())
}

/// The fixture played up to block `at` (the first block at or after it, if an outage skips it);
/// its later steps are not played. The run is the fixture's whole length (or `at`, if longer),
/// stopped after that block: a run shorter than the fixture's steps and expectations makes the
/// fixture broken (Spec note 24), and such a run plays nothing.
fn play(scenario: &Scenario, rt: Arc<dyn ActorRuntime>, at: u64) -> Result<NodeCore, String> {
    let keep_blocks = cowboy_devnet::chain::DEFAULT_KEEP_BLOCKS;
    if at == 0 {
        let cfg = NodeConfig::headless(scenario.genesis().clone(), rt, keep_blocks);
        return NodeCore::new(cfg).map_err(|e| e.to_string());
    }
    let (report, devnet) = scenario
        .run_with(
            rt,
            RunOptions {
                blocks: Some(at.max(scenario.default_blocks)),
                skip_rows: true,
                keep_blocks: Some(keep_blocks),
            },
            &mut |b, _| {
                if b.header.height >= at {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
        )
        .map_err(|e| e.to_string())?;
    match report.refused {
        Some(why) => Err(why),
        None => Ok(devnet),
    }
}
