//! Checking a fixture against itself and the runtime: every name resolves, every script
//! compiles, every step is well-formed and can be played, every sum of amounts and heights
//! fits. `check` and `run` both go through [`Scenario::prepare`], so a fixture `check` accepts
//! is one `run` plays. Errors name the file, the line and the field.

use super::base::Base;
use super::fixture::{FixtureError, LoadedFixture, Step};
use super::gov_set::check_gov_set;
use super::runner::{MAX_RUN_BLOCKS, PreparedActor, PreparedExpect, PreparedStep, Scenario};
use super::scripts::ScriptLoader;
use crate::chain::runtime::{ActorCode, ActorRuntime};
use crate::chain::{Genesis, GenesisAccount, default_governor};
use crate::engine::{Address, ErrorKind, TimerConfig, TimerId};
use crate::node::MAX_MINE_PER_COMMAND;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

mod expects;
mod trace_expect;

/// What the implicit `governance` account holds at genesis when the fixture does not define
/// it: enough for its `gov_*` instructions to pay their fees (devnet choice, Spec note 23).
pub const DEFAULT_GOVERNANCE_BALANCE: u128 = 1_000_000_000;

/// The state of a check in progress.
struct Check<'a> {
    lf: &'a LoadedFixture,
    names: BTreeMap<String, Address>,
    /// Which name holds an address (two names on one address would silently merge).
    holders: BTreeMap<Address, String>,
    defined: BTreeSet<String>,
    genesis: Genesis,
    minted: u128,
    actors: Vec<PreparedActor>,
    /// The height each label is scheduled at.
    labels: BTreeMap<String, u64>,
    /// `(after block, last skipped height)` of every outage.
    outages: Vec<(u64, u64)>,
    /// The timer config as the `gov_config` steps so far leave it.
    config: TimerConfig,
    /// The scheduler parameters as the `gov_config` steps so far leave them (issue 21 §3).
    sched: crate::engine::SchedulerParams,
    /// The CIP-5 drafts' parameters as the `gov_config` steps so far leave them (English §12).
    draft: crate::engine::draft::DraftParams,
    /// The state the fixture starts from (`base`), if any.
    base: Option<&'a Base>,
    /// The first height the fixture plays (1, or after its base).
    first: u64,
}

/// An error about `key` of element `i` of `array`.
type ElemErr<'e> = dyn Fn(&str, String) -> FixtureError + 'e;

impl Scenario {
    /// Checks a parsed fixture against itself and the runtime: every name resolves, every
    /// script compiles, every step is well-formed, no step or expectation falls past the end
    /// of the run. Errors name the file, line and field.
    pub fn prepare(
        lf: &LoadedFixture,
        runtime: &dyn ActorRuntime,
        load_script: &ScriptLoader<'_>,
    ) -> Result<Scenario, FixtureError> {
        let base = super::base::read(lf, runtime, load_script)?;
        let mut c = Check::new(lf, base.as_ref());
        c.accounts()?;
        c.actors(runtime, load_script)?;
        c.chain_section()?;
        let steps = c.steps()?;
        c.actors_outside_outages()?;
        let expects = c.expects()?;
        c.governance_default();
        let default_blocks = c.default_blocks(&steps)?;
        let f = &lf.fixture;
        let (names, actors) = (c.names, c.actors);
        let genesis = base.as_ref().map_or(c.genesis, |b| b.dump.genesis.clone());
        let s = Scenario {
            path: lf.path.clone(),
            name: f.name.clone().unwrap_or_else(|| lf.path.clone()),
            description: f.description.clone().unwrap_or_default(),
            default_blocks,
            genesis,
            base,
            names,
            actors,
            steps,
            expects,
            trace: false,
            final_root_only: false,
        };
        s.check_length(default_blocks)?;
        Ok(s)
    }

    /// Refuses a run to height `last` that would leave a deploy, a step or an expectation of
    /// the fixture unplayed (they would otherwise pass silently), or that is longer than
    /// [`MAX_RUN_BLOCKS`].
    pub fn check_length(&self, last: u64) -> Result<(), FixtureError> {
        let err = |line: usize, field: String, message: String| FixtureError {
            file: self.path.clone(),
            line,
            field,
            message,
        };
        if let Some(b) = self.base.as_ref().filter(|b| last < b.height()) {
            return Err(err(
                1,
                "blocks".into(),
                format!(
                    "the run ends at height {last}, before its base's height {} ({})",
                    b.height(),
                    b.file
                ),
            ));
        }
        if last > MAX_RUN_BLOCKS {
            return Err(err(
                1,
                "blocks".into(),
                format!("a run is at most {MAX_RUN_BLOCKS} blocks, got {last}"),
            ));
        }
        let past = |what: &str, at: u64| {
            format!("{what} at height {at} is past the end of the run (height {last})")
        };
        if let Some(a) = self.actors.iter().find(|a| a.at > last) {
            let field = format!("actors[{}].at", a.index + 1);
            return Err(err(a.line, field, past("the deploy", a.at)));
        }
        if let Some(s) = self.steps.iter().find(|s| s.step.at() > last) {
            let field = format!("steps[{}].at", s.index + 1);
            return Err(err(s.line, field, past("the step", s.step.at())));
        }
        if let Some((e, at)) = self
            .expects
            .iter()
            .find_map(|e| e.expect.at.filter(|at| *at > last).map(|at| (e, at)))
        {
            let field = format!("expect[{}].at", e.index + 1);
            return Err(err(e.line, field, past("the expectation", at)));
        }
        Ok(())
    }
}

impl<'a> Check<'a> {
    fn new(lf: &'a LoadedFixture, base: Option<&'a Base>) -> Self {
        let mut names = BTreeMap::new();
        names.insert("governance".to_string(), default_governor());
        names.insert("proposer".to_string(), Address::from_label("proposer"));
        let genesis = Genesis::default();
        let (mut config, mut sched) = (genesis.timer.clone(), genesis.cip1.scheduler_params());
        let mut draft = genesis.cip5_draft;
        if let Some(b) = base {
            config = b.dump.timer_config.clone();
            let cip1 = b.dump.cip1.as_ref().map(|c| &c.config);
            sched = cip1.unwrap_or(&b.dump.genesis.cip1).scheduler_params();
            draft = b
                .dump
                .draft
                .as_ref()
                .map_or(b.dump.genesis.cip5_draft, |d| d.params);
        }
        Check {
            base,
            first: base.map_or(1, Base::next_height),
            outages: base.and_then(Base::outage).into_iter().collect(),
            config,
            sched,
            lf,
            names,
            holders: BTreeMap::new(),
            defined: BTreeSet::new(),
            draft,
            genesis,
            minted: 0,
            actors: Vec::new(),
            labels: BTreeMap::new(),
        }
    }

    /// Records a defined name at `address`: names are non-empty and unique, and no two names
    /// share an address.
    fn define(
        &mut self,
        name: &str,
        address: Address,
        actor: bool,
        err: &ElemErr<'_>,
    ) -> Result<(), FixtureError> {
        if name.trim().is_empty() {
            return Err(err("name", "a name must not be empty".into()));
        }
        if !self.defined.insert(name.to_string()) {
            let m = if actor {
                format!("`{name}` is already an account or actor")
            } else {
                format!("account `{name}` is defined twice")
            };
            return Err(err("name", m));
        }
        if let Some(other) = self.holders.get(&address) {
            return Err(err(
                "address",
                format!("`{name}` has the address of `{other}` ({address})"),
            ));
        }
        self.holders.insert(address, name.to_string());
        self.names.insert(name.to_string(), address);
        Ok(())
    }

    fn accounts(&mut self) -> Result<(), FixtureError> {
        let lf = self.lf;
        for (i, a) in lf.fixture.accounts.iter().enumerate() {
            let span = a.span();
            let a = a.get_ref();
            let err = |key: &str, m: String| lf.element_error("accounts", i, span.clone(), key, m);
            let addr = a.address.unwrap_or_else(|| Address::from_label(&a.name));
            self.define(&a.name, addr, false, &err)?;
            self.minted = self.minted.checked_add(a.balance.0).ok_or_else(|| {
                err(
                    "balance",
                    format!(
                        "the genesis balances sum past u128::MAX ({}) with this one",
                        u128::MAX
                    ),
                )
            })?;
            self.genesis.accounts.push(GenesisAccount {
                address: addr,
                balance: a.balance.0,
            });
        }
        Ok(())
    }

    fn actors(
        &mut self,
        runtime: &dyn ActorRuntime,
        load_script: &ScriptLoader<'_>,
    ) -> Result<(), FixtureError> {
        let lf = self.lf;
        for (i, a) in lf.fixture.actors.iter().enumerate() {
            let span = a.span();
            let line = lf.line(span.start);
            let a = a.get_ref();
            let err = |key: &str, m: String| lf.element_error("actors", i, span.clone(), key, m);
            let address = a.address.unwrap_or_else(|| Address::from_label(&a.name));
            self.define(&a.name, address, true, &err)?;
            let deployer = *self
                .names
                .get(&a.deployer)
                .ok_or_else(|| err("deployer", format!("unknown account `{}`", a.deployer)))?;
            let (code, code_key) = match (&a.script, &a.native) {
                (Some(_), Some(_)) => {
                    return Err(err("script", "give `script` or `native`, not both".into()));
                }
                (Some(path), None) => {
                    let src = match &a.source {
                        Some(src) => src.clone(),
                        None => load_script(lf, path).map_err(|e| err("script", e.to_string()))?,
                    };
                    (ActorCode::rhai(path.clone(), src), "script")
                }
                (None, Some(json)) => (ActorCode::native(json.clone()), "native"),
                (None, None) => (ActorCode::none(), "script"),
            };
            runtime
                .prepare(&code)
                .map_err(|e| err(code_key, e.to_string()))?;
            let at = a.at.unwrap_or(self.first);
            if at == 0 {
                return Err(err("at", "deploys happen at height 1 or later".into()));
            }
            self.actors.push(PreparedActor {
                name: a.name.clone(),
                address,
                code,
                deployer,
                endowment: a.balance.0,
                derived: a.derived == Some(true),
                at,
                line,
                index: i,
                span: span.clone(),
            });
        }
        Ok(())
    }

    fn chain_section(&mut self) -> Result<(), FixtureError> {
        let lf = self.lf;
        let c = &lf.fixture.chain;
        if let Some(s) = c.scheduler {
            self.genesis.scheduler = s;
        }
        if let Some(h) = c.activation_height {
            // The first block is height 1: an activation at 0 would be in the past.
            if h == 0 {
                return Err(lf.table_error(
                    "chain",
                    "activation_height",
                    "activation_height 0 is in the past: the first block is height 1",
                ));
            }
            self.genesis.activation_height = Some(h);
        }
        self.genesis.cip5_draft = lf.fixture.cip5_draft.unwrap_or_default();
        if let Some(cfg) = &lf.fixture.cip1 {
            cfg.validate()
                .map_err(|e| lf.table_error("cip1", "cip1", e.to_string()))?;
            self.genesis.cip1 = cfg.clone();
            self.sched = cfg.scheduler_params();
        }
        if let Some(v1) = &lf.fixture.cip1_v1 {
            v1.validate()
                .map_err(|e| lf.table_error("cip1_v1", "cip1_v1", e.to_string()))?;
            self.genesis.cip1.v1 = Some(*v1);
        }
        if let Some(vars) = &lf.fixture.variants {
            let mut v = self.genesis.cip1.variants;
            for (name, value) in vars {
                let value = value.as_str().ok_or_else(|| {
                    lf.table_error(
                        "variants",
                        name,
                        format!("variant {name}: the value must be a string"),
                    )
                })?;
                v.set(name, value)
                    .map_err(|e| lf.table_error("variants", name, e.to_string()))?;
            }
            self.genesis.cip1.variants = v;
        }
        if let Some(t) = &c.timer {
            t.validate()
                .map_err(|e| lf.table_error("chain", "timer", e.to_string()))?;
            self.genesis.timer = t.clone();
            self.config = t.clone();
        }
        if let Some(b) = &c.basefee {
            if b.tx_cycle_limit < b.tx_base_cycles {
                return Err(lf.table_error(
                    "chain.basefee",
                    "tx_cycle_limit",
                    "tx_cycle_limit must cover tx_base_cycles",
                ));
            }
            self.genesis.basefee = b.clone();
        }
        if let Some(q) = &c.queue {
            q.validate()
                .map_err(|e| lf.table_error("chain", "queue", e.to_string()))?;
            self.genesis.queue = q.clone();
        }
        if let Some(p) = &c.proposer {
            self.genesis.proposer = *self.names.get(p).ok_or_else(|| {
                lf.table_error("chain", "proposer", format!("unknown account `{p}`"))
            })?;
        }
        if let Some(ds) = &c.system_deployers {
            let names = &self.names;
            self.genesis.system_deployers = ds
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
        Ok(())
    }

    /// The implicit `governance` account starts with [`DEFAULT_GOVERNANCE_BALANCE`] unless the
    /// fixture defines it.
    fn governance_default(&mut self) {
        let implicit = self.lf.fixture.chain.implicit_governance != Some(false);
        if implicit && !self.defined.contains("governance") {
            let balance = DEFAULT_GOVERNANCE_BALANCE;
            if self.minted.checked_add(balance).is_some() {
                self.genesis.accounts.push(GenesisAccount {
                    address: default_governor(),
                    balance,
                });
            }
        }
    }

    /// Steps in height order (stable: file order within a height), named by their place in
    /// the file.
    fn steps(&mut self) -> Result<Vec<PreparedStep>, FixtureError> {
        let lf = self.lf;
        let mut ordered: Vec<_> = lf.fixture.steps.iter().enumerate().collect();
        ordered.sort_by_key(|(_, s)| s.get_ref().at());
        let mut steps = Vec::with_capacity(ordered.len());
        for (i, s) in ordered {
            let span = s.span();
            let step = s.get_ref();
            self.step(i, span.clone(), step)?;
            steps.push(PreparedStep {
                index: i,
                line: lf.line(span.start),
                step: step.clone(),
            });
        }
        Ok(steps)
    }

    fn step(&mut self, i: usize, span: Range<usize>, step: &Step) -> Result<(), FixtureError> {
        let lf = self.lf;
        let err = |key: &str, m: String| lf.element_error("steps", i, span.clone(), key, m);
        let at = step.at();
        if at == 0 {
            return Err(err("at", "steps happen at height 1 or later".into()));
        }
        if let Some((from, to)) = self.outages.iter().find(|(a, b)| at > *a && at <= *b) {
            return Err(err(
                "at",
                format!(
                    "height {at} falls inside the outage after block {from} (heights {}..={to} are skipped)",
                    from + 1
                ),
            ));
        }
        if let Some(want) = step.expect_error()
            && want.parse::<ErrorKind>().is_err()
        {
            return Err(err(
                "expect_error",
                format!(
                    "unknown error kind `{want}` (known: {})",
                    joined(&ErrorKind::ALL)
                ),
            ));
        }
        // A failure the fixture does not expect, known before the run, makes it broken.
        let expected = step.expect_error().is_some();
        match step {
            Step::Schedule { .. } => self.schedule(step, expected, &err)?,
            Step::Cancel {
                actor, timer, from, ..
            } => {
                self.actor_and_from(actor, from, at, expected, &err)?;
                self.timer_ref(timer, at, &err)?;
            }
            Step::Extend {
                actor,
                timer,
                to,
                by,
                from,
                ..
            } => {
                self.actor_and_from(actor, from, at, expected, &err)?;
                match (to, by) {
                    (Some(_), None) => {}
                    (None, Some(b)) if at.checked_add(*b).is_none() => {
                        return Err(err("by", format!("at + by ({at} + {b}) passes u64::MAX")));
                    }
                    (None, Some(_)) => {}
                    _ => return Err(err("to", "give exactly one of `to` or `by`".into())),
                }
                self.timer_ref(timer, at, &err)?;
            }
            Step::Call { from, actor, .. } => {
                self.name("from", from, &err)?;
                self.deployed_actor(actor, at, expected, &err)?;
            }
            Step::Transfer { from, to, .. } => {
                self.name("from", from, &err)?;
                self.name("to", to, &err)?;
            }
            Step::GovCancel { timer, from, .. } | Step::GovExtend { timer, from, .. } => {
                if let Some(fr) = from {
                    self.name("from", fr, &err)?;
                }
                self.timer_ref(timer, at, &err)?;
            }
            Step::GovConfig { set, from, .. } => {
                if let Some(fr) = from {
                    self.name("from", fr, &err)?;
                }
                self.gov_config(set, expected, &err)?;
            }
            Step::SetBalance { account, .. } => {
                self.name("account", account, &err)?;
            }
            Step::Halt { blocks, .. } => self.halt(at, *blocks, &err)?,
            Step::Activate { from, .. } => {
                if let Some(fr) = from {
                    self.name("from", fr, &err)?;
                }
            }
            Step::Tx { tx, .. } => {
                serde_json::from_str::<crate::chain::Transaction>(tx)
                    .map_err(|e| err("tx", format!("not a transaction: {e}")))?;
            }
            Step::Command { command, label, .. } => {
                let address = |n: &str| self.names.get(n).copied();
                super::command_step::parse(command, &address).map_err(|m| err("command", m))?;
                if let Some(l) = label
                    && self.labels.insert(l.clone(), at).is_some()
                {
                    return Err(err("label", format!("label `{l}` is used twice")));
                }
            }
            Step::Watch(d) | Step::Interval(d) | Step::Write(d) => {
                self.actor_and_from(&d.actor, &d.from, at, expected, &err)?;
                d.check(step.action()).map_err(|(f, m)| err(f, m))?;
                if let Some(l) = &d.label
                    && self.labels.insert(l.clone(), at).is_some()
                {
                    return Err(err("label", format!("label `{l}` is used twice")));
                }
            }
        }
        Ok(())
    }

    /// A `schedule` step: its actor and sender, a timer height after the step and sums that
    /// fit, a known fee payer, a new label.
    fn schedule(
        &mut self,
        step: &Step,
        expected: bool,
        err: &ElemErr<'_>,
    ) -> Result<(), FixtureError> {
        let Step::Schedule {
            at,
            actor,
            from,
            height,
            after,
            fee_payer,
            ttl,
            label,
            ..
        } = step
        else {
            unreachable!("a schedule step");
        };
        let at = *at;
        self.actor_and_from(actor, from, at, expected, err)?;
        let h = match (height, after) {
            (Some(h), None) => *h,
            (None, Some(a)) => at
                .checked_add(*a)
                .ok_or_else(|| err("after", format!("at + after ({at} + {a}) passes u64::MAX")))?,
            _ => {
                return Err(err(
                    "height",
                    "give exactly one of `height` or `after`".into(),
                ));
            }
        };
        if h <= at && !expected {
            let key = if height.is_some() { "height" } else { "after" };
            return Err(err(
                key,
                format!("the timer's height {h} is not after the step's height {at}"),
            ));
        }
        if let Some(t) = ttl
            && h.checked_add(*t).is_none()
        {
            return Err(err(
                "ttl",
                format!("height + ttl ({h} + {t}) passes u64::MAX"),
            ));
        }
        if let Some(p) = fee_payer
            && p != "self"
            && p != "sender"
        {
            self.name("fee_payer", p, err)?;
        }
        if let Some(l) = label {
            if l.is_empty() {
                return Err(err("label", "a label must not be empty".into()));
            }
            if l.starts_with("0x") {
                return Err(err("label", "labels must not start with 0x".into()));
            }
            if self.labels.insert(l.clone(), at).is_some() {
                return Err(err("label", format!("label `{l}` is used twice")));
            }
        }
        Ok(())
    }

    /// A `gov_config` step (see [`check_gov_set`]).
    fn gov_config(
        &mut self,
        set: &toml::Table,
        expected: bool,
        err: &ElemErr<'_>,
    ) -> Result<(), FixtureError> {
        check_gov_set(
            &mut self.config,
            &mut self.sched,
            &mut self.draft,
            set,
            expected,
        )
        .map_err(|m| err("set", m))
    }

    /// A `halt` step: 1..=[`MAX_MINE_PER_COMMAND`] heights, ending below `u64::MAX`.
    fn halt(&mut self, at: u64, blocks: u64, err: &ElemErr<'_>) -> Result<(), FixtureError> {
        if blocks == 0 {
            return Err(err("blocks", "an outage skips at least one height".into()));
        }
        if blocks > MAX_MINE_PER_COMMAND {
            return Err(err(
                "blocks",
                format!("an outage skips at most {MAX_MINE_PER_COMMAND} heights, got {blocks}"),
            ));
        }
        // Halts after one block make one outage: their sum is bounded too.
        let before = match self.outages.last() {
            Some((a, b)) if *a == at => {
                let skipped = b - a;
                self.outages.pop();
                skipped
            }
            _ => 0,
        };
        let total = before.saturating_add(blocks);
        if total > MAX_MINE_PER_COMMAND {
            return Err(err(
                "blocks",
                format!(
                    "the halts after block {at} skip {total} heights together, at most {MAX_MINE_PER_COMMAND}"
                ),
            ));
        }
        let end = at.checked_add(total).ok_or_else(|| {
            err(
                "blocks",
                format!("at + blocks ({at} + {total}) passes u64::MAX"),
            )
        })?;
        self.outages.push((at, end));
        Ok(())
    }

    fn name(&self, field: &str, n: &str, err: &ElemErr<'_>) -> Result<Address, FixtureError> {
        // An address written out (`0x…`) stands for itself (an exported session's unnamed
        // addresses, issue 24).
        if let Some(a) = n.starts_with("0x").then(|| n.parse().ok()).flatten() {
            return Ok(a);
        }
        self.names
            .get(n)
            .copied()
            .ok_or_else(|| err(field, format!("unknown account or actor `{n}`")))
    }

    /// `actor` is an actor deployed by height `at` (or the step expects its failure).
    fn deployed_actor(
        &self,
        actor: &str,
        at: u64,
        expected: bool,
        err: &ElemErr<'_>,
    ) -> Result<(), FixtureError> {
        if actor.starts_with("0x") {
            return self.name("actor", actor, err).map(|_| ());
        }
        let Some(a) = self.actors.iter().find(|a| a.name == actor) else {
            // A name for an actor of the base (`[[accounts]]` naming its address).
            let in_base = |b: &Base| self.names.get(actor).and_then(|a| b.deployer(a));
            if self.base.and_then(in_base).is_some() {
                return Ok(());
            }
            return Err(err("actor", format!("`{actor}` is not an actor")));
        };
        if a.at > at && !expected {
            return Err(err(
                "actor",
                format!(
                    "`{actor}` is deployed at height {}, after this step's height {at}",
                    a.at
                ),
            ));
        }
        Ok(())
    }

    /// The actor a timer step acts as, and the optional sender standing in for its deployer.
    fn actor_and_from(
        &self,
        actor: &str,
        from: &Option<String>,
        at: u64,
        expected: bool,
        err: &ElemErr<'_>,
    ) -> Result<(), FixtureError> {
        self.deployed_actor(actor, at, expected, err)?;
        if let Some(fr) = from {
            self.name("from", fr, err)?;
        }
        Ok(())
    }

    fn timer_ref(&self, t: &str, at: u64, err: &ElemErr<'_>) -> Result<(), FixtureError> {
        if t.starts_with("0x") {
            return t
                .parse::<TimerId>()
                .map(|_| ())
                .map_err(|e| err("timer", e.to_string()));
        }
        match self.labels.get(t) {
            Some(h) if *h <= at => Ok(()),
            _ => Err(err(
                "timer",
                format!("no earlier step labels a timer `{t}`"),
            )),
        }
    }

    fn actors_outside_outages(&self) -> Result<(), FixtureError> {
        for a in &self.actors {
            if let Some((from, to)) = self.outages.iter().find(|(x, y)| a.at > *x && a.at <= *y) {
                return Err(self.lf.element_error(
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
        Ok(())
    }

    fn expects(&self) -> Result<Vec<PreparedExpect>, FixtureError> {
        let lf = self.lf;
        let mut expects = Vec::with_capacity(lf.fixture.expect.len());
        for (i, e) in lf.fixture.expect.iter().enumerate() {
            let span = e.span();
            let x = e.get_ref();
            let err = |key: &str, m: String| lf.element_error("expect", i, span.clone(), key, m);
            self.expect(x, &err)?;
            expects.push(PreparedExpect {
                index: i,
                line: lf.line(span.start),
                expect: x.clone(),
            });
        }
        Ok(expects)
    }

    /// The fixture's `blocks`, or the last deploy or step plus the outages plus 10; checked.
    fn default_blocks(&self, steps: &[PreparedStep]) -> Result<u64, FixtureError> {
        let lf = self.lf;
        if let Some(b) = lf.fixture.blocks {
            if b == 0 || b > MAX_RUN_BLOCKS {
                return Err(lf.key_error(
                    "blocks",
                    format!("a run is 1..={MAX_RUN_BLOCKS} blocks, got {b}"),
                ));
            }
            return Ok(b);
        }
        let last_at = steps
            .iter()
            .map(|s| s.step.at())
            .chain(self.actors.iter().map(|a| a.at))
            .chain(self.base.map(Base::height))
            .max()
            .unwrap_or(0);
        let total = self
            .outages
            .iter()
            .try_fold(last_at, |sum, (a, b)| sum.checked_add(b - a))
            .and_then(|s| s.checked_add(10))
            .filter(|b| *b <= MAX_RUN_BLOCKS);
        total.ok_or_else(|| {
            lf.key_error(
                "blocks",
                format!(
                    "the steps and outages need more than {MAX_RUN_BLOCKS} blocks, the most a run plays"
                ),
            )
        })
    }
}

/// The names of `all`, comma-separated.
fn joined<T: std::fmt::Display>(all: &[T]) -> String {
    all.iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl super::Scenario {
    /// Applies `--scheduler` / `--activation-height` over the fixture's `[chain]` settings
    /// (see [`Genesis::with_scheduler`](crate::chain::Genesis::with_scheduler)).
    pub fn set_scheduler(
        &mut self,
        scheduler: Option<crate::engine::SchedulerKind>,
        activation_height: Option<u64>,
    ) -> Result<(), crate::engine::TimerError> {
        let g = self
            .genesis
            .clone()
            .with_scheduler(scheduler, activation_height)?;
        if let Some(b) = &self.base
            && g != self.genesis
        {
            return Err(crate::engine::TimerError::InvalidInput(format!(
                "the fixture starts from its base {}, whose scheduler is part of its state (Spec note 130): --scheduler and --activation-height cannot change it",
                b.file
            )));
        }
        self.genesis = g;
        Ok(())
    }
}
