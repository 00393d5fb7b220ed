//! The one data interface the dashboard renders from (issue 15, "How it is built").
//!
//! Plain data, no chain types beyond ids and addresses: an in-process node
//! ([`crate::tui::local::LocalDevnet`]) and the JSON-RPC client
//! ([`crate::tui::remote::RemoteDevnet`]) both fill these types, and the dashboard never sees
//! which one it talks to. Every command a key press sends is a [`UiCommand`]
//! ([`super::command`]), answered by a typed [`CommandOutcome`] or a named [`CommandError`], the
//! same `{reason, message}` pair the JSON-RPC API puts in `data.reason` and the error message.
//!
//! The types live in [`super::data`] (plain data), [`super::outcome`] (a command's answer),
//! [`super::command`] and [`super::draft_request`] (the commands); this module names them all
//! for the dashboard's users and holds the [`DashboardSource`] trait, the only part that
//! reaches the view's assembler.

pub use super::command::{ConfigPatch, ScheduleRequest, UiCommand};
pub use super::data::{
    BucketSummary, CommandError, DEFER_REASONS, DashboardData, EventRow, FairnessRow, LaneRow,
    LifeEntry, MiningMode, Status, Tiers, TimerLife, TimerRow, ViewQuery, count_reasons, fmt_nanos,
    fmt_w,
};
pub use super::draft_request::{DraftEstimateView, DraftRequest};
pub use super::outcome::{Answer, CommandOutcome, Estimate, auction_line};
use crate::engine::TimerId;
use crate::tui::view::{LifeReplies, QueryReplies, SourceInfo};
use std::time::Instant;

/// What the dashboard needs from a devnet: the replies to the node's read requests and
/// commands with typed replies. A source is a transport and nothing more: it runs the queries
/// of [`crate::tui::view`] in-process ([`LocalDevnet`](crate::tui::local::LocalDevnet)) or sends
/// them as batched JSON-RPC ([`RemoteDevnet`](crate::tui::remote::RemoteDevnet)) and hands back
/// the typed replies; the view is assembled from them by the provided methods
/// ([`dashboard`](Self::dashboard), [`events`](Self::events), [`timer_life`](Self::timer_life)),
/// which no source overrides.
///
/// The dashboard calls a source from a thread of its own ([`crate::tui::worker`]), never from
/// a key handler or a draw, so a query or command may take as long as the node or the network
/// takes; a source whose devnet is unreachable answers with its last replies and says so in
/// [`link`](DashboardSource::link).
pub trait DashboardSource {
    /// The replies to one refresh's queries ([`ViewQuery::queries`], then
    /// [`deferred_query`](crate::tui::view::deferred_query)); `None` when the devnet never
    /// answered.
    fn replies(&mut self, q: &ViewQuery) -> Option<QueryReplies>;
    /// Event records of sealed blocks at heights `from_height..`, oldest first, at most
    /// `limit` (the newest ones when there are more).
    fn event_records(&mut self, from_height: u64, limit: usize) -> Vec<crate::chain::EventRecord>;
    /// The replies to a timer's life queries ([`life_queries`](crate::tui::view::life_queries))
    /// as of sealed block `at` (`None`: the head).
    fn life_replies_at(&mut self, id: &TimerId, at: Option<u64>) -> Option<LifeReplies>;
    /// [`life_replies_at`](Self::life_replies_at) the head.
    fn life_replies(&mut self, id: &TimerId) -> Option<LifeReplies> {
        self.life_replies_at(id, None)
    }
    /// What the source knows itself: the API address it shows, the labels it was given, with
    /// the node's names as of the last refresh.
    fn info(&self) -> SourceInfo;
    /// Applies a command.
    fn execute(&mut self, cmd: UiCommand) -> Result<CommandOutcome, CommandError>;
    /// Lets time pass (the interval miner of an in-process node); true when blocks were sealed.
    /// Sources whose node keeps its own time ignore it.
    fn tick(&mut self, _now: Instant) -> bool {
        false
    }
    /// When [`tick`](Self::tick) next has something to do.
    fn next_deadline(&self) -> Option<Instant> {
        None
    }
    /// Notifications the source lost since the last call because it fell behind (shown as
    /// "N events dropped").
    fn take_dropped(&mut self) -> u64 {
        0
    }
    /// How the link to the devnet stands when it is not well (`"disconnected, retrying: ..."`),
    /// shown in the status bar; `None` while it answers. An in-process node is always there.
    fn link(&self) -> Option<String> {
        None
    }

    /// One refresh: status, buckets, tiers, lane, fairness, names, assembled from
    /// [`replies`](Self::replies) by [`crate::tui::view::assemble`].
    fn dashboard(&mut self, q: &ViewQuery) -> DashboardData {
        match self.replies(q) {
            Some(r) => crate::tui::view::assemble(&r, q, &self.info()),
            None => DashboardData::default(),
        }
    }
    /// Events of sealed blocks at heights `from_height..` as feed rows.
    fn events(&mut self, from_height: u64, limit: usize) -> Vec<EventRow> {
        let records = self.event_records(from_height, limit);
        crate::tui::view::event_rows(&self.info().names, &records)
    }
    /// A timer's record and timeline as of sealed block `at` (`None`: the head); `None` when
    /// the id is unknown then.
    fn timer_life_at(&mut self, id: &TimerId, at: Option<u64>) -> Option<TimerLife> {
        let r = self.life_replies_at(id, at)?;
        crate::tui::view::timer_life(&r, &self.info().names)
    }
    /// [`timer_life_at`](Self::timer_life_at) the head.
    fn timer_life(&mut self, id: &TimerId) -> Option<TimerLife> {
        self.timer_life_at(id, None)
    }
    /// A timer's payload as of sealed block `at` (issue 34, item 3: the raw view of a timer
    /// that left reads it as of the block before it left): `Ok(None)` when it had none then,
    /// `Err` with the node's error name first (`HistoryPruned: ...`) when the read failed.
    fn payload_at(&mut self, id: &TimerId, at: u64) -> Result<Option<Vec<u8>>, String> {
        let r = self
            .life_replies_at(id, Some(at))
            .ok_or_else(|| format!("the node did not answer the timer as of #{at}"))?;
        Ok(r.timer.and_then(|t| t.payload))
    }

    /// A page of `timer_list` (issue 32: the timer finder), at the head; `None` when the
    /// devnet did not answer. Sources without a node give nothing.
    /// The trace of a timer's last fire (issue 32): kept, or rebuilt by the node's replay.
    fn fire_trace(&mut self, _id: &TimerId) -> Result<Vec<crate::chain::trace::Trace>, String> {
        Err("this source has no traces".into())
    }

    fn timer_page(&mut self, _q: &crate::node::TimersPageQuery) -> Option<crate::node::TimerPage> {
        None
    }

    /// The open block's transactions, in order (issue 32: the pool overlay,
    /// `devnet_pendingTransactions`); `Err` with the node's message when it did not answer.
    fn pending_txs(&mut self) -> Result<Vec<crate::node::TxView>, String> {
        Err("this source has no transaction pool".into())
    }

    /// A schedule request run as a dry run against the head (issue 32: the schedule form's
    /// dry run, `devnet_call {"schedule": ...}` with a trace): nothing changes.
    fn dry_run(
        &mut self,
        _req: &super::command::DryRequest,
    ) -> Result<crate::node::DryRunView, String> {
        Err("this source has no dry runs".into())
    }

    // --- issue 23 (branch dash) ---
    /// The story of a fixture played along the node (steps, expectations, timer labels)
    /// reported since the last call; sources with none give nothing.
    fn take_story(&mut self) -> Vec<crate::tui::story::StoryItem> {
        Vec::new()
    }
}
