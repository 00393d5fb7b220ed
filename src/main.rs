//! `cowboy-devnet`: a local Cowboy chain with the CIP-5 timer engine.
//!
//! With no subcommand, on a terminal, it opens the dashboard on a live node playing the demo
//! (`dashboard.rs`); where stdout is not a terminal it plays the demo headless. The command
//! line is in `cli.rs`, the commands in `commands.rs`; the lines printed per block and per
//! event are the library's (`scenario::lines`).

mod cli;
mod commands;
mod compare;
mod dashboard;
mod hunt;
mod serve;
mod sweep;

use clap::Parser;
use cli::{Cli, Cmd, EXIT_FIXTURE, EXIT_OK, EXIT_USAGE, RunArgs};
use commands::Out;
use std::io::IsTerminal;
use std::process::ExitCode;

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            // `--help` and `--version` print to stdout and succeed; a usage error has its own
            // code, apart from a broken fixture.
            let code = if e.use_stderr() { EXIT_USAGE } else { EXIT_OK };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let mut out = Out::stdout();
    let result = match cli.command {
        None if cli.dash.attach.is_some() || std::io::stdout().is_terminal() => {
            dashboard::dashboard(cli.dash)
        }
        None => {
            eprintln!(
                "cowboy-devnet: stdout is not a terminal: playing the demo headless \
                 (on a terminal, `cowboy-devnet` opens the dashboard)"
            );
            commands::run(RunArgs::demo(), &mut out)
        }
        Some(Cmd::Run(a)) => commands::run(a, &mut out),
        Some(Cmd::Check { fixture, variant }) => commands::check(&fixture, &variant, &mut out),
        Some(Cmd::Variants { json }) => {
            commands::list_variants(json, &mut out);
            Ok(EXIT_OK)
        }
        Some(Cmd::Serve(a)) => serve::serve(a),
        Some(Cmd::Compare(a)) => compare::compare(a, &mut out),
        Some(Cmd::Sweep(a)) => sweep::sweep(a, &mut out),
        Some(Cmd::Hunt(a)) => hunt::hunt(a, &mut out),
        Some(Cmd::Fixtures) => {
            commands::list_fixtures(&mut out);
            Ok(EXIT_OK)
        }
    };
    let code = match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            EXIT_FIXTURE
        }
    };
    ExitCode::from(out.finish().unwrap_or(code))
}
