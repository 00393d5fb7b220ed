//! Writes a state file holding `N` pending timers (issue 31 item 7's measurements at 1M,
//! `benches/scripts/dump_1m.py`): 1,000 code-less actors funded by one account, `N` bare
//! timers inserted in bulk (no transactions: `test_hook_insert_timers`, as the benches do),
//! due over heights 10,000..210,000, sealed in block 1. `serve --load-state FILE` starts a
//! node on it.
//!
//! Run: `cargo run --release --example big_state -- 1000000 /tmp/big.json`.

#[path = "../tests/common/mod.rs"]
mod common;

use common::fleet;

const ACTORS: u64 = 1_000;

fn main() {
    let mut args = std::env::args().skip(1);
    let n: u64 = args
        .next()
        .map_or(1_000_000, |a| a.parse().expect("N: a number of timers"));
    let path = args.next().unwrap_or_else(|| "big_state.json".into());
    let (mut chain, _) = fleet::fleet_chain(fleet::uncapped_genesis(), ACTORS, fleet::FLEET_RICH);
    chain
        .test_hook_insert_timers(fleet::spread_timers(0, n, 10_000, 200_000, |i| {
            fleet::fleet_actor(ACTORS, i)
        }))
        .expect("fresh ids");
    chain.seal_block();
    let dump = chain.dump().expect("sealed");
    cowboy_devnet::rpc::state_file::write(std::path::Path::new(&path), &dump).expect("write");
    eprintln!("{n} pending timers written to {path}");
}
