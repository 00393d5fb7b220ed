//! The dashboard's data source over the in-process node (issues 15, 19): runs the view's read
//! requests ([`crate::tui::view::ViewQueries`]) on the node in one read and hands back their
//! typed replies (the view is assembled from them by [`crate::tui::view`], as for the attached
//! source), and applies every [`UiCommand`] as the node request its JSON-RPC method decodes
//! to ([`UiCommand::request`]), so results and errors are the same.
//!
//! [`LocalDevnet`] is generic over how it reaches the node ([`NodeAccess`]):
//! - a [`NodeHandle`] (what the binary uses): the node runs on its own thread and mines by its
//!   own mining mode; reads are `query_blocking` calls made after a block was announced on the
//!   node's notification channel (`subscribe`), so a refresh does not queue behind a seal, and
//!   a frame is drawn from the app state alone;
//! - a [`NodeCore`] driven synchronously (tests and benches: deterministic), told the time by
//!   [`DashboardSource::tick`].
//!
//! The mining mode is the node's: `p`, `+` and `-` send `SetMining`.

use super::command::UiCommand;
use super::data::{CommandError, MiningMode, ViewQuery};
use super::model::DashboardSource;
use super::outcome::{Answer, CommandOutcome};
use super::reply::AfterReads;
use crate::chain::{Chain, EventRecord};
use crate::engine::{Address, Failure, TimerId};
use crate::node::Answer as NodeAnswer;
use crate::node::{
    EventFilter, EventsQuery, NamesQuery, NodeCore, NodeError, NodeEvent, NodeHandle, Request,
    SetMining,
};
use crate::tui::view::{
    LifeReplies, QueryReplies, SourceInfo, deferred_query, draft_query, labels, life_queries,
    mining_from_node, mining_to_node,
};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::broadcast::{self, error::TryRecvError};

/// How the dashboard reaches a node: reads on `&NodeCore`, requests with typed replies, and
/// the passing of time.
pub trait NodeAccess {
    /// Runs a read on the node's current state.
    fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&NodeCore) -> T + Send + 'static,
    ) -> Result<T, NodeError>;
    /// Runs a read whose answer may leave work to finish (a past state's replay): where the
    /// node runs on a thread of its own, that work runs on a past-read thread, not the node's
    /// (issue 31 item 7); here, on the node's.
    fn read_answer<T: Send + 'static>(
        &self,
        f: impl FnOnce(&NodeCore) -> NodeAnswer<T> + Send + 'static,
    ) -> Result<T, NodeError> {
        self.read(move |core| f(core).finish())?
    }
    /// Applies a request.
    fn apply<R: Request>(&mut self, r: R) -> Result<R::Reply, NodeError>;
    /// Lets time pass; true when something new happened (a block, an event).
    fn tick(&mut self, now: Instant) -> bool;
    /// When [`tick`](Self::tick) next has something to do.
    fn next_deadline(&self) -> Option<Instant>;
    /// Notifications lost since the last call (a subscriber that fell behind).
    fn take_dropped(&mut self) -> u64 {
        0
    }
    // --- issue 23 (branch dash): the story of a fixture played live ---
    /// The fixture's steps and expectations reported since the last call.
    fn take_story(&mut self) -> Vec<crate::tui::story::StoryItem> {
        Vec::new()
    }
}

/// A core driven on the caller's thread: its clock starts at the first [`tick`](NodeAccess::tick).
pub struct SyncNode {
    core: NodeCore,
    epoch: Option<Instant>,
}

impl NodeAccess for SyncNode {
    fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&NodeCore) -> T + Send + 'static,
    ) -> Result<T, NodeError> {
        Ok(f(&self.core))
    }
    fn apply<R: Request>(&mut self, r: R) -> Result<R::Reply, NodeError> {
        let out = self.core.apply(r);
        while self.core.poll_event().is_some() {}
        out
    }
    fn tick(&mut self, now: Instant) -> bool {
        let epoch = *self.epoch.get_or_insert(now);
        let before = self.core.height();
        self.core
            .tick(now.saturating_duration_since(epoch).as_millis() as u64);
        while self.core.poll_event().is_some() {}
        self.core.height() != before
    }
    fn next_deadline(&self) -> Option<Instant> {
        let due = self.core.next_deadline()?;
        Some(match self.epoch {
            Some(e) => e + std::time::Duration::from_millis(due),
            None => Instant::now(),
        })
    }
}

/// A node running on its own thread (the shell), and its notifications.
pub struct LiveNode {
    handle: NodeHandle,
    rx: broadcast::Receiver<Arc<NodeEvent>>,
    dropped: u64,
    /// issue 23 (branch dash): fixture steps and expectations not taken yet.
    story: Vec<crate::tui::story::StoryItem>,
}

impl LiveNode {
    pub fn new(handle: NodeHandle) -> Self {
        let rx = handle.subscribe();
        LiveNode {
            handle,
            rx,
            dropped: 0,
            story: Vec::new(),
        }
    }
}

impl NodeAccess for LiveNode {
    fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&NodeCore) -> T + Send + 'static,
    ) -> Result<T, NodeError> {
        self.handle.query_blocking(f)
    }
    fn read_answer<T: Send + 'static>(
        &self,
        f: impl FnOnce(&NodeCore) -> NodeAnswer<T> + Send + 'static,
    ) -> Result<T, NodeError> {
        self.handle.answer_blocking(f)
    }
    fn apply<R: Request>(&mut self, r: R) -> Result<R::Reply, NodeError> {
        self.handle.request_blocking(r)
    }
    /// Drains the notifications that arrived: anything but an expectation report is news.
    /// Never waits: the node mines on its own thread.
    fn tick(&mut self, _now: Instant) -> bool {
        let mut news = false;
        loop {
            match self.rx.try_recv() {
                Ok(ev) => {
                    news |= !matches!(&*ev, NodeEvent::Expectation { .. });
                    // issue 23 (branch dash): the story line.
                    if let Some(s) = crate::tui::story::from_node_event(&ev) {
                        self.story.push(s);
                    }
                }
                Err(TryRecvError::Lagged(n)) => {
                    self.dropped += n;
                    news = true;
                }
                Err(TryRecvError::Empty) | Err(TryRecvError::Closed) => return news,
            }
        }
    }
    fn next_deadline(&self) -> Option<Instant> {
        None
    }
    fn take_dropped(&mut self) -> u64 {
        std::mem::take(&mut self.dropped)
    }
    fn take_story(&mut self) -> Vec<crate::tui::story::StoryItem> {
        std::mem::take(&mut self.story)
    }
}

/// The in-process devnet seen through the dashboard's interface: runs the view's queries on
/// the node (one read, so the replies are of one state) and hands back the replies.
pub struct LocalDevnet<N: NodeAccess = SyncNode> {
    node: N,
    /// The labels given beside the node's names, and the API address shown.
    given: SourceInfo,
    /// The node's names as of the last refresh.
    node_names: BTreeMap<Address, String>,
}

impl LocalDevnet<SyncNode> {
    /// Wraps a core driven on this thread; `names` labels addresses (a fixture's address book)
    /// beside the node's own names.
    pub fn new(devnet: NodeCore, names: BTreeMap<Address, String>) -> Self {
        let node_names = devnet.names().clone();
        LocalDevnet {
            node: SyncNode {
                core: devnet,
                epoch: None,
            },
            given: SourceInfo {
                rpc_address: None,
                names,
            },
            node_names,
        }
    }

    /// Sets the node's mining mode (as `SetMining`).
    pub fn with_mining(mut self, mode: MiningMode) -> Self {
        let _ = self.node.apply(SetMining(mining_to_node(mode)));
        self
    }

    pub fn devnet(&self) -> &NodeCore {
        &self.node.core
    }

    pub fn chain(&self) -> &Chain {
        self.node.core.chain()
    }

    pub fn mining(&self) -> MiningMode {
        mining_from_node(self.node.core.mining())
    }
}

impl LocalDevnet<LiveNode> {
    /// The dashboard on a running node; the node's names label addresses.
    pub fn live(handle: NodeHandle) -> Self {
        let node_names = handle.ask_blocking(NamesQuery).unwrap_or_default();
        LocalDevnet {
            node: LiveNode::new(handle),
            given: SourceInfo::default(),
            node_names,
        }
    }

    pub fn mining(&self) -> MiningMode {
        mining_from_node(self.node.handle.head().mining)
    }
}

impl<N: NodeAccess> LocalDevnet<N> {
    /// The address the status bar shows for the JSON-RPC API.
    pub fn with_rpc_address(mut self, addr: impl Into<String>) -> Self {
        self.given.rpc_address = Some(addr.into());
        self
    }

    fn apply<R: Request>(&mut self, r: R) -> Result<R::Reply, CommandError> {
        self.node.apply(r).map_err(node_error)
    }

    /// The session as a fixture, written to a new file here (issue 24: `W`).
    fn export(&mut self) -> Result<Answer, CommandError> {
        let out = self
            .node
            .read(|c| crate::scenario::export::export(c, None))
            .map_err(node_error)?
            .map_err(node_error)?;
        let path = crate::tui::past::write_session(&out.fixture, out.base.as_deref(), out.blocks)?;
        Ok(Answer::Exported(path, out.blocks))
    }
}

/// The reads an answer needs after its command, on the node.
struct Reads<'a, N>(&'a mut N);

impl<N: NodeAccess> AfterReads for Reads<'_, N> {
    fn expiry(&mut self, id: &TimerId) -> Option<u64> {
        let id = *id;
        let t = self.0.read(move |c| c.timer(&id));
        t.ok().flatten().map(|t| t.expires_at)
    }
    fn height(&mut self) -> u64 {
        self.0.read(|c| c.height()).unwrap_or(0)
    }
}

/// Runs a refresh's queries on the node, in one read.
/// A view of a past height (issue 24) runs them on the state as of that block (rebuilt once,
/// then kept by the node while the view stays there: `NodeCore::past_lease`); its replay and
/// its queries are left to finish off the node's thread (issue 31 item 7), the snapshots and
/// the tip read on it first.
fn run_view(live: &NodeCore, q: ViewQuery) -> NodeAnswer<QueryReplies> {
    let v = q.queries();
    let lease = match v.at.map(|h| live.past_lease(h)).transpose() {
        Err(e) => return NodeAnswer::Done(Err(e)),
        Ok(lease) => lease.flatten(),
    };
    let snapshots = match live.ask(&v.snapshots) {
        Err(e) => return NodeAnswer::Done(Err(e)),
        Ok(s) => s,
    };
    let tip = v.at.map(|_| live.head());
    match lease {
        // The head itself (or no past height): answered here.
        None => NodeAnswer::Done(view_on(live, &v, snapshots, tip)),
        Some(lease) => NodeAnswer::Off(Box::new(move || {
            lease.read(|past| view_on(past, &v, snapshots, tip))?
        })),
    }
}

/// The view's queries on `core` (the viewed state), with the live node's snapshots and tip.
fn view_on(
    core: &NodeCore,
    v: &crate::tui::view::ViewQueries,
    snapshots: Vec<crate::node::SnapshotInfo>,
    tip: Option<crate::node::HeadView>,
) -> Result<QueryReplies, NodeError> {
    let lane = core.ask(&v.lane)?;
    let head = core.ask(&v.head)?;
    Ok(QueryReplies {
        deferred: deferred_query(&lane, &head)
            .map(|q| core.ask(&q))
            .transpose()?
            .unwrap_or_default(),
        draft: draft_query(&lane).map(|q| core.ask(&q)).transpose()?,
        head,
        config: core.ask(&v.config)?,
        tiers: core.ask(&v.tiers)?,
        buckets: core.ask(&v.buckets)?,
        bucket: match &v.bucket {
            Some(b) => core.ask(b)?,
            None => Default::default(),
        },
        shares: core.ask(&v.shares)?,
        names: core.ask(&v.names)?,
        actors: core.ask(&v.actors)?,
        snapshots,
        tip,
        lane,
    })
}

/// Runs a timer's life queries on the node, in one read, as of sealed block `at` (the head
/// when `None`): the same typed queries the attached source sends with a block tag.
fn run_life(core: &NodeCore, id: TimerId, at: Option<u64>) -> Result<LifeReplies, NodeError> {
    let (timer, head, config) = life_queries(id, at);
    Ok(LifeReplies {
        timer: core.ask(&timer)?,
        head: core.ask(&head)?,
        config: core.ask(&config)?,
        at,
    })
}

fn node_error(e: NodeError) -> CommandError {
    CommandError::from_failure(&Failure::from_error(e.kind(), &e))
}

impl<N: NodeAccess> DashboardSource for LocalDevnet<N> {
    fn replies(&mut self, q: &ViewQuery) -> Option<QueryReplies> {
        let q = q.clone();
        let r = self.node.read_answer(move |core| run_view(core, q)).ok()?;
        self.node_names = r.names.clone();
        Some(r)
    }

    fn event_records(&mut self, from_height: u64, limit: usize) -> Vec<EventRecord> {
        let ask = |from: u64| {
            let q = EventsQuery(EventFilter {
                from_height: Some(from),
                ..EventFilter::default()
            });
            self.node.read(move |core| core.ask(&q)).ok()
        };
        // Spec note 73: heights the node no longer keeps are skipped, the feed goes on from the
        // oldest kept one (a dashboard started or resumed after pruning).
        let mut records = match ask(from_height) {
            Some(Err(NodeError::HistoryPruned { first_kept, .. })) => ask(first_kept),
            r => r,
        }
        .and_then(Result::ok)
        .unwrap_or_default();
        records.drain(..records.len().saturating_sub(limit));
        records
    }

    fn life_replies_at(&mut self, id: &TimerId, at: Option<u64>) -> Option<LifeReplies> {
        let id = *id;
        self.node
            .read(move |core| run_life(core, id, at))
            .ok()?
            .ok()
    }

    fn fire_trace(&mut self, id: &TimerId) -> Result<Vec<crate::chain::trace::Trace>, String> {
        let q = crate::node::FireTrace {
            timer_id: *id,
            height: None,
        };
        match self.node.read(move |core| core.ask(&q)) {
            Ok(r) => r.map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        }
    }

    fn payload_at(&mut self, id: &TimerId, at: u64) -> Result<Option<Vec<u8>>, String> {
        let q = crate::node::At::new(crate::node::TimerQuery { id: *id }, Some(at));
        match self.node.read(move |core| core.ask(&q)) {
            Ok(Ok(t)) => Ok(t.and_then(|t| t.payload)),
            Ok(Err(e)) => Err(e.to_string()),
            Err(e) => Err(e.to_string()),
        }
    }

    fn timer_page(&mut self, q: &crate::node::TimersPageQuery) -> Option<crate::node::TimerPage> {
        let q = q.clone();
        self.node.read(move |core| core.ask(&q)).ok()?.ok()
    }

    fn pending_txs(&mut self) -> Result<Vec<crate::node::TxView>, String> {
        match self
            .node
            .read(|core| core.ask(&crate::node::PendingTxsQuery))
        {
            Ok(r) => r.map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        }
    }

    fn dry_run(
        &mut self,
        req: &super::command::DryRequest,
    ) -> Result<crate::node::DryRunView, String> {
        let q = super::command::dry_run(req);
        match self.node.read(move |core| core.ask(&q)) {
            Ok(r) => r.map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        }
    }

    fn info(&self) -> SourceInfo {
        SourceInfo {
            rpc_address: self.given.rpc_address.clone(),
            names: labels(&self.node_names, &self.given),
        }
    }

    /// Each command is the node's [`Command`](crate::node::Command) its JSON-RPC method
    /// executes ([`UiCommand::request`]), so the reply and the error are the same.
    fn execute(&mut self, cmd: UiCommand) -> Result<CommandOutcome, CommandError> {
        let Some(c) = cmd.request() else {
            return self.export().map(|a| CommandOutcome::of(&cmd, a));
        };
        let reply = self.apply(c)?;
        let answer = super::reply::answer(&cmd, reply, &mut Reads(&mut self.node));
        Ok(CommandOutcome::of(&cmd, answer))
    }

    fn tick(&mut self, now: Instant) -> bool {
        self.node.tick(now)
    }

    fn next_deadline(&self) -> Option<Instant> {
        self.node.next_deadline()
    }

    fn take_dropped(&mut self) -> u64 {
        self.node.take_dropped()
    }

    // issue 23 (branch dash).
    fn take_story(&mut self) -> Vec<crate::tui::story::StoryItem> {
        self.node.take_story()
    }
}
