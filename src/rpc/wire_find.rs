//! `devnet_getEvents` and `timer_list` (registered by hand in [`super::find`]: a page param
//! changes the reply's shape), described from their types (see [`super::wire`]).

use super::schema::{BLOCK_DOC, MethodSchema, method};
use crate::chain::EventRecord;
use crate::node::{BlockTag, EventFilter, EventsPage, TimerFilter, TimerPage, TimerView};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use std::borrow::Cow;

/// Events of sealed blocks, oldest first (from_height above to_height is refused). With
/// `page` ({cursor?, limit? 1..=1000, default 100}; issue 32, Spec note 171) the reply is a
/// page: {events, next_cursor ("HEIGHT:INDEX", or null when no kept event after it matches),
/// limit}, or with `newest` the newest `limit` events; without it, every matching event as an
/// array.
#[derive(JsonSchema)]
pub struct EventsParams {
    /// which events
    pub filter: Option<EventFilter>,
    /// a page at a time, from a cursor, or the newest
    pub page: Option<EventPageFields>,
}

/// A page of events: its start and size, or (`newest`) the newest `limit` matching events,
/// still oldest first, without a cursor (issue 31: what a feed shows on attaching).
#[derive(JsonSchema)]
#[schemars(rename = "EventPage", deny_unknown_fields)]
pub struct EventPageFields {
    pub cursor: Option<PageCursor>,
    /// 1..=1000, default 100
    pub limit: Option<u64>,
    /// the newest `limit` matching events (not with `cursor`); `next_cursor` is then null
    pub newest: Option<bool>,
}

/// Timers, filtered: pending (firing order) then gone. With `page` (issue 32, Spec note 172)
/// every timer the node knows, in scheduling order (the gone ones from their compact
/// records), a page at a time: {timers, next_cursor (or null), matched, limit}.
#[derive(JsonSchema)]
pub struct TimersParams {
    /// actor?, status?, id_prefix?, handler?, from_height?, to_height? (the scheduled height),
    /// label? (each word in a fixture's label, any case), limit? (not with page)
    pub filter: Option<TimerFilter>,
    #[doc = "the state as of this sealed height (default: latest)"]
    pub block: Option<BlockTag>,
    /// a page at a time, from a cursor
    pub page: Option<PageFields>,
}

/// A page's start and size (issue 32, Spec notes 171 and 172).
#[derive(JsonSchema)]
#[schemars(rename = "Page", deny_unknown_fields)]
pub struct PageFields {
    pub cursor: Option<PageCursor>,
    /// 1..=1000, default 100
    pub limit: Option<u64>,
}

/// The `next_cursor` a page answered (events also take `{height, index}`).
pub struct PageCursor;

impl JsonSchema for PageCursor {
    fn schema_name() -> Cow<'static, str> {
        "PageCursor".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": ["string", "object"],
            "description": "the next_cursor a page answered",
        })
    }
}

/// `devnet_getEvents`' result: every matching event, or a page of them.
#[derive(JsonSchema)]
#[serde(untagged)]
pub enum EventsReply {
    All(Vec<EventRecord>),
    Page(EventsPage),
}

/// `timer_list`'s result: the matching timers, or a page of them.
#[derive(JsonSchema)]
#[serde(untagged)]
pub enum TimersReply {
    All(Vec<TimerView>),
    Page(TimerPage),
}

/// The two methods in `rpc.discover`.
pub(super) fn schemas(g: &mut SchemaGenerator) -> Vec<MethodSchema> {
    let mut timers =
        method::<TimersParams, TimersReply>(g, "timer_list", &["filter", "block", "page"]);
    timers.params[1]["description"] = BLOCK_DOC.into();
    vec![
        method::<EventsParams, EventsReply>(g, "devnet_getEvents", &["filter", "page"]),
        timers,
    ]
}
