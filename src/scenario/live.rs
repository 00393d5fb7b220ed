//! A fixture played on a live node (`serve --fixture`): its deploys and steps are applied at
//! their heights as blocks are mined, whatever mines them (automine, interval, `Mine`), and
//! each expectation is reported as a [`NodeEvent::Expectation`] once it can be checked: a
//! state expectation after the block of its height, the others after the fixture's last block.

use super::runner::{Run, RunOptions, Scenario};
use crate::chain::Block;
use crate::node::{BlockHook, Halt, NodeCore, NodeEvent};
use crate::scenario::report::ExpectationResult;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Plays a fixture along a node's blocks ([`NodeCore::set_hook`]). Start the node from the
/// fixture's genesis ([`Scenario::genesis`]).
///
/// Its position (the next step, what it recorded, the expectations left) is part of the
/// node's snapshots ([`BlockHook::snapshot`]): after a revert it plays again the steps of the
/// heights the revert took back, and after a reset the whole fixture, so the run ends in the
/// state a headless run reaches.
#[derive(Clone)]
pub struct FixturePlayer {
    scenario: Arc<Scenario>,
    run: Run,
    step_idx: usize,
    /// State expectations by height (indexes into the fixture's expectations).
    state_at: BTreeMap<u64, Vec<usize>>,
    /// The fixture's last height (`blocks`): the other expectations are checked after it.
    last: u64,
    finished: bool,
    /// An outage the steps of this block asked for, applied after it.
    halt: Option<u64>,
}

/// A [`FixturePlayer`]'s position in a state dump (`devnet_dumpState`, `serve --state`):
/// everything but the fixture itself, which the node loading it plays already. The fixture's
/// name and its counts of steps and expectations identify it.
#[derive(Serialize, Deserialize)]
struct PlayerState {
    fixture: String,
    steps: usize,
    expects: usize,
    step_idx: usize,
    state_at: BTreeMap<u64, Vec<usize>>,
    last: u64,
    finished: bool,
    run: Run,
}

impl FixturePlayer {
    pub fn new(scenario: Arc<Scenario>) -> Self {
        let run = Run::new(
            &scenario,
            RunOptions {
                blocks: None,
                skip_rows: true,
                keep_blocks: None,
            },
            true,
        );
        let mut state_at: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
        for (i, pe) in scenario.expects.iter().enumerate() {
            if pe.expect.kind.is_none()
                && pe.expect.trace.is_none()
                && let Some(at) = pe.expect.at
            {
                state_at.entry(at).or_default().push(i);
            }
        }
        FixturePlayer {
            last: scenario.default_blocks,
            scenario,
            run,
            step_idx: 0,
            state_at,
            finished: false,
            halt: None,
        }
    }

    fn report(node: &mut NodeCore, c: ExpectationResult) {
        node.notify(NodeEvent::Expectation {
            line: c.line,
            description: c.description,
            passed: c.passed,
            detail: c.detail,
        });
    }

    fn check_state_at(&mut self, at: u64, node: &mut NodeCore) {
        let s = self.scenario.clone();
        for i in self.state_at.remove(&at).unwrap_or_default() {
            let c = s.check_state(&s.expects[i], node.chain(), &self.run);
            Self::report(node, c);
        }
    }
}

impl BlockHook for FixturePlayer {
    /// The next deploy, step or state expectation, or the fixture's last height while its
    /// other expectations are still to be checked; `u64::MAX` once the fixture is over.
    fn next_height(&self, from: u64) -> u64 {
        let s = &self.scenario;
        let deploy = s.actors.iter().map(|a| a.at).filter(|&at| at >= from).min();
        let step = s.steps.get(self.step_idx).map(|ps| ps.step.at());
        let state = self.state_at.keys().next().copied();
        let end = (!self.finished).then_some(self.last);
        [deploy, step, state, end]
            .into_iter()
            .flatten()
            .min()
            .map_or(u64::MAX, |h| h.max(from))
    }

    fn snapshot(&self) -> Option<Box<dyn BlockHook>> {
        Some(Box::new(self.clone()))
    }

    /// Issue 20 (Spec note 43 extended to state files): the player's position goes into the
    /// dump, so a loaded state goes on from the step it had reached.
    fn dump_state(&self) -> Option<serde_json::Value> {
        let st = PlayerState {
            fixture: self.scenario.name.clone(),
            steps: self.scenario.steps.len(),
            expects: self.scenario.expects.len(),
            step_idx: self.step_idx,
            state_at: self.state_at.clone(),
            last: self.last,
            finished: self.finished,
            run: self.run.clone(),
        };
        serde_json::to_value(&st).ok()
    }

    /// A state dumped while playing another fixture (or another version of this one) is
    /// refused: its steps would not be this fixture's.
    fn load_state(&mut self, state: serde_json::Value) -> Result<(), String> {
        let st: PlayerState = serde_json::from_value(state)
            .map_err(|e| format!("the state's fixture player is not valid: {e}"))?;
        let s = &self.scenario;
        if st.fixture != s.name || st.steps != s.steps.len() || st.expects != s.expects.len() {
            return Err(format!(
                "the state was dumped playing fixture `{}` ({} steps, {} expectations); this node plays `{}` ({} steps, {} expectations)",
                st.fixture,
                st.steps,
                st.expects,
                s.name,
                s.steps.len(),
                s.expects.len()
            ));
        }
        if st.step_idx > s.steps.len()
            || st
                .state_at
                .values()
                .flatten()
                .any(|&i| i >= s.expects.len())
        {
            return Err("the state's fixture player points past the fixture".into());
        }
        self.step_idx = st.step_idx;
        self.state_at = st.state_at;
        self.last = st.last;
        self.finished = st.finished;
        self.run = st.run;
        self.halt = None;
        Ok(())
    }

    fn before_seal(&mut self, height: u64, node: &mut NodeCore) {
        // Heights an outage skipped: their state expectations see the state it holds.
        let skipped: Vec<u64> = self.state_at.range(..height).map(|(k, _)| *k).collect();
        for at in skipped {
            self.check_state_at(at, node);
        }
        let s = self.scenario.clone();
        s.deploy_actors(height, node, &mut self.run);
        let (first, played) = (self.run.outcomes.len(), self.step_idx);
        self.halt = s
            .play_steps(height, &mut self.step_idx, node, &mut self.run)
            .map(|(blocks, _)| blocks);
        // Each step played, in words, with its outcome (issue 23: the dashboard's story line;
        // a step that fails on a live node is reported, not silent).
        let outcomes = self.run.outcomes[first..].to_vec();
        for (ps, o) in s.steps[played..self.step_idx].iter().zip(outcomes) {
            let mut text = format!(
                "{}:{} {}",
                s.name,
                ps.line,
                super::story::describe_step(&ps.step)
            );
            match (&o.error, o.as_expected) {
                (Some(e), true) => text.push_str(&format!(": refused as expected ({e})")),
                (Some(e), false) => text.push_str(&format!(": FAILED ({e})")),
                (None, false) => text.push_str(": went through, but the fixture expected an error"),
                (None, true) => {}
            }
            let label = match ps.step.timer_label() {
                Some(l) if o.ok => self.run.labels.get(l).map(|id| (l.clone(), *id)),
                _ => None,
            };
            node.notify(NodeEvent::FixtureStep {
                height,
                line: ps.line,
                text,
                ok: o.as_expected,
                label,
            });
        }
    }

    fn after_seal(&mut self, block: &Block, node: &mut NodeCore) {
        let h = block.header.height;
        self.run.record_block(block);
        self.check_state_at(h, node);
        if !self.finished && h >= self.last {
            self.finished = true;
            let s = self.scenario.clone();
            let mut rest: Vec<ExpectationResult> = Vec::new();
            rest.extend(s.check_traces(node, &self.run.labels));
            for pe in &s.expects {
                if pe.expect.trace.is_some() {
                    // Checked above, against the node's traces.
                } else if pe.expect.kind.is_some() {
                    rest.push(s.check_events(pe, &self.run.labels, &self.run.events));
                } else if pe.expect.at.is_none() {
                    rest.push(s.check_state(pe, node.chain(), &self.run));
                }
            }
            rest.sort_by_key(|c| c.line);
            let (n, passed) = (rest.len(), rest.iter().filter(|c| c.passed).count());
            for c in rest {
                Self::report(node, c);
            }
            node.notify(NodeEvent::FixtureStep {
                height: h,
                line: 0,
                text: format!(
                    "{} played to its end (#{h}): {passed} of {n} end-of-run expectations ok",
                    s.name
                ),
                ok: passed == n,
                label: None,
            });
        }
        if let Some(blocks) = self.halt.take() {
            // Refused only past u64::MAX heights, which a checked fixture cannot ask for.
            let _ = node.apply(Halt { blocks });
        }
    }
}
