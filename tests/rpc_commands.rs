//! Issue 29, "one command vocabulary": each change request is one JSON-RPC method written once
//! (`rpc::command`): the params a client sends ([`RpcRequest::params`]) decode back into the
//! same request ([`RpcRequest::decode`]), every field kept; every such method is served and
//! listed in `rpc.discover` with the same param names in the same order.

mod common;

use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::{DraftTimerArgs, Genesis};
use cowboy_devnet::engine::{Address, PriorityTier, ScheduleArgs, TimerId};
use cowboy_devnet::node::{
    CallActor, CancelTimer, ConfigChange, DeleteSnapshot, DeployActor, DraftTimer, DumpState,
    EstimateDraftTimer, EstimateTimer, ExtendTimer, GovCancel, GovExtend, GovUpdateConfig,
    GovUpdateSchedulerConfig, Halt, LoadState, Mine, MiningMode, Reset, Revert, RevertTo,
    ScheduleTimer, SetActivationHeight, SetBalance, SetMining, Snapshot, spawn,
};
use cowboy_devnet::rpc::command::{RpcRequest, methods};
use cowboy_devnet::rpc::methods::module;
use cowboy_devnet::rpc::openrpc;
use cowboy_devnet::rpc::types::Args;
use jsonrpsee::types::Params;
use serde_json::{Value, json};

/// `r`'s params, decoded by its method and encoded again, are the same params.
fn round_trip<R: RpcRequest>(r: R) {
    let p = r.params();
    let text = serde_json::to_string(&p).unwrap();
    let params = Params::new(Some(&text));
    let a = Args::new(&params, R::PARAMS).unwrap_or_else(|e| panic!("{}: {e:?}", R::METHOD));
    let back = R::decode(&a).unwrap_or_else(|e| panic!("{} {text}: {e:?}", R::METHOD));
    assert_eq!(back.params(), p, "{} lost or changed a field", R::METHOD);
}

fn addr(b: u8) -> Address {
    Address([b; 20])
}

/// A schedule with every optional field set.
fn schedule() -> ScheduleTimer {
    ScheduleTimer {
        actor: addr(1),
        from: Some(addr(2)),
        args: ScheduleArgs {
            height: 42,
            payload: b"hello".to_vec(),
            fee_payer: Some(addr(3)),
            gas_limit: Some(90_000),
            expires_at: Some(900),
            max_fee_per_cycle: Some(u128::MAX),
            max_priority_fee_per_cycle: Some(7),
            priority_tier: Some(PriorityTier::Urgent),
            bid: Some(5),
            client_nonce: Some(9),
        },
        label: Some("settle 42".into()),
    }
}

/// A draft registration with every field its kind takes.
fn draft(interval: bool) -> DraftTimer {
    DraftTimer {
        actor: addr(1),
        from: Some(addr(2)),
        interval,
        args: DraftTimerArgs {
            keys: if interval {
                Vec::new()
            } else {
                vec!["price/".into(), "k".into()]
            },
            every: interval.then_some(3),
            first: interval.then_some(10),
            payload: vec![0, 1, 255],
            fee_payer: Some(addr(3)),
            gas_limit: Some(70_000),
            expires_at: Some(500),
            bid: Some(11),
            client_nonce: Some(4),
        },
        label: Some("settle 42".into()),
    }
}

#[test]
fn issue29_every_command_decodes_back_to_itself() {
    let id = TimerId([7; 32]);
    round_trip(Mine { blocks: 12 });
    round_trip(SetMining(MiningMode::Interval {
        block_time_ms: 1_500,
    }));
    round_trip(SetMining(MiningMode::Manual));
    round_trip(SetBalance {
        address: addr(4),
        balance: u128::MAX,
    });
    round_trip(Snapshot);
    round_trip(Revert { id: 3 });
    round_trip(DeleteSnapshot { id: 3 });
    round_trip(RevertTo { height: 77 });
    round_trip(Reset);
    round_trip(DumpState);
    round_trip(Halt { blocks: 20 });
    // Issue 32: the first command added on issue 29's shape.
    round_trip(cowboy_devnet::node::DropTransaction {
        hash: cowboy_devnet::engine::H256([9; 32]),
    });
    // Issue 29: a raw transaction, every kind.
    for tx in common::every_tx_kind(addr(2), addr(3), addr(4)) {
        round_trip(cowboy_devnet::node::SendTx(tx));
    }
    round_trip(DeployActor {
        from: Some(addr(2)),
        code: ActorCode::rhai("pinger", "fn handle_timer(p) {}"),
        address: None,
        endowment: 1_000,
        name: Some("pinger".into()),
    });
    round_trip(CallActor {
        from: addr(2),
        actor: addr(1),
        handler: "ping".into(),
        payload: b"\x00\xff".to_vec(),
    });
    round_trip(schedule());
    round_trip(EstimateTimer(schedule()));
    round_trip(CancelTimer {
        actor: addr(1),
        timer_id: id,
        from: Some(addr(2)),
    });
    round_trip(ExtendTimer {
        actor: addr(1),
        timer_id: id,
        new_expires_at: 1_000,
        from: None,
    });
    round_trip(GovCancel {
        from: addr(5),
        timer_id: id,
    });
    round_trip(GovExtend {
        from: addr(5),
        timer_id: id,
        new_expires_at: 9,
    });
    let mut fields = serde_json::Map::new();
    fields.insert("max_ttl_blocks".into(), json!(100));
    round_trip(GovUpdateConfig {
        from: addr(5),
        config: ConfigChange::Fields(fields.clone()),
    });
    round_trip(GovUpdateSchedulerConfig {
        from: addr(5),
        fields,
    });
    round_trip(SetActivationHeight {
        from: addr(5),
        height: 50,
    });
    round_trip(EstimateDraftTimer(draft(false)));
    round_trip(EstimateDraftTimer(draft(true)));
}

/// A dump sent as `devnet_loadState`'s param loads as the same dump.
#[test]
fn issue29_load_state_decodes_back_to_itself() {
    let node = spawn(common::fleet::node_on(Genesis::default()));
    let dump = node.request_blocking(DumpState).expect("a dump");
    round_trip(LoadState(dump));
    node.shutdown();
}

/// Every command method is served, and `rpc.discover` lists it with the param names its
/// decoder reads, in order.
#[test]
fn issue29_every_command_is_served_and_described_with_its_params() {
    let node = spawn(common::fleet::node_on(Genesis::default()));
    let m = module(node.clone());
    let served: Vec<&str> = m.method_names().collect();
    let doc = openrpc::document();
    let described = |name: &str| -> Option<Vec<Value>> {
        doc["methods"].as_array().unwrap().iter().find_map(|md| {
            (md["name"] == name).then(|| {
                md["params"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| p["name"].clone())
                    .collect()
            })
        })
    };
    let all = methods();
    assert!(all.len() >= 23, "{} command methods", all.len());
    for (method, params) in all {
        assert!(served.contains(&method), "{method} is not served");
        let names: Vec<Value> = params.iter().map(|p| json!(p)).collect();
        assert_eq!(
            described(method),
            Some(names),
            "{method}: rpc.discover's params differ from the decoder's"
        );
    }
    node.shutdown();
}

/// The read side (`rpc::served`): each served query's params (and a block tag) decode back to
/// the query its client sends, and `rpc.discover` names the same params, the tag last.
#[test]
fn issue29_every_served_query_decodes_back_and_is_described() {
    use cowboy_devnet::node::{
        AccountsQuery, ActorsQuery, BucketQuery, BucketsQuery, ConfigQuery, FairnessQuery,
        NamesQuery, SharesQuery, SnapshotsQuery, TiersQuery, TimerQuery,
    };
    use cowboy_devnet::rpc::served::{ServedQuery, methods as served, param_names};
    fn back<Q: ServedQuery>(q: Q) {
        let mut p = q.params();
        if Q::AT {
            p.push(json!(12));
        }
        let text = serde_json::to_string(&p).unwrap();
        let params = Params::new(Some(&text));
        let names = param_names::<Q>();
        let a = Args::new(&params, &names).unwrap_or_else(|e| panic!("{}: {e:?}", Q::METHOD));
        let again = Q::decode(&a).unwrap_or_else(|e| panic!("{} {text}: {e:?}", Q::METHOD));
        assert_eq!(again.params(), q.params(), "{}", Q::METHOD);
        if Q::AT {
            assert_eq!(a.block(Q::PARAMS.len()).unwrap(), Some(12), "{}", Q::METHOD);
        }
    }
    back(AccountsQuery);
    back(NamesQuery);
    back(SnapshotsQuery);
    back(ActorsQuery);
    back(TimerQuery {
        id: TimerId([3; 32]),
    });
    back(BucketQuery { height: 9 });
    back(ConfigQuery);
    back(TiersQuery);
    back(FairnessQuery);
    back(BucketsQuery { count: 7 });
    back(SharesQuery { window: 50 });
    let doc = openrpc::document();
    for (method, names) in served() {
        let listed: Vec<Value> = doc["methods"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == method)
            .unwrap_or_else(|| panic!("{method} in rpc.discover"))["params"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].clone())
            .collect();
        let want: Vec<Value> = names.iter().map(|n| json!(n)).collect();
        assert_eq!(listed, want, "{method}");
    }
}
