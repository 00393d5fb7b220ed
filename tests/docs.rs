//! Issue 19 ("The README is the user's guide"): the reference documents in `docs/` say what
//! the code does. `docs/API.md` names exactly the methods `rpc.discover` lists, the Spec notes
//! keep their numbers, the examples the documents show parse as the code parses them, and the
//! help text lists every shipped fixture.

use cowboy_devnet::chain::Genesis;
use cowboy_devnet::node::{NodeConfig, NodeCore, spawn};
use cowboy_devnet::rpc::methods::module;
use cowboy_devnet::rpc::server::{self, ServerOptions};
use cowboy_devnet::scenario::builtin;
use cowboy_devnet::tui::keys::KeyMap;
use cowboy_devnet::tui::theme::Theme;
use cowboy_devnet::vm::DevnetRuntime;
use jsonrpsee::core::client::ClientT;
use jsonrpsee::http_client::HttpClientBuilder;
use jsonrpsee::rpc_params;
use serde_json::Value;
use std::collections::BTreeSet;
use std::process::Command;

fn doc(path: &str) -> String {
    std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The body of the first fenced block of `lang` after `heading` in `text`.
fn fenced_after<'a>(text: &'a str, heading: &str, lang: &str) -> &'a str {
    let from = text
        .find(heading)
        .unwrap_or_else(|| panic!("no `{heading}`"));
    let open = format!("```{lang}\n");
    let begin = from + text[from..].find(&open).expect("an example") + open.len();
    let end = begin + text[begin..].find("```").expect("the example's end");
    &text[begin..end]
}

/// Issue 19: docs/API.md has a `### \`method\`` heading for every method `rpc.discover`
/// lists on a running server, and none for a method it does not list.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue19_api_md_names_exactly_the_methods_rpc_discover_lists() {
    let cfg = NodeConfig::new(Genesis::default(), DevnetRuntime::shared());
    let node = spawn(NodeCore::new(cfg).expect("default genesis"));
    let running = server::start(
        module(node.clone()),
        &ServerOptions {
            port: 0,
            ..ServerOptions::default()
        },
    )
    .await
    .expect("bind port 0");
    let client = HttpClientBuilder::default()
        .build(format!("http://{}", running.addr))
        .expect("client");
    let discovered: Value = client
        .request("rpc.discover", rpc_params![])
        .await
        .expect("rpc.discover answers");
    let _ = running.handle.stop();
    node.shutdown();
    let listed: BTreeSet<String> = discovered["methods"]
        .as_array()
        .expect("methods")
        .iter()
        .map(|m| m["name"].as_str().expect("a name").to_string())
        .collect();
    assert!(listed.len() > 30, "{listed:?}");

    let api = doc("docs/API.md");
    let mut documented = BTreeSet::new();
    for line in api.lines() {
        if let Some(rest) = line.strip_prefix("### `") {
            let name = rest
                .strip_suffix('`')
                .expect("a heading is only the method's name");
            assert!(
                documented.insert(name.to_string()),
                "docs/API.md documents `{name}` twice"
            );
        }
    }
    let missing: Vec<_> = listed.difference(&documented).collect();
    let extra: Vec<_> = documented.difference(&listed).collect();
    assert!(missing.is_empty(), "not in docs/API.md: {missing:?}");
    assert!(
        extra.is_empty(),
        "in docs/API.md but not rpc.discover: {extra:?}"
    );
}

/// Issue 19: the Spec notes moved to docs/SPEC_NOTES.md keep their numbers, 1 to 61 in order
/// (the code and the tests cite them by number), each with a bold title; later notes follow
/// on without a gap or a repeat.
#[test]
fn issue19_spec_notes_keep_their_numbers() {
    let notes = doc("docs/SPEC_NOTES.md");
    let numbers: Vec<u32> = notes
        .lines()
        .filter_map(|l| {
            let (n, rest) = l.split_once(". ")?;
            let n: u32 = n.parse().ok()?;
            assert!(rest.starts_with("**"), "note {n} has no bold title: {l}");
            Some(n)
        })
        .collect();
    assert!(numbers.len() >= 61, "{} notes", numbers.len());
    assert_eq!(numbers, (1..=numbers.len() as u32).collect::<Vec<_>>());
}

/// Issue 19: every `docs/...md` the README links to exists, and every document in `docs/`
/// is linked from the README.
#[test]
fn issue19_readme_links_every_reference_document() {
    let readme = doc("README.md");
    for entry in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/docs")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".md") && !name.starts_with("pending-") {
            assert!(
                readme.contains(&format!("(docs/{name})")),
                "the README does not link docs/{name}"
            );
        }
    }
    for (i, _) in readme.match_indices("(docs/") {
        let end = i + readme[i..].find(')').unwrap();
        let target = readme[i + 1..end].split('#').next().unwrap();
        assert!(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(target)
                .exists(),
            "the README links {target}, which does not exist"
        );
    }
}

/// Issue 15 (themes and keys), as docs/DASHBOARD.md shows them: the theme file example is
/// one `Theme::load` accepts and changes what it names, and the key file example rebinds.
#[test]
fn issue19_dashboard_md_theme_and_key_examples_are_what_the_code_reads() {
    let dash = doc("docs/DASHBOARD.md");
    let theme_text = fenced_after(&dash, "## Themes", "toml");
    let theme = Theme::parse("my-theme.toml", theme_text, Some(&Theme::default()))
        .unwrap_or_else(|e| panic!("the theme example does not load: {e}"));
    assert_ne!(theme, Theme::default(), "the example changes nothing");
    let keys_text = fenced_after(&dash, "## Key remapping", "toml");
    let keys = KeyMap::with_overrides(keys_text)
        .unwrap_or_else(|e| panic!("the key example does not load: {e}"));
    assert_ne!(
        keys.bindings(),
        KeyMap::default().bindings(),
        "the example rebinds nothing"
    );
}

/// Every `fixtures/*.toml` is a shipped fixture (`builtin::FIXTURES`, which the help lists),
/// and every shipped fixture is on disk (`tests/fixtures.rs` checks the texts are the same).
#[test]
fn issue19_every_fixture_file_is_shipped() {
    let mut on_disk: Vec<String> =
        std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter_map(|n| n.strip_suffix(".toml").map(str::to_string))
            .collect();
    on_disk.sort();
    let mut shipped: Vec<String> = builtin::FIXTURES
        .iter()
        .map(|(n, _)| n.to_string())
        .collect();
    shipped.sort();
    assert_eq!(on_disk, shipped, "fixtures/*.toml vs builtin::FIXTURES");
}

fn help(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_cowboy-devnet"))
        .args(args)
        .output()
        .expect("the binary runs");
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// `run --help` (and `check`, `compare`, `serve --fixture`) name every shipped fixture.
#[test]
fn issue19_help_lists_every_shipped_fixture() {
    for args in [
        &["run", "--help"][..],
        &["check", "--help"],
        &["compare", "--help"],
        &["serve", "--help"],
        &["--help"],
    ] {
        let text = help(args);
        for (name, _) in builtin::FIXTURES {
            assert!(
                text.contains(name),
                "{args:?} does not name `{name}`:\n{text}"
            );
        }
    }
}

/// The default command mines a block a second (`dashboard::DEFAULT_BLOCK_TIME_MS`): its help
/// says so, where `serve`'s says a block per transaction.
#[test]
fn issue19_the_default_commands_mining_help_is_its_own() {
    let dash = help(&["--help"]);
    let no_mining = dash.split("--no-mining").nth(1).expect("--no-mining");
    let no_mining = &no_mining[..no_mining.find("--block-time").unwrap()];
    assert!(no_mining.contains("every second"), "{no_mining}");
    assert!(!no_mining.contains("every transaction"), "{no_mining}");
    let serve = help(&["serve", "--help"]);
    let no_mining = serve.split("--no-mining").nth(1).expect("--no-mining");
    let no_mining = &no_mining[..no_mining.find("--block-time").unwrap()];
    assert!(no_mining.contains("every transaction"), "{no_mining}");
}

/// The README's fixture in brief, saved beside a copy of the heartbeat script, runs with
/// `cowboy-devnet run` and its expectation holds (exit 0).
#[test]
fn issue19_the_readmes_short_fixture_runs() {
    let readme = doc("README.md");
    let text = fenced_after(&readme, "A fixture in brief", "toml");
    let dir = std::env::temp_dir().join(format!("cowboy-readme-fixture-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    std::fs::write(
        dir.join("scripts/heartbeat.rhai"),
        doc("fixtures/scripts/heartbeat.rhai"),
    )
    .unwrap();
    std::fs::write(dir.join("ping.toml"), text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cowboy-devnet"))
        .args(["run", "-q"])
        .arg(dir.join("ping.toml"))
        .output()
        .expect("the binary runs");
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("1 passed, 0 failed"), "{stdout}");
}

/// Issue 29 (one registry) and issue 30 (defaults as written): the variant tables of the README
/// and docs/FIXTURES.md are the catalogue `cowboy-devnet variants` prints, row for row, so a
/// changed default or a new variant cannot leave the docs behind.
#[test]
fn issue30_variant_tables_in_the_docs_are_the_catalogue() {
    use cowboy_devnet::engine::scheduler::variants::CATALOG;
    let mut want = vec![
        "| variant | values (default first) | spec |".to_string(),
        "| --- | --- | --- |".to_string(),
    ];
    for v in CATALOG {
        assert_eq!(
            v.values[0], v.default,
            "{}: the default is listed first",
            v.name
        );
        let values: Vec<String> = v.values.iter().map(|x| format!("`{x}`")).collect();
        want.push(format!(
            "| `{}` | {} | {} |",
            v.name,
            values.join(" \\| "),
            v.spec
        ));
    }
    for path in ["README.md", "docs/FIXTURES.md"] {
        let text = doc(path);
        let start = text
            .find("| variant | values (default first) | spec |")
            .unwrap_or_else(|| panic!("{path} has no variant table"));
        let got: Vec<&str> = text[start..]
            .lines()
            .take_while(|l| l.starts_with('|'))
            .collect();
        assert_eq!(
            got, want,
            "{path}: regenerate the table from `cowboy-devnet variants`"
        );
    }
}
