//! The node's change requests ([`crate::node::requests`]) as JSON-RPC methods, each written
//! once (issue 29, "one command vocabulary"): a request type's [`RpcRequest`] impl names its
//! method, its positional params both ways (a client encodes them with [`RpcRequest::params`],
//! the server decodes them back with [`RpcRequest::decode`]) and how its reply is written. One
//! generic adapter ([`register`]) serves every such method, so the server, the attached
//! dashboard ([`crate::tui::remote`]) and the OpenRPC document's param names
//! (`tests/rpc_commands.rs`) cannot drift apart.
//!
//! The chain, mining and snapshot commands are here; the actor, timer and governance ones are
//! in [`super::command_timer`].

use super::error::node_error;
use super::json::{mining_json, to_json};
use super::register::reg;
use super::schema::MethodSchema;
use super::types::{Amount, Args, BlockTimeMs, Obj, invalid_param};
use super::wire::{
    DeleteSnapshotParams, DropTransactionParams, DumpStateParams, HaltParams, LoadStateParams,
    MineParams, ResetParams, RevertParams, RevertToParams, SendTransactionParams, SetBalanceParams,
    SetMiningParams, SnapshotParams,
};
use crate::node::{
    Command, DeleteSnapshot, DropTransaction, Dropped, DumpState, Halt, LoadState, Mine,
    MiningMode, NodeHandle, ReceiptReply, Reset, Revert, RevertTo, SendTx, SetBalance, SetMining,
    Snapshot,
};
use jsonrpsee::RpcModule;
use jsonrpsee::types::ErrorObjectOwned;
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Value, json};

/// A change request as a JSON-RPC method.
pub trait RpcRequest: Into<Command> + Sized {
    /// The method's name.
    const METHOD: &'static str;
    /// The positional params' names (also their names when given by name).
    const PARAMS: &'static [&'static str];
    /// The params' API shape: a struct whose fields are the params named in [`Self::PARAMS`]
    /// (its doc comment is the method's summary in `rpc.discover`; see [`super::wire`]).
    type Params: JsonSchema;
    /// The result's API shape: the command's reply ([`crate::node::CommandReply`]) as it is
    /// serialised.
    type Result: JsonSchema;
    /// The positional params a client sends for this request.
    fn params(&self) -> Vec<Value>;
    /// The request back from its params (`-32602` naming the param or field that does not
    /// decode, or an unknown field).
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned>;
}

/// Serves `R` as its method: decode, the one [`Command`] executed, its typed reply written.
pub fn register<R: RpcRequest>(m: &mut RpcModule<NodeHandle>) {
    reg(m, R::METHOD, |p, node| async move {
        let a = Args::new(&p, R::PARAMS)?;
        let cmd: Command = R::decode(&a)?.into();
        execute(&node, cmd).await
    });
}

/// `cmd` executed on the node's thread, its typed reply as the method's result.
pub(super) async fn execute(node: &NodeHandle, cmd: Command) -> Result<Value, ErrorObjectOwned> {
    let reply = node.request(cmd).await.map_err(node_error)?;
    Ok(to_json(&reply))
}

/// A command as JSON-RPC: its method and the positional params its method decodes back
/// ([`RpcRequest::params`]): what a front end attached over JSON-RPC sends
/// ([`crate::tui::remote`]).
pub fn encode(c: &Command) -> Result<(&'static str, Vec<Value>), String> {
    let params = match c {
        Command::Mine(r) => r.params(),
        Command::SetMining(r) => r.params(),
        Command::SetBalance(r) => r.params(),
        Command::Snapshot(r) => r.params(),
        Command::Revert(r) => r.params(),
        Command::DeleteSnapshot(r) => r.params(),
        Command::RevertTo(r) => r.params(),
        Command::Reset(r) => r.params(),
        Command::DumpState(r) => r.params(),
        Command::LoadState(r) => r.params(),
        Command::Halt(r) => r.params(),
        Command::DropTransaction(r) => r.params(),
        Command::SendTx(r) => r.params(),
        c => return super::command_timer::encode(c),
    };
    Ok((c.method(), params))
}

/// `R`'s entry in `rpc.discover`, from its types.
pub fn schema<R: RpcRequest>(g: &mut SchemaGenerator) -> MethodSchema {
    super::schema::method::<R::Params, R::Result>(g, R::METHOD, R::PARAMS)
}

/// One method served through a generic adapter: its name and params, its `rpc.discover`
/// entry, and how it is registered. One list of these ([`entries`],
/// [`super::served::entries`]) is what the server registers and the document describes.
pub struct Entry {
    pub method: &'static str,
    pub params: Vec<&'static str>,
    pub schema: fn(&mut SchemaGenerator) -> MethodSchema,
    pub register: fn(&mut RpcModule<NodeHandle>),
}

impl Entry {
    /// Serves each of `entries`.
    pub(super) fn register_each(entries: Vec<Entry>, m: &mut RpcModule<NodeHandle>) {
        for e in entries {
            (e.register)(m);
        }
    }

    /// Each of `entries`' method name with its param names.
    pub(super) fn names(entries: Vec<Entry>) -> Vec<(&'static str, Vec<&'static str>)> {
        entries.into_iter().map(|e| (e.method, e.params)).collect()
    }
}

/// `R` as an [`Entry`].
pub fn entry<R: RpcRequest>() -> Entry {
    Entry {
        method: R::METHOD,
        params: R::PARAMS.to_vec(),
        schema: schema::<R>,
        register: register::<R>,
    }
}

/// Every change request served through [`register`]: here, in [`super::command_timer`] and
/// the drafts' estimate.
pub fn entries() -> Vec<Entry> {
    let mut v = vec![
        entry::<Mine>(),
        entry::<SetMining>(),
        entry::<SetBalance>(),
        entry::<Snapshot>(),
        entry::<Revert>(),
        entry::<DeleteSnapshot>(),
        entry::<RevertTo>(),
        entry::<Reset>(),
        Entry {
            register: super::dump_state::register,
            ..entry::<DumpState>()
        },
        entry::<LoadState>(),
        entry::<Halt>(),
        entry::<DropTransaction>(),
        entry::<SendTx>(),
    ];
    v.extend(super::command_timer::entries());
    v.push(entry::<crate::node::EstimateDraftTimer>());
    v
}

/// Every request [`entries`] lists, served.
pub(super) fn register_all(m: &mut RpcModule<NodeHandle>) {
    Entry::register_each(entries(), m);
}

/// Every change request served through [`register`], each with its param names: what
/// `tests/rpc_commands.rs` checks against the server's method list and `rpc.discover`.
pub fn methods() -> Vec<(&'static str, Vec<&'static str>)> {
    Entry::names(entries())
}

/// Puts the fields that are set into `o`.
pub(super) fn with(mut o: Value, fields: &[(&str, Option<Value>)]) -> Value {
    for (k, v) in fields {
        if let Some(v) = v {
            o[*k] = v.clone();
        }
    }
    o
}

/// A request with no params and `null` for a reply.
macro_rules! unit_request {
    ($($r:ident => $m:literal, $p:ty),* $(,)?) => {
        $(impl RpcRequest for $r {
            const METHOD: &'static str = $m;
            const PARAMS: &'static [&'static str] = &[];
            type Params = $p;
            type Result = ();
            fn params(&self) -> Vec<Value> {
                Vec::new()
            }
            fn decode(_: &Args) -> Result<Self, ErrorObjectOwned> {
                Ok($r)
            }
        })*
    };
}

unit_request!(Reset => "devnet_reset", ResetParams);

/// A request with one integer param and `null` for a reply.
macro_rules! id_request {
    ($($r:ident { $f:ident } => $m:literal, $p:ty),* $(,)?) => {
        $(impl RpcRequest for $r {
            const METHOD: &'static str = $m;
            const PARAMS: &'static [&'static str] = &[stringify!($f)];
            type Params = $p;
            type Result = ();
            fn params(&self) -> Vec<Value> {
                vec![json!(self.$f)]
            }
            fn decode(a: &Args) -> Result<Self, ErrorObjectOwned> {
                Ok($r { $f: a.req(0, stringify!($f))? })
            }
        })*
    };
}

id_request!(
    Revert { id } => "devnet_revert", RevertParams,
    DeleteSnapshot { id } => "devnet_deleteSnapshot", DeleteSnapshotParams,
    RevertTo { height } => "devnet_revertTo", RevertToParams,
    Halt { blocks } => "devnet_halt", HaltParams,
);

/// `[n?]`: seal `n` blocks (default 1); the new head's height.
impl RpcRequest for Mine {
    const METHOD: &'static str = "devnet_mine";
    const PARAMS: &'static [&'static str] = &["n"];
    type Params = MineParams;
    type Result = u64;
    fn params(&self) -> Vec<Value> {
        vec![json!(self.blocks)]
    }
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned> {
        let blocks = a.opt::<u64>(0, "n")?.unwrap_or(1);
        Ok(Mine { blocks })
    }
}

/// `[{mode, block_time?}]`; the mode now in force.
impl RpcRequest for SetMining {
    const METHOD: &'static str = "devnet_setMining";
    const PARAMS: &'static [&'static str] = &["mode"];
    type Params = SetMiningParams;
    type Result = MiningMode;
    fn params(&self) -> Vec<Value> {
        vec![mining_json(self.0)]
    }
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned> {
        decode_mining(a.obj(0, "mode", false)?).map(SetMining)
    }
}

fn decode_mining(mut o: Obj) -> Result<MiningMode, ErrorObjectOwned> {
    let mode: String = o.req("mode")?;
    let bt: Option<BlockTimeMs> = o.opt("block_time")?;
    o.finish()?;
    match (mode.as_str(), bt) {
        ("auto", None) => Ok(MiningMode::Auto),
        ("manual", None) => Ok(MiningMode::Manual),
        ("interval", Some(BlockTimeMs(ms))) => Ok(MiningMode::Interval { block_time_ms: ms }),
        ("interval", None) => Err(invalid_param(
            "block_time",
            "missing; interval mining needs a block time in seconds",
        )),
        ("auto" | "manual", Some(_)) => Err(invalid_param(
            "block_time",
            format!("only interval mining takes a block time, not {mode}"),
        )),
        _ => Err(invalid_param(
            "mode",
            format!("expected \"auto\", \"manual\" or \"interval\", got \"{mode}\""),
        )),
    }
}

/// `[address, amount]`.
impl RpcRequest for SetBalance {
    const METHOD: &'static str = "devnet_setBalance";
    const PARAMS: &'static [&'static str] = &["address", "amount"];
    type Params = SetBalanceParams;
    type Result = ();
    fn params(&self) -> Vec<Value> {
        vec![json!(self.address), json!(Amount(self.balance))]
    }
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned> {
        let address = a.req(0, "address")?;
        let Amount(balance) = a.req(1, "amount")?;
        Ok(SetBalance { address, balance })
    }
}

/// `[]`; the snapshot's id.
impl RpcRequest for Snapshot {
    const METHOD: &'static str = "devnet_snapshot";
    const PARAMS: &'static [&'static str] = &[];
    type Params = SnapshotParams;
    type Result = u64;
    fn params(&self) -> Vec<Value> {
        Vec::new()
    }
    fn decode(_: &Args) -> Result<Self, ErrorObjectOwned> {
        Ok(Snapshot)
    }
}

/// `[page?]`; the state as a dump, or a page of its text (served by
/// [`super::dump_state::register`], off the node's thread: issue 31 item 7). The command itself
/// (what a front end sends) is the whole dump.
impl RpcRequest for DumpState {
    const METHOD: &'static str = "devnet_dumpState";
    const PARAMS: &'static [&'static str] = &["page"];
    type Params = DumpStateParams;
    type Result = super::wire::DumpStateResult;
    fn params(&self) -> Vec<Value> {
        Vec::new()
    }
    fn decode(_: &Args) -> Result<Self, ErrorObjectOwned> {
        Ok(DumpState)
    }
}

/// `[state]`: a dump, checked whole before anything changes.
impl RpcRequest for LoadState {
    const METHOD: &'static str = "devnet_loadState";
    const PARAMS: &'static [&'static str] = &["state"];
    type Params = LoadStateParams;
    type Result = ();
    fn params(&self) -> Vec<Value> {
        vec![to_json(&*self.0)]
    }
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned> {
        let v: Value = a.req(0, "state")?;
        let dump =
            super::state_file::parse(&v.to_string()).map_err(|e| invalid_param("state", e))?;
        Ok(LoadState(Box::new(dump)))
    }
}

/// `[transaction]`: the transaction as the chain takes it (its serde form, the fixture's `tx`
/// step's); its receipt. Unknown fields anywhere in it are refused by name (the chain's
/// transaction types deny them), so a misspelt `nonce` is an error, not a nonce left out.
impl RpcRequest for SendTx {
    const METHOD: &'static str = "devnet_sendTransaction";
    const PARAMS: &'static [&'static str] = &["transaction"];
    type Params = SendTransactionParams;
    type Result = ReceiptReply;
    fn params(&self) -> Vec<Value> {
        vec![json!(self.0)]
    }
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned> {
        let v: Value = a.req(0, "transaction")?;
        serde_json::from_value(v)
            .map(SendTx)
            .map_err(|e| invalid_param("transaction", e))
    }
}

/// `[hash]`: the pending transaction dropped, with those that no longer applied without it.
impl RpcRequest for DropTransaction {
    const METHOD: &'static str = "devnet_dropTransaction";
    const PARAMS: &'static [&'static str] = &["hash"];
    type Params = DropTransactionParams;
    type Result = Dropped;
    fn params(&self) -> Vec<Value> {
        vec![json!(self.hash)]
    }
    fn decode(a: &Args) -> Result<Self, ErrorObjectOwned> {
        Ok(DropTransaction {
            hash: a.req(0, "hash")?,
        })
    }
}
