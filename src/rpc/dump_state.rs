//! `devnet_dumpState` served off the node's thread (issue 31 item 7): the node's thread takes
//! a copy of the state ([`DumpStateCopy`]); the dump and its text are made on a blocking
//! thread, whole or a page at a time ([`super::dump_pages`]).

use super::dump_pages::{
    DEFAULT_PAGE_BYTES, DumpError, DumpPage, DumpPages, MAX_PAGE_BYTES, MIN_PAGE_BYTES,
    WHOLE_LIMIT, whole_text,
};
use super::error::{domain, node_error};
use super::types::{Args, invalid_param};
use crate::node::{DumpStateCopy, NodeHandle};
use jsonrpsee::RpcModule;
use jsonrpsee::types::ErrorObjectOwned;
use serde_json::Value;
use serde_json::value::RawValue;
use std::sync::Arc;

/// What `devnet_dumpState` answers: the whole dump (its text as written), or a page of it.
#[derive(Clone, Debug, serde::Serialize)]
#[serde(untagged)]
pub enum DumpAnswer {
    Whole(Box<RawValue>),
    Page(DumpPage),
}

/// What the `page` param asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PageAsk {
    /// No `page`: the whole dump.
    Whole,
    /// `{"page_bytes"?: n}`: a paged dump, its first page.
    Open { page_bytes: u64 },
    /// `{"cursor": c}`: a page of an open paged dump.
    Next { cursor: String },
}

/// The `page` param, checked (-32602 naming the field).
pub fn decode_page(a: &Args) -> Result<PageAsk, ErrorObjectOwned> {
    let Some(v) = a.opt::<Value>(0, "page")? else {
        return Ok(PageAsk::Whole);
    };
    let Value::Object(mut m) = v else {
        return Err(invalid_param(
            "page",
            "expected an object: {\"page_bytes\"?: n} or {\"cursor\": c}",
        ));
    };
    let bytes = m.remove("page_bytes").filter(|v| !v.is_null());
    let cursor = m.remove("cursor").filter(|v| !v.is_null());
    if let Some(k) = m.keys().next() {
        return Err(invalid_param(&format!("page.{k}"), "unknown field"));
    }
    match (bytes, cursor) {
        (Some(_), Some(_)) => Err(invalid_param(
            "page",
            "give page_bytes to start a paged dump or cursor to go on with one, not both",
        )),
        (None, Some(c)) => match c {
            Value::String(cursor) => Ok(PageAsk::Next { cursor }),
            _ => Err(invalid_param("page.cursor", "expected a string")),
        },
        (b, None) => {
            let page_bytes = match b {
                None => DEFAULT_PAGE_BYTES,
                Some(v) => v
                    .as_u64()
                    .filter(|n| (MIN_PAGE_BYTES..=MAX_PAGE_BYTES).contains(n))
                    .ok_or_else(|| {
                        invalid_param(
                            "page.page_bytes",
                            format!(
                                "expected an integer in {MIN_PAGE_BYTES}..={MAX_PAGE_BYTES}, got {v}"
                            ),
                        )
                    })?,
            };
            Ok(PageAsk::Open { page_bytes })
        }
    }
}

fn dump_error(e: DumpError) -> ErrorObjectOwned {
    domain(e.reason(), e.to_string())
}

fn task_failed(e: tokio::task::JoinError) -> ErrorObjectOwned {
    domain("Internal", format!("the dump task failed: {e}"))
}

/// Answers one `devnet_dumpState` call.
pub async fn answer(
    node: &NodeHandle,
    pages: &Arc<DumpPages>,
    ask: PageAsk,
) -> Result<DumpAnswer, ErrorObjectOwned> {
    match ask {
        PageAsk::Next { cursor } => {
            let pages = pages.clone();
            tokio::task::spawn_blocking(move || pages.page(&cursor))
                .await
                .map_err(task_failed)?
                .map(DumpAnswer::Page)
                .map_err(dump_error)
        }
        PageAsk::Open { page_bytes } => {
            // Refused before a copy is taken when no dump can open.
            pages.check_room().map_err(dump_error)?;
            let copy = node.request(DumpStateCopy).await.map_err(node_error)?;
            let pages = pages.clone();
            tokio::task::spawn_blocking(move || pages.open(*copy, page_bytes))
                .await
                .map_err(task_failed)?
                .map(DumpAnswer::Page)
                .map_err(dump_error)
        }
        PageAsk::Whole => {
            let copy = node.request(DumpStateCopy).await.map_err(node_error)?;
            let text = tokio::task::spawn_blocking(move || whole_text(&copy, WHOLE_LIMIT))
                .await
                .map_err(task_failed)?
                .map_err(dump_error)?;
            let raw = RawValue::from_string(text)
                .map_err(|e| domain("Internal", format!("the dump's text: {e}")))?;
            Ok(DumpAnswer::Whole(raw))
        }
    }
}

/// Serves `devnet_dumpState` (its `rpc.discover` entry is [`crate::node::DumpState`]'s).
pub fn register(m: &mut RpcModule<NodeHandle>) {
    let pages = Arc::new(DumpPages::default());
    m.register_async_method("devnet_dumpState", move |p, node, _| {
        let pages = pages.clone();
        async move {
            let a = Args::new(&p, &["page"])?;
            let ask = decode_page(&a)?;
            answer(&node, &pages, ask).await
        }
    })
    .expect("method names are unique");
}
