//! `rpc.discover`'s document as the schema tests read it, and the shipped fixtures they play.

use cowboy_devnet::chain::Chain;
use cowboy_devnet::engine::SchedulerKind;
use cowboy_devnet::scenario::runner::disk_loader;
use cowboy_devnet::scenario::{LoadedFixture, RunOptions, Scenario};
use cowboy_devnet::vm::DevnetRuntime;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The method `name` of the OpenRPC document `doc`.
pub fn method<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["methods"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not in rpc.discover"))
}

/// A draft-7 validator of `schema` with the document's components in reach of its `$ref`s.
pub fn validator(doc: &Value, schema: &Value) -> jsonschema::Validator {
    let root = json!({"components": doc["components"], "allOf": [schema]});
    jsonschema::draft7::new(&root).expect("the schema compiles")
}

/// The shipped fixtures (`fixtures/*.toml`), in name order.
pub fn shipped_fixtures() -> Vec<PathBuf> {
    let mut paths: Vec<_> = std::fs::read_dir("fixtures")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    paths
}

/// The chain of the fixture at `path` played to its end under `scheduler`; `None` where the
/// fixture does not play under it (a drafts' fixture under fifo).
pub fn played_under(path: &Path, scheduler: SchedulerKind) -> Option<Chain> {
    let lf = LoadedFixture::read(path).expect("fixture parses");
    let mut s =
        Scenario::prepare(&lf, &DevnetRuntime::new(), &disk_loader).expect("fixture checks");
    s.play_under(scheduler);
    let (_, node) = s
        .run_devnet(
            DevnetRuntime::shared(),
            RunOptions::default(),
            &mut |_, _| {},
        )
        .ok()?;
    Some(node.chain().clone())
}
