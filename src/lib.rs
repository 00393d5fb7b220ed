//! cowboy-devnet: a local, single-process Cowboy chain with the full CIP-5 timer engine.
//!
//! Layers, inner to outer (see DESIGN.md): [`engine`] (timers, calendar queue, end-of-block
//! planning), [`chain`] (accounts, actors, transactions, blocks, state root), [`vm`] (actor
//! runtimes behind [`chain::runtime::ActorRuntime`]), [`node`] (the live devnet) and
//! [`scenario`] (fixtures and the headless runner).

pub mod chain;
pub mod engine;
pub mod node;
pub mod rpc;
pub mod scenario;
pub mod tui;
pub mod vm;
