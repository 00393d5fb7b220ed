//! Exports a node's session (issue 24) and replays it headless: every height's hash and root
//! and every expectation checked (the session, drafts and governance tests share it).

use cowboy_devnet::chain::dump;
use cowboy_devnet::node::NodeCore;
use cowboy_devnet::scenario::export::export;
use cowboy_devnet::scenario::{LoadedFixture, RunOptions, Scenario, builtin};
use cowboy_devnet::vm::DevnetRuntime;

/// Every block's (height, hash, state root) of the node, 1..=head (an outage's heights have
/// no block).
pub fn live_blocks(n: &NodeCore) -> Vec<(u64, String, String)> {
    (1..=n.height())
        .filter_map(|h| n.block(h))
        .map(|b| {
            (
                b.header.height,
                b.header.hash.to_string(),
                b.header.state_root.to_string(),
            )
        })
        .collect()
}

/// Exports `n`, runs the fixture headless, and checks every height's hash and root and every
/// expectation; returns the fixture text.
pub fn replay_matches(n: &NodeCore) -> String {
    replay_from(n, None)
}

/// [`replay_matches`] of the export from `from` (`devnet_exportFixture`'s `from_height`): a
/// fixture with a base (the session's loaded state, or the state as of `from`), read beside
/// it; the heights after the base are compared.
pub fn replay_from(n: &NodeCore, from: Option<u64>) -> String {
    let out = export(n, from).expect("export");
    let base_text = out.base.as_ref().map(|d| dump::state_text(d));
    let base_file = out.base_file.clone();
    let loader = |lf: &LoadedFixture, rel: &str| match (&base_file, &base_text) {
        (Some(f), Some(t)) if f == rel => Ok(t.clone()),
        _ => builtin::script_loader(lf, rel),
    };
    let lf = LoadedFixture::parse("session.toml", out.fixture.clone())
        .unwrap_or_else(|e| panic!("{e}\n{}", out.fixture));
    let s = Scenario::prepare(&lf, &DevnetRuntime::new(), &loader)
        .unwrap_or_else(|e| panic!("{e}\n{}", out.fixture));
    let start = s.base().map_or(0, |b| b.height());
    if let Some(f) = from {
        assert!(start <= f, "the base is as of #{f}: {start}");
    }
    let mut seen = Vec::new();
    let report = s
        .run(
            DevnetRuntime::shared(),
            RunOptions::default(),
            &mut |b, _| {
                seen.push((
                    b.header.height,
                    b.header.hash.to_string(),
                    b.header.state_root.to_string(),
                ))
            },
        )
        .expect("run");
    assert_eq!(report.refused, None, "{}", out.fixture);
    let live: Vec<_> = live_blocks(n)
        .into_iter()
        .filter(|(h, _, _)| *h > start)
        .collect();
    assert_eq!(seen, live, "{}", out.fixture);
    assert_eq!(report.summary.unexpected_step_errors, 0, "{}", out.fixture);
    assert_eq!(report.summary.expectations_failed, 0, "{}", out.fixture);
    assert_eq!(
        report.summary.expectations_passed as usize, out.expectations,
        "{}",
        out.fixture
    );
    out.fixture
}
