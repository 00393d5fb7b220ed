//! Plays a prepared fixture on a devnet node, headless: deploys and steps at their heights as
//! node requests, a block mined per height, the expectations checked, a report. Checking a fixture is in
//! `validate.rs`, a step's command in `translate.rs`, the expectations in `expect.rs`.

use super::fixture::Metric;
use super::fixture::{Expect, Step};
use super::report::{ActorTally, BlockRow, ExpectationResult, Report, StepOutcome, Summary};
use super::translate::{StepContext, command_for};
use crate::chain::runtime::{ActorCode, ActorRuntime};
use crate::chain::{Block, Chain, ChainDump, EventRecord, Genesis, Receipt, Transaction, TxKind};
use crate::engine::scheduler::kind::{Activation, Weights};
use crate::engine::scheduler::variants::Variants;
use crate::engine::{Address, Failure, SchedulerKind, TimerError, TimerId};
use crate::node::{Halt, LoadState, Mine, NodeConfig, NodeCore, NodeError, SendTx};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;
use std::sync::Arc;

pub use super::expect::timer_status;
pub use super::gov_set::{GovSet, MergeConfigError, check_gov_set, merge_config, merge_gov_set};
pub use super::scripts::{ScriptLoadError, ScriptLoader, disk_loader};

pub(super) struct PreparedActor {
    pub(super) name: String,
    pub(super) address: Address,
    pub(super) code: ActorCode,
    pub(super) deployer: Address,
    pub(super) endowment: u128,
    /// The deploy leaves the address to the chain (it lands at `address`).
    pub(super) derived: bool,
    pub(super) at: u64,
    pub(super) line: usize,
    /// Where it is in the fixture's `[[actors]]`, for errors found later.
    pub(super) index: usize,
    pub(super) span: std::ops::Range<usize>,
}

pub(super) struct PreparedStep {
    /// Where it is in the fixture's `[[steps]]` (from 0).
    pub(super) index: usize,
    pub(super) line: usize,
    pub(super) step: Step,
}

pub(super) struct PreparedExpect {
    /// Where it is in the fixture's `[[expect]]` (from 0).
    pub(super) index: usize,
    pub(super) line: usize,
    pub(super) expect: Expect,
}

/// A fixture checked and ready to play.
pub struct Scenario {
    pub path: String,
    pub name: String,
    pub description: String,
    pub default_blocks: u64,
    pub(super) genesis: Genesis,
    /// The state the fixture starts from (`base`, issue 24); `genesis` is then the base's.
    pub(super) base: Option<super::base::Base>,
    pub(super) names: BTreeMap<String, Address>,
    pub(super) actors: Vec<PreparedActor>,
    pub(super) steps: Vec<PreparedStep>,
    pub(super) expects: Vec<PreparedExpect>,
    /// Trace every handler run (`run --trace`, issue 32); the traces stay on the node.
    pub trace: bool,
    /// Commit the state root once, at the end of the run, not per block (issue 33: a hunt's
    /// runs; `Chain::defer_roots`). The outcomes and the final state root are those of a run
    /// with per-block roots; the block hashes are not. Ignored when an expectation names a
    /// state root.
    pub final_root_only: bool,
}

/// Options of one run.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunOptions {
    /// Play until this height (default: the fixture's `blocks`).
    pub blocks: Option<u64>,
    /// Keep no per-block rows (the report's `blocks` stays empty, the summary still counts
    /// every block): memory then follows the events, not the blocks.
    pub skip_rows: bool,
    /// Sealed blocks the run's chain keeps (`None`: [`RUN_KEEP_BLOCKS`], enough for the
    /// runner, which reads only the last; a front end that browses the history asks for more).
    pub keep_blocks: Option<usize>,
}

/// The most blocks one run plays (`blocks` in a fixture, `--blocks`): about 10 minutes of
/// empty blocks in a release build.
pub const MAX_RUN_BLOCKS: u64 = 100_000_000;

/// Sealed blocks the chain of a run keeps in memory (the runner reads only the last).
pub const RUN_KEEP_BLOCKS: usize = 16;

impl Scenario {
    /// Whether a `trace` expectation (issue 32) needs the runs traced.
    pub fn needs_tracing(&self) -> bool {
        self.expects.iter().any(|e| e.expect.trace.is_some())
    }

    pub fn genesis(&self) -> &Genesis {
        &self.genesis
    }

    /// The state the fixture starts from (`base`), if it names one.
    pub fn base(&self) -> Option<&super::base::Base> {
        self.base.as_ref()
    }

    /// Address of a fixture name.
    pub fn address(&self, name: &str) -> Option<Address> {
        self.names.get(name).copied()
    }

    /// Plays the fixture under `scheduler` alone (`compare`): `eip1559` from the fixture's
    /// `[chain] activation_height`, or from genesis without one; `fifo` never switched (the
    /// fixture's activation height is dropped).
    /// A fixture with a `base` plays under the base's scheduler (its state holds it).
    pub fn play_under(&mut self, scheduler: SchedulerKind) {
        if self.base.is_some() {
            return;
        }
        self.genesis.scheduler = scheduler;
        if scheduler.facts().activation != Activation::After {
            self.genesis.activation_height = None;
        }
    }

    /// Sets named variants (`--variant NAME=VALUE`, `compare --with`) over the fixture's
    /// `[variants]`; a bad name or value is `InvalidInput` and changes nothing.
    pub fn set_variants<S: AsRef<str>>(&mut self, pairs: &[S]) -> Result<(), TimerError> {
        let mut v = self.genesis.cip1.variants;
        for p in pairs {
            v.set_pair(p.as_ref())?;
        }
        if let Some(b) = &self.base
            && v != self.genesis.cip1.variants
        {
            return Err(TimerError::InvalidInput(format!(
                "the fixture starts from its base {}, whose variants are part of its state (Spec note 130): a variant cannot be changed over it",
                b.file
            )));
        }
        self.genesis.cip1.variants = v;
        Ok(())
    }

    /// The named variants in force.
    pub fn variants(&self) -> Variants {
        self.genesis.cip1.variants
    }

    /// The scheduler(s) the run plays under, as a label: `fifo`, `eip1559`, or
    /// `fifo→eip1559@H` for an activation at height H > 1.
    pub fn scheduler_label(&self) -> String {
        let k = self.genesis.scheduler;
        let (before, after) = (
            SchedulerKind::before_activation(),
            SchedulerKind::after_activation(),
        );
        match (k.facts().activation, self.genesis.activation_height) {
            (Activation::Alone, _) => k.as_str().into(),
            (Activation::After, None | Some(1)) | (Activation::Before, Some(1)) => {
                after.as_str().into()
            }
            (_, Some(h)) => format!("{before}→{after}@{h}"),
            (_, None) => k.as_str().into(),
        }
    }

    /// The fixture's names by address (accounts, actors, `governance`, `proposer`).
    pub fn address_book(&self) -> BTreeMap<Address, String> {
        self.names.iter().map(|(n, a)| (*a, n.clone())).collect()
    }
}

/// A run in progress: what the report collects.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct Run {
    pub(super) labels: BTreeMap<String, TimerId>,
    pub(super) outcomes: Vec<StepOutcome>,
    rows: Vec<BlockRow>,
    skip_rows: bool,
    pub(super) events: Vec<EventRecord>,
    checks: Vec<ExpectationResult>,
    totals: Totals,
    funds_conserved: bool,
    refused: Option<String>,
    /// Hex addresses and the fixture's names for them, to name them in errors.
    book: Vec<(String, String)>,
    /// The deployer of each actor, by name.
    deployers: BTreeMap<String, Address>,
    /// The last row's blocks had no events (so an empty block may join it).
    last_row_eventless: bool,
    /// Per-actor fires, deferrals, latencies and fees.
    pub(super) tally: ActorTally,
    /// The heights whose block figures a `metric` expectation reads.
    wanted_rows: BTreeSet<u64>,
    /// Those blocks' figures.
    pub(super) block_figures: BTreeMap<u64, BlockRow>,
}

/// Counts over every block of a run.
#[derive(Clone, Default, serde::Serialize, serde::Deserialize)]
struct Totals {
    blocks: u64,
    fired: u64,
    deferred: u64,
    expired: u64,
    unfunded: u64,
    full_lane_blocks: u64,
}

/// How one step went.
enum Applied {
    /// It did what it asks; a schedule names its timer.
    Done { timer: Option<TimerId> },
    /// It failed with this error (its message naming addresses by the fixture's names).
    Failed(Failure),
}

impl Run {
    pub(super) fn new(s: &Scenario, opts: RunOptions, funds_conserved: bool) -> Self {
        Run {
            labels: BTreeMap::new(),
            outcomes: Vec::new(),
            rows: Vec::new(),
            skip_rows: opts.skip_rows,
            events: Vec::new(),
            checks: Vec::new(),
            totals: Totals::default(),
            funds_conserved,
            refused: None,
            book: s
                .names
                .iter()
                .map(|(n, a)| (a.to_string(), n.clone()))
                .collect(),
            deployers: s
                .actors
                .iter()
                .map(|a| (a.name.clone(), a.deployer))
                .chain(s.names.iter().filter_map(|(n, a)| {
                    let d = s.base.as_ref()?.deployer(a)?;
                    Some((n.clone(), d))
                }))
                .collect(),
            last_row_eventless: false,
            tally: ActorTally::default(),
            wanted_rows: s
                .expects
                .iter()
                .filter(|e| {
                    e.expect
                        .metric
                        .as_deref()
                        .and_then(Metric::parse)
                        .is_some_and(Metric::of_block)
                })
                .flat_map(|e| [e.expect.at, e.expect.above_at, e.expect.below_at])
                .flatten()
                .collect(),
            block_figures: BTreeMap::new(),
        }
    }

    /// A failure whose message names addresses by the fixture's names.
    fn named_failure(&self, f: Failure) -> Failure {
        Failure {
            message: self.named(f.message),
            ..f
        }
    }

    /// An error message with the fixture's names for the addresses it holds.
    fn named(&self, msg: String) -> String {
        let mut msg = msg;
        for (hex, name) in &self.book {
            if msg.contains(hex.as_str()) {
                msg = msg.replace(hex.as_str(), &format!("`{name}`"));
            }
        }
        msg
    }

    /// What a request did (its receipt, if it sent a transaction), its error named by the
    /// fixture's names.
    fn applied(&self, r: Result<Option<Receipt>, NodeError>) -> Applied {
        match r {
            Ok(Some(r)) if r.success => Applied::Done {
                timer: r.timers.first().copied(),
            },
            Ok(Some(r)) => {
                let f = r.error.clone().expect("a failed receipt carries its error");
                Applied::Failed(self.named_failure(f))
            }
            Ok(None) => Applied::Done { timer: None },
            Err(e) => Applied::Failed(self.named_failure(e.failure())),
        }
    }

    /// Records the quiet heights `first..=last` (empty blocks) in one step: the totals count
    /// them, and they join the report's rows as one row (a run of empty blocks), as they would
    /// one by one.
    pub(super) fn record_quiet(&mut self, first: u64, last: u64, chain: &Chain) {
        let count = last - first + 1;
        self.totals.blocks = self.totals.blocks.saturating_add(count);
        if self.skip_rows {
            return;
        }
        let b = chain.block(last).expect("a quiet height of the chain's");
        let row = BlockRow {
            height: first,
            count,
            ..BlockRow::of(&b)
        };
        match self.rows.last_mut() {
            Some(prev) if self.last_row_eventless && prev.absorbs(&row) => prev.absorb(&row),
            _ => {
                self.rows.push(row);
                self.last_row_eventless = true;
            }
        }
    }

    pub(super) fn record_block(&mut self, b: &Block) {
        let row = BlockRow::of(b);
        self.tally.record(&b.events);
        if self.wanted_rows.contains(&b.header.height) {
            self.block_figures.insert(b.header.height, row.clone());
        }
        let t = &mut self.totals;
        t.full_lane_blocks += u64::from(row.lane_full);
        t.blocks = t.blocks.saturating_add(1);
        t.fired = t.fired.saturating_add(b.eob.fired);
        t.deferred = t.deferred.saturating_add(b.eob.deferred);
        t.expired = t.expired.saturating_add(b.eob.expired);
        t.unfunded = t.unfunded.saturating_add(b.eob.unfunded);
        self.events.extend(b.events.iter().cloned());
        if self.skip_rows {
            return;
        }
        let eventless = b.events.is_empty();
        match self.rows.last_mut() {
            Some(prev) if eventless && self.last_row_eventless && prev.absorbs(&row) => {
                prev.absorb(&row)
            }
            _ => {
                self.rows.push(row);
                self.last_row_eventless = eventless;
            }
        }
    }
}

/// What a run hands to its observer ([`Scenario::run_jumping`]): the node's steps of sealing.
pub use crate::node::MineStep as Played;

impl Scenario {
    /// Plays the fixture on a fresh devnet. `on_block` sees every sealed block.
    pub fn run(
        &self,
        runtime: Arc<dyn ActorRuntime>,
        opts: RunOptions,
        on_block: &mut dyn FnMut(&Block, &Chain),
    ) -> Result<Report, NodeError> {
        self.run_devnet(runtime, opts, on_block).map(|(r, _)| r)
    }

    /// [`run`](Self::run), also handing back the node as the run left it.
    pub fn run_devnet(
        &self,
        runtime: Arc<dyn ActorRuntime>,
        opts: RunOptions,
        on_block: &mut dyn FnMut(&Block, &Chain),
    ) -> Result<(Report, NodeCore), NodeError> {
        self.run_with(runtime, opts, &mut |b, c| {
            on_block(b, c);
            ControlFlow::Continue(())
        })
    }

    /// [`run_devnet`](Self::run_devnet) where `on_block` may end the run after any block
    /// (`ControlFlow::Break`: the report covers the blocks played). A run that the fixture's
    /// length or a refused command stops is reported with [`Report::refused`] naming the
    /// fixture's file, line and field; the summary covers the blocks played. Every height is
    /// sealed and handed out one by one; [`run_jumping`](Self::run_jumping) plays the same run
    /// with quiet heights jumped.
    pub fn run_with(
        &self,
        runtime: Arc<dyn ActorRuntime>,
        opts: RunOptions,
        on_block: &mut dyn FnMut(&Block, &Chain) -> ControlFlow<()>,
    ) -> Result<(Report, NodeCore), NodeError> {
        self.play(runtime, opts, false, &mut |step, chain| match step {
            Played::Block(b) => on_block(b, chain),
            Played::Quiet { first, last } => {
                for h in first..=last {
                    let b = chain.block(h).expect("a height just sealed");
                    on_block(&b, chain)?;
                }
                ControlFlow::Continue(())
            }
        })
    }

    /// [`run_with`](Self::run_with) with the heights where the fixture does nothing (no
    /// deploy, step or state expectation) mined in one node request each, whose quiet heights
    /// are jumped (see `chain::quiet`): a run of a million empty heights costs what its busy
    /// heights cost. `on_step` sees every block where something happened and each run of
    /// quiet heights as one [`Played::Quiet`] (`Chain::block` rebuilds any of its blocks), and
    /// may end the run after any of them. The report, the roots and the hashes are those of
    /// `run_with`.
    pub fn run_jumping(
        &self,
        runtime: Arc<dyn ActorRuntime>,
        opts: RunOptions,
        on_step: &mut dyn FnMut(Played<'_>, &Chain) -> ControlFlow<()>,
    ) -> Result<(Report, NodeCore), NodeError> {
        self.play(runtime, opts, true, on_step)
    }

    fn play(
        &self,
        runtime: Arc<dyn ActorRuntime>,
        opts: RunOptions,
        jump: bool,
        on_step: &mut dyn FnMut(Played<'_>, &Chain) -> ControlFlow<()>,
    ) -> Result<(Report, NodeCore), NodeError> {
        let mut devnet = NodeCore::new(NodeConfig::headless(
            self.genesis.clone(),
            runtime,
            opts.keep_blocks.unwrap_or(RUN_KEEP_BLOCKS),
        ))?;
        if let Some(b) = &self.base {
            devnet.apply(LoadState(Box::new(ChainDump::clone(&b.dump))))?;
            while devnet.poll_event().is_some() {}
        }
        devnet.set_tracing(self.trace || self.needs_tracing());
        let final_root_only =
            self.final_root_only && self.expects.iter().all(|pe| pe.expect.state_root.is_none());
        if final_root_only {
            devnet.defer_roots();
        }
        let last = opts.blocks.unwrap_or(self.default_blocks);
        let mut run = Run::new(self, opts, devnet.chain().funds_conserved());
        // State expectations by height, checked after their block (or, for a height an
        // outage skips, with the state the outage holds).
        let mut state_at: BTreeMap<u64, Vec<&PreparedExpect>> = BTreeMap::new();
        let is_state = |e: &&PreparedExpect| e.expect.kind.is_none() && e.expect.trace.is_none();
        for pe in self.expects.iter().filter(is_state) {
            if let Some(at) = pe.expect.at {
                state_at.entry(at).or_default().push(pe);
            }
        }
        if let Err(e) = self.check_length(last) {
            run.refused = Some(e.to_string());
        }
        let deploys: BTreeSet<u64> = self.actors.iter().map(|a| a.at).collect();
        let mut step_idx = 0;
        while run.refused.is_none() && devnet.chain().pending_height() <= last {
            let h = devnet.chain().pending_height();
            let skipped: Vec<_> = state_at.range(..h).map(|(k, _)| *k).collect();
            for at in skipped {
                for pe in state_at.remove(&at).unwrap_or_default() {
                    let c = self.check_state(pe, devnet.chain(), &run);
                    run.checks.push(c);
                }
            }
            // The heights before the fixture's next deploy, step or state expectation: one
            // request, its quiet heights jumped.
            let busy = [
                deploys.range(h..).next().copied(),
                self.steps.get(step_idx).map(|ps| ps.step.at()),
                state_at.range(h..).next().map(|(at, _)| *at),
            ];
            let until = busy
                .into_iter()
                .flatten()
                .fold(last, |m, at| m.min(at.saturating_sub(1)));
            if jump && until >= h {
                let mut stop = false;
                devnet.mine_with(until - h + 1, &mut |step, chain| {
                    match step {
                        Played::Block(b) => {
                            run.funds_conserved &= chain.funds_conserved();
                            run.record_block(b);
                        }
                        Played::Quiet { first, last } => run.record_quiet(first, last, chain),
                    }
                    let flow = on_step(step, chain);
                    stop = flow.is_break();
                    flow
                });
                while devnet.poll_event().is_some() {}
                if stop {
                    break;
                }
                continue;
            }
            self.deploy_actors(h, &mut devnet, &mut run);
            let halt = self.play_steps(h, &mut step_idx, &mut devnet, &mut run);
            let block = devnet.apply(Mine { blocks: 1 })?.head;
            // The run reads its blocks as they come; the node's notifications are not needed.
            while devnet.poll_event().is_some() {}
            let chain = devnet.chain();
            run.funds_conserved &= chain.funds_conserved();
            run.record_block(&block);
            let flow = on_step(Played::Block(&block), chain);
            for pe in state_at.remove(&h).unwrap_or_default() {
                let c = self.check_state(pe, chain, &run);
                run.checks.push(c);
            }
            if flow.is_break() {
                break;
            }
            if let Some((blocks, ps)) = halt
                && let Err(e) = devnet.apply(Halt { blocks })
            {
                let msg = run.named(e.to_string());
                run.refused = Some(format!(
                    "{}:{}: steps[{}].blocks: {msg}",
                    self.path,
                    ps.line,
                    ps.index + 1
                ));
            }
        }
        // State expectations no block reached (at the base's height with nothing played).
        let height = devnet.chain().height();
        for pe in state_at.range(..=height).flat_map(|(_, v)| v) {
            let c = self.check_state(pe, devnet.chain(), &run);
            run.checks.push(c);
        }
        let traced = self.check_traces(&devnet, &run.labels);
        run.checks.extend(traced);
        let mut report = self.finish(run, devnet.chain());
        if final_root_only {
            report.summary.final_state_root = devnet.settle_roots();
        }
        Ok((report, devnet))
    }

    /// Deploys the actors due at height `h`.
    pub(super) fn deploy_actors(&self, h: u64, devnet: &mut NodeCore, run: &mut Run) {
        for a in self.actors.iter().filter(|a| a.at == h) {
            let tx = Transaction::new(
                a.deployer,
                TxKind::Deploy {
                    address: (!a.derived).then_some(a.address),
                    code: a.code.clone(),
                    endowment: a.endowment,
                },
            );
            let sent = devnet.apply(SendTx(tx)).map(|o| Some(o.receipt));
            let (ok, error) = match run.applied(sent) {
                Applied::Done { .. } => (true, None),
                Applied::Failed(f) => (false, Some(f)),
            };
            run.outcomes.push(StepOutcome {
                at: h,
                line: a.line,
                action: format!("deploy {}", a.name),
                ok,
                as_expected: ok,
                error,
            });
        }
    }

    /// Plays the steps due at height `h`; returns the outage they ask for after the block
    /// (its length and the last `halt` step, which a refusal names).
    pub(super) fn play_steps<'s>(
        &'s self,
        h: u64,
        step_idx: &mut usize,
        devnet: &mut NodeCore,
        run: &mut Run,
    ) -> Option<(u64, &'s PreparedStep)> {
        let mut halt: Option<(u64, &PreparedStep)> = None;
        while *step_idx < self.steps.len() && self.steps[*step_idx].step.at() <= h {
            let ps = &self.steps[*step_idx];
            *step_idx += 1;
            if let Step::Halt { blocks, .. } = ps.step {
                let total = halt.map_or(blocks, |(b, _)| b.saturating_add(blocks));
                halt = Some((total, ps));
            }
            let applied = self.apply_step(ps, h, devnet, run);
            if let (Applied::Done { timer: Some(id) }, Some(l)) = (&applied, ps.step.timer_label())
            {
                run.labels.insert(l.clone(), *id);
            }
            let as_expected = match (ps.step.expect_error(), &applied) {
                (None, Applied::Done { .. }) => true,
                (Some(want), Applied::Failed(f)) => f.kind.as_str() == want,
                _ => false,
            };
            let (ok, error) = match applied {
                Applied::Done { .. } => (true, None),
                Applied::Failed(f) => (false, Some(f)),
            };
            run.outcomes.push(StepOutcome {
                at: h,
                line: ps.line,
                action: ps.step.action().into(),
                ok,
                error,
                as_expected,
            });
        }
        halt
    }

    /// Applies one step.
    fn apply_step(
        &self,
        ps: &PreparedStep,
        h: u64,
        devnet: &mut NodeCore,
        run: &mut Run,
    ) -> Applied {
        let cx = StepContext {
            height: h,
            names: &self.names,
            deployers: &run.deployers,
            labels: &run.labels,
            config: devnet.chain().timer_config(),
            scheduler: devnet.chain().engine().next_scheduler_params(),
            draft: devnet.chain().engine().next_draft_params(),
        };
        let cmd = match command_for(&ps.step, &cx) {
            Ok(Some(cmd)) => cmd,
            Ok(None) => return Applied::Done { timer: None },
            Err(e) => return Applied::Failed(Failure::from(&e)),
        };
        // One path for every front end: the step's command, executed.
        let r = devnet.execute(cmd).map(|reply| match reply {
            crate::node::CommandReply::Receipt(r) => Some(r.receipt),
            crate::node::CommandReply::Scheduled(s) => Some(s.receipt.receipt),
            _ => None,
        });
        run.applied(r)
    }

    /// The report of a run: the event expectations, the state expectations left, the summary.
    fn finish(&self, mut run: Run, chain: &Chain) -> Report {
        for pe in &self.expects {
            if pe.expect.trace.is_some() {
                // Checked against the node's traces before (`check_traces`).
            } else if pe.expect.kind.is_some() {
                run.checks
                    .push(self.check_events(pe, &run.labels, &run.events));
            } else if pe.expect.at.is_none_or(|a| a > chain.height()) {
                let c = self.check_state(pe, chain, &run);
                run.checks.push(c);
            }
        }
        run.checks.sort_by_key(|c| c.line);
        let mut by_kind: BTreeMap<String, u64> = BTreeMap::new();
        for e in &run.events {
            *by_kind
                .entry(e.event.kind().as_str().to_string())
                .or_default() += 1;
        }
        let t = &run.totals;
        let summary = Summary {
            blocks: t.blocks,
            final_height: chain.height(),
            final_state_root: chain.head().state_root,
            events_by_kind: by_kind,
            fired: t.fired,
            deferred: t.deferred,
            expired: t.expired,
            unfunded: t.unfunded,
            pending: chain.engine().queue().len() as u64,
            supply: chain.supply(),
            burned: chain.burned(),
            tipped: run.tally.tips(),
            full_lane_blocks: t.full_lane_blocks,
            funds_conserved: run.funds_conserved,
            unexpected_step_errors: run.outcomes.iter().filter(|o| !o.as_expected).count() as u64,
            expectations_passed: run.checks.iter().filter(|c| c.passed).count() as u64,
            expectations_failed: run.checks.iter().filter(|c| !c.passed).count() as u64,
        };
        Report {
            fixture: self.path.clone(),
            name: self.name.clone(),
            description: self.description.clone(),
            scheduler: self.scheduler_label(),
            variants: self.genesis.cip1.variants.named(),
            refused: run.refused,
            summary,
            expectations: run.checks,
            steps: run.outcomes,
            actors: run
                .tally
                .rows(&self.address_book(), &|a| weight_bps(chain, a)),
            blocks: run.rows,
            events: run.events,
            labels: run.labels,
        }
    }
}

/// W(actor) in basis points (CIP-1 v3 §8), when the chain keeps a fairness window.
/// W(actor) in basis points (CIP-1 v3 §8) once eip1559 plans the blocks; `None` before
/// (FIFO keeps no fairness window).
pub fn weight_bps(chain: &Chain, actor: &Address) -> Option<u32> {
    (chain.scheduler_at(chain.height().max(1)).facts().weights == Weights::Window)
        .then(|| chain.engine().policies().weight_bps(actor))
}
