//! The session log (issue 24): everything applied to a node's chain, in order, as data.
//!
//! Every request reaches the chain through a few doors (a transaction into the open block, a
//! balance set, an outage, an activation height, the seals); the node writes one [`Entry`]
//! at each door, so an RPC call, a dashboard command, a fixture step played live and a
//! governance change are all in the log the same way. Consecutive seals are one entry
//! ([`Entry::Sealed`] up to a height): a 1,000,000-block jump is one entry, and the log's
//! memory follows the commands, not the heights.
//!
//! The log follows the chain, not the wall clock: it is a persistent list, so a snapshot keeps
//! the log as it was in O(1) and a revert puts it back (a reverted span is not in it), and a
//! reset starts it again. Replaying it on the chain it started from ([`replay`]) gives the
//! same state root and block hash at every height (the engine is deterministic); the node's
//! past-height queries and `devnet_revertTo` replay it from a checkpoint, and
//! `devnet_exportFixture` turns it into a fixture (`scenario::export`).

use crate::chain::{Chain, Transaction};
use crate::engine::{Address, ErrorKind, TimerId};
use serde::Serialize;
use std::sync::Arc;

/// One thing applied to the chain.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "entry", rename_all = "snake_case")]
pub enum Entry {
    /// A transaction applied to the open block at `height`, with what its receipt said: the
    /// timers it scheduled, the actor it deployed, the error it reverted with.
    Tx {
        height: u64,
        tx: Box<Transaction>,
        timers: Vec<TimerId>,
        created: Option<Address>,
        error: Option<ErrorKind>,
    },
    /// A devnet balance set while block `at` is the next (or open) block.
    SetBalance {
        at: u64,
        address: Address,
        #[serde(with = "crate::engine::types::u128_str")]
        balance: u128,
    },
    /// An outage asked for after block `after`: the next block comes `blocks` heights later.
    Halt { after: u64, blocks: u64 },
    /// `gov_setActivationHeight` from `from` while block `at` is the next (or open) block.
    Activation { at: u64, from: Address, height: u64 },
    /// Blocks sealed until the head is at `to` (quiet jumps included).
    Sealed { to: u64 },
    /// A name given to an address (an actor deployed with a name): not chain state, kept for
    /// the export's names.
    Named { address: Address, name: String },
    /// A label a fixture step gave the timer it scheduled: not chain state, kept for the
    /// export's timer names (issue 34 item 12).
    Labelled { timer: TimerId, label: String },
}

/// Where a session started.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(tag = "base", rename_all = "snake_case")]
pub enum Base {
    /// The node's genesis.
    #[default]
    Genesis,
    /// A state loaded at `height` (`--load-state FILE` or `devnet_loadState`).
    Loaded { height: u64, file: Option<String> },
}

#[derive(Debug)]
pub(crate) struct Link {
    stored: Stored,
    pub(crate) prev: Option<Arc<Link>>,
}

/// A log is a chain of links, each holding the one before: dropped by the compiler's glue, a
/// log of a million entries would drop each link inside the drop of the next and overflow the
/// thread's stack (seen: the node's thread aborted when a trim let go of the first million
/// entries of a 1M-timer load). The links this one alone holds are let go one after the other
/// instead; the first one still shared (another log or a checkpoint's position) ends it.
impl Drop for Link {
    fn drop(&mut self) {
        let mut prev = self.prev.take();
        while let Some(link) = prev {
            prev = match Arc::try_unwrap(link) {
                Ok(mut alone) => alone.prev.take(),
                Err(_) => None,
            };
        }
    }
}

impl Link {
    fn new(stored: Stored, prev: Option<Arc<Link>>) -> Self {
        Link { stored, prev }
    }

    /// The entry (a transaction's decoded from its compact form).
    pub(crate) fn entry(&self) -> Entry {
        self.stored.entry()
    }

    /// Whether the entry is a seal ([`Entry::Sealed`]).
    pub(crate) fn is_seal(&self) -> bool {
        matches!(self.stored, Stored::Sealed(_))
    }

    /// Whether the entry closes the open block: a seal or an outage.
    pub(crate) fn ends_block(&self) -> bool {
        self.is_seal()
            || matches!(&self.stored, Stored::Other(e) if matches!(**e, Entry::Halt { .. }))
    }

    /// Whether a replay to sealed block `height` stops at or before this entry (Spec note
    /// 220): a transaction, a balance set or an activation in a block above `height`, an
    /// outage asked for once the head reached it, or a seal past it. A walk of the log back
    /// from such a link holds every entry a replay to `height` applies (a name, a label: no).
    pub(crate) fn stops_replay_to(&self, height: u64) -> bool {
        match &self.stored {
            Stored::Tx(_) => self.stored.tx_height().is_some_and(|h| h > height),
            Stored::Sealed(to) => *to > height,
            Stored::Other(e) => match **e {
                Entry::SetBalance { at, .. } | Entry::Activation { at, .. } => at > height,
                Entry::Halt { after, .. } => after >= height,
                Entry::Tx { .. } | Entry::Sealed { .. } => false,
                Entry::Named { .. } | Entry::Labelled { .. } => false,
            },
        }
    }

    /// Whether the entry is a name or a label (not chain state, kept by a trim).
    fn is_name(&self) -> bool {
        matches!(&self.stored, Stored::Other(e) if matches!(**e, Entry::Named { .. } | Entry::Labelled { .. }))
    }
}

/// An entry as the log holds it (issue 31, a serve under 300 MB; Spec note 208). A transaction
/// entry is its fields encoded with borsh in one boxed slice (a backlog's `timer_schedule`:
/// about 100 bytes, against about 480 as an [`Entry::Tx`] with its boxed [`Transaction`]
/// and its timer list), decoded when the log is read (a replay, an export); a seal is its
/// height; anything else is the entry, boxed (rare: balances, outages, names), so a link stays
/// three words.
#[derive(Clone, Debug)]
enum Stored {
    Tx(Box<[u8]>),
    Sealed(u64),
    Other(Box<Entry>),
}

/// An [`Entry::Tx`]'s fields, in the order [`Stored::Tx`] encodes them.
type TxFields = (
    u64,
    Transaction,
    Vec<TimerId>,
    Option<Address>,
    Option<ErrorKind>,
);

impl Stored {
    fn new(e: Entry) -> Self {
        match e {
            Entry::Tx {
                height,
                tx,
                timers,
                created,
                error,
            } => {
                let bytes = borsh::to_vec(&(height, &*tx, &timers, &created, &error))
                    .expect("encoding into memory does not fail");
                Stored::Tx(bytes.into_boxed_slice())
            }
            Entry::Sealed { to } => Stored::Sealed(to),
            e => Stored::Other(Box::new(e)),
        }
    }

    /// A transaction's block height, decoded alone: the first of its [`TxFields`].
    fn tx_height(&self) -> Option<u64> {
        match self {
            Stored::Tx(bytes) => borsh::BorshDeserialize::deserialize(&mut &bytes[..]).ok(),
            _ => None,
        }
    }

    fn entry(&self) -> Entry {
        match self {
            Stored::Tx(bytes) => {
                let (height, tx, timers, created, error): TxFields =
                    borsh::from_slice(bytes).expect("the log decodes what it encoded");
                Entry::Tx {
                    height,
                    tx: Box::new(tx),
                    timers,
                    created,
                    error,
                }
            }
            Stored::Sealed(to) => Entry::Sealed { to: *to },
            Stored::Other(e) => Entry::clone(e),
        }
    }
}

/// The log: a persistent list of entries (cloning it is O(1)).
#[derive(Clone, Debug, Default)]
pub struct SessionLog {
    base: Base,
    /// The chain a loaded session started from (kept whole, shared by the log's copies): what
    /// its export names as its base (Spec note 131), even once the history has passed it.
    base_chain: Option<BaseChain>,
    tail: Option<Arc<Link>>,
    len: usize,
    /// The height of the checkpoint the log was last trimmed to (issue 31 item 2, Spec note
    /// 149): the entries before it left the log (but for the names given), so the log starts
    /// there, not at its base. `None` while the log holds everything since its base.
    trimmed_at: Option<u64>,
}

/// A loaded session's starting chain.
#[derive(Clone)]
struct BaseChain(Arc<Chain>);

impl std::fmt::Debug for BaseChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "BaseChain(#{})", self.0.height())
    }
}

impl SessionLog {
    /// An empty log from `base`.
    pub fn new(base: Base) -> Self {
        SessionLog {
            base,
            base_chain: None,
            tail: None,
            len: 0,
            trimmed_at: None,
        }
    }

    /// An empty log of a session that starts from `chain`, a loaded state (`file`: where it
    /// was read from). The copy is shared: the node's first checkpoint holds the same one.
    pub fn loaded(chain: Arc<Chain>, file: Option<String>) -> Self {
        SessionLog {
            base: Base::Loaded {
                height: chain.height(),
                file,
            },
            base_chain: Some(BaseChain(chain)),
            tail: None,
            len: 0,
            trimmed_at: None,
        }
    }

    pub fn base(&self) -> &Base {
        &self.base
    }

    /// The chain a loaded session started from (`None` from a genesis).
    pub fn base_chain(&self) -> Option<&Chain> {
        self.base_chain.as_ref().map(|b| &*b.0)
    }

    /// The log with its base's file named `file` (`--load-state FILE`).
    pub(crate) fn with_file(mut self, file: String) -> Self {
        if let Base::Loaded { file: f, .. } = &mut self.base {
            *f = Some(file);
        }
        self
    }

    /// The height the session starts at: its loaded state's, 0 from a genesis.
    pub fn base_height(&self) -> u64 {
        match self.base {
            Base::Genesis => 0,
            Base::Loaded { height, .. } => height,
        }
    }

    /// How many entries (consecutive seals are one).
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The height of the checkpoint the log was trimmed to, if it was (Spec note 149): what
    /// was applied before it is no longer in the log (an export starts from a state then).
    pub fn trimmed_at(&self) -> Option<u64> {
        self.trimmed_at
    }

    /// The log without the entries up to the `count`-th (those a checkpoint at `height`
    /// holds), but for the names given (not chain state, kept for the export): a new list, so
    /// the dropped links are freed once nothing else (a snapshot, a kept past state) holds
    /// them. Returns it and the number of links it kept before the cut (the names), so a
    /// position counted in the old log maps to `count_old − count + kept`.
    pub(crate) fn trimmed(&self, count: usize, height: u64) -> (SessionLog, usize) {
        let links = self.links_after(None);
        let mut out = SessionLog {
            base: self.base.clone(),
            base_chain: self.base_chain.clone(),
            tail: None,
            len: 0,
            trimmed_at: Some(height),
        };
        let count = count.min(links.len());
        for l in &links[..count] {
            if l.is_name() {
                out.push_link(l.stored.clone());
            }
        }
        let kept = out.len;
        for l in &links[count..] {
            out.push_link(l.stored.clone());
        }
        (out, kept)
    }

    /// Appends `e` as a link of its own (no merging of seals: a copied log keeps its links).
    fn push_link(&mut self, e: Stored) {
        let prev = self.tail.take();
        self.tail = Some(Arc::new(Link::new(e, prev)));
        self.len += 1;
    }

    /// Appends `e`; a seal right after a seal extends it.
    pub fn push(&mut self, e: Entry) {
        if let (Entry::Sealed { to }, Some(t)) = (&e, &self.tail)
            && t.is_seal()
        {
            let prev = t.prev.clone();
            self.tail = Some(Arc::new(Link::new(Stored::Sealed(*to), prev)));
            return;
        }
        self.push_link(Stored::new(e));
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> Vec<Entry> {
        self.links_after(None)
            .into_iter()
            .map(|l| l.entry())
            .collect()
    }

    /// Replays the whole log on `chain`, the chain it started from (its genesis or the state
    /// it loaded), up to the state as of sealed block `until`: what a past-height read costs
    /// without checkpoints (the benchmarks' baseline).
    pub fn replay_on(&self, chain: &mut Chain, until: u64) -> Result<(), String> {
        replay(chain, &self.links_after(None), until).map(|_| ())
    }

    /// A position for a checkpoint taken now, and the entries up to it: before the last
    /// entry when it is a seal, since the next seal replaces that link (consecutive seals are
    /// one entry) and a position on it would no longer be found. Replaying that seal again on
    /// the checkpoint's chain seals nothing it has not.
    pub(crate) fn position(&self) -> (Option<Arc<Link>>, usize) {
        match &self.tail {
            Some(t) if t.is_seal() => (t.prev.clone(), self.len - 1),
            t => (t.clone(), self.len),
        }
    }

    /// The links after `pos` (a position of this log, `None`: its start), oldest first.
    pub(crate) fn links_after(&self, pos: Option<&Arc<Link>>) -> Vec<Arc<Link>> {
        self.links_between(pos, None)
    }

    /// The links after `pos` up to `upto` (a link of this log after `pos`, or `None`: its
    /// tail), oldest first: a walk back from `upto`, so it costs the links between the two,
    /// not those after `upto` (Spec note 220: a past read walks back from the checkpoint
    /// above its height, not from the head).
    pub(crate) fn links_between(
        &self,
        pos: Option<&Arc<Link>>,
        upto: Option<&Arc<Link>>,
    ) -> Vec<Arc<Link>> {
        let mut v = Vec::new();
        let mut cur = upto.or(self.tail.as_ref()).cloned();
        while let Some(l) = cur {
            if pos.is_some_and(|p| Arc::ptr_eq(p, &l)) {
                break;
            }
            cur = l.prev.clone();
            v.push(l);
        }
        v.reverse();
        v
    }

    /// [`Self::links_between`], or `None` when `pos` is not a link of this log before `upto`
    /// (a state built on a log since trimmed or rewritten).
    pub(crate) fn links_between_found(
        &self,
        pos: Option<&Arc<Link>>,
        upto: Option<&Arc<Link>>,
    ) -> Option<Vec<Arc<Link>>> {
        let v = self.links_between(pos, upto);
        let end = upto.or(self.tail.as_ref());
        let found = match (pos, v.first()) {
            (None, _) => true,
            (Some(p), Some(first)) => first.prev.as_ref().is_some_and(|q| Arc::ptr_eq(q, p)),
            (Some(p), None) => end.is_some_and(|t| Arc::ptr_eq(t, p)),
        };
        found.then_some(v)
    }

    /// The log cut back to `pos` (a position of this log) and then `extra` appended.
    pub(crate) fn cut(&self, pos: Option<Arc<Link>>, count: usize, extra: Option<Entry>) -> Self {
        let mut s = SessionLog {
            base: self.base.clone(),
            base_chain: self.base_chain.clone(),
            tail: pos,
            len: count,
            trimmed_at: self.trimmed_at,
        };
        if let Some(e) = extra {
            s.push(e);
        }
        s
    }
}

/// Where a replay stopped: the last link applied whole, and a seal applied in part.
pub(crate) struct Replayed {
    /// Links applied whole (from the start of the slice replayed).
    pub(crate) applied: usize,
    /// A seal entry cut at the target height.
    pub(crate) partial: Option<Entry>,
}

/// Applies `links` to `chain` in order, up to the state as of sealed block `until` (entries
/// after it are not applied). Every entry was applied to the same chain before, so none fails;
/// one that does is a divergence (a bug), reported as such.
pub(crate) fn replay(
    chain: &mut Chain,
    links: &[Arc<Link>],
    until: u64,
) -> Result<Replayed, String> {
    replay_with(chain, links, until, &mut |_| {})
}

/// [`replay`], calling `after_seal` on the chain after each seal entry applied.
pub(crate) fn replay_with(
    chain: &mut Chain,
    links: &[Arc<Link>],
    until: u64,
    after_seal: &mut dyn FnMut(&mut Chain),
) -> Result<Replayed, String> {
    let mut out = Replayed {
        applied: 0,
        partial: None,
    };
    for l in links {
        match l.entry() {
            Entry::Tx { height, tx, .. } => {
                if height > until {
                    break;
                }
                chain
                    .apply_tx(*tx)
                    .map_err(|e| format!("replay diverged at height {height}: {e}"))?;
            }
            Entry::SetBalance {
                at,
                address,
                balance,
            } => {
                if at > until {
                    break;
                }
                chain
                    .try_set_balance(&address, balance)
                    .map_err(|e| format!("replay diverged at height {at}: {e}"))?;
            }
            Entry::Halt { after, blocks } => {
                if after >= until {
                    break;
                }
                chain.halt(blocks);
            }
            Entry::Activation { at, from, height } => {
                if at > until {
                    break;
                }
                chain
                    .set_activation_height_from(&from, height)
                    .map_err(|e| format!("replay diverged at height {at}: {e}"))?;
            }
            Entry::Sealed { to } => {
                let stop = to.min(until);
                seal_until(chain, stop);
                after_seal(chain);
                if to > until {
                    if chain.height() > 0 {
                        out.partial = Some(Entry::Sealed { to: chain.height() });
                    }
                    break;
                }
            }
            Entry::Named { .. } | Entry::Labelled { .. } => {}
        }
        out.applied += 1;
    }
    Ok(out)
}

/// Seals blocks until the head is at `to`, or the next block would pass it (an outage).
pub(crate) fn seal_until(chain: &mut Chain, to: u64) {
    while chain.height() < to && chain.pending_height() <= to {
        let left = to - chain.height();
        if chain.jump_quiet(left) == 0 {
            chain.seal_next();
        }
    }
}
