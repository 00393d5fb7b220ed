//! The JSON-RPC API (DESIGN.md, `rpc/`; issue 13): jsonrpsee, HTTP and WebSocket on one port.
//!
//! Methods are thin: decode the params ([`types`]), make one node request, encode the reply.
//! Domain rejections map to codes -32050..-32099 ([`error`]); `rpc.discover` serves the
//! OpenRPC document ([`openrpc`]).

pub mod command;
mod command_timer;
mod compliance;
pub mod draft;
mod dry_run;
pub mod dump_pages;
pub mod dump_state;
pub mod error;
pub mod files;
mod find;
pub mod guard;
pub mod json;
pub mod methods;
pub mod notice;
pub mod openrpc;
mod pool;
pub mod queries;
pub mod register;
mod reorg;
mod scheduler;
pub mod schema;
pub mod schema_types;
pub mod served;
pub mod server;
pub mod state_file;
pub mod traces;
pub mod types;
mod unsubscribe;
pub mod wire;
pub mod wire_chain;
pub mod wire_find;
pub mod wire_gov;
pub mod wire_hand;
pub mod wire_read;
pub mod ws_proxy;

/// The methods that change nothing and write no file (Spec note 140).
pub use unsubscribe::READ_ONLY;
