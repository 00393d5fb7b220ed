//! Issue 31, "the dashboard asks for what it shows" (docs/LEFT_OPEN.md: no version handshake):
//! a dashboard attached (`--attach URL`) to a server of another build says so in its status
//! bar, naming the methods whose params differ, instead of only "a refresh failed". Against a
//! server of its own build it says nothing (the attach tests check `link()` is `None`).

use cowboy_devnet::tui::model::{DashboardSource, ViewQuery};
use cowboy_devnet::tui::remote::RemoteDevnet;
use jsonrpsee::RpcModule;
use jsonrpsee::server::Server;
use serde_json::Value;

/// This build's OpenRPC document as an older server's: `timer_bucketPage`'s fifth param was
/// the block tag, and `timer_list` did not exist.
fn older_document() -> Value {
    let mut doc = cowboy_devnet::rpc::openrpc::document();
    let methods = doc["methods"].as_array_mut().unwrap();
    methods.retain(|m| m["name"] != "timer_list");
    let page = methods
        .iter_mut()
        .find(|m| m["name"] == "timer_bucketPage")
        .expect("this build serves timer_bucketPage");
    let params = page["params"].as_array_mut().unwrap();
    assert!(params.len() >= 5, "{params:?}");
    params[4]["name"] = "block".into();
    doc
}

#[test]
fn issue31_attached_to_another_build_the_status_bar_names_what_differs() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (addr, _handle) = rt.block_on(async {
        let server = Server::builder().build("127.0.0.1:0").await.unwrap();
        let mut module = RpcModule::new(older_document());
        module
            .register_method("rpc.discover", |_, doc, _| doc.clone())
            .unwrap();
        (server.local_addr().unwrap(), server.start(module))
    });
    let mut src = RemoteDevnet::new(&format!("http://{addr}")).unwrap();
    let _ = src.replies(&ViewQuery::default());
    let line = src.link().expect("a status line");
    assert!(line.contains("is another build"), "{line}");
    assert!(
        line.contains("`timer_bucketPage` takes (") && line.contains("block) there"),
        "{line}"
    );
    assert!(line.contains("has no `timer_list`"), "{line}");
    // The refresh itself failed too (the stand-in serves nothing else): both are said.
    assert!(line.contains("a refresh failed"), "{line}");
}
