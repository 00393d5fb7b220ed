//! The node's read requests ([`crate::node::query`]) and change requests
//! ([`crate::node::requests`]) as JSON-RPC calls: the method each one is and its params. The
//! server answers a read with the query's reply serialised; a client
//! ([`crate::tui::remote`]) sends [`RpcQuery::params`] and decodes the same reply type, and
//! sends a change as [`RpcRequest::params`], which the method decodes back into the request.

pub use super::command::RpcRequest;
pub use super::draft::{draft_method, draft_params};
use crate::node::{
    AccountsQuery, ActorsQuery, BucketPageQuery, BucketQuery, BucketsQuery, ConfigQuery,
    DeferralsQuery, DraftQuery, EventsQuery, FairnessQuery, HeadQuery, LaneQuery, NamesQuery,
    Query, SharesQuery, SnapshotsQuery, TiersQuery, TimerQuery, TimersQuery,
};
use serde_json::{Value, json};

/// A read request as a JSON-RPC call.
pub trait RpcQuery: Query {
    const METHOD: &'static str;
    /// The positional params.
    fn params(&self) -> Vec<Value>;
}

macro_rules! no_params {
    ($($q:ty => $m:literal),* $(,)?) => {
        $(impl RpcQuery for $q {
            const METHOD: &'static str = $m;
            fn params(&self) -> Vec<Value> {
                Vec::new()
            }
        })*
    };
}

no_params!(
    HeadQuery => "devnet_head",
    DraftQuery => "scheduler_draft",
    ConfigQuery => "scheduler_config",
    TiersQuery => "scheduler_tiers",
    FairnessQuery => "scheduler_fairness",
    AccountsQuery => "devnet_accounts",
    NamesQuery => "devnet_names",
    ActorsQuery => "actor_list",
    SnapshotsQuery => "devnet_snapshots",
);

impl RpcQuery for BucketsQuery {
    const METHOD: &'static str = "scheduler_buckets";
    fn params(&self) -> Vec<Value> {
        vec![json!(self.count)]
    }
}

impl RpcQuery for BucketQuery {
    const METHOD: &'static str = "timer_bucket";
    fn params(&self) -> Vec<Value> {
        vec![json!(self.height)]
    }
}

impl RpcQuery for BucketPageQuery {
    const METHOD: &'static str = "timer_bucketPage";
    fn params(&self) -> Vec<Value> {
        vec![
            json!(self.height),
            json!(self.offset),
            json!(self.limit),
            json!(self.timer),
            json!(self.follow_due),
        ]
    }
}

impl RpcQuery for DeferralsQuery {
    const METHOD: &'static str = "scheduler_deferrals";
    fn params(&self) -> Vec<Value> {
        vec![json!(self.from_height), json!(self.to_height)]
    }
}

impl RpcQuery for TimerQuery {
    const METHOD: &'static str = "timer_get";
    fn params(&self) -> Vec<Value> {
        vec![json!(self.id)]
    }
}

impl RpcQuery for TimersQuery {
    const METHOD: &'static str = "timer_list";
    fn params(&self) -> Vec<Value> {
        vec![json!(self.0)]
    }
}

impl RpcQuery for EventsQuery {
    const METHOD: &'static str = "devnet_getEvents";
    fn params(&self) -> Vec<Value> {
        vec![json!(self.0)]
    }
}

impl RpcQuery for LaneQuery {
    const METHOD: &'static str = "scheduler_lane";
    fn params(&self) -> Vec<Value> {
        vec![json!({ "last": self.last })]
    }
}

impl RpcQuery for SharesQuery {
    const METHOD: &'static str = "scheduler_actors";
    fn params(&self) -> Vec<Value> {
        vec![json!({ "window": self.window })]
    }
}

/// A read as of a sealed block (issue 24): the same method, with the block tag as its last
/// param (none for the head, so the call is the plain one).
impl<Q: RpcQuery> RpcQuery for crate::node::At<Q> {
    const METHOD: &'static str = Q::METHOD;
    fn params(&self) -> Vec<Value> {
        let mut p = self.query.params();
        if let Some(h) = self.at {
            p.push(json!(h));
        }
        p
    }
}
