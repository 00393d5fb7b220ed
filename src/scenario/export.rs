//! A session as a fixture (issue 24): `devnet_exportFixture`, `serve --record FILE` and the
//! dashboard's `W` write the node's session log (`node::session`) in the fixture format, so
//! that `cowboy-devnet run` of the file reproduces the session: the same state root and block
//! hash at every height.
//!
//! - The genesis is the node's: every genesis account by name with its address and balance
//!   (`implicit_governance = false` when the node had no `governance` account), the chain's
//!   configs in full.
//! - A deploy that succeeded, first in its block (after other such deploys), is an
//!   `[[actors]]` entry with its script inline (`source`); every other transaction is the
//!   named step that sends the very same transaction (`schedule`, `cancel`, `extend`, `call`,
//!   `transfer`, `gov_cancel`, `gov_extend`, `gov_config` with every field), or, where no named
//!   step says it (an explicit nonce or cycle limit, a payload that is not text, a deploy that
//!   is not first in its block or reverted), the `command` step of the node's own
//!   `devnet_sendTransaction` with the transaction's fields (issue 29: export writes commands;
//!   a `tx` step with the transaction as JSON when TOML cannot hold it).
//!   A reverted transaction's step has `expect_error` (it was in its block, it failed the
//!   same way).
//! - Addresses come out by name where the node has one (dev accounts, names given at deploy,
//!   a fixture's address book), else written out (`0x…`); timers scheduled by a step get a
//!   label (`t1`, `t2`, ...).
//! - Expectations pin what was seen: the state root at the head and each labelled timer's exit
//!   path (its status at the head).
//!
//! - A session that started from a loaded state (`--load-state`, `devnet_loadState`), or an
//!   export from a `from_height`, starts from a state dump: the fixture's `base` names a state
//!   file (`session.base.json` by default; [`with_base_file`] renames it) that the writer puts
//!   beside the fixture, [`Exported::base`] holds it; `[[accounts]]` then only name the base's
//!   addresses the node has names for, and the steps are those after the base's height
//!   (`scenario::base`, Spec notes 130-131).
//!
//! Spec note 112 (issue 24): transactions applied to a block not sealed yet are not exported
//! (they are not in the chain).

use crate::chain::runtime::Lang;
use crate::chain::{Chain, ChainDump};
use crate::chain::{SystemInstruction, TimerOp, Transaction, TxKind, default_governor};
use crate::engine::{Address, ErrorKind, ScheduleArgs, TimerId};
use crate::node::{Entry, NodeCore, NodeError};
use std::collections::{BTreeMap, BTreeSet};
use toml::{Table, Value};

/// The file a fixture exported with a base names by default (beside it).
pub const BASE_FILE: &str = "session.base.json";

/// What [`export`] wrote.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Exported {
    /// The fixture (TOML).
    pub fixture: String,
    /// The state the fixture starts from, when it has a `base` (a loaded session, or a
    /// `from_height`): to be written beside the fixture as [`base_file`](Self::base_file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base: Option<Box<ChainDump>>,
    /// The file the fixture's `base` names, relative to the fixture.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_file: Option<String>,
    /// The last height it plays (the head).
    pub blocks: u64,
    pub steps: usize,
    pub actors: usize,
    pub expectations: usize,
}

/// The node's session as a fixture. `from_height`: the height of the state it starts from
/// (Spec note 131): the state as of that sealed block is its base, its steps are those after
/// it. Without it, the session's start (its genesis, or the state it loaded; once the log was
/// trimmed with the history, the oldest height it can replay, Spec note 149). A height before
/// the retained history (or the session's base) is `HistoryPruned`, past the head
/// `InvalidInput`.
pub fn export(node: &NodeCore, from_height: Option<u64>) -> Result<Exported, NodeError> {
    // A log trimmed with the history (Spec note 149) no longer holds its start: the whole
    // session it still holds starts from the oldest height a past read answers.
    let from_height =
        from_height.or_else(|| node.session().trimmed_at().map(|_| node.first_queryable()));
    let entries = node.session().entries();
    let head = node.height();
    if let Some(f) = from_height.filter(|f| *f > head) {
        return Err(NodeError::InvalidInput(format!(
            "from_height {f} is past the head #{head}"
        )));
    }
    let Some((from, base)) = base_state(node, from_height, &entries)? else {
        let mut x = Exporter::new(node);
        x.entries(&entries, head, None);
        return Ok(x.finish(node, head, None));
    };
    let mut x = Exporter::on_base(node, &entries, from);
    x.entries(&entries, head, Some(from));
    Ok(x.finish(node, head, Some(base)))
}

/// The height and state an export starts from, when not the genesis: the loaded state a
/// session started from, or the state as of `from_height`, with the outages asked for right
/// after that block (they are part of the state: the next block comes after them).
fn base_state(
    node: &NodeCore,
    from_height: Option<u64>,
    entries: &[Entry],
) -> Result<Option<(u64, ChainDump)>, NodeError> {
    let session = node.session();
    let start = session.base_height();
    // A height an outage skipped has no block (Spec note 110, FIXTURES.md): the state of the
    // block the outage follows, with the outages asked for after it, so the export starts from
    // that block (its outages in the base, below). The state as of the skipped height itself is
    // cut by the log's order: a balance set between two outages after the same block stopped
    // its replay before the second, which was then neither in the base nor a step.
    let mut at_from = None;
    let from_height = match from_height {
        Some(f) if f > start => {
            let c = node.chain_at(f)?;
            let h = c.height().min(f);
            at_from = (h == f).then_some(c);
            Some(h)
        }
        f => f,
    };
    let (from, mut chain): (u64, Chain) = match (from_height, session.base_chain()) {
        (None | Some(0), None) => return Ok(None),
        (None, Some(c)) => (start, c.clone()),
        (Some(f), Some(c)) if f == start => (f, c.clone()),
        (Some(f), _) => (f, at_from.map_or_else(|| node.chain_at(f), Ok)?),
    };
    for e in entries {
        if let Entry::Halt { after, blocks } = e
            && *after == from
        {
            chain.halt(*blocks);
        }
    }
    let mut d = chain.dump()?;
    d.fixture_player = None;
    Ok(Some((from, d)))
}

/// `fixture` (an exported fixture's text) with its `base` naming `file`: a writer that puts
/// the base beside the fixture under another name says so. A fixture without `base` is
/// returned as it is.
pub fn with_base_file(fixture: &str, file: &str) -> String {
    match toml::from_str::<Table>(fixture) {
        Ok(mut t) if t.contains_key("base") => {
            t.insert("base".into(), Value::String(file.into()));
            toml::to_string(&t).unwrap_or_else(|_| fixture.to_string())
        }
        _ => fixture.to_string(),
    }
}

/// The base file beside the fixture file `fixture`: `session-12.toml` ->
/// `session-12.base.json` (its file name, relative to the fixture).
pub fn base_file_for(fixture: &std::path::Path) -> String {
    let stem = fixture
        .file_stem()
        .map_or_else(|| "session".into(), |s| s.to_string_lossy().into_owned());
    format!("{stem}.base.json")
}

impl Exported {
    /// Names the base file `file` in the fixture (see [`with_base_file`]).
    pub fn name_base(&mut self, file: &str) {
        if self.base.is_some() {
            self.fixture = with_base_file(&self.fixture, file);
            self.base_file = Some(file.to_string());
        }
    }
}

/// The height an entry applies at (`None` for seals and names).
fn entry_height(e: &Entry) -> Option<u64> {
    match e {
        Entry::Tx { height, .. } => Some(*height),
        Entry::SetBalance { at, .. } | Entry::Activation { at, .. } => Some(*at),
        Entry::Halt { after, .. } => Some(*after),
        Entry::Sealed { .. } | Entry::Named { .. } | Entry::Labelled { .. } => None,
    }
}

struct Exporter {
    /// Names the fixture defines or knows (`governance`, `proposer`), by address.
    names: BTreeMap<Address, String>,
    taken: BTreeSet<String>,
    /// The node's names (for actors deployed with a name).
    given: BTreeMap<Address, String>,
    accounts: Vec<Table>,
    actors: Vec<Table>,
    steps: Vec<Table>,
    labels: BTreeMap<TimerId, String>,
    /// The labels the session's fixture steps gave timers (issue 34 item 12).
    given_labels: BTreeMap<TimerId, String>,
    chain: Table,
    implicit_governance: bool,
}

fn amount(v: u128) -> Value {
    Value::String(v.to_string())
}

fn int(v: u64) -> Value {
    i64::try_from(v).map_or_else(|_| Value::String(v.to_string()), Value::Integer)
}

/// A name the fixture format takes: letters, digits, `_` and `-`, not empty, not an address.
fn usable(n: &str) -> bool {
    !n.is_empty()
        && !n.starts_with("0x")
        && n.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

impl Exporter {
    fn blank(node: &NodeCore) -> Self {
        Exporter {
            names: BTreeMap::new(),
            taken: BTreeSet::new(),
            given: node.names().clone(),
            accounts: Vec::new(),
            actors: Vec::new(),
            steps: Vec::new(),
            labels: BTreeMap::new(),
            given_labels: node
                .session()
                .entries()
                .into_iter()
                .filter_map(|e| match e {
                    Entry::Labelled { timer, label } => Some((timer, label)),
                    _ => None,
                })
                .collect(),
            chain: Table::new(),
            implicit_governance: true,
        }
    }

    /// The names the format knows without a definition.
    fn implicit_names(&mut self) {
        for (n, a) in [
            ("governance", default_governor()),
            ("proposer", Address::from_label("proposer")),
        ] {
            if !self.names.contains_key(&a) && !self.taken.contains(n) {
                self.names.insert(a, n.to_string());
                self.taken.insert(n.to_string());
            }
        }
    }

    /// A fixture on a base at `from`: `[[accounts]]` name the addresses the node has a name for
    /// (no balance: the base holds it), but for the actors deployed after the base (an
    /// `[[actors]]` entry names those); the base holds the chain's settings.
    fn on_base(node: &NodeCore, entries: &[Entry], from: u64) -> Self {
        let mut x = Exporter::blank(node);
        let created: BTreeSet<Address> = entries
            .iter()
            .filter_map(|e| match e {
                Entry::Tx {
                    height, created, ..
                } if *height > from => *created,
                _ => None,
            })
            .collect();
        let named: Vec<Address> = x.given.keys().copied().collect();
        for a in named {
            if !created.contains(&a) && x.given.get(&a).is_some_and(|n| usable(n)) {
                let name = x.name_for(a, "account");
                let mut t = Table::new();
                t.insert("name".into(), Value::String(name));
                t.insert("address".into(), Value::String(a.to_string()));
                x.accounts.push(t);
            }
        }
        x.implicit_names();
        x
    }

    fn new(node: &NodeCore) -> Self {
        let g = node.genesis();
        let mut x = Exporter::blank(node);
        for a in &g.accounts {
            let name = x.name_for(a.address, "account");
            let mut t = Table::new();
            t.insert("name".into(), Value::String(name));
            t.insert("address".into(), Value::String(a.address.to_string()));
            t.insert("balance".into(), amount(a.balance));
            x.accounts.push(t);
        }
        x.implicit_names();
        x.implicit_governance = g.accounts.iter().any(|a| a.address == default_governor());
        let c = &mut x.chain;
        c.insert(
            "scheduler".into(),
            Value::try_from(g.scheduler).expect("a scheduler kind serializes"),
        );
        if let Some(h) = g.activation_height {
            c.insert("activation_height".into(), int(h));
        }
        let deployers: Vec<Value> = g
            .system_deployers
            .iter()
            .map(|d| Value::String(x.names.get(d).cloned().unwrap_or_else(|| d.to_string())))
            .collect();
        let proposer = x
            .names
            .get(&g.proposer)
            .cloned()
            .unwrap_or_else(|| g.proposer.to_string());
        let c = &mut x.chain;
        c.insert("system_deployers".into(), Value::Array(deployers));
        c.insert("proposer".into(), Value::String(proposer));
        for (k, v) in [
            ("timer", Table::try_from(&g.timer)),
            ("basefee", Table::try_from(&g.basefee)),
            ("queue", Table::try_from(&g.queue)),
        ] {
            c.insert(k.into(), Value::Table(v.expect("configs serialize")));
        }
        if !x.implicit_governance {
            c.insert("implicit_governance".into(), Value::Boolean(false));
        }
        x
    }

    /// The name of `a`: the node's (when the format takes it and it is free), else
    /// `{kind}_{first 8 hex digits}`.
    fn name_for(&mut self, a: Address, kind: &str) -> String {
        if let Some(n) = self.names.get(&a) {
            return n.clone();
        }
        let hex = a.to_string();
        let mut name = match self.given.get(&a) {
            Some(n) if usable(n) && !self.taken.contains(n) => n.clone(),
            _ => format!("{kind}_{}", &hex[2..10]),
        };
        if self.taken.contains(&name) {
            name = format!("{kind}_{}", &hex[2..]);
        }
        self.taken.insert(name.clone());
        self.names.insert(a, name.clone());
        name
    }

    /// `a` by name, or written out.
    fn addr(&self, a: &Address) -> String {
        self.names.get(a).cloned().unwrap_or_else(|| a.to_string())
    }

    /// The label of a scheduled timer: the one the session gave it (a fixture step's, issue
    /// 34 item 12) when the format takes it and it is free, else `t{n}`, the first free.
    fn label_for(&self, id: &TimerId) -> String {
        let taken = |l: &str| self.labels.values().any(|v| v == l);
        if let Some(l) = self.given_labels.get(id).filter(|l| usable(l) && !taken(l)) {
            return l.clone();
        }
        let free = |l: &String| !taken(l) && !self.given_labels.values().any(|v| v == l);
        (self.labels.len() + 1..)
            .map(|n| format!("t{n}"))
            .find(free)
            .expect("a free label")
    }

    fn timer(&self, id: &TimerId) -> String {
        self.labels
            .get(id)
            .cloned()
            .unwrap_or_else(|| id.to_string())
    }

    /// The steps of `entries` up to `head`; with a base at `from`, those after it (an outage
    /// asked for right after block `from` is in the base: it only moves the steps it spans).
    fn entries(&mut self, entries: &[Entry], head: u64, from: Option<u64>) {
        // Whether only exported deploys came before in the block being filled.
        let mut block: Option<(u64, bool)> = None;
        // The last outage: the block it follows and the heights it skips so far.
        let mut outage: Option<(u64, u64)> = None;
        for e in entries {
            let Some(h) = entry_height(e) else { continue };
            if h > head || h == 0 {
                continue;
            }
            let in_base =
                from.is_some_and(|f| matches!(e, Entry::Halt { after, .. } if *after == f));
            if from.is_some_and(|f| h <= f) && !in_base {
                continue;
            }
            let fresh = block.is_none_or(|(b, _)| b != h);
            let deploys_only = fresh || block.is_some_and(|(_, d)| d);
            let mut is_actor = false;
            let step = match e {
                Entry::Tx {
                    height,
                    tx,
                    timers,
                    created,
                    error,
                } => {
                    if deploys_only
                        && error.is_none()
                        && let Some(created) = created
                        && self.actor(*height, tx, *created)
                    {
                        is_actor = true;
                        None
                    } else {
                        Some(self.tx_step(*height, tx, timers, *error))
                    }
                }
                Entry::SetBalance {
                    at,
                    address,
                    balance,
                } => Some(step(
                    *at,
                    "set_balance",
                    [
                        ("account", Value::String(self.addr(address))),
                        ("balance", amount(*balance)),
                    ],
                )),
                Entry::Halt { .. } if in_base => None,
                Entry::Halt { after, blocks } => {
                    Some(step(*after, "halt", [("blocks", int(*blocks))]))
                }
                Entry::Activation { at, from, height } => Some(step(
                    *at,
                    "activate",
                    [
                        ("height", int(*height)),
                        ("from", Value::String(self.addr(from))),
                    ],
                )),
                Entry::Sealed { .. } | Entry::Named { .. } | Entry::Labelled { .. } => None,
            };
            // A halt comes after its block: it does not open the next one.
            if !matches!(e, Entry::Halt { .. }) {
                block = Some((h, deploys_only && is_actor));
            }
            // A balance set or an activation asked for while the next block was one the
            // outage now skips applies before the block after the outage (nothing ran in
            // between): a fixture step may not stand inside an outage.
            if let Entry::Halt { after, blocks } = e {
                // Halts after the same block add up (the chain's outage does).
                let total = match outage {
                    Some((a, t)) if a == *after => t.saturating_add(*blocks),
                    _ => *blocks,
                };
                outage = Some((*after, total));
                let resume = after.saturating_add(total).saturating_add(1);
                for t in &mut self.steps {
                    let at = t.get("at").and_then(Value::as_integer).unwrap_or(0) as u64;
                    let moves = matches!(
                        t.get("action").and_then(Value::as_str),
                        Some("set_balance" | "activate")
                    );
                    if moves && at > *after && at < resume {
                        t.insert("at".into(), int(resume));
                    }
                }
            }
            self.steps.extend(step);
        }
        // Steps in height order (a moved step keeps its place among its height's steps).
        self.steps
            .sort_by_key(|t| t.get("at").and_then(Value::as_integer).unwrap_or(0));
    }

    /// A deploy as an `[[actors]]` entry, when the format says the same transaction.
    fn actor(&mut self, at: u64, tx: &Transaction, created: Address) -> bool {
        let TxKind::Deploy {
            address,
            code,
            endowment,
        } = &tx.kind
        else {
            return false;
        };
        if tx.nonce.is_some() || tx.cycle_limit.is_some() {
            return false;
        }
        let mut t = Table::new();
        let name = self.name_for(created, "actor");
        t.insert("name".into(), Value::String(name));
        t.insert("address".into(), Value::String(created.to_string()));
        if address.is_none() {
            t.insert("derived".into(), Value::Boolean(true));
        }
        match code.lang {
            Lang::None => {}
            Lang::Rhai => {
                t.insert("script".into(), Value::String(code.name.clone()));
                t.insert("source".into(), Value::String(code.source.clone()));
            }
            _ => {
                t.insert("native".into(), Value::String(code.source.clone()));
            }
        }
        t.insert("deployer".into(), Value::String(self.addr(&tx.from)));
        t.insert("balance".into(), amount(*endowment));
        t.insert("at".into(), int(at));
        self.actors.push(t);
        true
    }

    /// The named step that sends `tx`, or a `tx` step.
    fn tx_step(
        &mut self,
        at: u64,
        tx: &Transaction,
        timers: &[TimerId],
        error: Option<ErrorKind>,
    ) -> Table {
        let mut t = self
            .named_step(at, tx, timers)
            .or_else(|| send_transaction_step(at, tx))
            .unwrap_or_else(|| {
                let json = serde_json::to_string(tx).expect("a transaction serializes");
                step(at, "tx", [("tx", Value::String(json))])
            });
        if let Some(k) = error {
            t.insert("expect_error".into(), Value::String(k.as_str().into()));
        }
        t
    }

    fn named_step(&mut self, at: u64, tx: &Transaction, timers: &[TimerId]) -> Option<Table> {
        if tx.nonce.is_some() || tx.cycle_limit.is_some() {
            return None;
        }
        let from = ("from", Value::String(self.addr(&tx.from)));
        let s = |v: String| Value::String(v);
        Some(match &tx.kind {
            TxKind::Transfer { to, amount: a } => step(
                at,
                "transfer",
                [from, ("to", s(self.addr(to))), ("amount", amount(*a))],
            ),
            TxKind::Call {
                actor,
                handler,
                payload,
            } => {
                let payload = String::from_utf8(payload.clone()).ok()?;
                step(
                    at,
                    "call",
                    [
                        from,
                        ("actor", s(self.addr(actor))),
                        ("handler", s(handler.clone())),
                        ("payload", s(payload)),
                    ],
                )
            }
            TxKind::ActAs { actor, op } => {
                let actor = ("actor", s(self.addr(actor)));
                match op {
                    TimerOp::ScheduleTimer(args) => {
                        let mut t = self.schedule(at, args)?;
                        t.insert(actor.0.into(), actor.1);
                        t.insert(from.0.into(), from.1);
                        if let Some(id) = timers.first() {
                            let label = self.label_for(id);
                            self.labels.insert(*id, label.clone());
                            t.insert("label".into(), s(label));
                        }
                        t
                    }
                    TimerOp::CancelTimer { timer_id } => step(
                        at,
                        "cancel",
                        [actor, ("timer", s(self.timer(timer_id))), from],
                    ),
                    TimerOp::ExtendTimer {
                        timer_id,
                        new_expires_at,
                    } => step(
                        at,
                        "extend",
                        [
                            actor,
                            ("timer", s(self.timer(timer_id))),
                            ("to", int(*new_expires_at)),
                            from,
                        ],
                    ),
                    // The CIP-5 drafts' watches, intervals and writes: sent as `tx` steps.
                    TimerOp::SetStateWatch(_)
                    | TimerOp::SetInterval(_)
                    | TimerOp::WriteKey { .. } => return None,
                }
            }
            TxKind::System(SystemInstruction::CancelTimer { timer_id }) => {
                step(at, "gov_cancel", [("timer", s(self.timer(timer_id))), from])
            }
            TxKind::System(SystemInstruction::ExtendTimer {
                timer_id,
                new_expires_at,
            }) => step(
                at,
                "gov_extend",
                [
                    ("timer", s(self.timer(timer_id))),
                    ("to", int(*new_expires_at)),
                    from,
                ],
            ),
            TxKind::System(SystemInstruction::UpdateTimerConfig { config }) => {
                let set = Table::try_from(config).ok()?;
                step(at, "gov_config", [("set", Value::Table(set)), from])
            }
            // A `tx` step sends it as it was (the `gov_config` step's scheduler fields would
            // merge over the values in force, not restate them).
            TxKind::System(SystemInstruction::UpdateSchedulerConfig { .. }) => return None,
            TxKind::Deploy { .. } => return None,
        })
    }

    /// A `schedule` step's fields for `args` (without actor, sender and label).
    fn schedule(&self, at: u64, args: &ScheduleArgs) -> Option<Table> {
        // A `client_nonce` repeat of a timer that already fired restates a past height, which
        // a `schedule` step may not name: it is sent as a `tx` step.
        if args.height <= at {
            return None;
        }
        let payload = String::from_utf8(args.payload.clone()).ok()?;
        let mut t = step(
            at,
            "schedule",
            [
                ("height", int(args.height)),
                ("payload", Value::String(payload)),
            ],
        );
        if let Some(p) = &args.fee_payer {
            let n = self.addr(p);
            if n == "self" || n == "sender" {
                return None;
            }
            t.insert("fee_payer".into(), Value::String(n));
        }
        let opt = [
            ("gas_limit", args.gas_limit.map(int)),
            ("expires_at", args.expires_at.map(int)),
            ("max_fee_per_cycle", args.max_fee_per_cycle.map(amount)),
            (
                "max_priority_fee_per_cycle",
                args.max_priority_fee_per_cycle.map(amount),
            ),
            (
                "priority_tier",
                args.priority_tier.map(|p| Value::String(p.as_str().into())),
            ),
            ("bid", args.bid.map(amount)),
            ("client_nonce", args.client_nonce.map(int)),
        ];
        for (k, v) in opt {
            if let Some(v) = v {
                t.insert(k.into(), v);
            }
        }
        Some(t)
    }

    fn finish(mut self, node: &NodeCore, head: u64, base: Option<ChainDump>) -> Exported {
        let mut expects = Vec::new();
        if head > 0
            && let Some(b) = node.block(head)
        {
            let mut t = Table::new();
            t.insert(
                "state_root".into(),
                Value::String(b.header.state_root.to_string()),
            );
            t.insert("at".into(), int(head));
            expects.push(t);
        }
        for (id, label) in &self.labels {
            if let Some(v) = node.timer(id) {
                let mut t = Table::new();
                t.insert("status".into(), Value::String(v.status.as_str().into()));
                t.insert("timer".into(), Value::String(label.clone()));
                expects.push(t);
            }
        }
        let mut doc = Table::new();
        doc.insert("name".into(), Value::String("session".into()));
        let from = base.as_ref().map_or(String::new(), |b| {
            format!(" from the state at #{}", b.height)
        });
        doc.insert(
            "description".into(),
            Value::String(format!(
                "a devnet session{from} exported at #{head} (cowboy-devnet run reproduces it)"
            )),
        );
        doc.insert("blocks".into(), int(head));
        let g = node.genesis();
        if base.is_some() {
            doc.insert("base".into(), Value::String(BASE_FILE.into()));
        } else {
            doc.insert(
                "chain".into(),
                Value::Table(std::mem::take(&mut self.chain)),
            );
            if g.cip1 != crate::engine::Cip1Config::default() {
                let t = Table::try_from(&g.cip1).expect("the CIP-1 config serializes");
                doc.insert("cip1".into(), Value::Table(t));
            }
        }
        let arr = |v: Vec<Table>| Value::Array(v.into_iter().map(Value::Table).collect());
        let (steps, actors, expectations) = (self.steps.len(), self.actors.len(), expects.len());
        doc.insert("accounts".into(), arr(self.accounts));
        doc.insert("actors".into(), arr(self.actors));
        doc.insert("steps".into(), arr(self.steps));
        doc.insert("expect".into(), arr(expects));
        let fixture = toml::to_string(&doc).expect("a fixture serializes");
        Exported {
            fixture,
            base_file: base.as_ref().map(|_| BASE_FILE.to_string()),
            base: base.map(Box::new),
            blocks: head,
            steps,
            actors,
            expectations,
        }
    }
}

/// Issue 29 ("export writes commands"): a transaction no named step says, as the `command`
/// step of the node's own `devnet_sendTransaction` with the transaction's fields as a TOML
/// table (its absent options left out); `None` when TOML cannot hold it (an integer above
/// `i64::MAX`), which is then a `tx` step with the transaction as JSON.
fn send_transaction_step(at: u64, tx: &Transaction) -> Option<Table> {
    let params = Value::try_from(tx).ok()?;
    let mut command = Table::new();
    command.insert(
        "method".into(),
        Value::String("devnet_sendTransaction".into()),
    );
    command.insert("params".into(), params);
    Some(step(at, "command", [("command", Value::Table(command))]))
}

/// A step table: `at`, `action` and the fields given.
fn step<const N: usize>(at: u64, action: &str, fields: [(&str, Value); N]) -> Table {
    let mut t = Table::new();
    t.insert("at".into(), int(at));
    t.insert("action".into(), Value::String(action.into()));
    for (k, v) in fields {
        t.insert(k.into(), v);
    }
    t
}
