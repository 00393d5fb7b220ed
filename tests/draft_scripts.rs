//! Issue 22: the CIP-5 drafts' host calls from Rhai actor scripts. `set_state_watch` (English
//! §6.1, zh §7.1) and `set_interval` (zh §7.1) register the same timers as the `timer_watch` /
//! `timer_interval` requests; they are refused by name under `fifo` / `eip1559`, and
//! `set_interval` under `cip5-draft` (English §4: no interval timers).

mod common;

use common::*;
use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::{Chain, Genesis, Receipt, Transaction, TxKind};
use cowboy_devnet::engine::{Address, SchedulerKind};

const SCRIPT: &str = r#"
    fn watch(p) {
        set_state_watch(self_address(), ["bal/"], "seen", 100000);
    }
    fn watch_bid(p) {
        set_state_watch(self_address(), ["bal/"], "seen", 100000, 3);
    }
    fn watch_other(p) {
        set_state_watch("0x0000000000000000000000000000000000000001", ["k"], "x", 100000);
    }
    fn every(p) {
        set_interval(self_address(), 2, "tick", 100000);
    }
    fn every_bid(p) {
        set_interval(self_address(), 2, "tick", 100000, 5);
    }
    fn write(p) {
        storage_set("bal/alice", "1");
    }
    fn handle_timer(p) {
        let n = storage_get("fires");
        if n == () { n = 0; } else { n = parse_int(n); }
        storage_set("fires", `${n + 1}`);
    }
"#;

fn chain_under(kind: SchedulerKind) -> (Chain, Address) {
    let mut c = chain_with(Genesis {
        scheduler: kind,
        ..genesis()
    });
    let a = Address::from_label("draft-script");
    deploy_endowed(
        &mut c,
        alice(),
        a,
        ActorCode::rhai("draft.rhai", SCRIPT),
        RICH / 10,
    );
    c.seal_block();
    (c, a)
}

fn call(c: &mut Chain, actor: Address, handler: &str) -> Receipt {
    c.apply_tx(Transaction::new(
        alice(),
        TxKind::Call {
            actor,
            handler: handler.into(),
            payload: Vec::new(),
        },
    ))
    .expect("call included")
}

fn fires(c: &Chain, a: Address) -> u64 {
    c.actor(&a)
        .expect("actor")
        .storage
        .get(b"fires".as_slice())
        .map_or(0, |v| String::from_utf8_lossy(v).parse().expect("a count"))
}

fn error_text(r: &Receipt) -> String {
    format!("{:?}", r.error)
}

#[test]
fn english_6_1_set_state_watch_from_a_script_fires_on_a_write() {
    for kind in [SchedulerKind::Cip5Draft, SchedulerKind::Cip5DraftZh] {
        for handler in ["watch", "watch_bid"] {
            let (mut c, a) = chain_under(kind);
            let r = call(&mut c, a, handler);
            assert!(r.success, "{kind} {handler}: {:?}", r.error);
            assert_eq!(r.timers.len(), 1, "the receipt names the watch");
            let w = &c.engine().policies().draft_state().watches;
            assert!(w.contains_key(&r.timers[0]), "registered as a watch");
            c.seal_block();
            assert_eq!(fires(&c, a), 0, "no write yet");
            let r = call(&mut c, a, "write");
            assert!(r.success);
            c.seal_block();
            assert_eq!(
                fires(&c, a),
                1,
                "{kind}: the write under `bal/` fired the watch"
            );
        }
    }
}

#[test]
fn zh_7_1_set_interval_from_a_script_fires_every_two_blocks() {
    for handler in ["every", "every_bid"] {
        let (mut c, a) = chain_under(SchedulerKind::Cip5DraftZh);
        let r = call(&mut c, a, handler);
        assert!(r.success, "{handler}: {:?}", r.error);
        assert_eq!(r.timers.len(), 1);
        // Registered in block h (the call's block): due at h + 2, h + 4, h + 6 (the default
        // `interval_first = every`), each fire rolling to the executing height + 2.
        let h = c.height() + 1;
        while c.height() < h + 6 {
            c.seal_block();
        }
        assert_eq!(fires(&c, a), 3, "fired at h+2, h+4, h+6");
    }
}

#[test]
fn drafts_host_calls_are_refused_by_name_under_fifo_and_eip1559() {
    for kind in [SchedulerKind::Fifo, SchedulerKind::Eip1559] {
        let (mut c, a) = chain_under(kind);
        for handler in ["watch", "every"] {
            let r = call(&mut c, a, handler);
            assert!(!r.success, "{kind} {handler} refused");
            assert!(r.timers.is_empty());
            let e = error_text(&r);
            assert!(e.contains("cip5-draft"), "{kind} {handler}: {e}");
        }
        assert!(c.engine().policies().draft_state().watches.is_empty());
    }
}

#[test]
fn english_4_set_interval_is_refused_under_cip5_draft() {
    let (mut c, a) = chain_under(SchedulerKind::Cip5Draft);
    let r = call(&mut c, a, "every");
    assert!(!r.success);
    assert!(error_text(&r).contains("set_interval is not in the English"));
}

#[test]
fn english_6_1_a_target_other_than_the_caller_is_invalid() {
    let (mut c, a) = chain_under(SchedulerKind::Cip5DraftZh);
    let r = call(&mut c, a, "watch_other");
    assert!(!r.success);
    assert!(
        error_text(&r).contains("is not the calling actor"),
        "{}",
        error_text(&r)
    );
    assert!(c.engine().policies().draft_state().watches.is_empty());
}
