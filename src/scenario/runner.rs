//! Turns a fixture into node commands and plays it, headless.

use super::fixture::{Expect, FixtureError, LoadedFixture, Step};
use super::report::{BlockRow, ExpectationResult, Report, StepOutcome, Summary};
use crate::chain::runtime::{ActorCode, ActorRuntime};
use crate::chain::{
    Block, Chain, Event, EventRecord, Genesis, GenesisAccount, SystemInstruction, TimerOp,
    Transaction, TxKind, default_governor,
};
use crate::engine::timer::handler_payload;
use crate::engine::{Address, ScheduleArgs, TimerConfig, TimerEvent, TimerId};
use crate::node::{Command, Devnet, NodeError, Outcome};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Reads a script named by a fixture (a path relative to the fixture).
pub type ScriptLoader<'a> = dyn Fn(&LoadedFixture, &str) -> Result<String, String> + 'a;

/// Reads scripts from disk, relative to the fixture's directory.
pub fn disk_loader(f: &LoadedFixture, rel: &str) -> Result<String, String> {
    let p = match &f.dir {
        Some(d) => d.join(rel),
        None => rel.into(),
    };
    std::fs::read_to_string(&p).map_err(|e| format!("cannot read {}: {e}", p.display()))
}

struct PreparedActor {
    name: String,
    address: Address,
    code: ActorCode,
    deployer: Address,
    endowment: u128,
    at: u64,
    line: usize,
    /// Where it is in the fixture's `[[actors]]`, for errors found later.
    index: usize,
    span: std::ops::Range<usize>,
}

struct PreparedStep {
    line: usize,
    step: Step,
}

struct PreparedExpect {
    line: usize,
    expect: Expect,
}

/// A fixture checked and ready to play.
pub struct Scenario {
    pub path: String,
    pub name: String,
    pub description: String,
    pub default_blocks: u64,
    genesis: Genesis,
    names: BTreeMap<String, Address>,
    actors: Vec<PreparedActor>,
    steps: Vec<PreparedStep>,
    expects: Vec<PreparedExpect>,
}

/// Options of one run.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunOptions {
    /// Play until this height (default: the fixture's `blocks`).
    pub blocks: Option<u64>,
}

const STATUSES: [&str; 6] = [
    "pending",
    "fired",
    "expired",
    "unfunded",
    "cancelled",
    "cancelled_by_governance",
];

impl Scenario {
    /// Checks a parsed fixture against itself and the runtime: every name resolves, every
    /// script compiles, every step is well-formed. Errors name the file, line and field.
    pub fn prepare(
        lf: &LoadedFixture,
        runtime: &dyn ActorRuntime,
        load_script: &ScriptLoader<'_>,
    ) -> Result<Scenario, FixtureError> {
        let f = &lf.fixture;
        let mut names: BTreeMap<String, Address> = BTreeMap::new();
        names.insert("governance".into(), default_governor());
        names.insert("proposer".into(), Address::from_label("proposer"));
        let mut genesis = Genesis::default();
        let mut explicit = std::collections::BTreeSet::new();
        for (i, a) in f.accounts.iter().enumerate() {
            let span = a.span();
            let a = a.get_ref();
            if !explicit.insert(a.name.clone()) {
                return Err(lf.element_error(
                    "accounts",
                    i,
                    span,
                    "name",
                    format!("account `{}` is defined twice", a.name),
                ));
            }
            let addr = a.address.unwrap_or_else(|| Address::from_label(&a.name));
            names.insert(a.name.clone(), addr);
            genesis.accounts.push(GenesisAccount {
                address: addr,
                balance: a.balance.0,
            });
        }
        let mut actors = Vec::new();
        for (i, a) in f.actors.iter().enumerate() {
            let span = a.span();
            let line = lf.error_at(span.clone(), "", "").line;
            let a = a.get_ref();
            let err = |key: &str, m: String| lf.element_error("actors", i, span.clone(), key, m);
            if !explicit.insert(a.name.clone()) {
                return Err(err(
                    "name",
                    format!("`{}` is already an account or actor", a.name),
                ));
            }
            let address = Address::from_label(&a.name);
            names.insert(a.name.clone(), address);
            let deployer = *names
                .get(&a.deployer)
                .ok_or_else(|| err("deployer", format!("unknown account `{}`", a.deployer)))?;
            let (code, code_key) = match (&a.script, &a.native) {
                (Some(_), Some(_)) => {
                    return Err(err("script", "give `script` or `native`, not both".into()));
                }
                (Some(path), None) => {
                    let src = load_script(lf, path).map_err(|e| err("script", e))?;
                    (ActorCode::rhai(path.clone(), src), "script")
                }
                (None, Some(json)) => (ActorCode::native(json.clone()), "native"),
                (None, None) => (ActorCode::none(), "script"),
            };
            runtime
                .prepare(&code)
                .map_err(|e| err(code_key, e.to_string()))?;
            let at = a.at.unwrap_or(1);
            if at == 0 {
                return Err(err("at", "deploys happen at height 1 or later".into()));
            }
            actors.push(PreparedActor {
                name: a.name.clone(),
                address,
                code,
                deployer,
                endowment: a.balance.0,
                at,
                line,
                index: i,
                span: span.clone(),
            });
        }
        let c = &f.chain;
        if let Some(s) = c.scheduler {
            genesis.scheduler = s;
        }
        if let Some(t) = &c.timer {
            t.validate()
                .map_err(|e| lf.table_error("chain", "timer", e.to_string()))?;
            genesis.timer = t.clone();
        }
        if let Some(b) = &c.basefee {
            genesis.basefee = b.clone();
        }
        if let Some(q) = &c.queue {
            q.validate()
                .map_err(|e| lf.table_error("chain", "queue", e.to_string()))?;
            genesis.queue = q.clone();
        }
        if let Some(p) = &c.proposer {
            genesis.proposer = *names.get(p).ok_or_else(|| {
                lf.table_error("chain", "proposer", format!("unknown account `{p}`"))
            })?;
        }
        if let Some(ds) = &c.system_deployers {
            genesis.system_deployers = ds
                .iter()
                .map(|d| {
                    names.get(d).copied().ok_or_else(|| {
                        lf.table_error(
                            "chain",
                            "system_deployers",
                            format!("unknown account `{d}`"),
                        )
                    })
                })
                .collect::<Result<_, _>>()?;
        }

        // Steps: names resolve, shapes are whole, labels are defined before use.
        let mut steps: Vec<PreparedStep> = Vec::new();
        let mut labels: BTreeMap<String, u64> = BTreeMap::new();
        let mut outages: Vec<(u64, u64)> = Vec::new();
        // In height order (stable: file order within a height), named by their place in the file.
        let mut ordered: Vec<_> = f.steps.iter().enumerate().collect();
        ordered.sort_by_key(|(_, s)| s.get_ref().at());
        for (i, s) in ordered {
            let span = s.span();
            let step = s.get_ref();
            let err = |key: &str, m: String| lf.element_error("steps", i, span.clone(), key, m);
            let name = |field: &str, n: &str| -> Result<Address, FixtureError> {
                names
                    .get(n)
                    .copied()
                    .ok_or_else(|| err(field, format!("unknown account or actor `{n}`")))
            };
            let is_actor = |n: &str| actors.iter().any(|a| a.name == n);
            // The actor a timer step acts as, and the optional sender standing in for its deployer.
            let actor_and_from = |actor: &str, from: &Option<String>| -> Result<(), FixtureError> {
                if !is_actor(actor) {
                    return Err(err("actor", format!("`{actor}` is not an actor")));
                }
                if let Some(fr) = from {
                    name("from", fr)?;
                }
                Ok(())
            };
            let timer_ref = |t: &str, at: u64| -> Result<(), FixtureError> {
                if t.starts_with("0x") {
                    return t
                        .parse::<TimerId>()
                        .map(|_| ())
                        .map_err(|e| err("timer", e.to_string()));
                }
                match labels.get(t) {
                    Some(h) if *h <= at => Ok(()),
                    _ => Err(err(
                        "timer",
                        format!("no earlier step labels a timer `{t}`"),
                    )),
                }
            };
            let at = step.at();
            if at == 0 {
                return Err(err("at", "steps happen at height 1 or later".into()));
            }
            if let Some((from, to)) = outages.iter().find(|(a, b)| at > *a && at <= *b) {
                return Err(err(
                    "at",
                    format!(
                        "height {at} falls inside the outage after block {from} (heights {}..={to} are skipped)",
                        from + 1
                    ),
                ));
            }
            match step {
                Step::Schedule {
                    actor,
                    from,
                    height,
                    after,
                    fee_payer,
                    label,
                    ..
                } => {
                    actor_and_from(actor, from)?;
                    if height.is_some() == after.is_some() {
                        return Err(err(
                            "height",
                            "give exactly one of `height` or `after`".into(),
                        ));
                    }
                    if let Some(p) = fee_payer
                        && p != "self"
                        && p != "sender"
                    {
                        name("fee_payer", p)?;
                    }
                    if let Some(l) = label {
                        if l.starts_with("0x") {
                            return Err(err("label", "labels must not start with 0x".into()));
                        }
                        if labels.insert(l.clone(), at).is_some() {
                            return Err(err("label", format!("label `{l}` is used twice")));
                        }
                    }
                }
                Step::Cancel {
                    actor, timer, from, ..
                } => {
                    actor_and_from(actor, from)?;
                    timer_ref(timer, at)?;
                }
                Step::Extend {
                    actor,
                    timer,
                    to,
                    by,
                    from,
                    ..
                } => {
                    actor_and_from(actor, from)?;
                    if to.is_some() == by.is_some() {
                        return Err(err("to", "give exactly one of `to` or `by`".into()));
                    }
                    timer_ref(timer, at)?;
                }
                Step::Call { from, actor, .. } => {
                    name("from", from)?;
                    if !is_actor(actor) {
                        return Err(err("actor", format!("`{actor}` is not an actor")));
                    }
                }
                Step::Transfer { from, to, .. } => {
                    name("from", from)?;
                    name("to", to)?;
                }
                Step::GovCancel { timer, from, .. } | Step::GovExtend { timer, from, .. } => {
                    if let Some(fr) = from {
                        name("from", fr)?;
                    }
                    timer_ref(timer, at)?;
                }
                Step::GovConfig { set, from, .. } => {
                    if let Some(fr) = from {
                        name("from", fr)?;
                    }
                    merge_config(&TimerConfig::default(), set).map_err(|m| err("set", m))?;
                }
                Step::SetBalance { account, .. } => {
                    name("account", account)?;
                }
                Step::Halt { blocks, .. } => {
                    if *blocks == 0 {
                        return Err(err("blocks", "an outage skips at least one height".into()));
                    }
                    outages.push((at, at + blocks));
                }
            }
            steps.push(PreparedStep {
                line: lf.error_at(span.clone(), "", "").line,
                step: step.clone(),
            });
        }
        for a in &actors {
            if let Some((from, to)) = outages.iter().find(|(x, y)| a.at > *x && a.at <= *y) {
                return Err(lf.element_error(
                    "actors",
                    a.index,
                    a.span.clone(),
                    "at",
                    format!(
                        "height {} falls inside the outage after block {from} (up to {to})",
                        a.at
                    ),
                ));
            }
        }

        let mut expects = Vec::new();
        for (i, e) in f.expect.iter().enumerate() {
            let span = e.span();
            let x = e.get_ref();
            let err = |key: &str, m: String| lf.element_error("expect", i, span.clone(), key, m);
            let kinds = [x.kind.is_some(), x.balance_of.is_some(), x.status.is_some()];
            if kinds.iter().filter(|k| **k).count() != 1 {
                return Err(err(
                    "kind",
                    "give exactly one of `kind`, `balance_of` or `status`".into(),
                ));
            }
            if let Some(t) = &x.timer
                && !t.starts_with("0x")
                && !labels.contains_key(t)
            {
                return Err(err("timer", format!("no step labels a timer `{t}`")));
            }
            if let Some(a) = &x.actor
                && !names.contains_key(a)
            {
                return Err(err("actor", format!("unknown actor `{a}`")));
            }
            if let Some(b) = &x.balance_of {
                if !names.contains_key(b) {
                    return Err(err("balance_of", format!("unknown account `{b}`")));
                }
                if x.equals.is_none() && x.at_least.is_none() && x.at_most.is_none() {
                    return Err(err(
                        "equals",
                        "a balance expectation needs `equals`, `at_least` or `at_most`".into(),
                    ));
                }
            }
            if let Some(s) = &x.status {
                if !STATUSES.contains(&s.as_str()) {
                    return Err(err(
                        "status",
                        format!("`{s}` is not one of {}", STATUSES.join(", ")),
                    ));
                }
                if x.timer.is_none() {
                    return Err(err("timer", "a status expectation names a `timer`".into()));
                }
            }
            if let Some(k) = &x.kind
                && !KNOWN_KINDS.contains(&k.as_str())
            {
                return Err(err(
                    "kind",
                    format!(
                        "unknown event kind `{k}` (known: {})",
                        KNOWN_KINDS.join(", ")
                    ),
                ));
            }
            expects.push(PreparedExpect {
                line: lf.error_at(span, "", "").line,
                expect: x.clone(),
            });
        }

        let last_at = steps
            .iter()
            .map(|s| s.step.at())
            .chain(actors.iter().map(|a| a.at))
            .max()
            .unwrap_or(0);
        let extra: u64 = outages.iter().map(|(a, b)| b - a).sum();
        Ok(Scenario {
            path: lf.path.clone(),
            name: f.name.clone().unwrap_or_else(|| lf.path.clone()),
            description: f.description.clone().unwrap_or_default(),
            default_blocks: f.blocks.unwrap_or(last_at + extra + 10),
            genesis,
            names,
            actors,
            steps,
            expects,
        })
    }

    pub fn genesis(&self) -> &Genesis {
        &self.genesis
    }

    /// Address of a fixture name.
    pub fn address(&self, name: &str) -> Option<Address> {
        self.names.get(name).copied()
    }

    /// The fixture's names by address (accounts, actors, `governance`, `proposer`).
    pub fn address_book(&self) -> BTreeMap<Address, String> {
        self.names.iter().map(|(n, a)| (*a, n.clone())).collect()
    }

    /// Plays the fixture on a fresh devnet. `on_block` sees every sealed block.
    pub fn run(
        &self,
        runtime: Arc<dyn ActorRuntime>,
        opts: RunOptions,
        on_block: &mut dyn FnMut(&Block, &Chain),
    ) -> Result<Report, NodeError> {
        self.run_devnet(runtime, opts, on_block).map(|(r, _)| r)
    }

    /// [`run`](Self::run), also handing back the devnet as the run left it.
    pub fn run_devnet(
        &self,
        runtime: Arc<dyn ActorRuntime>,
        opts: RunOptions,
        on_block: &mut dyn FnMut(&Block, &Chain),
    ) -> Result<(Report, Devnet), NodeError> {
        let mut devnet = Devnet::new(self.genesis.clone(), runtime)?;
        let last = opts.blocks.unwrap_or(self.default_blocks);
        let mut labels: BTreeMap<String, TimerId> = BTreeMap::new();
        let mut outcomes = Vec::new();
        let mut rows = Vec::new();
        let mut events: Vec<EventRecord> = Vec::new();
        let mut checks: Vec<ExpectationResult> = Vec::new();
        let mut funds_conserved = true;
        let mut step_idx = 0;

        while devnet.chain().pending_height() <= last {
            let h = devnet.chain().pending_height();
            for a in self.actors.iter().filter(|a| a.at == h) {
                let tx = Transaction::new(
                    a.deployer,
                    TxKind::Deploy {
                        address: Some(a.address),
                        code: a.code.clone(),
                        endowment: a.endowment,
                    },
                );
                let r = devnet.execute(Command::SendTx(tx));
                let (ok, error) = outcome_of(r);
                outcomes.push(StepOutcome {
                    at: h,
                    line: a.line,
                    action: format!("deploy {}", a.name),
                    ok,
                    as_expected: ok,
                    error,
                });
            }
            let mut halt_after = 0;
            while step_idx < self.steps.len() && self.steps[step_idx].step.at() <= h {
                let ps = &self.steps[step_idx];
                step_idx += 1;
                if let Step::Halt { blocks, .. } = ps.step {
                    halt_after += blocks;
                    outcomes.push(StepOutcome {
                        at: h,
                        line: ps.line,
                        action: "halt".into(),
                        ok: true,
                        error: None,
                        as_expected: true,
                    });
                    continue;
                }
                let (ok, error, new_timer) = self.apply_step(&mut devnet, &ps.step, h, &labels);
                if let (Some(id), Step::Schedule { label: Some(l), .. }) = (new_timer, &ps.step) {
                    labels.insert(l.clone(), id);
                }
                let as_expected = match (ps.step.expect_error(), &error) {
                    (None, None) => true,
                    (Some(want), Some(got)) => error_name(got) == want,
                    _ => false,
                };
                outcomes.push(StepOutcome {
                    at: h,
                    line: ps.line,
                    action: ps.step.action().into(),
                    ok,
                    error,
                    as_expected,
                });
            }
            let block = devnet.chain_mut().seal_block().clone();
            let chain = devnet.chain();
            funds_conserved &= chain.total_balances() + chain.burned == chain.supply;
            rows.push(BlockRow::of(&block));
            events.extend(block.events.iter().cloned());
            on_block(&block, chain);
            for pe in self.expects.iter().filter(|e| e.expect.at == Some(h)) {
                if pe.expect.kind.is_none() {
                    checks.push(self.check_state(pe, chain, &labels, &events));
                }
            }
            if halt_after > 0 {
                devnet.execute(Command::Halt { blocks: halt_after })?;
            }
        }
        let chain = devnet.chain();
        for pe in &self.expects {
            if pe.expect.kind.is_some() {
                checks.push(self.check_events(pe, &labels, &events));
            } else if pe.expect.at.is_none_or(|a| a > chain.height) {
                checks.push(self.check_state(pe, chain, &labels, &events));
            }
        }
        checks.sort_by_key(|c| c.line);

        let mut by_kind: BTreeMap<String, u64> = BTreeMap::new();
        for e in &events {
            *by_kind.entry(e.event.kind().to_string()).or_default() += 1;
        }
        let sum = |f: fn(&BlockRow) -> u64| rows.iter().map(f).sum::<u64>();
        let summary = Summary {
            blocks: rows.len() as u64,
            final_height: chain.height,
            final_state_root: chain.head.state_root,
            events_by_kind: by_kind,
            fired: sum(|r| r.fired),
            deferred: sum(|r| r.deferred),
            expired: sum(|r| r.expired),
            unfunded: sum(|r| r.unfunded),
            pending: chain.engine.queue.len() as u64,
            supply: chain.supply,
            burned: chain.burned,
            funds_conserved,
            unexpected_step_errors: outcomes.iter().filter(|o| !o.as_expected).count() as u64,
            expectations_passed: checks.iter().filter(|c| c.passed).count() as u64,
            expectations_failed: checks.iter().filter(|c| !c.passed).count() as u64,
        };
        let report = Report {
            fixture: self.path.clone(),
            name: self.name.clone(),
            description: self.description.clone(),
            summary,
            expectations: checks,
            steps: outcomes,
            blocks: rows,
            events,
        };
        Ok((report, devnet))
    }

    fn addr(&self, n: &str) -> Address {
        self.names[n]
    }

    fn resolve_timer(&self, t: &str, labels: &BTreeMap<String, TimerId>) -> Option<TimerId> {
        if t.starts_with("0x") {
            t.parse().ok()
        } else {
            labels.get(t).copied()
        }
    }

    /// Applies one step; returns (ok, error, timer scheduled).
    fn apply_step(
        &self,
        devnet: &mut Devnet,
        step: &Step,
        h: u64,
        labels: &BTreeMap<String, TimerId>,
    ) -> (bool, Option<String>, Option<TimerId>) {
        let deployer_of = |actor: &str| {
            self.actors
                .iter()
                .find(|a| a.name == actor)
                .map(|a| a.deployer)
                .expect("validated actor")
        };
        let missing = |t: &str| {
            (
                false,
                Some(format!(
                    "TimerNotFound: label `{t}` names no scheduled timer (its schedule failed)"
                )),
                None,
            )
        };
        let gov =
            |from: &Option<String>| from.as_deref().map_or(default_governor(), |f| self.addr(f));
        let tx = match step {
            Step::Schedule {
                actor,
                from,
                height,
                after,
                payload,
                handler,
                fee_payer,
                gas_limit,
                expires_at,
                ttl,
                ..
            } => {
                let sender = from
                    .as_deref()
                    .map_or_else(|| deployer_of(actor), |f| self.addr(f));
                let height = height.unwrap_or_else(|| h + after.unwrap_or(0));
                let raw = payload.clone().unwrap_or_default().into_bytes();
                let payload = match handler {
                    Some(name) => handler_payload(name, &raw),
                    None => raw,
                };
                let fee_payer = match fee_payer.as_deref() {
                    None | Some("self") => None,
                    Some("sender") => Some(sender),
                    Some(n) => Some(self.addr(n)),
                };
                Transaction::new(
                    sender,
                    TxKind::ActAs {
                        actor: self.addr(actor),
                        op: TimerOp::ScheduleTimer(ScheduleArgs {
                            height,
                            payload,
                            fee_payer,
                            gas_limit: *gas_limit,
                            expires_at: expires_at.or(ttl.map(|t| height + t)),
                        }),
                    },
                )
            }
            Step::Cancel {
                actor, timer, from, ..
            } => {
                let Some(id) = self.resolve_timer(timer, labels) else {
                    return missing(timer);
                };
                let sender = from
                    .as_deref()
                    .map_or_else(|| deployer_of(actor), |f| self.addr(f));
                Transaction::new(
                    sender,
                    TxKind::ActAs {
                        actor: self.addr(actor),
                        op: TimerOp::CancelTimer { timer_id: id },
                    },
                )
            }
            Step::Extend {
                actor,
                timer,
                to,
                by,
                from,
                ..
            } => {
                let Some(id) = self.resolve_timer(timer, labels) else {
                    return missing(timer);
                };
                let sender = from
                    .as_deref()
                    .map_or_else(|| deployer_of(actor), |f| self.addr(f));
                Transaction::new(
                    sender,
                    TxKind::ActAs {
                        actor: self.addr(actor),
                        op: TimerOp::ExtendTimer {
                            timer_id: id,
                            new_expires_at: to.unwrap_or_else(|| h + by.unwrap_or(0)),
                        },
                    },
                )
            }
            Step::Call {
                from,
                actor,
                handler,
                payload,
                ..
            } => Transaction::new(
                self.addr(from),
                TxKind::Call {
                    actor: self.addr(actor),
                    handler: handler.clone(),
                    payload: payload.clone().unwrap_or_default().into_bytes(),
                },
            ),
            Step::Transfer {
                from, to, amount, ..
            } => Transaction::new(
                self.addr(from),
                TxKind::Transfer {
                    to: self.addr(to),
                    amount: amount.0,
                },
            ),
            Step::GovCancel { timer, from, .. } => {
                let Some(id) = self.resolve_timer(timer, labels) else {
                    return missing(timer);
                };
                Transaction::new(
                    gov(from),
                    TxKind::System(SystemInstruction::CancelTimer { timer_id: id }),
                )
            }
            Step::GovExtend {
                timer, to, from, ..
            } => {
                let Some(id) = self.resolve_timer(timer, labels) else {
                    return missing(timer);
                };
                Transaction::new(
                    gov(from),
                    TxKind::System(SystemInstruction::ExtendTimer {
                        timer_id: id,
                        new_expires_at: *to,
                    }),
                )
            }
            Step::GovConfig { set, from, .. } => {
                let config = match merge_config(&devnet.chain().timer_config, set) {
                    Ok(c) => c,
                    Err(m) => return (false, Some(format!("InvalidInput: {m}")), None),
                };
                Transaction::new(
                    gov(from),
                    TxKind::System(SystemInstruction::UpdateTimerConfig { config }),
                )
            }
            Step::SetBalance {
                account, balance, ..
            } => {
                let r = devnet.execute(Command::SetBalance {
                    address: self.addr(account),
                    balance: balance.0,
                });
                let (ok, e) = outcome_of(r);
                return (ok, e, None);
            }
            Step::Halt { .. } => return (true, None, None),
        };
        match devnet.execute(Command::SendTx(tx)) {
            Ok(Outcome::Receipt(r)) if r.success => (true, None, r.timers.first().copied()),
            Ok(Outcome::Receipt(r)) => (false, r.error.clone(), None),
            Ok(_) => (true, None, None),
            Err(e) => (false, Some(e.to_string()), None),
        }
    }

    fn describe(&self, e: &Expect) -> String {
        if let Some(d) = &e.description {
            return d.clone();
        }
        let mut s = String::new();
        if let Some(k) = &e.kind {
            s = match (e.count, e.min, e.max) {
                (Some(c), _, _) => format!("exactly {c} {k}"),
                (None, Some(m), Some(x)) => format!("{m}..={x} {k}"),
                (None, Some(m), None) => format!("at least {m} {k}"),
                (None, None, Some(x)) => format!("at most {x} {k}"),
                (None, None, None) => format!("a {k}"),
            };
        }
        if let Some(b) = &e.balance_of {
            s = format!("balance of {b}");
            if let Some(v) = e.equals {
                s += &format!(" = {}", v.0);
            }
            if let Some(v) = e.at_least {
                s += &format!(" >= {}", v.0);
            }
            if let Some(v) = e.at_most {
                s += &format!(" <= {}", v.0);
            }
        }
        if let Some(st) = &e.status {
            s = format!("status {st}");
        }
        if let Some(t) = &e.timer {
            s += &format!(" for timer {t}");
        }
        if let Some(a) = &e.actor {
            s += &format!(" for actor {a}");
        }
        if let Some(h) = e.at {
            s += &format!(" at height {h}");
        }
        s
    }

    fn check_events(
        &self,
        pe: &PreparedExpect,
        labels: &BTreeMap<String, TimerId>,
        events: &[EventRecord],
    ) -> ExpectationResult {
        let e = &pe.expect;
        let kind = e.kind.as_deref().expect("event expectation");
        let timer = e.timer.as_deref().map(|t| self.resolve_timer(t, labels));
        let actor = e.actor.as_deref().map(|a| self.addr(a));
        let n = events
            .iter()
            .filter(|r| r.event.kind() == kind)
            .filter(|r| e.at.is_none_or(|h| r.height == h))
            .filter(|r| timer.is_none_or(|t| t.is_some() && r.event.timer_id() == t))
            .filter(|r| actor.is_none_or(|a| r.event.actor() == Some(a)))
            .count() as u64;
        let passed = match (e.count, e.min, e.max) {
            (Some(c), _, _) => n == c,
            (None, min, max) => n >= min.unwrap_or(1) && max.is_none_or(|m| n <= m),
        };
        ExpectationResult {
            line: pe.line,
            description: self.describe(e),
            passed,
            detail: format!("{n} matching event(s)"),
        }
    }

    fn check_state(
        &self,
        pe: &PreparedExpect,
        chain: &Chain,
        labels: &BTreeMap<String, TimerId>,
        events: &[EventRecord],
    ) -> ExpectationResult {
        let e = &pe.expect;
        let (passed, detail) = if let Some(who) = &e.balance_of {
            let b = chain.balance(&self.addr(who));
            let ok = e.equals.is_none_or(|v| b == v.0)
                && e.at_least.is_none_or(|v| b >= v.0)
                && e.at_most.is_none_or(|v| b <= v.0);
            (ok, format!("balance is {b}"))
        } else {
            let want = e.status.as_deref().expect("status expectation");
            let t = e.timer.as_deref().expect("validated");
            match self.resolve_timer(t, labels) {
                None => (false, format!("timer `{t}` was never scheduled")),
                Some(id) => {
                    let got = timer_status(id, chain, events);
                    (got == want, format!("status is {got}"))
                }
            }
        };
        ExpectationResult {
            line: pe.line,
            description: self.describe(e),
            passed,
            detail,
        }
    }
}

/// Every event kind a fixture may expect.
pub const KNOWN_KINDS: [&str; 12] = [
    "TimerScheduled",
    "TimerFired",
    "TimerDeferred",
    "TimerExpired",
    "TimerCancelledInsufficientFunds",
    "TimerCancelled",
    "TimerCancelledByGovernance",
    "TimerExtended",
    "TimerExtendedByGovernance",
    "TimerConfigUpdated",
    "ActorDeployed",
    "ActorEmitted",
];

/// A timer's status as of the events seen so far.
pub fn timer_status(id: TimerId, chain: &Chain, events: &[EventRecord]) -> &'static str {
    if chain.timer(&id).is_some() {
        return "pending";
    }
    for r in events
        .iter()
        .rev()
        .filter(|r| r.event.timer_id() == Some(id))
    {
        if let Event::Timer(t) = &r.event {
            match t {
                TimerEvent::TimerFired { .. } => return "fired",
                TimerEvent::TimerExpired { .. } => return "expired",
                TimerEvent::TimerCancelledInsufficientFunds { .. } => return "unfunded",
                TimerEvent::TimerCancelled { .. } => return "cancelled",
                TimerEvent::TimerCancelledByGovernance { existed: true, .. } => {
                    return "cancelled_by_governance";
                }
                _ => {}
            }
        }
    }
    "unknown"
}

/// The leading error name of an error message (`Unauthorized: ...` -> `Unauthorized`).
pub fn error_name(msg: &str) -> &str {
    msg.split(':').next().unwrap_or(msg).trim()
}

fn outcome_of(r: Result<Outcome, NodeError>) -> (bool, Option<String>) {
    match r {
        Ok(Outcome::Receipt(r)) if !r.success => (false, r.error.clone()),
        Ok(_) => (true, None),
        Err(e) => (false, Some(e.to_string())),
    }
}

/// Overrides fields of `base` with the keys of `set` (names and types checked).
pub fn merge_config(base: &TimerConfig, set: &toml::Table) -> Result<TimerConfig, String> {
    let mut t = toml::Table::try_from(base).map_err(|e| e.to_string())?;
    for (k, v) in set {
        if !t.contains_key(k) {
            return Err(format!("`{k}` is not a TimerConfig field"));
        }
        t.insert(k.clone(), v.clone());
    }
    // Validation (`TimerConfig::validate`) is the chain's: an invalid config is a failed
    // instruction on chain, which a fixture may expect.
    toml::Value::Table(t)
        .try_into()
        .map_err(|e: toml::de::Error| e.message().to_string())
}
