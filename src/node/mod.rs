//! The live devnet (DESIGN.md, `node/`): the only way into the chain. Every change is a typed
//! [`Request`] with a typed reply, every read a query on `&NodeCore`; a key press, an RPC call
//! and a fixture step all go through it.
//!
//! - [`NodeCore`] (`core.rs`): synchronous, without threads or clocks, like the engine. Mining
//!   modes are its state; whoever runs it says when time has passed (`next_deadline` /
//!   `tick`) and drains what happened (`poll_event`).
//! - The shell (`shell.rs`): [`spawn`] runs a core on a thread of its own; a [`NodeHandle`]
//!   sends it requests, reads the published head without waiting, and subscribes to its
//!   notifications.
//! - `requests.rs`: one struct per request; `txs.rs`: the transactions behind the timer and
//!   governance requests; `views.rs`: what queries answer; `read.rs`: every read of the
//!   chain's state the views make.

pub mod at;
mod bucket_page;
mod codes;
mod command;
mod command_reply;
mod core;
pub mod draft;
pub mod draft_estimate;
mod drop;
mod dry_diff;
mod dry_run;
mod error;
mod finder;
mod governance;
mod history;
pub mod pool;
pub mod query;
mod read;
mod registration;
pub mod requests;
pub mod scheduler;
pub mod session;
mod shell;
mod slot;
mod story_note;
pub mod text;
mod trace_cache;
pub mod trace_text;
pub mod traces;
pub mod txs;
pub mod views;

pub use self::core::{
    BlockHook, CheckpointBytes, DEFAULT_CHECKPOINT_BUDGET, DEFAULT_DEV_ACCOUNTS,
    DEFAULT_DEV_BALANCE, DEFAULT_HISTORY, DEFAULT_MAX_SNAPSHOTS, DEFAULT_PAST_BUDGET, DumpCopy,
    Frozen, MAX_MINE_PER_COMMAND, MineStep, MiningMode, NodeConfig, NodeCore, NodeEvent, Request,
    RetainedPart, dev_account,
};
pub use at::{At, BlockTag};
pub use bucket_page::{
    BucketEntry, BucketPage, BucketPageQuery, DeferralsQuery, MAX_BUCKET_PAGE, ReasonCount,
};
pub use codes::{CODES, Code, code_of};
pub use command::Command;
pub use command_reply::{
    ActivationReply, CommandReply, ReceiptReply, ReceiptStatus, ReplyKind, ScheduledReply,
};
pub use draft::{DraftQuery, DraftTimer, DraftView, WatchView};
pub use draft_estimate::{DraftEstimate, EstimateDraftTimer};
pub use drop::{DropTransaction, Dropped};
pub use dry_diff::{BalanceChange, StateDiff, StorageChange, TimerChanges, TimerExtension};
pub use dry_run::{DryCall, DryRun, DryRunView, Registration};
pub use error::NodeError;
pub use finder::{
    DEFAULT_PAGE, EventCursor, EventsPage, EventsPageQuery, MAX_PAGE, TimerPage, TimersPageQuery,
};
pub use governance::{GovUpdateSchedulerConfig, merge_scheduler_params};
pub use pool::{
    PendingTxsQuery, TX_NOT_FOUND, TxQuery, TxRecord, TxState, TxView, not_found_message,
};
pub use query::*;
pub use registration::Scheduled;
pub use requests::*;
pub use scheduler::*;
pub use session::{Base, Entry, SessionLog};
pub use shell::{
    DEFAULT_EVENT_CAPACITY, NODE_STACK_BYTES, NodeHandle, PAST_READ_THREADS, ShellConfig, spawn,
    spawn_with,
};
pub use story_note::{ExpectationNote, StepNote, StoryLabel, StoryNote};
pub use traces::{BlockTraces, FireTrace, TraceQuery};
pub use views::*;
