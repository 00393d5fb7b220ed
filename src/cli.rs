//! The command line: clap definitions and exit codes.

use clap::{Parser, Subcommand};
use cowboy_devnet::engine::SchedulerKind;
use cowboy_devnet::scenario::MAX_RUN_BLOCKS;
use cowboy_devnet::scenario::builtin::FIXTURES;
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
#[command(
    name = "cowboy-devnet",
    version,
    about = "A local Cowboy devnet with the CIP-5 timer engine",
    long_about = "A local Cowboy devnet with the CIP-5 timer engine.\n\n\
        With no subcommand, on a terminal: the node on fixtures/demo.toml (mined every second), \
        its JSON-RPC server and the dashboard on the same node. Where stdout is not a terminal \
        it plays the demo headless (as `run demo`).",
    args_conflicts_with_subcommands = true,
    // The default command's node flags are `serve`'s, but its defaults are not: a fixture
    // (`demo`) and a block a second (`dashboard::DEFAULT_BLOCK_TIME_MS`).
    mut_arg("fixture", |a| a.help(fixture_help(
        "A fixture file or the name of a shipped fixture (default: demo): its accounts and \
         actors at genesis, its steps played live",
    ))),
    mut_arg("no_mining", |a| a.help(
        "Mine only when asked (a key, or `devnet_mine`); by default a block is sealed every second",
    )),
    mut_arg("block_time", |a| a.help(
        "Seal a block every SECONDS (fractions allowed: 0.5) instead of one a second",
    )),
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Cmd>,
    /// The default command's flags (the dashboard).
    #[command(flatten)]
    pub dash: DashArgs,
}

/// The default command: the node, its JSON-RPC server and the dashboard (issue 15). It takes
/// `serve`'s flags, with a fixture (`demo`) and a block time (1 s) by default.
#[derive(clap::Args, Clone, Debug)]
pub struct DashArgs {
    #[command(flatten)]
    pub node: ServeArgs,
    /// Dashboard theme: the name of one in themes/ or a TOML
    /// file overriding the names it sets.
    #[arg(long, value_name = "NAME|FILE")]
    pub theme: Option<String>,
    /// A TOML key table overriding the keys it names.
    #[arg(long, value_name = "FILE")]
    pub keys: Option<PathBuf>,
    /// Show the dashboard of a devnet already running (`serve`) at URL, through its
    /// JSON-RPC API alone; no node is started.
    #[arg(long, value_name = "URL", conflicts_with_all = ["fixture", "no_mining", "block_time", "state", "load_state", "dump_state", "config_out"])]
    pub attach: Option<String>,
    /// Start with mouse capture off, so the terminal selects and copies text (`m` in the
    /// dashboard turns it on and off).
    #[arg(long)]
    pub no_mouse: bool,
}

#[derive(Subcommand)]
pub enum Cmd {
    /// Replay a fixture headless: a line per block, a summary, and reports.
    Run(RunArgs),
    /// Check a fixture (names, scripts, steps, lengths) without running it: the same
    /// validation `run` does before it plays.
    Check {
        // A fixture file, or the bare name of a shipped fixture.
        #[arg(help = fixture_help("A fixture file, or the bare name of a shipped fixture"))]
        fixture: String,
        /// Set a named variant (repeatable), checked like the fixture's `[variants]`.
        #[arg(long, value_name = "NAME=VALUE")]
        variant: Vec<String>,
    },
    /// List the named variants of the specs' open points: name, values, default, spec section.
    Variants {
        /// Print them as JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the shipped fixtures.
    Fixtures,
    /// Run one fixture under each scheduler (default `fifo,eip1559`; `--schedulers all` for the
    /// five) and each `--with` variant set,
    /// and print one side-by-side table: per actor fires, deferrals, latency p50/p99, fees,
    /// tips; per run burned, tipped, deferrals by reason, lane basefee range.
    Compare(CompareArgs),
    /// Run the devnet live and serve the JSON-RPC API (HTTP and WebSocket on one port).
    Serve(ServeArgs),
    /// Sweep a spec's grid (fixtures x schedulers x variants x parameters): one row per run,
    /// CSV and JSON lines; `plan`, `run --shard K/N` and `merge` for a batch engine
    /// (docs/SWEEP.md).
    Sweep(SweepArgs),
    /// Search for the adversaries' scenario that makes a victim's measure worst, under each
    /// scheduler of a spec; shrink it and write it as a fixture (docs/HUNT.md).
    Hunt(HuntArgs),
}

/// `hunt SPEC`: flags override the spec's fields.
#[derive(clap::Args)]
pub struct HuntArgs {
    /// The hunt's spec (TOML, docs/HUNT.md).
    pub spec: PathBuf,
    /// The folder the worst fixtures go to (one per scheduler: SCHEDULER.toml).
    #[arg(long, value_name = "DIR", default_value = "hunt-out")]
    pub out: PathBuf,
    /// Override the spec's seed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Override the spec's budget.runs.
    #[arg(long)]
    pub runs: Option<u64>,
    /// Override the spec's schedulers (comma-separated, or `all`).
    #[arg(long, value_delimiter = ',')]
    pub schedulers: Vec<String>,
    /// Print the outcome as JSON instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Also draw the outcome to this SVG file: per scheduler the worst measure beside the
    /// baseline, and what the adversaries spent.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    #[command(flatten)]
    pub common: SweepRunFlags,
}

/// `sweep SPEC` (the whole sweep) or one of its steps.
#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct SweepArgs {
    #[command(subcommand)]
    pub step: Option<SweepCmd>,
    /// The sweep's spec (TOML, docs/SWEEP.md).
    pub spec: Option<PathBuf>,
    /// The folder the outputs go to: runs.csv, runs.jsonl and plots/ (each measure against
    /// each parameter swept over numbers, per scheduler).
    #[arg(long, value_name = "DIR", default_value = "sweep-out")]
    pub out: PathBuf,
    #[command(flatten)]
    pub common: SweepRunFlags,
}

/// Flags of the commands that play runs.
#[derive(clap::Args, Clone, Copy)]
pub struct SweepRunFlags {
    /// Play the runs on N threads (0: one per core); the rows are the same for any N.
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=256))]
    pub jobs: u64,
    /// Draw a progress bar on stderr (by default: only when stderr is a terminal).
    #[arg(long)]
    pub progress: bool,
}

#[derive(Subcommand)]
pub enum SweepCmd {
    /// Check a spec and write the list of its runs (a plan, JSON).
    Plan {
        spec: PathBuf,
        /// Where the plan goes (default: stdout).
        #[arg(long, value_name = "FILE.json")]
        out: Option<PathBuf>,
    },
    /// Play one shard of a plan (or of a spec, planned again): the runs i with
    /// i mod N = K - 1. `--shard auto/N` reads K from SLURM_ARRAY_TASK_ID or
    /// JOB_COMPLETION_INDEX (+1).
    Run {
        /// A plan (`sweep plan`'s JSON) or a spec (TOML).
        plan: PathBuf,
        #[arg(long, value_name = "K/N", default_value = "1/1")]
        shard: String,
        /// The shard's output (a header line, then a JSON line per run).
        #[arg(long, value_name = "FILE.jsonl")]
        out: PathBuf,
        #[command(flatten)]
        common: SweepRunFlags,
    },
    /// Join the shards' outputs into runs.csv and runs.jsonl, byte-identical to the sweep run
    /// whole; shards of different plans, a shard twice or missing are refused.
    Merge {
        #[arg(required = true)]
        shards: Vec<PathBuf>,
        #[arg(long, value_name = "DIR", default_value = "sweep-out")]
        out: PathBuf,
    },
    /// Draw one column of a sweep's rows (runs.jsonl) against one swept parameter, a line per
    /// scheduler (and per variant set and value of the other parameters), as SVG.
    Plot {
        /// The rows: a sweep's or a merge's runs.jsonl.
        rows: PathBuf,
        /// The parameter on the x axis (a key of the spec's [params]).
        #[arg(long, value_name = "PARAM")]
        x: String,
        /// The column on the y axis (max_latency_p99, lane_basefee_max, fired, ...).
        #[arg(long, value_name = "COLUMN")]
        y: String,
        #[arg(long, value_name = "FILE.svg")]
        out: PathBuf,
    },
}

/// The node's and the JSON-RPC server's flags, shared by `serve` and the default command
/// (the dashboard): anvil's names where anvil has the flag.
#[derive(clap::Args, Clone, Debug)]
pub struct ServeArgs {
    /// Address to listen on. Anything but loopback exposes the devnet (and its dev accounts)
    /// to the network: a warning says so, and such a server answers only reads (calls that
    /// change the devnet or write files are `RemoteWriteRefused`) unless
    /// --allow-remote-writes is given.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Also accept requests and WebSockets from ORIGIN (repeatable; `*` for any, with a
    /// warning), as anvil's flag. By default only loopback origins (`http://localhost:3000`,
    /// `http://127.0.0.1`, ...) and loopback `Host` names are served: any other is refused
    /// (403), so a page open in your browser cannot drive the devnet.
    #[arg(long, value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,
    /// With a non-loopback --host: also serve the calls that change the devnet or write files
    /// (mining, transactions, balances, snapshots, loads, exports to files) to the network.
    #[arg(long)]
    pub allow_remote_writes: bool,
    /// Where the API writes files (`devnet_exportFixture` with a `path`): a file name only,
    /// under DIR, never over an existing file (a taken name gets a numbered one). Default: an
    /// `exports/` folder beside --state; with neither, the API writes no files.
    #[arg(long, value_name = "DIR")]
    pub export_dir: Option<PathBuf>,
    /// Port to listen on (default 8645); 0 takes a free port (the real one is printed). A port
    /// that is taken is an error (the dashboard, without --port, falls back to a free port
    /// and says so in its status bar).
    #[arg(long, short)]
    pub port: Option<u16>,
    // A fixture file or the name of a shipped fixture: its accounts and actors at genesis.
    #[arg(long, value_name = "FILE|NAME", help = fixture_help(
        "A fixture file or the name of a shipped fixture: its accounts and actors at genesis, \
         its steps played live as blocks are mined",
    ))]
    pub fixture: Option<String>,
    /// Mine only when asked (`devnet_mine`); by default every transaction seals a block.
    #[arg(long, conflicts_with = "block_time")]
    pub no_mining: bool,
    /// Seal a block every SECONDS (fractions allowed: 0.5) instead of one per transaction.
    #[arg(long, short = 'b', value_name = "SECONDS", value_parser = parse_block_time)]
    pub block_time: Option<u64>,
    /// Number of dev accounts.
    #[arg(long, short = 'a', default_value_t = 10, value_parser = clap::value_parser!(u64).range(2..=1000))]
    pub accounts: u64,
    /// Balance of each dev account (a whole number).
    #[arg(
        long,
        value_name = "AMOUNT",
        default_value = "1000000000000000000000000"
    )]
    pub balance: u128,
    /// Load the state from FILE if it exists, save it there every `--state-interval` seconds
    /// and on SIGINT/SIGTERM (atomically: never a torn file). A save seals an open block first,
    /// so it never fails for one; a failed save is printed and shown in `devnet_head`.
    #[arg(long, value_name = "FILE", conflicts_with = "load_state")]
    pub state: Option<PathBuf>,
    /// Seconds between saves of `--state` (fractions allowed).
    #[arg(long, value_name = "SECONDS", default_value = "30", value_parser = parse_block_time, requires = "state")]
    pub state_interval: u64,
    /// Write the state to FILE on exit.
    #[arg(long, value_name = "FILE")]
    pub dump_state: Option<PathBuf>,
    /// Start from the state in FILE (a state file, or what `run --dump` writes).
    #[arg(long, value_name = "FILE")]
    pub load_state: Option<PathBuf>,
    /// The most a state file (--state, --load-state) may hold, in bytes (default 4 GiB);
    /// a larger file, or one that is not a regular file (`/dev/zero`, a pipe), is refused
    /// unread.
    #[arg(long, value_name = "BYTES", default_value_t = cowboy_devnet::rpc::state_file::DEFAULT_MAX_STATE_BYTES)]
    pub max_state_size: u64,
    /// Record the session (issue 24): write it as a fixture to FILE on exit and with each save
    /// of `--state` (`cowboy-devnet run FILE` replays it to the same roots).
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Write the accounts and the address as JSON to FILE at start.
    #[arg(long, value_name = "FILE")]
    pub config_out: Option<PathBuf>,
    /// Heights of history kept in memory: blocks, receipts and events of the last N heights;
    /// older ones are dropped and queries for them answer `HistoryPruned` (like anvil's
    /// `--prune-history`).
    #[arg(long, value_name = "N", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub history: u64,
    /// What the history's checkpoints (the states past reads replay from) may hold in all, in
    /// MiB (issue 31, Spec note 194): past it the older ones are thinned, so a past read of an
    /// old height replays further, and one that alone holds more than this goes, the oldest
    /// too (Spec note 225: state reads below the next answer `StateNotKept`, the blocks stay).
    /// Raise it for fast past reads, and past states back to the history's start, under a
    /// large backlog.
    #[arg(long, value_name = "MIB", default_value_t = (cowboy_devnet::node::DEFAULT_CHECKPOINT_BUDGET >> 20) as u64, value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    pub checkpoint_budget: u64,
    /// What the past states kept for reads at a past height (a `block` param, the dashboard's
    /// past view) may hold in all, in MiB (issue 31, Spec note 198): past it the least
    /// recently read are dropped, and a read of their height replays again.
    #[arg(long, value_name = "MIB", default_value_t = (cowboy_devnet::node::DEFAULT_PAST_BUDGET >> 20) as u64, value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    pub past_budget: u64,
    /// Trace every handler run (issue 32): the host calls, storage writes, printed lines and
    /// end of each call, deploy and fire of the retained history (`devnet_traceTransaction`,
    /// `devnet_traceFire`, `devnet_traceBlock`). Without it a trace is rebuilt on demand by
    /// replaying its block.
    #[arg(long)]
    pub trace: bool,
    /// Snapshots kept at most (the oldest is dropped).
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub snapshots: u64,
    #[command(flatten)]
    pub sched: SchedArgs,
}

/// The scheduler flags (CIP-1 v3 §13.2), shared by `run`, `serve` and the default command.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct SchedArgs {
    /// The scheduler policy (`--help` says what each one is). Default: the fixture's
    /// `[chain] scheduler`.
    #[arg(long, value_name = "SCHEDULER", value_parser = scheduler_parser())]
    pub scheduler: Option<cowboy_devnet::engine::SchedulerKind>,
    // The first height planned by the activated scheduler (the registry names it).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..), help = activation_help())]
    pub activation_height: Option<u64>,
    /// Set a named variant of the specs' open points (repeatable), over the fixture's
    /// `[variants]`: `--variant basefee_step=proportional`. `cowboy-devnet variants` lists them.
    #[arg(long, value_name = "NAME=VALUE")]
    pub variant: Vec<String>,
}

/// `lead`, then the names of the shipped fixtures (`scenario::builtin::FIXTURES`, every
/// `fixtures/*.toml`): the help lists them all, never a hand-kept subset.
/// `--activation-height`'s help, naming the schedulers before and after from the registry.
fn activation_help() -> String {
    format!(
        "The first height planned by {} ({} before it). Default: the fixture's `[chain] activation_height`",
        SchedulerKind::after_activation(),
        SchedulerKind::before_activation().as_str().to_uppercase()
    )
}

fn fixture_help(lead: &str) -> String {
    let names: Vec<&str> = FIXTURES.iter().map(|(n, _)| *n).collect();
    format!("{lead}. Shipped: {}", names.join(", "))
}

/// Seconds, fractions allowed, as milliseconds.
fn parse_block_time(s: &str) -> Result<u64, String> {
    let secs: f64 = s
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds"))?;
    cowboy_devnet::rpc::types::seconds_to_ms(secs)
}

#[derive(clap::Args)]
pub struct RunArgs {
    // A fixture file (any path), or the bare name of a shipped fixture.
    #[arg(help = fixture_help(
        "A fixture file (any path: `my.toml`, `./demo`), or the bare name of a shipped fixture",
    ))]
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
    /// Trace the handler runs (issue 32) and print them after the summary: every call, deploy
    /// and fire, or only the fires of the timers labelled LABEL (repeatable: `--trace=
    /// lifeline`), each host call with its cycles, storage writes, printed lines and the end.
    #[arg(long, value_name = "LABEL", num_args = 0..=1, require_equals = true, default_missing_value = "")]
    pub trace: Option<Vec<String>>,
    #[command(flatten)]
    pub sched: SchedArgs,
    /// Draw the lane basefee and utilisation over the run and each actor's latency to this
    /// SVG file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct CompareArgs {
    // A fixture file, or the bare name of a shipped fixture.
    #[arg(help = fixture_help("A fixture file, or the bare name of a shipped fixture"))]
    pub fixture: String,
    /// The schedulers to run the fixture under, comma-separated, or `all` for every one
    /// (default: the scheduler before an activation and the one after it; with `--with`: the
    /// one after). The one after is active from genesis unless the fixture sets
    /// `[chain] activation_height`.
    #[arg(long, value_delimiter = ',', value_parser = parse_schedulers)]
    pub schedulers: Option<Vec<Vec<SchedulerKind>>>,
    /// Play until this height (default: the fixture's `blocks`).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_RUN_BLOCKS))]
    pub blocks: Option<u64>,
    /// Print the comparison as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Draw the runs' lane basefee, utilisation and per-actor latency to this SVG file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Named variants every run plays with (repeatable).
    #[arg(long, value_name = "NAME=VALUE")]
    pub variant: Vec<String>,
    /// One more run per `--with` (repeatable): under each of the schedulers' last, with the
    /// variants it names, comma-separated (`--with basefee_step=proportional,p50_even=mean`).
    #[arg(long, value_name = "NAME=VALUE[,NAME=VALUE]")]
    pub with: Vec<String>,
    /// Play the runs on N threads (output identical to N = 1).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub jobs: u64,
}

/// `--scheduler`'s parser: the names and summaries of the registry ([`SchedulerKind::ALL`]),
/// so `--help` and the error for a wrong name list every scheduler from the one list (issue
/// 29: the help named three of five).
fn scheduler_parser() -> impl clap::builder::TypedValueParser<Value = SchedulerKind> {
    use clap::builder::{PossibleValue, TypedValueParser};
    let values = SchedulerKind::ALL.map(|k| PossibleValue::new(k.as_str()).help(k.summary()));
    clap::builder::PossibleValuesParser::new(values).map(|s| {
        s.parse::<SchedulerKind>()
            .expect("a possible value names a scheduler")
    })
}

/// One entry of `--schedulers`: a scheduler's name, or `all` for every one in
/// [`SchedulerKind::ALL`]'s order.
fn parse_schedulers(s: &str) -> Result<Vec<SchedulerKind>, String> {
    match s.trim() {
        "all" => Ok(SchedulerKind::ALL.to_vec()),
        one => one.parse().map(|k| vec![k]).map_err(|_| {
            format!(
                "`{s}` is not a scheduler ({})",
                SchedulerKind::names_list(Some("all"))
            )
        }),
    }
}

/// The port served when `--port` is not given.
pub const DEFAULT_PORT: u16 = 8645;

impl ServeArgs {
    /// `--port`, or [`DEFAULT_PORT`].
    pub fn port(&self) -> u16 {
        self.port.unwrap_or(DEFAULT_PORT)
    }
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
            trace: None,
            plot: None,
            sched: SchedArgs::default(),
        }
    }
}
