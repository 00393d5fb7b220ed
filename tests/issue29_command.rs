//! Issue 29, "one command vocabulary": every change is one `node::Command`, serialised with its
//! JSON-RPC method as its tag; the reply a JSON-RPC method answers decodes into the same typed
//! `CommandReply` the in-process `NodeCore::execute` gives, so the dashboard reads one type
//! whichever transport carried the command.

mod common;

use cowboy_devnet::chain::Genesis;
use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::engine::{Address, ScheduleArgs};
use cowboy_devnet::node::{
    Command, DeployActor, EstimateTimer, GovExtend, Halt, Mine, MiningMode, ScheduleTimer,
    SetBalance, SetMining, Snapshot, spawn,
};
use cowboy_devnet::rpc::command::encode;
use cowboy_devnet::rpc::methods::{DEFAULT_ACTOR_SCRIPT, module};
use jsonrpsee::core::params::ArrayParams;
use serde_json::Value;

fn deploy(from: Address) -> Command {
    DeployActor {
        from: Some(from),
        code: ActorCode::rhai("actor", DEFAULT_ACTOR_SCRIPT),
        address: None,
        endowment: 1_000_000,
        name: Some("actor".into()),
    }
    .into()
}

fn schedule(actor: Address, height: u64) -> ScheduleTimer {
    ScheduleTimer {
        actor,
        args: ScheduleArgs {
            height,
            payload: b"p".to_vec(),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Each command's tag is the method the RPC serves it as, and it reads back the same.
#[test]
fn issue29_a_command_is_tagged_with_its_method_and_reads_back() {
    let a = Address([7; 20]);
    let cmds: Vec<Command> = vec![
        Mine { blocks: 3 }.into(),
        SetMining(MiningMode::Interval {
            block_time_ms: 1500,
        })
        .into(),
        SetBalance {
            address: a,
            balance: u128::MAX,
        }
        .into(),
        Snapshot.into(),
        Halt { blocks: 2 }.into(),
        deploy(a),
        schedule(a, 9).into(),
        EstimateTimer(schedule(a, 9)).into(),
    ];
    for c in cmds {
        let v = serde_json::to_value(&c).unwrap();
        assert_eq!(v["method"], c.method(), "{v}");
        let back: Command = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(serde_json::to_value(&back).unwrap(), v);
        // And the RPC adapter sends it as that method.
        assert_eq!(encode(&c).unwrap().0, c.method());
    }
}

/// The same commands on two equal nodes, one in process and one over JSON-RPC: the RPC's
/// result decodes into the reply `execute` gave, field for field (refusals included: both
/// are errors).
#[tokio::test(flavor = "multi_thread")]
async fn issue29_the_rpc_result_decodes_into_the_reply_execute_gives() {
    let mut local = common::fleet::node_on(Genesis::default());
    let remote = spawn(common::fleet::node_on(Genesis::default()));
    let m = module(remote.clone());
    let dev = local.dev_accounts()[0];
    let actor = {
        let c = deploy(dev);
        let r = local.execute(c.clone()).unwrap();
        run_remote(&m, &c).await.unwrap();
        match r {
            cowboy_devnet::node::CommandReply::Address(a) => a,
            r => panic!("{r:?}"),
        }
    };
    let h = local.height();
    let cmds: Vec<Command> = vec![
        EstimateTimer(schedule(actor, h + 5)).into(),
        schedule(actor, h + 5).into(),
        // Refused: an expiry in the past of a timer that does not exist.
        GovExtend {
            from: cowboy_devnet::chain::default_governor(),
            timer_id: cowboy_devnet::engine::TimerId([1; 32]),
            new_expires_at: 1,
        }
        .into(),
        SetMining(MiningMode::Interval {
            block_time_ms: 1500,
        })
        .into(),
        SetMining(MiningMode::Manual).into(),
        EstimateTimer(schedule(actor, 0)).into(),
        Mine { blocks: 2 }.into(),
        Snapshot.into(),
    ];
    for c in cmds {
        let mine = local
            .execute(c.clone())
            .map(|r| serde_json::to_value(r).unwrap());
        let theirs = run_remote(&m, &c).await;
        match (mine, theirs) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{}", c.method()),
            (Err(_), Err(_)) => {}
            (a, b) => panic!("{}: {a:?} against {b:?}", c.method()),
        }
    }
    remote.shutdown();
}

/// `c` over JSON-RPC, its result decoded into the typed reply and written again.
async fn run_remote(
    m: &jsonrpsee::RpcModule<cowboy_devnet::node::NodeHandle>,
    c: &Command,
) -> Result<Value, String> {
    let (method, args) = encode(c)?;
    let mut p = ArrayParams::new();
    for a in args {
        p.insert(a).unwrap();
    }
    let v: Value = m.call(method, p).await.map_err(|e| e.to_string())?;
    let reply = c.decode_reply(v).map_err(|e| e.to_string())?;
    Ok(serde_json::to_value(reply).unwrap())
}
