//! A fixture that starts from a state dump (issue 24, "Record"; Spec note 130): `base =
//! "FILE"` names a state file (what `serve --state`, `--dump-state`, `devnet_dumpState`, `run
//! --dump` and an export write), relative to the fixture. The chain starts as the dump says
//! (its height, accounts, actors, timers, scheduler state, configs, variants, the drafts'
//! state, an outage it was dumped in); the fixture's deploys and steps play after it.
//!
//! The base fixes what a genesis would set, so with `base` the fixture's `[chain]`, `[cip1]`,
//! `[cip1_v1]`, `[variants]` and `[cip5_draft]` are refused, as is a `balance` in
//! `[[accounts]]` (an entry there only names an address: `name` and `address`), a deploy or a
//! step at or before the base's height, an expectation before it and a `blocks` before it.
//! The file is read, parsed and loaded (its state root checked, its actors' code compiled)
//! when the fixture is checked: a missing, corrupt or mismatched base is an error of `check`
//! naming the file, at the `base` line.

use super::fixture::{FixtureError, LoadedFixture};
use super::scripts::ScriptLoader;
use crate::chain::runtime::{ActorCode, ActorRuntime, Host, VmError};
use crate::chain::{Chain, ChainDump, dump};
use crate::engine::Address;
use std::path::Path;
use std::sync::Arc;

/// The state a fixture starts from.
#[derive(Debug)]
pub struct Base {
    /// The file as the fixture names it.
    pub file: String,
    /// Where it was read from (the fixture's directory joined with `file`).
    pub path: String,
    /// The state (without a fixture player's position: the base is this fixture's start).
    pub dump: Arc<ChainDump>,
}

impl Base {
    /// The base's height: the state after that block.
    pub fn height(&self) -> u64 {
        self.dump.height
    }

    /// The first height the fixture plays: after the base and the outage it was dumped in.
    pub fn next_height(&self) -> u64 {
        self.height()
            .saturating_add(self.dump.halted)
            .saturating_add(1)
    }

    /// The outage the base was dumped in: `(after block, last skipped height)`.
    pub fn outage(&self) -> Option<(u64, u64)> {
        (self.dump.halted > 0).then(|| (self.height(), self.next_height() - 1))
    }

    /// The deployer of the base's actor at `a` (`None`: not an actor of the base).
    pub fn deployer(&self, a: &Address) -> Option<Address> {
        self.dump.actors.get(a).map(|x| x.deployer)
    }
}

/// A runtime that runs nothing: enough to load a dump and check its state root.
struct Inert;

impl ActorRuntime for Inert {
    fn prepare(&self, _code: &ActorCode) -> Result<(), VmError> {
        Ok(())
    }
    fn has_entry(&self, _code: &ActorCode, _entry: &str) -> bool {
        false
    }
    fn invoke(
        &self,
        _code: &ActorCode,
        _entry: &str,
        _payload: &[u8],
        _host: &mut dyn Host,
    ) -> Result<(), VmError> {
        Err(VmError::HandlerNotFound(
            "a base is only loaded here".into(),
        ))
    }
}

/// Reads and checks the base `lf` names, if any: read through `load` (relative to the
/// fixture), parsed, loaded (the state root it says), its actors' code prepared on `runtime`;
/// then the fixture's parts that a base excludes are refused ([`check_fixture`]).
pub(super) fn read(
    lf: &LoadedFixture,
    runtime: &dyn ActorRuntime,
    load: &ScriptLoader<'_>,
) -> Result<Option<Base>, FixtureError> {
    let Some(file) = &lf.fixture.base else {
        return Ok(None);
    };
    let err = |m: String| lf.key_error("base", m);
    if file.trim().is_empty() {
        return Err(err("`base` names no file".into()));
    }
    let path = match &lf.dir {
        Some(d) => d.join(file),
        None => Path::new(file).to_path_buf(),
    };
    let shown = path.display().to_string();
    let text = load(lf, file).map_err(|e| err(e.to_string()))?;
    let mut d = dump::parse_state(&text)
        .map_err(|why| err(format!("{shown} is not a state file: {why}")))?;
    d.fixture_player = None;
    Chain::load(d.clone(), Arc::new(Inert))
        .map_err(|e| err(format!("{shown} does not load: {e}")))?;
    for (a, actor) in &d.actors {
        runtime
            .prepare(&actor.code)
            .map_err(|e| err(format!("{shown}: the code of actor {a}: {e}")))?;
    }
    let base = Base {
        file: file.clone(),
        path: shown,
        dump: Arc::new(d),
    };
    check_fixture(lf, &base)?;
    Ok(Some(base))
}

/// The sections a base fixes (its state holds them).
const FIXED: [&str; 5] = ["chain", "cip1", "cip1_v1", "variants", "cip5_draft"];

/// Refuses what conflicts with `base`, at its line.
fn check_fixture(lf: &LoadedFixture, base: &Base) -> Result<(), FixtureError> {
    let h = base.height();
    let raw: toml::Table = toml::from_str(&lf.source).unwrap_or_default();
    for key in FIXED {
        let Some(v) = raw.get(key) else { continue };
        let why = format!(
            "a fixture with `base` runs under the base's settings ({} holds its scheduler, configs and variants): remove `[{key}]`",
            base.file
        );
        return Err(match v.as_table().and_then(|t| t.keys().next()) {
            Some(k) if key == "chain" => lf.table_error(key, k, why),
            _ => lf.key_error(key, why),
        });
    }
    let arr = |k: &str| {
        raw.get(k)
            .and_then(|v| v.as_array())
            .cloned()
            .unwrap_or_default()
    };
    let f = &lf.fixture;
    for (i, a) in arr("accounts").iter().enumerate() {
        if a.get("balance").is_some() {
            let span = f.accounts[i].span();
            return Err(lf.element_error(
                "accounts",
                i,
                span,
                "balance",
                format!(
                    "with `base` an account holds what {} says: `[[accounts]]` only names an address (`name`, `address`); a `set_balance` step changes a balance",
                    base.file
                ),
            ));
        }
    }
    let after = |what: &str, at: u64| {
        format!(
            "{what} at height {at} is not after the base's height {h} ({} is the state after block {h})",
            base.file
        )
    };
    for (i, a) in f.actors.iter().enumerate() {
        if let Some(at) = a.get_ref().at.filter(|at| *at <= h) {
            let m = after("the deploy", at);
            return Err(lf.element_error("actors", i, a.span(), "at", m));
        }
    }
    for (i, s) in f.steps.iter().enumerate() {
        let at = s.get_ref().at();
        if at <= h {
            return Err(lf.element_error("steps", i, s.span(), "at", after("the step", at)));
        }
    }
    for (i, e) in f.expect.iter().enumerate() {
        if let Some(at) = e.get_ref().at.filter(|at| *at < h) {
            let m = format!(
                "the expectation at height {at} is before the base's height {h} ({})",
                base.file
            );
            return Err(lf.element_error("expect", i, e.span(), "at", m));
        }
    }
    if let Some(b) = f.blocks.filter(|b| *b < h) {
        return Err(lf.key_error(
            "blocks",
            format!("the run ends at height {b}, before the base's height {h}"),
        ));
    }
    Ok(())
}
