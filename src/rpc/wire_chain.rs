//! The chain methods registered by hand in [`super::methods`] (they read the published head
//! or the chain directly, not through a node query), described from their types all the same
//! (see [`super::wire`]).

use super::schema::{MethodSchema, method};
use super::types::Amount;
use crate::engine::Address;
use crate::node::{HeadView, MiningMode, SupplyView};
use schemars::{JsonSchema, SchemaGenerator};

/// The height of the last sealed block (from the published head: never waits behind a seal).
#[derive(JsonSchema)]
pub struct BlockNumberParams {}

/// The mining mode.
#[derive(JsonSchema)]
pub struct GetMiningParams {}

/// The head and the node's state around it: height, hash, state_root, pending_height,
/// cycle_basefee, cell_basefee, pending_timers, pending_txs, mining, scheduler, first_kept,
/// chain_id (from the published head: never waits behind a seal); with `--state`, the last
/// save (`state_save`).
#[derive(JsonSchema)]
pub struct HeadParams {}

/// An account's balance.
#[derive(JsonSchema)]
pub struct GetBalanceParams {
    /// the account
    pub address: Address,
}

/// Minted, burned and the sum of balances.
#[derive(JsonSchema)]
pub struct SupplyParams {}

/// The hand-registered chain methods described here, in `rpc.discover`.
pub(super) fn schemas(g: &mut SchemaGenerator) -> Vec<MethodSchema> {
    vec![
        method::<BlockNumberParams, u64>(g, "devnet_blockNumber", &[]),
        method::<GetMiningParams, MiningMode>(g, "devnet_getMining", &[]),
        method::<HeadParams, HeadView>(g, "devnet_head", &[]).with_block(g),
        method::<GetBalanceParams, Amount>(g, "devnet_getBalance", &["address"]).with_block(g),
        method::<SupplyParams, SupplyView>(g, "devnet_supply", &[]),
    ]
}
