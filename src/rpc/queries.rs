//! The node's read requests ([`crate::node::query`]) as JSON-RPC calls: the method each one is
//! and its params. The server registers these methods under [`RpcQuery::METHOD`] and answers
//! with the query's reply serialised; a client ([`crate::tui::remote`]) sends
//! [`RpcQuery::params`] and decodes the same reply type.

use crate::node::{
    AccountsQuery, ActorsQuery, BucketQuery, BucketsQuery, ConfigQuery, EventsQuery, FairnessQuery,
    HeadQuery, LaneQuery, NamesQuery, Query, SharesQuery, TiersQuery, TimerQuery, TimersQuery,
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
    ConfigQuery => "scheduler_config",
    TiersQuery => "scheduler_tiers",
    FairnessQuery => "scheduler_fairness",
    AccountsQuery => "devnet_accounts",
    NamesQuery => "devnet_names",
    ActorsQuery => "actor_list",
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
