//! Rhai actor scripts driven through real transactions and blocks (src/vm/rhai.rs). Each test
//! names the CIP-5 section it checks.

use cowboy_devnet::chain::runtime::{ActorCode, VmError};
use cowboy_devnet::chain::{
    Block, Chain, ChainEvent, Event, Genesis, GenesisAccount, Receipt, Transaction, TxError, TxKind,
};
use cowboy_devnet::engine::{Address, ErrorKind, EventKind, Failure, TimerEvent, TimerId};
use cowboy_devnet::vm::DevnetRuntime;
use std::str::FromStr;

const RICH: u128 = 1_000_000_000_000;

fn alice() -> Address {
    Address::from_label("alice")
}

fn bob() -> Address {
    Address::from_label("bob")
}

fn chain() -> Chain {
    let genesis = Genesis {
        accounts: vec![
            GenesisAccount {
                address: alice(),
                balance: RICH,
            },
            GenesisAccount {
                address: bob(),
                balance: RICH,
            },
        ],
        ..Genesis::default()
    };
    Chain::new(genesis, DevnetRuntime::shared()).expect("valid genesis")
}

/// A deploy at an address derived from the script's name (one actor per name).
fn deploy_tx(from: Address, name: &str, source: &str, endowment: u128) -> Transaction {
    Transaction::new(
        from,
        TxKind::Deploy {
            address: Some(Address::from_label(name)),
            code: ActorCode::rhai(name, source),
            endowment,
        },
    )
}

/// Deploys a script and returns its address; the deploy must succeed.
fn deploy(chain: &mut Chain, from: Address, name: &str, source: &str, endowment: u128) -> Address {
    let r = chain
        .apply_tx(deploy_tx(from, name, source, endowment))
        .expect("deploy accepted");
    assert!(r.success, "deploy failed: {:?}", r.error);
    r.created.expect("created")
}

fn call_tx(from: Address, actor: Address, handler: &str, payload: &[u8]) -> Transaction {
    Transaction::new(
        from,
        TxKind::Call {
            actor,
            handler: handler.into(),
            payload: payload.to_vec(),
        },
    )
}

fn call(
    chain: &mut Chain,
    from: Address,
    actor: Address,
    handler: &str,
    payload: &[u8],
) -> Receipt {
    chain
        .apply_tx(call_tx(from, actor, handler, payload))
        .expect("call included")
}

fn storage(chain: &Chain, actor: Address, key: &str) -> Option<String> {
    chain
        .actor(&actor)
        .expect("actor")
        .storage
        .get(key.as_bytes())
        .map(|v| String::from_utf8(v.clone()).expect("utf-8"))
}

/// A timer fire as the block records it.
#[derive(Debug, Clone)]
struct Fired {
    fee_payer: Address,
    handler: String,
    cycles_used: u64,
    cost: u128,
    success: bool,
    error: Option<Failure>,
}

fn fires(block: &Block, actor: Address) -> Vec<Fired> {
    block
        .events
        .iter()
        .filter_map(|r| match &r.event {
            Event::Timer(TimerEvent::TimerFired {
                actor: a,
                fee_payer,
                handler,
                cycles_used,
                cost,
                success,
                error,
                ..
            }) if *a == actor => Some(Fired {
                fee_payer: *fee_payer,
                handler: handler.clone(),
                cycles_used: *cycles_used,
                cost: *cost,
                success: *success,
                error: error.clone(),
            }),
            _ => None,
        })
        .collect()
}

fn emitted(block: &Block) -> Vec<(String, String)> {
    block
        .events
        .iter()
        .filter_map(|r| match &r.event {
            Event::Chain(ChainEvent::ActorEmitted { topic, data, .. }) => {
                Some((topic.clone(), data.clone()))
            }
            _ => None,
        })
        .collect()
}

/// Seals `n` blocks and returns every fire of `actor` in them, in order.
fn run_blocks(chain: &mut Chain, n: u64, actor: Address) -> Vec<Fired> {
    let mut all = Vec::new();
    for _ in 0..n {
        let b = chain.seal_block();
        all.extend(fires(b, actor));
    }
    all
}

fn error_kind(r: &Receipt) -> Option<ErrorKind> {
    r.error.as_ref().map(|e| e.kind)
}

// ---- Appendix B: the recurring heartbeat -----------------------------------------------------

const HEARTBEAT: &str = r#"
// CIP-5 Appendix B, self-funded: fee_payer defaults to the actor, so endow it to fund the loop.
const INTERVAL = 3;

fn deploy() {
    schedule_timer(block_height() + global::INTERVAL, "");
}

fn handle_timer(payload) {
    let beats = parse_int(storage_get("beats") ?? "0") + 1;
    storage_set("beats", `${beats}`);
    schedule_timer(block_height() + global::INTERVAL, "");
}
"#;

#[test]
fn cip5_appendix_b_self_funded_heartbeat_fires_repeatedly() {
    let mut c = chain();
    let actor = deploy(&mut c, alice(), "heartbeat.rhai", HEARTBEAT, 100_000_000);
    let deploy_block = c.pending_height();
    let fired = run_blocks(&mut c, 13, actor);
    // Deployed at height 1: beats at 4, 7, 10, 13.
    assert_eq!(deploy_block, 1);
    assert_eq!(fired.len(), 4, "{fired:?}");
    for f in &fired {
        assert!(f.success, "{f:?}");
        assert_eq!(f.fee_payer, actor, "self-funded");
        assert_eq!(f.handler, "handle_timer");
        assert!(f.cycles_used > 0);
    }
    assert_eq!(storage(&c, actor, "beats").as_deref(), Some("4"));
    // The next beat is pending.
    assert_eq!(c.engine().queue().actor_count(&actor), 1);
}

const HEARTBEAT_DEPLOYER_FUNDED: &str = r#"
// CIP-5 Appendix B, deployer-funded variant.
const INTERVAL = 3;

fn deploy() {
    schedule_timer_ex(block_height() + global::INTERVAL, "", #{
        fee_payer: deployer(),     // == tx_sender() during deploy: accepted (CIP-5 §4.2)
        gas_limit: 200_000,        // tighter than the default 550,000
        expires_at: block_height() + 2_592_000,
    });
}

fn handle_timer(payload) {
    let beats = parse_int(storage_get("beats") ?? "0") + 1;
    storage_set("beats", `${beats}`);
    // Inside a fire tx_sender() is the actor (CIP-5 §5.2), so the re-schedule is actor-funded.
    schedule_timer_ex(block_height() + global::INTERVAL, "", #{ gas_limit: 200_000 });
}
"#;

#[test]
fn cip5_appendix_b_deployer_funded_heartbeat_fires_repeatedly() {
    let mut c = chain();
    let actor = deploy(
        &mut c,
        alice(),
        "heartbeat_deployer.rhai",
        HEARTBEAT_DEPLOYER_FUNDED,
        100_000_000,
    );
    let alice_before = c.balance(&alice());
    let fired = run_blocks(&mut c, 13, actor);
    assert_eq!(fired.len(), 4, "{fired:?}");
    assert!(fired.iter().all(|f| f.success), "{fired:?}");
    // The first beat was paid by the deployer, the re-scheduled ones by the actor.
    assert_eq!(fired[0].fee_payer, alice());
    assert!(fired[1..].iter().all(|f| f.fee_payer == actor));
    assert_eq!(c.balance(&alice()), alice_before - fired[0].cost);
    assert_eq!(storage(&c, actor, "beats").as_deref(), Some("4"));
}

#[test]
fn cip5_4_2_deployer_is_no_fee_payer_outside_the_deployers_tx() {
    // Appendix B: fee_payer = deployer from a handler not invoked by the deployer is rejected.
    let src = r#"
        fn subscribe(payload) {
            schedule_timer_ex(block_height() + 2, "", #{ fee_payer: deployer() });
        }
        fn handle_timer(payload) {}
    "#;
    let mut c = chain();
    let actor = deploy(&mut c, alice(), "sub.rhai", src, 0);
    let r = call(&mut c, bob(), actor, "subscribe", b"");
    assert!(!r.success);
    assert_eq!(
        error_kind(&r),
        Some(ErrorKind::InvalidInput),
        "{:?}",
        r.error
    );
    assert!(r.timers.is_empty());
    let r = call(&mut c, alice(), actor, "subscribe", b"");
    assert!(r.success, "{:?}", r.error);
    assert_eq!(r.timers.len(), 1);
}

// ---- §4.1: the host API --------------------------------------------------------------------

#[test]
fn cip5_4_1_schedule_timer_from_deploy_returns_an_id_that_round_trips() {
    let src = r#"
        fn deploy() {
            let id = schedule_timer(block_height() + 10, "later");
            storage_set("timer", id);
        }
        fn extend(payload) { extend_timer(storage_get("timer"), block_height() + 100); }
        fn stop(payload) { cancel_timer(storage_get("timer")); storage_remove("timer"); }
        fn handle_timer(payload) {}
    "#;
    let mut c = chain();
    let r = c
        .apply_tx(deploy_tx(alice(), "ids.rhai", src, 0))
        .expect("deploy");
    assert!(r.success, "{:?}", r.error);
    let actor = r.created.unwrap();
    assert_eq!(r.timers.len(), 1);
    let id = r.timers[0];
    let stored = storage(&c, actor, "timer").expect("id stored");
    assert_eq!(TimerId::from_str(&stored).unwrap(), id);
    assert_eq!(c.timer(&id).unwrap().height, 11);

    let r = call(&mut c, bob(), actor, "extend", b"");
    assert!(r.success, "{:?}", r.error);
    assert_eq!(c.timer(&id).unwrap().expires_at, 101);

    let r = call(&mut c, bob(), actor, "stop", b"");
    assert!(r.success, "{:?}", r.error);
    assert!(c.timer(&id).is_none());
    assert!(storage(&c, actor, "timer").is_none());
    let b = c.seal_block();
    assert!(
        b.events
            .iter()
            .any(|e| e.event.kind() == EventKind::TimerCancelled && e.event.timer_id() == Some(id))
    );
}

#[test]
fn cip5_4_1_schedule_timer_ex_rejects_unknown_options() {
    let src = r#"
        fn start(payload) { schedule_timer_ex(block_height() + 2, "", #{ gas: 5 }); }
        fn handle_timer(payload) {}
    "#;
    let mut c = chain();
    let actor = deploy(&mut c, alice(), "opts.rhai", src, 0);
    let r = call(&mut c, alice(), actor, "start", b"");
    assert!(!r.success);
    assert_eq!(error_kind(&r), Some(ErrorKind::InvalidInput));
    assert!(r.error.unwrap().message.contains("unknown option `gas`"));
}

#[test]
fn cip5_4_1_context_storage_funds_and_events() {
    let src = r#"
        fn probe(payload) {
            emit("self", self_address());
            emit("sender", tx_sender());
            emit("deployer", deployer());
            emit("payload", payload);
            storage_set("raw", payload);
            emit("raw", storage_get_blob("raw"));
            let b = balance(self_address());
            if b >= u128("1_000") { transfer(tx_sender(), b / 2); }
            emit("balance", `${b}`);
        }
    "#;
    let mut c = chain();
    let actor = deploy(&mut c, alice(), "probe.rhai", src, 1_001);
    let bob_before = c.balance(&bob());
    let r = call(&mut c, bob(), actor, "probe", b"hi");
    assert!(r.success, "{:?}", r.error);
    assert_eq!(c.balance(&bob()), bob_before - r.fee + 500);
    assert_eq!(c.balance(&actor), 501);
    let b = c.seal_block();
    let ev = emitted(b);
    let get = |t: &str| ev.iter().find(|(k, _)| k == t).map(|(_, v)| v.clone());
    assert_eq!(get("self"), Some(actor.to_string()));
    assert_eq!(get("sender"), Some(bob().to_string()));
    assert_eq!(get("deployer"), Some(alice().to_string()));
    assert_eq!(get("payload").as_deref(), Some("hi"));
    assert_eq!(get("raw").as_deref(), Some("hi"));
    assert_eq!(get("balance").as_deref(), Some("1001"));
}

// ---- §4.2: the `_handler` convention -------------------------------------------------------

#[test]
fn cip5_4_2_handler_convention_reaches_a_named_handler() {
    let src = r#"
        fn deploy() {
            schedule_timer(block_height() + 1, handler_payload("tick", "hello"));
        }
        fn tick(payload) { emit("tick", payload.as_string()); }
        fn handle_timer(payload) { emit("default", payload); }
    "#;
    let mut c = chain();
    let actor = deploy(&mut c, alice(), "named.rhai", src, 10_000_000);
    c.seal_block();
    let b = c.seal_block();
    let f = fires(b, actor);
    assert_eq!(f.len(), 1);
    assert!(f[0].success, "{:?}", f[0]);
    assert_eq!(f[0].handler, "tick");
    assert_eq!(emitted(b), vec![("tick".to_string(), "hello".to_string())]);
}

/// The convention as a script writes it by hand: JSON whitespace around the object is fine;
/// a payload that claims the convention but is broken (a non-string `_handler`, a `_payload`
/// that is not base64) is rejected with `InvalidInput` when scheduled, never routed elsewhere.
#[test]
fn cip5_4_2_handler_convention_by_hand_routes_or_is_rejected() {
    let src = r#"
        fn deploy() {
            schedule_timer(block_height() + 1, "  {\"_handler\": \"tick\", \"_payload\": \"aGk=\"}\n");
        }
        fn bad_name(p) { schedule_timer(block_height() + 1, "{\"_handler\": 7}"); }
        fn bad_b64(p) {
            schedule_timer(block_height() + 1, "{\"_handler\": \"tick\", \"_payload\": \"%%\"}");
        }
        fn tick(payload) { emit("tick", payload.as_string()); }
        fn handle_timer(payload) { emit("default", payload); }
    "#;
    let mut c = chain();
    let actor = deploy(&mut c, alice(), "byhand.rhai", src, 10_000_000);
    for handler in ["bad_name", "bad_b64"] {
        let r = call(&mut c, bob(), actor, handler, b"");
        assert!(!r.success, "{handler}");
        assert_eq!(
            error_kind(&r),
            Some(ErrorKind::InvalidInput),
            "{handler}: {:?}",
            r.error
        );
        assert!(r.timers.is_empty());
    }
    c.seal_block();
    let b = c.seal_block();
    let f = fires(b, actor);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].handler, "tick");
    assert_eq!(emitted(b), vec![("tick".to_string(), "hi".to_string())]);
}

#[test]
fn cip5_4_2_missing_handler_is_handler_not_found() {
    let src = r#"
        fn deploy() { schedule_timer(block_height() + 1, handler_payload("nope", "")); }
        fn helper() { 1 }
        private fn secret(payload) { 2 }
        fn handle_timer(payload) {}
    "#;
    let mut c = chain();
    let actor = deploy(&mut c, alice(), "missing.rhai", src, 10_000_000);
    for handler in ["nope", "helper", "secret"] {
        let r = call(&mut c, bob(), actor, handler, b"");
        assert!(!r.success);
        assert_eq!(
            error_kind(&r),
            Some(ErrorKind::HandlerNotFound),
            "{handler}: {:?}",
            r.error
        );
    }
    let b = c.seal_block();
    assert!(fires(b, actor).is_empty());
    let b = c.seal_block();
    let f = fires(b, actor);
    assert_eq!(f.len(), 1);
    assert!(!f[0].success);
    assert_eq!(
        f[0].error.as_ref().map(|e| e.kind),
        Some(ErrorKind::HandlerNotFound)
    );
}

#[test]
fn cip5_3_1_deploy_and_handle_timer_must_have_their_shape() {
    let mut c = chain();
    // No deploy() at all is fine.
    deploy(&mut c, alice(), "nodeploy.rhai", "fn handle_timer(p) {}", 0);
    for src in [
        "fn deploy(x) {}",
        "fn handle_timer() {}",
        "private fn deploy() {}",
    ] {
        let e = c
            .apply_tx(deploy_tx(alice(), "shape.rhai", src, 0))
            .unwrap_err();
        assert!(
            matches!(&e, TxError::Code(VmError::Compile { location, .. }) if location == "shape.rhai:1:1" || location.starts_with("shape.rhai:1:")),
            "{src}: {e}"
        );
    }
}

// ---- §4.3: reverts -------------------------------------------------------------------------

#[test]
fn cip5_4_3_revert_discards_writes_but_charges() {
    let src = r#"
        fn work(payload) {
            storage_set("k", "v");
            schedule_timer(block_height() + 5, "x");
            emit("e", "d");
            transfer(tx_sender(), 1);
            burn_cycles(10_000);
            revert("nope");
            storage_set("unreachable", "v");
        }
    "#;
    let mut c = chain();
    let actor = deploy(&mut c, alice(), "revert.rhai", src, 100);
    let bob_before = c.balance(&bob());
    let r = call(&mut c, bob(), actor, "work", b"");
    assert!(!r.success);
    assert_eq!(r.error, Some(Failure::new(ErrorKind::Reverted, "nope")));
    assert!(r.cycles_used > 1_000 + 10_000, "{}", r.cycles_used);
    assert!(r.fee > 0);
    assert_eq!(c.balance(&bob()), bob_before - r.fee);
    assert_eq!(c.balance(&actor), 100);
    assert!(storage(&c, actor, "k").is_none());
    assert!(r.timers.is_empty());
    assert_eq!(c.engine().queue().actor_count(&actor), 0);
    let b = c.seal_block();
    assert!(emitted(b).is_empty());
}

#[test]
fn cip5_4_3_catching_a_failing_host_call_still_reverts() {
    let src = r#"
        fn sneaky(payload) {
            try { schedule_timer(0, "in the past"); } catch (e) { storage_set("caught", "yes"); }
            storage_set("after", "yes");
        }
        fn nested(payload) {
            try { pay_nobody(); } catch (e) { storage_set("caught", "yes"); }
            storage_set("after", "yes");
        }
        fn pay_nobody() { transfer("0x0000000000000000000000000000000000000000", 1) }
    "#;
    let mut c = chain();
    let actor = deploy(&mut c, alice(), "sneaky.rhai", src, 10);
    let r = call(&mut c, bob(), actor, "sneaky", b"");
    assert!(!r.success);
    assert_eq!(
        error_kind(&r),
        Some(ErrorKind::InvalidInput),
        "{:?}",
        r.error
    );
    assert!(r.error.unwrap().message.contains("not in the future"));
    let r = call(&mut c, bob(), actor, "nested", b"");
    assert!(!r.success);
    assert_eq!(
        error_kind(&r),
        Some(ErrorKind::InvalidInput),
        "{:?}",
        r.error
    );
    assert!(storage(&c, actor, "caught").is_none());
    assert!(storage(&c, actor, "after").is_none());
}

// ---- §6: metering ----------------------------------------------------------------------------

#[test]
fn cip5_6_1_burn_cycles_charges_exactly_n() {
    let src = r#"
        fn idle(payload) { 0 }
        fn burn(payload) { burn_cycles(12_345) }
    "#;
    let mut c = chain();
    let actor = deploy(&mut c, alice(), "burn.rhai", src, 0);
    let idle = call(&mut c, bob(), actor, "idle", b"");
    let burn = call(&mut c, bob(), actor, "burn", b"");
    assert!(idle.success && burn.success);
    let extra = burn.cycles_used - idle.cycles_used;
    // 12,345 plus the few operations of the call expression.
    assert!((12_345..12_345 + 100).contains(&extra), "{extra}");
}

#[test]
fn cip5_6_2_infinite_loop_is_out_of_cycles_and_the_chain_goes_on() {
    let src = r#"
        fn deploy() { schedule_timer_ex(block_height() + 1, "", #{ gas_limit: 50_000 }); }
        fn spin(payload) { loop {} }
        fn handle_timer(payload) { let i = 0; while true { i += 1; } }
    "#;
    let mut c = chain();
    let actor = deploy(&mut c, alice(), "spin.rhai", src, 10_000_000);
    let mut tx = call_tx(bob(), actor, "spin", b"");
    tx.cycle_limit = Some(200_000);
    let bob_before = c.balance(&bob());
    let r = c.apply_tx(tx).expect("included");
    assert!(!r.success);
    assert_eq!(
        error_kind(&r),
        Some(ErrorKind::OutOfCycles),
        "{:?}",
        r.error
    );
    assert_eq!(r.cycles_used, 200_000, "the whole limit is charged");
    assert_eq!(c.balance(&bob()), bob_before - r.fee);
    let h = c.seal_block().header.height;
    // The timer handler loops too: it stops at its gas limit.
    let b = c.seal_block();
    let f = fires(b, actor);
    assert_eq!(f.len(), 1);
    assert!(!f[0].success);
    assert_eq!(f[0].error.as_ref().unwrap().kind, ErrorKind::OutOfCycles);
    assert_eq!(f[0].cycles_used, 50_000);
    // The chain keeps producing blocks and running transactions.
    let r = c
        .apply_tx(Transaction::new(
            alice(),
            TxKind::Transfer {
                to: bob(),
                amount: 7,
            },
        ))
        .unwrap();
    assert!(r.success);
    assert_eq!(c.seal_block().header.height, h + 2);
}

// ---- §8: the sandbox -------------------------------------------------------------------------

#[test]
fn cip5_8_huge_allocations_hit_a_sandbox_limit() {
    let src = r#"
        fn double(payload) { let s = "x"; loop { s += s; } }
        fn giant_array(payload) { let a = []; a.pad(100_000_000, 0); }
        fn giant_blob(payload) { let b = blob(1_000_000_000); }
        fn giant_map(payload) { let m = #{}; for i in 0..5_000 { m[`k${i}`] = i; } m.len() }
    "#;
    let mut c = chain();
    let actor = deploy(&mut c, alice(), "alloc.rhai", src, 0);
    for (h, what) in [
        ("double", "Length of string"),
        ("giant_array", "Size of array"),
        ("giant_blob", "Size of array"),
        ("giant_map", "Size of object map"),
    ] {
        let r = call(&mut c, bob(), actor, h, b"");
        assert!(!r.success, "{h} succeeded");
        assert_eq!(
            error_kind(&r),
            Some(ErrorKind::ScriptError),
            "{h}: {:?}",
            r.error
        );
        let e = r.error.unwrap().to_string();
        assert!(e.contains("sandbox limit") && e.contains(what), "{h}: {e}");
        assert!(e.contains("alloc.rhai, fn "), "{e}");
    }
}

#[test]
fn cip5_8_maps_grown_by_indexed_assignment_hit_a_sandbox_limit_and_revert() {
    // Rhai does not check a map's size on `m[key] = value`: unchecked, each of these loops ran
    // until the call's 5,000,000 cycles were spent, holding up to gigabytes of strings. The
    // sandbox stops each near the limit it breaks, names it, and the call reverts.
    let mut hoard = String::from(r#"fn hoard(payload) { let s = "x"; s.pad(60000, 'y'); "#);
    for i in 0..100 {
        hoard.push_str(&format!("let v{i} = s + {i}; "));
    }
    hoard.push_str("let t = 0; for i in 0..1000 { t += i; } t }");
    let src = format!(
        r#"
        fn flat(payload) {{
            storage_set("touched", "yes");
            let m = #{{}}; let i = 0;
            loop {{ m["k" + i] = i; i += 1; }}
        }}
        fn nested(payload) {{ let m = #{{ inner: #{{}} }}; let i = 0; loop {{ m.inner["k" + i] = i; i += 1; }} }}
        fn in_array(payload) {{ let a = [#{{}}]; let i = 0; loop {{ a[0]["k" + i] = i; i += 1; }} }}
        fn big_values(payload) {{
            let s = "x"; s.pad(60000, 'y');
            let m = #{{}}; let i = 0;
            loop {{ m["k" + i] = s + i; i += 1; }}
        }}
        fn long_keys(payload) {{
            let s = "x"; s.pad(60000, 'y');
            let m = #{{}}; let i = 0;
            loop {{ m[s + i] = i; i += 1; }}
        }}
        {hoard}
        fn fine(payload) {{ let m = #{{}}; m.a = 1; m.len() }}
        "#
    );
    let mut c = chain();
    let actor = deploy(&mut c, alice(), "hoard.rhai", &src, 0);
    for (h, what) in [
        ("flat", "Size of object map too large"),
        ("nested", "Size of object map too large"),
        ("in_array", "Size of object map too large"),
        ("big_values", "Length of string too large"),
        ("long_keys", "Length of string too large"),
        (
            "hoard",
            "Data of one script function call (4 MiB limit) too large",
        ),
    ] {
        let mut tx = call_tx(bob(), actor, h, b"");
        tx.cycle_limit = Some(5_000_000);
        let r = c.apply_tx(tx).expect("included");
        assert!(!r.success, "{h} succeeded");
        assert_eq!(
            error_kind(&r),
            Some(ErrorKind::ScriptError),
            "{h}: {:?}",
            r.error
        );
        let e = r.error.unwrap().to_string();
        assert!(e.contains("sandbox limit") && e.contains(what), "{h}: {e}");
        // Stopped at the limit, a few thousand operations in at most (plus the reads of the
        // 60,000-byte string, 117 operations each), not at the cycle limit: the data it built
        // stayed within a few limits' worth.
        assert!(r.cycles_used < 150_000, "{h}: {} cycles", r.cycles_used);
    }
    // The failed calls changed nothing but their fees and nonces.
    assert_eq!(storage(&c, actor, "touched"), None);
    // The chain carries on, and the script's other functions still work.
    let r = call(&mut c, alice(), actor, "fine", b"");
    assert!(r.success, "{:?}", r.error);
    let h = c.pending_height();
    assert_eq!(c.seal_block().header.height, h);
}

#[test]
fn cip5_8_data_checks_leave_legitimate_data_alone() {
    // A map at its limit, read many times over (every read is checked, and the walks run every
    // 64 operations), and a payload larger than the array limit, kept in variables and passed
    // on: both succeed.
    let src = r#"
        fn full_map(payload) {
            let m = #{};
            for i in 0..256 { m["k" + i] = i; }
            let t = 0;
            for j in 0..2000 { t += m["k7"]; }
            emit("sum", t.to_string());
        }
        fn relay(payload) {
            let copy = payload;
            let t = 0;
            for j in 0..500 { t += j; }
            emit("relay", copy);
        }
    "#;
    let mut c = chain();
    let actor = deploy(&mut c, alice(), "legit.rhai", src, 0);
    let r = call(&mut c, bob(), actor, "full_map", b"");
    assert!(r.success, "{:?}", r.error);
    let payload = vec![b'p'; 200_000];
    let r = call(&mut c, bob(), actor, "relay", &payload);
    assert!(r.success, "{:?}", r.error);
    let b = c.seal_block();
    let ev = emitted(b);
    assert_eq!(ev[0], ("sum".to_string(), "14000".to_string()));
    assert_eq!(ev[1].0, "relay");
}

#[test]
fn cip5_8_this_is_not_available_to_scripts() {
    // `this` would let a method-style function change its caller's map with no variable access,
    // out of sight of the data checks; it is a disabled symbol, so such a script never deploys.
    let mut c = chain();
    let before = c.state_root();
    let src = r#"
        fn grow() { let i = 0; loop { this["k" + i] = i; i += 1; } }
        fn start(payload) { let m = #{}; m.grow(); }
    "#;
    let e = c.apply_tx(deploy_tx(alice(), "this.rhai", src, 0));
    let e = e.map(|r| r.success);
    assert!(
        matches!(e, Err(TxError::Code(VmError::Compile { .. }))),
        "{e:?}"
    );
    assert_eq!(c.state_root(), before);
}

#[test]
fn cip5_8_deep_recursion_and_deep_nesting_are_script_errors() {
    // Each would overflow the native stack (and abort the node) without the sandbox limits.
    let src = r#"
        fn down(n) { down(n + 1) }
        fn heavy(n) { abs(abs(abs(abs(abs(abs(abs(abs(heavy(n + 1))))))))) }
        fn recurse(payload) { down(0) }
        fn recurse_heavy(payload) { heavy(0) }
        fn nest_arrays(payload) { let a = []; loop { a = [a]; } }
        fn nest_maps(payload) { let m = #{}; loop { m = #{ inner: m }; } }
        fn nest_mixed(payload) { let m = #{}; loop { m = [#{ inner: m }]; } }
        fn print_nested(payload) { let a = []; for i in 0..1_000 { a = [a]; } `${a}` }
    "#;
    let mut c = chain();
    let actor = deploy(&mut c, alice(), "deep.rhai", src, 0);
    for h in [
        "recurse",
        "recurse_heavy",
        "nest_arrays",
        "nest_maps",
        "nest_mixed",
        "print_nested",
    ] {
        let r = call(&mut c, bob(), actor, h, b"");
        assert!(!r.success, "{h}");
        assert_eq!(
            error_kind(&r),
            Some(ErrorKind::ScriptError),
            "{h}: {:?}",
            r.error
        );
        assert!(r.error.unwrap().message.contains("sandbox limit"), "{h}");
    }
}

#[test]
fn cip5_8_no_clock_no_eval_no_imports() {
    let mut c = chain();
    // `sleep` is overridden to fail; the time package is compiled out.
    let src = "fn nap(p) { sleep(3600) } fn now(p) { timestamp() }";
    let actor = deploy(&mut c, alice(), "nap.rhai", src, 0);
    for h in ["nap", "now"] {
        let r = call(&mut c, bob(), actor, h, b"");
        assert_eq!(
            error_kind(&r),
            Some(ErrorKind::ScriptError),
            "{h}: {:?}",
            r.error
        );
    }
    for src in ["fn f(p) { eval(\"1\") }", "import \"std\" as s; fn f(p) {}"] {
        let before = c.state_root();
        let e = c.apply_tx(deploy_tx(alice(), "bad.rhai", src, 0));
        let e = e.map(|r| r.success);
        assert!(
            matches!(e, Err(TxError::Code(VmError::Compile { .. }))),
            "{src}: {e:?}"
        );
        assert_eq!(c.state_root(), before);
    }
}

#[test]
fn cip5_8_closures_cannot_capture_variables() {
    // A captured variable would be shared behind a lock; calling the closure as a method of that
    // variable made every access a data race that slept 50 ms before failing, and a `try` in a
    // loop repeated it. Capturing is compiled out: the deploy is rejected and changes nothing.
    let mut c = chain();
    let src = r#"
        fn stall(payload) {
            let m = #{};
            let c = |x| { m.a = 1; };
            loop { try { m.call(c, 1) } catch {} }
        }
    "#;
    let before = c.state_root();
    let e = c.apply_tx(deploy_tx(alice(), "stall.rhai", src, 0));
    let e = e.map(|r| r.success);
    assert!(
        matches!(e, Err(TxError::Code(VmError::Compile { .. }))),
        "{e:?}"
    );
    assert_eq!(c.state_root(), before);
    // Closures that capture nothing still work.
    let src = "fn twice(payload) { let f = |x| x * 2; f.call(21) }";
    let actor = deploy(&mut c, alice(), "pure.rhai", src, 0);
    assert!(call(&mut c, bob(), actor, "twice", b"").success);
}

#[test]
fn cip5_8_syntax_error_rejects_the_deploy_and_changes_nothing() {
    let src = "fn deploy() {\n    let x = ;\n}\n";
    let mut c = chain();
    let root = c.state_root();
    let nonce = c.nonce(&alice());
    let addr = Address::from_label("broken.rhai");
    let e = c
        .apply_tx(deploy_tx(alice(), "broken.rhai", src, 1_000))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::CompileError);
    match &e {
        TxError::Code(VmError::Compile { location, message }) => {
            assert!(location.starts_with("broken.rhai:2:"), "{location}");
            assert!(!message.is_empty());
        }
        other => panic!("{other:?}"),
    }
    assert!(
        e.to_string().starts_with("CompileError: broken.rhai:2:"),
        "{e}"
    );
    assert_eq!(c.state_root(), root);
    assert_eq!(c.nonce(&alice()), nonce);
    assert!(c.actor(&addr).is_none());
}

#[test]
fn cip5_8_runtime_type_error_is_a_script_error() {
    let src = r#"
        fn bad(payload) { let x = 1 + true; }
        fn cond(payload) { if payload { 1 } }
    "#;
    let mut c = chain();
    let actor = deploy(&mut c, alice(), "types.rhai", src, 0);
    for h in ["bad", "cond"] {
        let r = call(&mut c, bob(), actor, h, b"");
        assert!(!r.success);
        assert_eq!(
            error_kind(&r),
            Some(ErrorKind::ScriptError),
            "{h}: {:?}",
            r.error
        );
        assert!(r.error.unwrap().message.contains("types.rhai:"));
    }
}

// ---- §7: determinism -------------------------------------------------------------------------

#[test]
fn cip5_7_amounts_are_checked_u128() {
    let src = r#"
        fn big(payload) {
            let max = u128("340282366920938463463374607431768211455");
            storage_set("max", max.to_string());
            storage_set("cmp", `${max > 5} ${u128(3) == 3} ${u128(2) < 3}`);
        }
        fn overflow(payload) { balance(self_address()) + u128("340282366920938463463374607431768211455") }
        fn underflow(payload) { balance(self_address()) - 1 }
    "#;
    let mut c = chain();
    let actor = deploy(&mut c, alice(), "u128.rhai", src, 1);
    assert!(call(&mut c, bob(), actor, "big", b"").success);
    assert_eq!(
        storage(&c, actor, "max").as_deref(),
        Some("340282366920938463463374607431768211455")
    );
    assert_eq!(storage(&c, actor, "cmp").as_deref(), Some("true true true"));
    let r = call(&mut c, bob(), actor, "overflow", b"");
    assert_eq!(
        error_kind(&r),
        Some(ErrorKind::ScriptError),
        "{:?}",
        r.error
    );
    assert!(call(&mut c, bob(), actor, "underflow", b"").success);
    c.set_balance(&actor, 0);
    let r = call(&mut c, bob(), actor, "underflow", b"");
    assert_eq!(
        error_kind(&r),
        Some(ErrorKind::ScriptError),
        "{:?}",
        r.error
    );
}

#[test]
fn cip5_7_replay_gives_the_same_state_root_and_a_cache_miss_compiles_lazily() {
    let run = |swap_runtime: bool| {
        let mut c = chain();
        let actor = deploy(&mut c, alice(), "heartbeat.rhai", HEARTBEAT, 100_000_000);
        c.seal_block();
        if swap_runtime {
            // As after a state load: a fresh runtime with an empty cache.
            c.set_runtime(DevnetRuntime::shared());
        }
        let fired = run_blocks(&mut c, 9, actor);
        assert_eq!(fired.len(), 3);
        assert!(fired.iter().all(|f| f.success), "{fired:?}");
        c.state_root()
    };
    assert_eq!(run(false), run(true));
}

/// CIP-5 §8 (hostile handlers): a map, array or string grown in place in a loop, never passed to
/// a function, still stops at its sandbox limit: the call fails with a named error instead of
/// holding hundreds of megabytes until its cycles run out.
#[test]
fn cip5_8_containers_grown_in_place_hit_their_limit() {
    let src = r#"
        fn map_in_loop(payload) { let m = #{}; let i = 0; loop { m["k" + i] = "xxxxxxxxxxxxxxxx"; i += 1; } }
        fn nested_map(payload) { let m = #{ inner: #{} }; let i = 0; loop { m.inner["k" + i] = i; i += 1; } }
        fn array_in_loop(payload) { let a = [[]]; loop { a[0].push("xxxxxxxxxxxxxxxx"); } }
        fn map_of_strings(payload) { let m = #{}; let s = "x"; let i = 0; loop { s += "yyyyyyyyyyyyyyyy"; m["a"] = s; m["b" + i % 200] = s; i += 1; } }
    "#;
    let mut c = chain();
    let actor = deploy(&mut c, alice(), "grow.rhai", src, 0);
    for (h, what) in [
        ("map_in_loop", "Size of object map"),
        ("nested_map", "Size of object map"),
        ("array_in_loop", "Size of array"),
        ("map_of_strings", "sandbox limit"),
    ] {
        let r = call(&mut c, bob(), actor, h, b"");
        assert!(!r.success, "{h} succeeded");
        let e = r.error.as_ref().map(|e| e.to_string()).unwrap_or_default();
        assert_eq!(error_kind(&r), Some(ErrorKind::ScriptError), "{h}: {e}");
        assert!(e.contains("sandbox limit") && e.contains(what), "{h}: {e}");
    }
    // The node goes on: the actor still answers.
    let r = call(&mut c, bob(), actor, "map_in_loop", b"");
    assert_eq!(error_kind(&r), Some(ErrorKind::ScriptError));
}

/// CIP-5 §8 (metering): comparing or copying a payload costs in proportion to its size. Each read
/// of a variable holding a `Blob` over 1 KiB costs one more operation per KiB, so a handler that
/// compares a 1 MiB payload with itself 20 times (two reads each) needs about 41,000 operations
/// and runs out of a 200,000-cycle limit, where the same loop over a small payload costs a few
/// hundred. Without the charge a 5,000,000-cycle call could loop over it for seconds.
#[test]
fn cip5_8_reading_a_large_payload_is_charged_by_its_size() {
    let src = r#"
        fn compare(payload) { let n = 0; for i in 0..20 { if payload == payload { n += 1; } } n }
        fn pass_on(payload) { let n = 0; for i in 0..20 { n += helper(payload); } n }
        fn helper(p) { 1 }
        fn read_once(payload) { let n = payload == payload; }
    "#;
    let mut c = chain();
    let actor = deploy(&mut c, alice(), "big.rhai", src, 0);
    let big = vec![7u8; 1 << 20];
    let limited = |handler: &str, payload: &[u8]| {
        let mut tx = call_tx(bob(), actor, handler, payload);
        tx.cycle_limit = Some(200_000);
        tx
    };
    for handler in ["compare", "pass_on"] {
        let small = c.apply_tx(limited(handler, b"small")).unwrap();
        assert!(small.success, "{handler}: {:?}", small.error);
        assert!(
            small.cycles_used < 10_000,
            "{handler}: {}",
            small.cycles_used
        );
        let r = c.apply_tx(limited(handler, &big)).unwrap();
        assert!(
            !r.success,
            "{handler} ran 20 reads of a 1 MiB payload on 200,000 cycles"
        );
        assert_eq!(
            error_kind(&r),
            Some(ErrorKind::OutOfCycles),
            "{handler}: {:?}",
            r.error
        );
    }
    // Two reads of a 1 MiB payload: at least 2 × 1,024 operations of 10 cycles.
    let r = c.apply_tx(limited("read_once", &big)).unwrap();
    assert!(r.success, "{:?}", r.error);
    assert!(r.cycles_used >= 2 * 1_024 * 10, "{}", r.cycles_used);
    let small = c.apply_tx(limited("read_once", b"x")).unwrap();
    assert!(small.cycles_used < 2_000, "{}", small.cycles_used);
}

// ---- §6.2: metering by the bytes a script touches --------------------------------------------

/// Large values copied, compared or printed in a loop of `n` iterations, and the same loops over
/// small values.
const COPIES: &str = r#"
fn big_string() { let s = "x"; s.pad(60_000, 'y'); s }
fn big_array() { let a = []; for i in 0..1_000 { a.push("0123456789abcdef0123456789abcdef0123456789abcdef012345678" + i); } a }
fn int_array() { let a = []; a.pad(1_024, 0); a }
fn copy_array(n) { let a = big_array(); for i in 0..n { let b = a; } }
fn copy_int_array(n) { let a = int_array(); for i in 0..n { let b = a; } }
fn copy_string(n) { let s = big_string(); for i in 0..n { let t = s; } }
fn print_debug(n) { let s = big_string(); for i in 0..n { print(s); debug(s); } }
fn copy_small(n) { let a = [1, 2, 3]; let s = "abc"; for i in 0..n { let b = a; let t = s; } }
fn print_small(n) { let s = "abc"; for i in 0..n { print(s); debug(s); } }
"#;

/// A call of `handler` with the iteration count as its payload (`payload.as_string()`), under
/// `cycle_limit`.
fn counted_call(actor: Address, handler: &str, n: u32, cycle_limit: u64) -> Transaction {
    let src_handler = format!("{handler}_n");
    let mut tx = call_tx(bob(), actor, &src_handler, n.to_string().as_bytes());
    tx.cycle_limit = Some(cycle_limit);
    tx
}

/// `COPIES` with an entry per loop that reads the count from the payload.
fn copies_script() -> String {
    let mut src = COPIES.to_string();
    for h in [
        "copy_array",
        "copy_int_array",
        "copy_string",
        "print_debug",
        "copy_small",
        "print_small",
    ] {
        src.push_str(&format!(
            "fn {h}_n(payload) {{ {h}(parse_int(payload.as_string())) }}\n"
        ));
    }
    src
}

/// CIP-5 §6.2 (metering): reading a variable costs in proportion to the data it holds, and
/// `print`/`debug` by the text they produce, so a loop that copies or prints a large value runs
/// out of cycles after few iterations instead of holding the node for seconds. 300 copies of a
/// 60 KB string or a 1,000-string array, 1,000 copies of a 1,024-number array, or 100 prints of
/// the string do not fit in 200,000 cycles (each read of such a value costs 32 operations or
/// more); the same loops over small values do, for a few operations per iteration. The chain
/// carries on.
#[test]
fn cip5_6_2_metering_copying_or_printing_large_values_is_charged_by_size() {
    let mut c = chain();
    let actor = deploy(&mut c, alice(), "copies.rhai", &copies_script(), 0);
    for (handler, n) in [
        ("copy_array", 300),
        ("copy_int_array", 1_000),
        ("copy_string", 300),
        ("print_debug", 100),
    ] {
        let r = c
            .apply_tx(counted_call(actor, handler, n, 200_000))
            .expect("included");
        assert!(!r.success, "{handler} ran {n} iterations on 200,000 cycles");
        assert_eq!(
            error_kind(&r),
            Some(ErrorKind::OutOfCycles),
            "{handler}: {:?}",
            r.error
        );
        assert_eq!(r.cycles_used, 200_000);
    }
    for (handler, n) in [("copy_small", 300), ("print_small", 100)] {
        let r = c
            .apply_tx(counted_call(actor, handler, n, 200_000))
            .expect("included");
        assert!(r.success, "{handler}: {:?}", r.error);
    }
    // The node carries on.
    let r = c
        .apply_tx(Transaction::new(
            alice(),
            TxKind::Transfer {
                to: bob(),
                amount: 1,
            },
        ))
        .expect("included");
    assert!(r.success);
    let h = c.pending_height();
    assert_eq!(c.seal_block().header.height, h);
}

/// CIP-5 §6.2 (metering) and §7 (determinism): `print`/`debug` output goes to the log only, never
/// into a block, and is charged the same whether the log is enabled or not: the same calls give
/// the same receipts, events and state root with a debug-level log and without one.
#[test]
fn cip5_6_2_metering_print_and_debug_are_charged_and_stay_out_of_blocks() {
    let run = || {
        let mut c = chain();
        let actor = deploy(&mut c, alice(), "copies.rhai", &copies_script(), 0);
        let r = c
            .apply_tx(counted_call(actor, "print_debug", 3, 5_000_000))
            .expect("included");
        assert!(r.success, "{:?}", r.error);
        // Two prints of 60,000 bytes, three times: at least 2 × 3 × 60,000 / 64 operations.
        assert!(r.cycles_used > 6 * 937 * 10, "{}", r.cycles_used);
        let b = c.seal_block();
        assert!(
            b.events
                .iter()
                .all(|e| !matches!(e.event, Event::Chain(ChainEvent::ActorEmitted { .. }))),
            "print output reached the block"
        );
        (r.cycles_used, c.state_root())
    };
    let quiet = run();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_writer(std::io::sink)
        .finish();
    let logged = tracing::subscriber::with_default(subscriber, run);
    assert_eq!(quiet, logged);
}

/// A chain whose blocks hold at most 1,000,000 transaction cycles.
fn small_block_chain() -> Chain {
    let mut genesis = Genesis {
        accounts: vec![
            GenesisAccount {
                address: alice(),
                balance: RICH,
            },
            GenesisAccount {
                address: bob(),
                balance: RICH,
            },
        ],
        ..Genesis::default()
    };
    genesis.basefee.tx_cycle_limit = 200_000;
    genesis.basefee.block_tx_cycles = 1_000_000;
    Chain::new(genesis, DevnetRuntime::shared()).expect("valid genesis")
}

/// CIP-5 §6.2 (metering, the block's share): the cycles of one block's transactions add up to at
/// most `basefee.block_tx_cycles`. A transaction whose cycle limit does not fit in what is left
/// is rejected with `BlockFull` before it runs and changes nothing; a smaller one still fits,
/// and the next block starts empty.
#[test]
fn cip5_6_2_block_tx_cycles_bounds_the_cycles_of_a_blocks_transactions() {
    let mut c = small_block_chain();
    let actor = deploy(
        &mut c,
        alice(),
        "spin.rhai",
        "fn spin(payload) { loop {} }",
        0,
    );
    // The deploy used some cycles; four spins of 200,000 fill the block up to under 200,000.
    for _ in 0..4 {
        let r = c
            .apply_tx(call_tx(bob(), actor, "spin", b""))
            .expect("included");
        assert_eq!(error_kind(&r), Some(ErrorKind::OutOfCycles));
    }
    let root = c.state_root();
    let nonce = c.nonce(&bob());
    let e = c
        .apply_tx(call_tx(bob(), actor, "spin", b""))
        .expect_err("the block is full");
    assert_eq!(e.kind(), ErrorKind::BlockFull, "{e}");
    assert_eq!(c.state_root(), root);
    assert_eq!(c.nonce(&bob()), nonce);
    // A transaction that asks for less still fits.
    let mut small = Transaction::new(
        bob(),
        TxKind::Transfer {
            to: alice(),
            amount: 1,
        },
    );
    small.cycle_limit = Some(10_000);
    assert!(c.apply_tx(small).expect("fits").success);
    // The next block has room again.
    c.seal_block();
    let r = c
        .apply_tx(call_tx(bob(), actor, "spin", b""))
        .expect("included");
    assert_eq!(error_kind(&r), Some(ErrorKind::OutOfCycles));
    // A cycle limit above the whole block is invalid, and a genesis whose block cannot hold one
    // default transaction is refused.
    let mut huge = call_tx(bob(), actor, "spin", b"");
    huge.cycle_limit = Some(1_000_001);
    assert_eq!(
        c.apply_tx(huge).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
    let mut genesis = Genesis::default();
    genesis.basefee.block_tx_cycles = genesis.basefee.tx_cycle_limit - 1;
    assert!(Chain::new(genesis, DevnetRuntime::shared()).is_err());
}

/// Issue 12 / CIP-5 §7 (determinism): recursion and expression depth are bounded by counted
/// limits (Rhai's call levels and expression depths), never by the native stack: a deep recursion
/// ends with the same error, cycles and state root on threads with 1 MiB, 4 MiB and 64 MiB
/// stacks, and the error is the counted call-level limit (Rhai's "Stack overflow",
/// met at 16 calls with every call as deep in expressions as a function may be) or the counted
/// nesting limit of data (which Rhai prints, compares and drops recursively).
#[test]
fn cip5_7_deep_recursion_ends_the_same_at_any_stack_size() {
    let run = || {
        let src = r#"
            fn heavy(n) { abs(abs(abs(abs(abs(abs(abs(abs(abs(abs(abs(abs(heavy(n + 1))))))))))))) }
            fn deep(n) { if n > 0 { [[[[deep(n - 1)]]]] } else { [] } }
            fn recurse(payload) { heavy(0) }
            fn nested(payload) { deep(1_000) }
            // The call-level limit cannot be caught.
            fn caught(payload) { let n = 0; loop { try { heavy(0) } catch { n += 1; } } }
            fn nest(payload) { let a = []; loop { a = [a]; } }
            fn print_nested(payload) { let a = []; for i in 0..1_000 { a = [[[[a]]]]; } `${a}` }
        "#;
        let mut c = chain();
        let actor = deploy(&mut c, alice(), "deep.rhai", src, 0);
        let mut out = Vec::new();
        for h in ["recurse", "nested", "caught", "nest", "print_nested"] {
            let mut tx = call_tx(bob(), actor, h, b"");
            tx.cycle_limit = Some(300_000);
            let r = c.apply_tx(tx).expect("included");
            assert!(!r.success, "{h}");
            out.push((h, error_kind(&r), r.error.unwrap(), r.cycles_used));
        }
        (out, c.state_root())
    };
    let on_stack = |bytes: usize| {
        std::thread::Builder::new()
            .stack_size(bytes)
            .spawn(run)
            .expect("thread")
            .join()
            .expect("no panic")
    };
    // 1 MiB is less than the guard: calls then run on a stack of their own.
    let tiny = on_stack(1 << 20);
    let small = on_stack(4 << 20);
    let large = on_stack(64 << 20);
    assert_eq!(tiny, small);
    assert_eq!(small, large);
    for (h, name, error, _) in &small.0 {
        let counted = match *h {
            "nest" | "print_nested" => "Nesting of arrays and maps (32 levels limit)",
            _ => "Stack overflow",
        };
        assert_eq!(*name, Some(ErrorKind::ScriptError), "{h}: {error}");
        assert!(
            error.message.contains(counted) && !error.message.contains("native stack"),
            "{h}: {error}"
        );
    }
}
