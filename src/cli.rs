//! The command line: clap definitions and exit codes.

use clap::{Parser, Subcommand};
use cowboy_devnet::scenario::MAX_RUN_BLOCKS;
use std::path::PathBuf;

/// Every expectation held and every step did what it should.
pub const EXIT_OK: u8 = 0;
/// The run played, but an expectation failed or a step did not do what it should.
pub const EXIT_FAILED: u8 = 1;
/// The fixture is broken (or a run was refused): the message names file, line and field.
pub const EXIT_FIXTURE: u8 = 2;
/// An output (stdout, `--report`, `--csv`, `--dump`) could not be written.
pub const EXIT_OUTPUT: u8 = 3;
/// The command line itself is wrong (unknown flag, missing argument): `EX_USAGE` of sysexits.
pub const EXIT_USAGE: u8 = 64;

#[derive(Parser)]
#[command(name = "cowboy-devnet", version, about = "A local Cowboy devnet with the CIP-5 timer engine", long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Cmd>,
}

#[derive(Subcommand)]
pub enum Cmd {
    /// Replay a fixture headless: a line per block, a summary, and reports.
    Run(RunArgs),
    /// Check a fixture (names, scripts, steps, lengths) without running it: the same
    /// validation `run` does before it plays.
    Check {
        /// A fixture file, or the bare name of a shipped fixture (demo, heartbeat, ...).
        fixture: String,
    },
    /// List the shipped fixtures.
    Fixtures,
}

#[derive(clap::Args)]
pub struct RunArgs {
    /// A fixture file (any path: `my.toml`, `./demo`), or the bare name of a shipped fixture
    /// (demo, heartbeat, storm, outage, drain, governance).
    pub fixture: String,
    /// Play until this height (default: the fixture's `blocks`).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_RUN_BLOCKS))]
    pub blocks: Option<u64>,
    /// Write the JSON report (every block and every event) here.
    #[arg(long, value_name = "FILE.json")]
    pub report: Option<PathBuf>,
    /// Write one CSV row per block here.
    #[arg(long, value_name = "FILE.csv")]
    pub csv: Option<PathBuf>,
    /// Write the final chain state here (JSON, `Chain::load` reads it back).
    #[arg(long, value_name = "FILE.json")]
    pub dump: Option<PathBuf>,
    /// Print every event under its block.
    #[arg(long)]
    pub events: bool,
    /// Only the summary.
    #[arg(long, short)]
    pub quiet: bool,
    /// Draw a progress bar on stderr (by default: only when stderr is a terminal and stdout
    /// is not, for runs of 200 blocks or more).
    #[arg(long)]
    pub progress: bool,
}

impl RunArgs {
    /// What `cowboy-devnet` with no arguments plays.
    pub fn demo() -> Self {
        RunArgs {
            fixture: "demo".into(),
            blocks: None,
            report: None,
            csv: None,
            dump: None,
            events: true,
            quiet: false,
            progress: false,
        }
    }
}
