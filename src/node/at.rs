//! Past-height reads (issue 24): any read as of a sealed block of the retained history, like
//! an Ethereum block tag. [`At`] wraps a query with an optional height; the RPC's read methods
//! take it as their last param (`"latest"` or a number) and the dashboard's view query sends
//! it, so both transports ask the same thing.

use super::core::NodeCore;
use super::error::NodeError;
use super::query::Query;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A block tag: the head (`"latest"`) or a sealed height.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BlockTag {
    #[default]
    Latest,
    Height(u64),
}

impl BlockTag {
    /// The height asked for, `None` for the head.
    pub fn height(self) -> Option<u64> {
        match self {
            BlockTag::Latest => None,
            BlockTag::Height(h) => Some(h),
        }
    }
}

impl From<Option<u64>> for BlockTag {
    fn from(h: Option<u64>) -> Self {
        h.map_or(BlockTag::Latest, BlockTag::Height)
    }
}

impl Serialize for BlockTag {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            BlockTag::Latest => s.serialize_str("latest"),
            BlockTag::Height(h) => s.serialize_u64(*h),
        }
    }
}

impl<'de> Deserialize<'de> for BlockTag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(s) if s == "latest" => Ok(BlockTag::Latest),
            serde_json::Value::Number(n) if n.as_u64().is_some() => {
                Ok(BlockTag::Height(n.as_u64().unwrap_or_default()))
            }
            v => Err(serde::de::Error::custom(format!(
                "expected a block tag (\"latest\" or a height), got {v}"
            ))),
        }
    }
}

/// `query` as of sealed block `at` (the head when `None`). An older height than the retained
/// history answers `HistoryPruned` saying what is kept (Spec note 73); a height past the head
/// is `InvalidInput`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct At<Q> {
    pub query: Q,
    pub at: Option<u64>,
}

impl<Q> At<Q> {
    pub fn new(query: Q, at: Option<u64>) -> Self {
        At { query, at }
    }
}

impl<Q: Query> Query for At<Q> {
    type Reply = Q::Reply;
    fn run(&self, node: &NodeCore) -> Result<Q::Reply, NodeError> {
        match self.at {
            None => self.query.run(node),
            Some(h) => node.with_at(h, |past| self.query.run(past))?,
        }
    }
    fn past_height(&self) -> Option<u64> {
        self.at
    }
    fn run_past(&self, node: &NodeCore) -> Result<Q::Reply, NodeError> {
        self.query.run(node)
    }
}
