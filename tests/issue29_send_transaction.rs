//! Issue 29, "one command vocabulary": `devnet_sendTransaction` is `Command::SendTx` over
//! JSON-RPC, the command a fixture's `tx` step sends. A transaction of each kind sent over
//! the API answers the same receipt as the same command executed in process, and the two
//! nodes end on the same head (hash and state root); a refused one changes nothing
//! (`tests/issue29_refusals.rs` has its refused forms).

mod common;

use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::{Genesis, SystemInstruction, TimerOp, Transaction, TxKind};
use cowboy_devnet::engine::{Address, ScheduleArgs, SchedulerKind};
use cowboy_devnet::node::{Command, NodeCore, SendTx, spawn};
use jsonrpsee::http_client::{HttpClient, HttpClientBuilder};
use serde_json::{Value, json};

/// `tx` sent over JSON-RPC and executed in process: the two receipts, as JSON.
async fn both(c: &HttpClient, local: &mut NodeCore, tx: &Transaction) -> (Value, Value) {
    let remote = common::served::rpc_ok(c, "devnet_sendTransaction", &json!([tx])).await;
    let here = local
        .execute(Command::SendTx(SendTx(tx.clone())))
        .expect("the in-process command is accepted too");
    (remote, serde_json::to_value(here).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue29_send_transaction_is_the_fixture_tx_step_over_json_rpc() {
    for kind in [SchedulerKind::Fifo, SchedulerKind::Eip1559] {
        let genesis = Genesis::default().with_scheduler(Some(kind), None).unwrap();
        let mut local = common::fleet::node_on(genesis.clone());
        let served = common::served::serve_node(
            spawn(common::fleet::node_on(genesis)),
            &common::served::port0(),
        )
        .await;
        let c = HttpClientBuilder::default()
            .build(format!("http://{}", served.addr))
            .unwrap();
        let accounts = common::served::rpc_ok(&c, "devnet_accounts", &json!([])).await;
        let addr = |i: usize| -> Address {
            serde_json::from_value(accounts[i]["address"].clone()).unwrap()
        };
        let (gov, alice) = (addr(0), addr(1));

        let deploy = Transaction::new(
            alice,
            TxKind::Deploy {
                address: None,
                code: ActorCode::rhai("pinger", "fn ping(p) { emit(\"pong\", p); }"),
                endowment: 1_000_000_000,
            },
        );
        let (r, l) = both(&c, &mut local, &deploy).await;
        assert_eq!(r, l, "{kind}: the deploy's receipt");
        assert_eq!(r["status"], "success", "{r}");
        let actor: Address = serde_json::from_value(r["created"].clone()).unwrap();

        let mut transfer = Transaction::new(
            alice,
            TxKind::Transfer {
                to: gov,
                amount: 777,
            },
        );
        transfer.nonce = Some(1);
        transfer.cycle_limit = Some(50_000);
        let call = Transaction::new(
            alice,
            TxKind::Call {
                actor,
                handler: "ping".into(),
                payload: b"hi".to_vec(),
            },
        );
        let schedule = Transaction::new(
            alice,
            TxKind::ActAs {
                actor,
                op: TimerOp::ScheduleTimer(ScheduleArgs {
                    height: 40,
                    payload: b"tick".to_vec(),
                    ..ScheduleArgs::default()
                }),
            },
        );
        let mut last = Value::Null;
        for tx in [&transfer, &call, &schedule] {
            let (r, l) = both(&c, &mut local, tx).await;
            assert_eq!(r, l, "{kind}: {}", tx.kind_name());
            assert_eq!(r["status"], "success", "{kind}: {r}");
            last = r;
        }
        // The governance instruction extends the timer the act-as call scheduled.
        let timer_id = serde_json::from_value(last["timers"][0].clone()).unwrap();
        let extend = Transaction::new(
            gov,
            TxKind::System(SystemInstruction::ExtendTimer {
                timer_id,
                new_expires_at: 500,
            }),
        );
        let (r, l) = both(&c, &mut local, &extend).await;
        assert_eq!(r, l, "{kind}: the extension's receipt");
        assert_eq!(r["status"], "success", "{kind}: {r}");

        let head = common::served::rpc_ok(&c, "devnet_head", &json!([])).await;
        let here = serde_json::to_value(local.head()).unwrap();
        assert_eq!(head["hash"], here["hash"], "{kind}: the same block hash");
        assert_eq!(
            head["state_root"], here["state_root"],
            "{kind}: the same root"
        );
        let balance = common::served::rpc_ok(&c, "devnet_getBalance", &json!([gov])).await;
        assert_eq!(
            balance,
            json!(local.balance(&gov).to_string()),
            "{kind}: the transfer arrived"
        );
    }
}
