//! zh §11 with CIP-5 §6.3 "extend_timer on the current timer before returning": an interval
//! timer's own handler extends it while it fires, and the interval re-arms with the new
//! `expires_at` (Spec note 138), as a watch's handler extends its watch (Spec note 127). The
//! session replays from its exported fixture to the same roots.

mod common;

use common::timer_events;
use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::{Genesis, Transaction, TxKind};
use cowboy_devnet::engine::{Address, SchedulerKind, TimerEvent, TimerId};
use cowboy_devnet::node::{Mine, NodeConfig, NodeCore, SendTx, dev_account};
use cowboy_devnet::vm::DevnetRuntime;
use std::str::FromStr;

/// `start` registers an interval every 2 blocks; each fire extends it to its next due height
/// (`block_height() + 2`), so the interval lives on its handler's extensions alone. `late`
/// extends it to a height below its next due height, which would only expire.
const SCRIPT: &str = r#"
fn start(payload) {
    let id = set_interval(self_address(), 2, "tick", 100000);
    storage_set("timer", id);
}
fn handle_timer(payload) {
    let n = storage_get("fires");
    if n == () { n = 0; } else { n = parse_int(n); }
    storage_set("fires", `${n + 1}`);
    if storage_get("late") == () {
        extend_timer(storage_get("timer"), block_height() + 2);
    } else {
        extend_timer(storage_get("timer"), block_height() + 1);
    }
}
fn late(payload) {
    storage_set("late", "1");
}
"#;

const TTL: u64 = 5;

fn node() -> (NodeCore, Address) {
    let mut g = Genesis {
        scheduler: SchedulerKind::Cip5DraftZh,
        ..Genesis::default()
    };
    g.timer.max_ttl_blocks = TTL;
    let mut n = NodeCore::new(NodeConfig::new(g, DevnetRuntime::shared())).expect("genesis");
    let a = common::node_deploy(&mut n, ActorCode::rhai("ticker", SCRIPT), "ticker");
    (n, a)
}

fn call(n: &mut NodeCore, actor: Address, handler: &str) {
    let tx = Transaction::new(
        dev_account(1),
        TxKind::Call {
            actor,
            handler: handler.into(),
            payload: Vec::new(),
        },
    );
    let out = n.apply(SendTx(tx)).expect("call");
    assert!(out.receipt.success, "{:?}", out.receipt.error);
}

fn storage(n: &NodeCore, a: Address, key: &str) -> Option<String> {
    let v = n.chain().actor(&a)?.storage.get(key.as_bytes())?.clone();
    Some(String::from_utf8(v).expect("utf-8"))
}

fn fires(n: &NodeCore, a: Address) -> u64 {
    storage(n, a, "fires").map_or(0, |v| v.parse().expect("a count"))
}

/// zh §11 / CIP-5 §6.3: every fire's own extension moves the re-armed interval's `expires_at`
/// (`TimerExtended` with effect); the interval fires past the TTL it was registered with, on
/// its extensions alone (each re-arm is at the `expires_at` the extension set). An extension
/// below the next due height is refused by name (the fire fails) and the interval stops at
/// its TTL. The session's fixture replays to the same roots.
#[test]
fn zh_11_cip5_6_3_an_intervals_own_extension_applies_to_its_rearm() {
    let (mut n, a) = node();
    call(&mut n, a, "start");
    let id = TimerId::from_str(&storage(&n, a, "timer").expect("stored")).expect("an id");
    let registered = n.chain().timer(&id).expect("armed").clone();
    let ttl_end = registered.expires_at;
    assert!(ttl_end <= n.height() + TTL, "registered within the TTL cap");

    let mut last = None;
    while n.height() < ttl_end + 6 {
        n.apply(Mine { blocks: 1 }).unwrap();
        let h = n.height();
        let b = n.chain().block(h).expect("sealed").into_owned();
        let extended: Vec<_> = timer_events(&b)
            .into_iter()
            .filter_map(|e| match e {
                TimerEvent::TimerExtended {
                    timer_id,
                    new_expires_at,
                    no_effect,
                    ..
                } if *timer_id == id => Some((*new_expires_at, *no_effect)),
                _ => None,
            })
            .collect();
        if extended.is_empty() {
            continue;
        }
        assert_eq!(extended, vec![(h + 2, false)], "applied, at #{h}");
        let t = n.chain().timer(&id).expect("re-armed");
        assert_eq!((t.height, t.expires_at), (h + 2, h + 2), "at #{h}");
        last = Some(h);
    }
    let last = last.expect("fired");
    assert!(
        last > ttl_end,
        "fired past its first TTL ({last} > {ttl_end})"
    );
    assert_eq!(fires(&n, a), (last - registered.height) / 2 + 1);

    // An extension that could only expire (below the next due height) is refused: the fire
    // fails and changes nothing, and the interval stops at the expiry it has. (`late`'s block
    // is not a fire's.)
    if n.chain().timer(&id).expect("armed").height == n.height() + 1 {
        n.apply(Mine { blocks: 1 }).unwrap();
    }
    call(&mut n, a, "late");
    let before = fires(&n, a);
    let t = n.chain().timer(&id).expect("armed").clone();
    while n.height() < t.height {
        n.apply(Mine { blocks: 1 }).unwrap();
    }
    let b = n.chain().block(t.height).expect("sealed").into_owned();
    let failed = timer_events(&b).into_iter().any(
        |e| matches!(e, TimerEvent::TimerFired { timer_id, success: false, .. } if *timer_id == id),
    );
    assert!(failed, "the refused extension fails the fire");
    assert_eq!(fires(&n, a), before, "the failed fire wrote nothing");
    n.apply(Mine { blocks: 4 }).unwrap();
    assert!(n.chain().timer(&id).is_none(), "stopped at its expiry");

    common::replay::replay_matches(&n);
}
