//! Issue 31 item 7 ("past reads off the node's thread": "a past read, an export and a dump
//! work on an immutable copy on other threads, so the live node keeps answering [...] Large
//! answers stream or page, `devnet_dumpState` at 1M pending works, over HTTP and to `--state`,
//! with a named error where a limit applies"; docs/API.md `devnet_dumpState`, Spec notes 195
//! and 196).
//!
//! - A dump, a save and an export made off the node's thread are byte for byte what the node's
//!   thread makes.
//! - A paged dump's pages put together are the whole dump's text, which loads back; a bad or
//!   spent cursor is `DumpCursorUnknown` and changes nothing; the bounds (open dumps, page
//!   size, the whole dump's size) are enforced by name.
//! - While a dump is in flight (its writer waiting for the next page), the node seals and
//!   answers, and the dump stays the state it was taken at.

mod common;

use common::fleet;
use common::served::{fingerprint, port0, rpc, rpc_err, rpc_ok, serve_node};
use cowboy_devnet::chain::dump::{state_text, write_state_text};
use cowboy_devnet::chain::runtime::ActorCode;
use cowboy_devnet::chain::{Chain, Genesis};
use cowboy_devnet::node::{
    DeployActor, DumpState, DumpStateCopy, Mine, NodeCore, NodeError, spawn,
};
use cowboy_devnet::rpc::dump_pages::{DumpError, MAX_OPEN_DUMPS, whole_text};
use cowboy_devnet::rpc::state_file;
use jsonrpsee::http_client::{HttpClient, HttpClientBuilder};
use serde_json::{Value, json};

const ACTORS: u64 = 8;

/// A script whose text is not ASCII: a page cut must fall between its characters.
const UNICODE: &str = "// é, €, 😀 and 名前: a page is cut between characters, never inside one\n";
const HANDLER: &str = "fn handle_timer(payload) { emit(\"fired\", \"✓ ✓ ✓\"); }\n";

/// A manual-mining node holding `timers` pending timers of a fleet, plus an actor whose script
/// is not ASCII, all sealed.
fn node(timers: u64) -> (NodeCore, Genesis) {
    let (mut c, genesis): (Chain, Genesis) =
        fleet::fleet_chain(fleet::uncapped_genesis(), ACTORS, fleet::FLEET_RICH);
    c.test_hook_insert_timers(fleet::spread_timers(0, timers, 100, 5_000, |i| {
        fleet::fleet_actor(ACTORS, i)
    }))
    .expect("fresh ids");
    c.seal_block();
    let mut n = fleet::node_from(&c, genesis.clone());
    n.apply(DeployActor {
        from: Some(fleet::fleet_funder()),
        code: ActorCode::rhai("unicode", UNICODE.repeat(40) + HANDLER),
        address: None,
        endowment: 1_000_000,
        name: Some("名前".into()),
    })
    .expect("deploy");
    n.apply(Mine { blocks: 1 }).expect("mine");
    while n.poll_event().is_some() {}
    (n, genesis)
}

fn client(addr: std::net::SocketAddr) -> HttpClient {
    HttpClientBuilder::default()
        .max_response_size(512 << 20)
        .build(format!("http://{addr}"))
        .expect("client")
}

/// Issue 31 item 7: the dump made from the copy the node's thread takes, on another thread,
/// is the dump the node's thread makes (its text byte for byte), and so is a save's file.
#[test]
fn issue31_item7_a_dump_off_the_node_thread_is_the_one_on_it() {
    let (mut n, _) = node(2_000);
    let on_thread = n.apply(DumpState).expect("dump");
    let copy = n.apply(DumpStateCopy).expect("copy");
    let off_thread = std::thread::spawn(move || copy.dump())
        .join()
        .expect("dump thread");
    assert_eq!(off_thread, *on_thread);
    let text = serde_json::to_string(&*on_thread).unwrap();
    let copy = n.apply(DumpStateCopy).expect("copy");
    assert_eq!(whole_text(&copy, usize::MAX).expect("fits"), text);
    // The save's text, written into the file as it is made, is the text made whole.
    let mut streamed = Vec::new();
    write_state_text(&mut streamed, &on_thread).unwrap();
    assert_eq!(String::from_utf8(streamed).unwrap(), state_text(&on_thread));
    let dir = std::env::temp_dir().join(format!("issue31-dump-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("state.json");
    state_file::write(&file, &copy.dump()).expect("save");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        state_text(&on_thread)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 31 item 7 (Spec note 141 kept): a copy to dump is refused while a block is open, as
/// the dump is, and the refusal changes nothing.
#[test]
fn issue31_item7_a_dump_copy_keeps_the_open_block_rule() {
    let (mut n, _) = node(10);
    let before = n.apply(DumpState).expect("dump");
    n.apply(DeployActor {
        from: Some(fleet::fleet_funder()),
        code: ActorCode::none(),
        address: None,
        endowment: 0,
        name: None,
    })
    .expect("deploy in an open block");
    assert!(matches!(
        n.apply(DumpStateCopy),
        Err(NodeError::BlockOpen(_))
    ));
    assert!(matches!(n.apply(DumpState), Err(NodeError::BlockOpen(_))));
    n.apply(Mine { blocks: 1 }).unwrap();
    assert_ne!(*n.apply(DumpState).unwrap(), *before);
}

/// Issue 31 item 7: an export made on an immutable copy off the node's thread (what
/// `devnet_exportFixture` and `serve --record` do) is the export the node's thread makes.
#[test]
fn issue31_item7_an_export_off_the_node_thread_is_the_one_on_it() {
    let (n, _) = node(50);
    let h = spawn(n);
    h.request_blocking(Mine { blocks: 3 }).unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    for from in [None, Some(2)] {
        let on = h
            .query_blocking(move |c| cowboy_devnet::scenario::export::export(c, from))
            .unwrap()
            .expect("export");
        let off = rt
            .block_on(h.frozen(move |c| cowboy_devnet::scenario::export::export(c, from)))
            .unwrap()
            .expect("export");
        assert_eq!(off, on, "from {from:?}");
    }
    h.shutdown();
}

/// Reads a paged dump to its end: the pages, checked in order (offsets, cursors).
async fn read_pages(c: &HttpClient, page_bytes: u64) -> Vec<Value> {
    let first = rpc_ok(
        c,
        "devnet_dumpState",
        &json!([{ "page_bytes": page_bytes }]),
    )
    .await;
    let mut pages = vec![first];
    loop {
        let last = pages.last().unwrap();
        assert!(last["data"].as_str().unwrap().len() as u64 <= page_bytes);
        let Some(next) = last["next"].as_str() else {
            break;
        };
        let p = rpc_ok(c, "devnet_dumpState", &json!([{ "cursor": next }])).await;
        let prev = pages.last().unwrap();
        assert_eq!(p["page"], prev["page"].as_u64().unwrap() + 1);
        assert_eq!(
            p["offset"],
            prev["offset"].as_u64().unwrap() + prev["data"].as_str().unwrap().len() as u64
        );
        pages.push(p);
    }
    pages
}

fn joined(pages: &[Value]) -> String {
    pages.iter().map(|p| p["data"].as_str().unwrap()).collect()
}

/// Issue 31 item 7: over HTTP the pages of a paged dump, put together, are the whole dump's
/// text (the non-ASCII script cut between characters), which `devnet_loadState` and a state
/// file load back; asking for the page just served answers it again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue31_item7_pages_put_together_are_the_whole_dump() {
    let (mut n, _) = node(3_000);
    let on_thread = serde_json::to_string(&*n.apply(DumpState).unwrap()).unwrap();
    let s = serve_node(spawn(n), &port0()).await;
    let c = client(s.addr);
    let whole = rpc_ok(&c, "devnet_dumpState", &json!([])).await;
    assert_eq!(whole, serde_json::from_str::<Value>(&on_thread).unwrap());
    let pages = read_pages(&c, 4096).await;
    assert!(pages.len() > 20, "{} pages", pages.len());
    let text = joined(&pages);
    assert_eq!(text, on_thread);
    assert!(text.contains("😀"));
    // A page asked for again (a response lost on the way) is the same page.
    let a = rpc_ok(&c, "devnet_dumpState", &json!([{ "page_bytes": 1024 }])).await;
    let next = a["next"].as_str().unwrap().to_string();
    let b = rpc_ok(&c, "devnet_dumpState", &json!([{ "cursor": next }])).await;
    let again = rpc_ok(&c, "devnet_dumpState", &json!([{ "cursor": next }])).await;
    assert_eq!(again, b);
    // The text loads back: over the API and as a state file.
    let parsed = state_file::parse(&text).expect("a dump");
    rpc_ok(
        &c,
        "devnet_loadState",
        &json!([serde_json::from_str::<Value>(&text).unwrap()]),
    )
    .await;
    let reloaded = rpc_ok(&c, "devnet_dumpState", &json!([])).await;
    assert_eq!(reloaded, serde_json::to_value(&parsed).unwrap());
}

/// Issue 31 item 7: a cursor that names no open dump (made up, malformed, spent by reading to
/// the end) or a page other than the next or the last is `DumpCursorUnknown` and changes
/// nothing; bad `page` params are -32602 naming the field.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue31_item7_a_bad_or_spent_cursor_is_named_and_changes_nothing() {
    let (n, _) = node(500);
    let s = serve_node(spawn(n), &port0()).await;
    let c = client(s.addr);
    let before = fingerprint(&c).await;
    let pages = read_pages(&c, 2048).await;
    let spent = format!("{}:{}", pages[0]["dump"], pages.len());
    let open = rpc_ok(&c, "devnet_dumpState", &json!([{ "page_bytes": 1024 }])).await;
    let id = open["dump"].as_u64().unwrap();
    for cursor in [
        "99:0".to_string(),
        "nonsense".to_string(),
        spent,
        format!("{id}:5"),
    ] {
        let (code, msg, data) =
            rpc_err(&c, "devnet_dumpState", &json!([{ "cursor": cursor }])).await;
        assert_eq!(code, -32089, "{cursor}: {msg}");
        assert_eq!(data["reason"], "DumpCursorUnknown");
    }
    // The open dump goes on where it was.
    let next = rpc_ok(
        &c,
        "devnet_dumpState",
        &json!([{ "cursor": format!("{id}:1") }]),
    )
    .await;
    assert_eq!(next["offset"], open["data"].as_str().unwrap().len());
    for (page, field) in [
        (json!({ "page_bytes": 10 }), "page.page_bytes"),
        (json!({ "page_bytes": 1u64 << 40 }), "page.page_bytes"),
        (json!({ "page_bytes": 4096, "cursor": "1:0" }), "page"),
        (json!({ "bytes": 4096 }), "page.bytes"),
        (json!("all"), "page"),
    ] {
        let (code, msg, data) = rpc_err(&c, "devnet_dumpState", &json!([page])).await;
        assert_eq!(code, -32602, "{page}: {msg}");
        assert_eq!(data["field"], field, "{page}");
    }
    assert_eq!(fingerprint(&c).await, before);
}

/// Issue 31 item 7: at most `MAX_OPEN_DUMPS` paged dumps are open at once (`DumpPagesFull`
/// beyond, nothing pinned); reading one to its end makes room. A whole dump whose text passes
/// the limit is `DumpTooLarge`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue31_item7_the_bounds_are_enforced_by_name() {
    let (n, _) = node(500);
    let copy = n.dump_copy().unwrap();
    assert_eq!(
        whole_text(&copy, 1000),
        Err(DumpError::TooLarge { limit: 1000 })
    );
    let s = serve_node(spawn(n), &port0()).await;
    let c = client(s.addr);
    let mut open = vec![];
    for _ in 0..MAX_OPEN_DUMPS {
        open.push(rpc_ok(&c, "devnet_dumpState", &json!([{ "page_bytes": 1024 }])).await);
    }
    let (code, msg, data) = rpc_err(&c, "devnet_dumpState", &json!([{ "page_bytes": 1024 }])).await;
    assert_eq!(
        (code, data["reason"].as_str()),
        (-32088, Some("DumpPagesFull")),
        "{msg}"
    );
    // Read the first to its end: one more may open.
    let mut next = open[0]["next"].as_str().map(String::from);
    while let Some(cur) = next {
        let p = rpc_ok(&c, "devnet_dumpState", &json!([{ "cursor": cur }])).await;
        next = p["next"].as_str().map(String::from);
    }
    rpc_ok(&c, "devnet_dumpState", &json!([{ "page_bytes": 1024 }])).await;
    // The whole dump still answers (it pins nothing).
    assert!(rpc(&c, "devnet_dumpState", &json!([])).await.is_ok());
}

/// Issue 31 item 7: while a paged dump is in flight (its writer waits for the next page, its
/// copy pinned), the node seals blocks and answers `devnet_blockNumber`; the dump read on
/// afterwards is the state as of the height it was opened at, not the node's new head.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue31_item7_the_node_answers_while_a_dump_is_in_flight() {
    let (n, _) = node(3_000);
    let at_open = serde_json::to_string(&n.dump_copy().unwrap().dump()).unwrap();
    let s = serve_node(spawn(n), &port0()).await;
    let c = client(s.addr);
    let first = rpc_ok(&c, "devnet_dumpState", &json!([{ "page_bytes": 1024 }])).await;
    let height = first["height"].as_u64().unwrap();
    rpc_ok(&c, "devnet_mine", &json!([5])).await;
    let now = rpc_ok(&c, "devnet_blockNumber", &json!([])).await;
    assert_eq!(now, height + 5);
    let mut pages = vec![first];
    while let Some(cur) = pages.last().unwrap()["next"].as_str().map(String::from) {
        pages.push(rpc_ok(&c, "devnet_dumpState", &json!([{ "cursor": cur }])).await);
    }
    assert_eq!(joined(&pages), at_open);
    let whole = rpc_ok(&c, "devnet_dumpState", &json!([])).await;
    assert_eq!(whole["height"], height + 5);
}

/// Issue 31 item 7: a paged dump left idle past its limit is dropped (its cursor is then
/// `DumpCursorUnknown`, and it no longer counts against the open dumps); a dump that would
/// hold more than the byte bound with the open ones is `DumpPagesFull` and pins nothing.
#[test]
fn issue31_item7_an_idle_dump_expires_and_the_byte_bound_holds() {
    use cowboy_devnet::rpc::dump_pages::{DumpLimits, DumpPages};
    use std::sync::Arc;
    use std::time::Duration;
    let (mut n, _) = node(200);
    let held = n.apply(DumpState).unwrap().heap_estimate();
    let pages = Arc::new(DumpPages::with_limits(DumpLimits {
        max_open: 1,
        max_held_bytes: held * 3 / 2,
        idle: Duration::from_millis(200),
    }));
    let copy = || n.dump_copy().unwrap();
    let first = pages.open(copy(), 1024).expect("opens");
    let next = first.next.clone().unwrap();
    assert!(matches!(pages.open(copy(), 1024), Err(DumpError::Full(_))));
    std::thread::sleep(Duration::from_millis(400));
    assert!(matches!(pages.page(&next), Err(DumpError::Cursor(_))));
    assert_eq!(pages.open_count(), 0);
    // One fits the byte bound; two do not.
    let a = pages.open(copy(), 1024).expect("opens");
    assert_eq!(a.offset, 0);
    let two = Arc::new(DumpPages::with_limits(DumpLimits {
        max_open: 2,
        max_held_bytes: held * 3 / 2,
        idle: Duration::from_secs(60),
    }));
    two.open(copy(), 1024).expect("opens");
    assert!(matches!(two.open(copy(), 1024), Err(DumpError::Full(_))));
    assert_eq!(two.open_count(), 1);
}
