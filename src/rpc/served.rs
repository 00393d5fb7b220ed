//! The node's reads as JSON-RPC methods, each written once (issue 29, the read side of "one
//! vocabulary"): a query's [`ServedQuery`] impl names its param names and decodes them back
//! into the query its client sends ([`RpcQuery::params`]); one generic adapter ([`register`])
//! serves it, with the block tag (issue 24) as its last param, and answers the reply
//! serialised. `tests/rpc_commands.rs` checks that every such query's params decode back to it
//! and that `rpc.discover` names the same params.

use super::command::Entry;
use super::error::node_error;
use super::json::to_json;
use super::queries::RpcQuery;
use super::register::reg;
use super::scheduler::{DEFAULT_BUCKETS, DEFAULT_SHARES_WINDOW, MAX_BUCKETS};
use super::schema::MethodSchema;
use super::types::{Args, invalid_param};
use super::wire_read::*;
use crate::node::{
    AccountsQuery, ActorsQuery, At, BucketPageQuery, BucketQuery, BucketsQuery, ConfigQuery,
    DEFAULT_LANE_BLOCKS, DeferralsQuery, DraftQuery, FairnessQuery, LaneQuery, MAX_BUCKET_PAGE,
    MAX_LANE_BLOCKS, NamesQuery, NodeError, NodeHandle, SharesQuery, SnapshotsQuery, TiersQuery,
    TimerQuery,
};
use jsonrpsee::RpcModule;
use jsonrpsee::types::ErrorObjectOwned;
use schemars::{JsonSchema, SchemaGenerator};

/// The rows `timer_bucketPage` answers without `limit`.
pub const DEFAULT_BUCKET_PAGE: u64 = 100;

/// A read served as its method.
pub trait ServedQuery: RpcQuery<Reply: JsonSchema> + Sized + Sync {
    /// The params' names, before the block tag.
    const PARAMS: &'static [&'static str];
    /// The params' API shape, before the block tag (see [`super::wire`]): its doc comment is
    /// the method's summary; the result's schema is the reply type's.
    type Params: JsonSchema;
    /// Whether the method takes a last `block` tag (the state as of a sealed height).
    const AT: bool = true;
    /// The query back from its params (`-32602` naming the param or field).
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned>;
    /// The node's refusal as this method's error.
    fn refused(e: NodeError) -> ErrorObjectOwned {
        node_error(e)
    }
}

/// Every name `Q`'s method reads, the block tag last.
pub fn param_names<Q: ServedQuery>() -> Vec<&'static str> {
    let mut v = Q::PARAMS.to_vec();
    if Q::AT {
        v.push("block");
    }
    v
}

/// Serves `Q` as its method: decode, one node read (as of the block tag), the reply.
pub fn register<Q: ServedQuery>(m: &mut RpcModule<NodeHandle>) {
    let names = param_names::<Q>();
    reg(m, Q::METHOD, move |p, node| {
        let names = names.clone();
        async move {
            let a = Args::new(&p, &names)?;
            let q = Q::decode(&a)?;
            let at = match Q::AT {
                true => a.block(Q::PARAMS.len())?,
                false => None,
            };
            let v = node.ask(At::new(q, at)).await.map_err(Q::refused)?;
            Ok(to_json(&v))
        }
    });
}

/// `Q`'s entry in `rpc.discover`, from its types.
pub fn schema<Q: ServedQuery>(g: &mut SchemaGenerator) -> MethodSchema {
    let m = super::schema::method::<Q::Params, Q::Reply>(g, Q::METHOD, Q::PARAMS);
    match Q::AT {
        true => m.with_block(g),
        false => m,
    }
}

/// `Q` as an [`Entry`].
pub fn entry<Q: ServedQuery>() -> Entry {
    Entry {
        method: Q::METHOD,
        params: param_names::<Q>(),
        schema: schema::<Q>,
        register: register::<Q>,
    }
}

/// The reads served through [`register`].
pub fn entries() -> Vec<Entry> {
    vec![
        entry::<AccountsQuery>(),
        entry::<NamesQuery>(),
        entry::<SnapshotsQuery>(),
        entry::<ActorsQuery>(),
        entry::<TimerQuery>(),
        entry::<BucketQuery>(),
        entry::<BucketPageQuery>(),
        entry::<DeferralsQuery>(),
        entry::<ConfigQuery>(),
        entry::<TiersQuery>(),
        entry::<FairnessQuery>(),
        entry::<BucketsQuery>(),
        entry::<SharesQuery>(),
        entry::<LaneQuery>(),
        entry::<DraftQuery>(),
    ]
}

/// The reads served here.
pub(super) fn register_all(m: &mut RpcModule<NodeHandle>) {
    Entry::register_each(entries(), m);
}

/// The methods [`register_all`] serves, each with its param names.
pub fn methods() -> Vec<(&'static str, Vec<&'static str>)> {
    Entry::names(entries())
}

/// A query with no params but the block tag.
macro_rules! unit_query {
    ($($q:ident => $p:ident),* $(,)?) => {
        $(impl ServedQuery for $q {
            const PARAMS: &'static [&'static str] = &[];
            type Params = $p;
            fn decode(_: &Args) -> Result<Self, ErrorObjectOwned> {
                Ok($q)
            }
        })*
    };
}

unit_query!(
    AccountsQuery => AccountsParams,
    NamesQuery => NamesParams,
    ActorsQuery => ActorsParams,
    ConfigQuery => ConfigParams,
    TiersQuery => TiersParams,
    FairnessQuery => FairnessParams,
    DraftQuery => DraftStateParams,
);

/// The snapshots are the node's, not a block's: no block tag.
impl ServedQuery for SnapshotsQuery {
    const PARAMS: &'static [&'static str] = &[];
    type Params = SnapshotsParams;
    const AT: bool = false;
    fn decode(_: &Args) -> Result<Self, ErrorObjectOwned> {
        Ok(SnapshotsQuery)
    }
}

impl ServedQuery for TimerQuery {
    const PARAMS: &'static [&'static str] = &["timer_id"];
    type Params = TimerParams;
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned> {
        Ok(TimerQuery {
            id: a.req(0, "timer_id")?,
        })
    }
}

impl ServedQuery for BucketQuery {
    const PARAMS: &'static [&'static str] = &["height"];
    type Params = BucketParams;
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned> {
        Ok(BucketQuery {
            height: a.req(0, "height")?,
        })
    }
}

/// `[height, offset?, limit?, timer_id?, follow_due?]` (issue 31): `limit` in 1..=[`MAX_BUCKET_PAGE`],
/// [`DEFAULT_BUCKET_PAGE`] by default.
impl ServedQuery for BucketPageQuery {
    const PARAMS: &'static [&'static str] =
        &["height", "offset", "limit", "timer_id", "follow_due"];
    type Params = BucketPageParams;
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned> {
        let q = BucketPageQuery {
            height: a.req(0, "height")?,
            offset: a.opt(1, "offset")?.unwrap_or(0),
            limit: a.opt(2, "limit")?.unwrap_or(DEFAULT_BUCKET_PAGE),
            timer: a.opt(3, "timer_id")?,
            follow_due: a.opt(4, "follow_due")?.unwrap_or(false),
        };
        q.check().map_err(|_| {
            invalid_param(
                "limit",
                format!("must be in 1..={MAX_BUCKET_PAGE}, got {}", q.limit),
            )
        })?;
        Ok(q)
    }
}

/// `[from_height, to_height]` (issue 31).
impl ServedQuery for DeferralsQuery {
    const PARAMS: &'static [&'static str] = &["from_height", "to_height"];
    type Params = DeferralsParams;
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned> {
        Ok(DeferralsQuery {
            from_height: a.req(0, "from_height")?,
            to_height: a.req(1, "to_height")?,
        })
    }
}

/// `[count?]`: 1..=[`MAX_BUCKETS`] coming heights, [`DEFAULT_BUCKETS`] by default.
impl ServedQuery for BucketsQuery {
    const PARAMS: &'static [&'static str] = &["count"];
    type Params = BucketsParams;
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned> {
        let count = a.opt::<u64>(0, "count")?.unwrap_or(DEFAULT_BUCKETS);
        if count == 0 || count > MAX_BUCKETS {
            return Err(invalid_param(
                "count",
                format!("must be in 1..={MAX_BUCKETS}, got {count}"),
            ));
        }
        Ok(BucketsQuery {
            count: count as usize,
        })
    }
}

/// `[{window?}]`: the fifo window in blocks, [`DEFAULT_SHARES_WINDOW`] by default.
impl ServedQuery for SharesQuery {
    const PARAMS: &'static [&'static str] = &["options"];
    type Params = SharesParams;
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned> {
        let mut o = a.obj(0, "options", true)?;
        let window: Option<u64> = o.opt("window")?;
        o.finish()?;
        Ok(SharesQuery {
            window: window.unwrap_or(DEFAULT_SHARES_WINDOW),
        })
    }
}

/// `[{last?}]`: the lanes of the last `last` sealed blocks, 1..=[`MAX_LANE_BLOCKS`],
/// [`DEFAULT_LANE_BLOCKS`] by default.
impl ServedQuery for LaneQuery {
    const PARAMS: &'static [&'static str] = &["options"];
    type Params = LaneParams;
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned> {
        let mut o = a.obj(0, "options", true)?;
        let last = o.opt::<u64>("last")?.unwrap_or(DEFAULT_LANE_BLOCKS);
        o.finish()?;
        if last == 0 || last > MAX_LANE_BLOCKS {
            return Err(invalid_param(
                "last",
                format!("last must be in 1..={MAX_LANE_BLOCKS}, got {last}"),
            ));
        }
        Ok(LaneQuery { last })
    }
    /// `last` is checked above, so the node's `InvalidInput` is the block tag's: a height not
    /// sealed yet or no longer kept (issue 30).
    fn refused(e: NodeError) -> ErrorObjectOwned {
        match e {
            NodeError::InvalidInput(why) => invalid_param("block", why),
            e => node_error(e),
        }
    }
}
