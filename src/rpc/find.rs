//! Filters and pages (issue 32; Spec notes 171 and 172): `devnet_getEvents` and `timer_list`
//! with their filters, and with a `page` (`{cursor, limit}`) a page at a time with the cursor
//! to continue from.

use super::error::node_error;
use super::json::to_json;
use super::queries::RpcQuery;
use super::register::reg;
use super::types::{Args, Obj, invalid_param};
use crate::engine::{Address, EventKind};
use crate::node::{
    At, DEFAULT_PAGE, EventCursor, EventFilter, EventsPageQuery, EventsQuery, MAX_LABEL, MAX_PAGE,
    NodeHandle, TimerFilter, TimerStatus, TimersPageQuery, TimersQuery, valid_id_prefix,
};
use jsonrpsee::RpcModule;
use jsonrpsee::types::ErrorObjectOwned;
use serde_json::{Value, json};

impl RpcQuery for EventsPageQuery {
    const METHOD: &'static str = EventsQuery::METHOD;
    fn params(&self) -> Vec<Value> {
        let mut page = page_json(self.cursor, self.limit);
        if self.newest {
            page["newest"] = json!(true);
        }
        vec![json!(self.filter), page]
    }
}

impl RpcQuery for TimersPageQuery {
    const METHOD: &'static str = TimersQuery::METHOD;
    fn params(&self) -> Vec<Value> {
        let cursor = self.cursor.map(|c| c.to_string());
        vec![
            json!(self.filter),
            Value::Null,
            page_json(cursor, self.limit),
        ]
    }
}

fn page_json<C: serde::Serialize>(cursor: Option<C>, limit: usize) -> Value {
    json!({ "cursor": cursor, "limit": limit })
}

/// An event filter. An unknown kind is `-32602` naming the valid kinds (issue 20): a typo must
/// not read as "no such events"; so is `from_height` above `to_height` (Spec note 171).
pub(super) fn decode_event_filter(mut o: Obj) -> Result<EventFilter, ErrorObjectOwned> {
    let kinds = o.opt_list::<String>("kinds")?;
    if let Some(bad) = kinds
        .iter()
        .flatten()
        .find(|k| k.parse::<EventKind>().is_err())
    {
        let names: Vec<&str> = EventKind::ALL.iter().map(|k| k.as_str()).collect();
        return Err(invalid_param(
            "kinds",
            format!(
                "unknown event kind \"{bad}\"; expected any of {}",
                names.join(", ")
            ),
        ));
    }
    let f = EventFilter {
        from_height: o.opt("from_height")?,
        to_height: o.opt("to_height")?,
        kinds,
        timer_id: o.opt("timer_id")?,
        actor: o.opt("actor")?,
        limit: o.opt::<u64>("limit")?.map(|n| n as usize),
    };
    o.finish()?;
    check_window(f.from_height, f.to_height)?;
    Ok(f)
}

/// `from_height` above `to_height` is refused (Spec note 171): an empty window is a mistake.
fn check_window(from: Option<u64>, to: Option<u64>) -> Result<(), ErrorObjectOwned> {
    match (from, to) {
        (Some(f), Some(t)) if f > t => Err(invalid_param(
            "to_height",
            format!("{t} is below from_height {f}: the window is empty"),
        )),
        _ => Ok(()),
    }
}

/// A page param: `{cursor, limit}`, both optional; the limit 1..=`MAX_PAGE`.
fn decode_page(mut o: Obj) -> Result<(Option<Value>, usize), ErrorObjectOwned> {
    let cursor: Option<Value> = o.opt("cursor")?;
    let limit = o.opt::<u64>("limit")?.unwrap_or(DEFAULT_PAGE as u64);
    o.finish()?;
    if limit == 0 || limit > MAX_PAGE as u64 {
        return Err(invalid_param(
            "page.limit",
            format!("{limit} is out of range: a page holds 1..={MAX_PAGE}"),
        ));
    }
    Ok((cursor, limit as usize))
}

fn bad_cursor(why: impl std::fmt::Display) -> ErrorObjectOwned {
    invalid_param("page.cursor", why)
}

fn event_cursor(v: Option<Value>) -> Result<Option<EventCursor>, ErrorObjectOwned> {
    v.map(|v| serde_json::from_value::<EventCursor>(v).map_err(bad_cursor))
        .transpose()
}

fn timer_cursor(v: Option<Value>) -> Result<Option<u64>, ErrorObjectOwned> {
    let Some(v) = v else { return Ok(None) };
    v.as_str()
        .and_then(|s| s.parse::<u64>().ok())
        .map(Some)
        .ok_or_else(|| bad_cursor(format!("expected a cursor a page answered, got {v}")))
}

/// A timer filter (Spec note 172): an unknown status, a malformed id prefix or `from_height`
/// above `to_height` is `-32602` naming the field.
fn decode_timer_filter(mut o: Obj) -> Result<TimerFilter, ErrorObjectOwned> {
    let actor: Option<Address> = o.opt("actor")?;
    let status = match o.opt::<String>("status")? {
        None => None,
        Some(s) => Some(s.parse::<TimerStatus>().map_err(|_| {
            let names: Vec<&str> = TimerStatus::ALL.iter().map(|t| t.as_str()).collect();
            invalid_param(
                "status",
                format!("expected one of {}, got \"{s}\"", names.join(", ")),
            )
        })?),
    };
    let id_prefix: Option<String> = o.opt("id_prefix")?;
    if let Some(p) = id_prefix.as_deref().filter(|p| !valid_id_prefix(p)) {
        return Err(invalid_param(
            "id_prefix",
            format!("expected up to 64 hex digits (0x optional), got \"{p}\""),
        ));
    }
    let label: Option<String> = o.opt("label")?;
    if let Some(l) = label.as_deref().filter(|l| l.len() > MAX_LABEL) {
        return Err(invalid_param(
            "label",
            format!("at most {MAX_LABEL} bytes, got {}", l.len()),
        ));
    }
    let f = TimerFilter {
        label,
        actor,
        status,
        limit: o.opt::<u64>("limit")?.map(|n| n as usize),
        id_prefix,
        handler: o.opt("handler")?,
        from_height: o.opt("from_height")?,
        to_height: o.opt("to_height")?,
    };
    o.finish()?;
    check_window(f.from_height, f.to_height)?;
    Ok(f)
}

/// With a page the filter's own `limit` is refused: the page says how many.
fn no_limit_beside_page(limit: Option<usize>) -> Result<(), ErrorObjectOwned> {
    match limit {
        Some(_) => Err(invalid_param(
            "limit",
            "give the page size as page.limit when a page is asked for",
        )),
        None => Ok(()),
    }
}

/// Registers `devnet_getEvents` and `timer_list`.
pub(super) fn register(m: &mut RpcModule<NodeHandle>) {
    reg(m, EventsQuery::METHOD, |p, node| async move {
        let a = Args::new(&p, &["filter", "page"])?;
        let filter = decode_event_filter(a.obj(0, "filter", true)?)?;
        if a.opt::<Value>(1, "page")?.is_none() {
            let ev = node.ask(EventsQuery(filter)).await.map_err(node_error)?;
            return Ok(to_json(&ev));
        }
        let mut page = a.obj(1, "page", false)?;
        let newest = page.opt::<bool>("newest")?.unwrap_or(false);
        let (cursor, limit) = decode_page(page)?;
        no_limit_beside_page(filter.limit)?;
        if newest && cursor.is_some() {
            return Err(invalid_param(
                "page.newest",
                "the newest events have no cursor: give `newest` or `cursor`, not both",
            ));
        }
        let q = EventsPageQuery {
            filter,
            cursor: event_cursor(cursor)?,
            limit,
            newest,
        };
        let page = node.ask(q).await.map_err(node_error)?;
        Ok(to_json(&page))
    });
    reg(m, TimersQuery::METHOD, |p, node| async move {
        let a = Args::new(&p, &["filter", "block", "page"])?;
        let at = a.block(1)?;
        let filter = decode_timer_filter(a.obj(0, "filter", true)?)?;
        if a.opt::<Value>(2, "page")?.is_none() {
            let ts = node
                .ask(At::new(TimersQuery(filter), at))
                .await
                .map_err(node_error)?;
            return Ok(to_json(&ts));
        }
        let (cursor, limit) = decode_page(a.obj(2, "page", false)?)?;
        no_limit_beside_page(filter.limit)?;
        let q = TimersPageQuery {
            filter,
            cursor: timer_cursor(cursor)?,
            limit,
        };
        let page = node.ask(At::new(q, at)).await.map_err(node_error)?;
        Ok(to_json(&page))
    });
}
