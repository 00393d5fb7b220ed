//! Pages of events and timers with a cursor (issue 32, "Dry runs, receipts, the pool, events"
//! and "Find any timer"; Spec notes 171 and 172).
//!
//! [`EventsPageQuery`] is `devnet_getEvents` with a `page`: the events a filter matches, at
//! most a page at a time, with the cursor to continue from. [`TimersPageQuery`] is
//! `timer_list` with a `page`, and what the dashboard's timer finder asks: every timer the node
//! knows (pending in any tier, and the ones that left, from the compact record the node keeps
//! of each that left, Spec notes 150, 224), filtered by id prefix, actor, handler, status and
//! height window.

use super::core::NodeCore;
use super::error::NodeError;
use super::query::Query;
use super::views::{EventFilter, EventView, TimerEntry, TimerFilter, TimerView};
use crate::engine::TimerId;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;

/// The largest page a paged read answers (Spec note 171): a client pages on with the cursor.
pub const MAX_PAGE: usize = 1000;
/// The page size when the caller gives none.
pub const DEFAULT_PAGE: usize = 100;

/// Where a page of events continues (Spec note 171): the block height and the event's index
/// among that block's events. It travels as the string `"HEIGHT:INDEX"` (opaque to clients;
/// `{"height", "index"}` is read too).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct EventCursor {
    pub height: u64,
    pub index: u32,
}

impl std::fmt::Display for EventCursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.height, self.index)
    }
}

impl std::str::FromStr for EventCursor {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("expected a cursor \"HEIGHT:INDEX\" as a page answered, got \"{s}\"");
        let (h, i) = s.split_once(':').ok_or_else(bad)?;
        Ok(EventCursor {
            height: h.parse().map_err(|_| bad())?,
            index: i.parse().map_err(|_| bad())?,
        })
    }
}

impl Serialize for EventCursor {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for EventCursor {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Form {
            Text(String),
            Pair { height: u64, index: u32 },
        }
        match Form::deserialize(d)? {
            Form::Text(s) => s.parse().map_err(serde::de::Error::custom),
            Form::Pair { height, index } => Ok(EventCursor { height, index }),
        }
    }
}

/// One page of events (Spec note 171).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EventsPage {
    pub events: Vec<EventView>,
    /// Where the next page starts; `null` when no kept event after this page matches.
    pub next_cursor: Option<EventCursor>,
    /// The page size this page was cut at.
    pub limit: usize,
}

/// The events `filter` matches, from `cursor` on (or from the filter's `from_height`), at most
/// `limit` (1..=[`MAX_PAGE`]); with `newest`, the newest `limit` of them (oldest first, no
/// cursor), read from the top of the history down, so that its cost follows `limit` and not
/// the events below (issue 31: a feed attaching to a node whose window holds a block of a
/// million first deferrals).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventsPageQuery {
    pub filter: EventFilter,
    pub cursor: Option<EventCursor>,
    pub limit: usize,
    pub newest: bool,
}

impl Query for EventsPageQuery {
    type Reply = EventsPage;
    /// `HistoryPruned` when the filter or the cursor starts below the kept history.
    fn run(&self, node: &NodeCore) -> Result<EventsPage, NodeError> {
        let limit = self.limit.clamp(1, MAX_PAGE);
        let from = self.filter.from_height.unwrap_or(0);
        let start = self.cursor.unwrap_or_default().max(EventCursor {
            height: from,
            index: 0,
        });
        if start.height > 0 {
            node.check_kept(start.height)?;
        }
        if self.newest {
            return Ok(self.newest_page(node, from, limit));
        }
        let mut events = Vec::new();
        let mut next_cursor = None;
        let positioned = node
            .kept_blocks(start.height)
            .take_while(|b| self.filter.to_height.is_none_or(|t| b.header.height <= t))
            .flat_map(|b| {
                b.events.iter().enumerate().map(|(i, r)| {
                    let at = EventCursor {
                        height: b.header.height,
                        index: i as u32,
                    };
                    (at, r)
                })
            });
        for (at, r) in positioned {
            if at < start || !self.filter.matches(r) {
                continue;
            }
            if events.len() == limit {
                next_cursor = Some(at);
                break;
            }
            events.push(r.clone());
        }
        Ok(EventsPage {
            events,
            next_cursor,
            limit,
        })
    }
}

impl EventsPageQuery {
    /// The newest `limit` events the filter matches at `from` or above, oldest first.
    fn newest_page(&self, node: &NodeCore, from: u64, limit: usize) -> EventsPage {
        let mut events: Vec<EventView> = node
            .kept_blocks(from)
            .rev()
            .filter(|b| self.filter.to_height.is_none_or(|t| b.header.height <= t))
            .flat_map(|b| b.events.iter().rev())
            .filter(|r| self.filter.matches(r))
            .take(limit)
            .cloned()
            .collect();
        events.reverse();
        EventsPage {
            events,
            next_cursor: None,
            limit,
        }
    }
}

/// One page of timers (Spec note 172).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TimerPage {
    pub timers: Vec<TimerView>,
    /// Where the next page starts (the position in the node's list of timers, as a string);
    /// `null` when no timer after this page matches.
    pub next_cursor: Option<String>,
    /// How many timers match in all (every page together).
    pub matched: u64,
    pub limit: usize,
}

/// The timers `filter` matches, in the order they were scheduled (the ones scheduled in the
/// open block last), from position `cursor` on, at most `limit` (1..=[`MAX_PAGE`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TimersPageQuery {
    pub filter: TimerFilter,
    pub cursor: Option<u64>,
    pub limit: usize,
}

impl Query for TimersPageQuery {
    type Reply = TimerPage;
    fn run(&self, node: &NodeCore) -> Result<TimerPage, NodeError> {
        let limit = self.limit.clamp(1, MAX_PAGE);
        let start = self.cursor.unwrap_or(0) as usize;
        let handlers = self
            .filter
            .handler
            .as_ref()
            .map(|_| node.scheduled_handlers());
        let mut ids = Vec::new();
        let mut next_cursor = None;
        let mut matched = 0u64;
        let named = self.filter.handler.is_some();
        for (pos, e) in node.timer_entries(named).iter().enumerate() {
            if !entry_matches(&self.filter, e, handlers.as_ref())
                || !self.filter.label_matches(node.timer_label(&e.id))
            {
                continue;
            }
            matched += 1;
            if pos < start {
                continue;
            }
            if ids.len() < limit {
                ids.push(e.id);
            } else if next_cursor.is_none() {
                next_cursor = Some(pos.to_string());
            }
        }
        Ok(TimerPage {
            timers: node.timer_views_full(ids),
            next_cursor,
            matched,
            limit,
        })
    }
}

/// Does `e` pass `f` (Spec note 172)? `handlers`: the kept `TimerScheduled` events' handlers,
/// for gone timers (asked only when the filter names a handler).
fn entry_matches(
    f: &TimerFilter,
    e: &TimerEntry,
    handlers: Option<&BTreeMap<TimerId, String>>,
) -> bool {
    let handler = e
        .handler
        .as_deref()
        .or_else(|| handlers.and_then(|h| h.get(&e.id)).map(String::as_str));
    f.status.is_none_or(|s| s == e.status)
        && (f.handler.is_none() || handler.is_some())
        && f.matches_record(&e.id, &e.actor, e.height, handler.unwrap_or_default())
}
