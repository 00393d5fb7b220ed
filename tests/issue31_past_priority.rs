//! Issue 31, "past reads off the node's thread ... so the live node keeps answering": a
//! balance asked at a past height (`devnet_getBalance` with a block) is replayed on a
//! past-read thread, not the node's (it was the one block-tagged read left on it), and the
//! past-read threads run below the node's thread's priority (10 nice steps on Linux), so a
//! stream of cold past reads (each a replay) leaves the node its block interval.

#![cfg(all(target_os = "linux", target_env = "gnu"))]

use cowboy_devnet::chain::Genesis;
use cowboy_devnet::engine::Address;
use cowboy_devnet::node::{
    At, BalanceQuery, Mine, MiningMode, NodeConfig, NodeCore, NodeHandle, SetBalance,
};
use cowboy_devnet::vm::DevnetRuntime;

/// The nice value in a `/proc/.../stat` text: its 19th field, counted after the `(comm)`
/// field (which may hold spaces).
fn nice_in(stat: &str) -> i64 {
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    rest.split(' ').nth(16).unwrap().parse().unwrap()
}

/// The nice value of each of this process's threads named `name*`.
fn nice_of(name: &str) -> Vec<(String, i64)> {
    let mut out = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").unwrap() {
        let dir = task.unwrap().path();
        let comm = std::fs::read_to_string(dir.join("comm")).unwrap_or_default();
        let comm = comm.trim().to_string();
        if !comm.starts_with(name) {
            continue;
        }
        let stat = std::fs::read_to_string(dir.join("stat")).unwrap();
        out.push((comm, nice_in(&stat)));
    }
    out
}

#[test]
fn issue31_past_read_threads_yield_to_the_node_thread() {
    // The test's own nice value (CI may run it niced): the node's thread keeps it.
    let base = nice_in(&std::fs::read_to_string("/proc/thread-self/stat").unwrap());
    let want = (base + 10).min(19);
    let mut c = NodeConfig::new(Genesis::default(), DevnetRuntime::shared());
    c.mining = MiningMode::Manual;
    let live = cowboy_devnet::node::spawn(NodeCore::new(c).expect("genesis"));
    // The threads take their names and priority as they start: wait for them to have run.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let (past, node) = (nice_of("cowboy-past"), nice_of("cowboy-node"));
        let past_ok = past.len() >= 2 && past.iter().all(|(_, n)| *n == want);
        // Another test's node may be starting or stopping beside this one: all at `base`.
        if past_ok && !node.is_empty() && node.iter().all(|(_, n)| *n == base) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "nice values: past-read threads {past:?}, node {node:?} (want {want} and {base})"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    live.shutdown();
}

/// A node that changed one balance in each of 20 blocks, spawned or not.
fn balances_node() -> NodeCore {
    let mut c = NodeConfig::new(Genesis::default(), DevnetRuntime::shared());
    c.mining = MiningMode::Manual;
    let mut n = NodeCore::new(c).expect("genesis");
    for i in 1..=20u128 {
        n.apply(SetBalance {
            address: Address([9; 20]),
            balance: i * 1_000,
        })
        .unwrap();
        n.apply(Mine { blocks: 1 }).unwrap();
    }
    n
}

/// Issue 24's block tag on a balance, answered through the handle as `devnet_getBalance`
/// asks it: on a past-read thread, the same balance the block sealed.
#[test]
fn issue31_a_past_balance_is_read_off_the_node_thread() {
    let fresh = balances_node();
    let live: NodeHandle = cowboy_devnet::node::spawn(balances_node());
    for h in [3u64, 11, 19] {
        let want = fresh.with_at(h, |p| p.balance(&Address([9; 20]))).unwrap();
        let got = live
            .ask_blocking(At::new(BalanceQuery(Address([9; 20])), Some(h)))
            .unwrap();
        assert_eq!(got, want, "#{h}");
    }
    // The head's balance, no block tag: the live node's.
    assert_eq!(
        live.ask_blocking(At::new(BalanceQuery(Address([9; 20])), None))
            .unwrap(),
        20_000
    );
    // Routed as a past read (what `ask` sends to the past-read threads).
    use cowboy_devnet::node::Query;
    assert_eq!(
        At::new(BalanceQuery(Address([9; 20])), Some(3)).past_height(),
        Some(3)
    );
    live.shutdown();
}
