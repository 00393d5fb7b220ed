//! The story of a fixture played live (issue 23): each step in words as it is played, each
//! expectation's ok/FAIL as it is checked, the fixture's end, and the labels its steps gave
//! timers, so the dashboard names `doomed` rather than `9a58675f`.
//!
//! A source hands these over with [`DashboardSource::take_story`](super::model::DashboardSource::take_story)
//! (an in-process node from its notifications; an attached dashboard from `devnet_subscribeStory`).

use crate::engine::TimerId;
use crate::node::{NodeEvent, StoryNote};

/// One line of the story.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoryItem {
    /// The height the step was played in (`None`: an expectation, checked after a block).
    pub height: Option<u64>,
    pub text: String,
    /// False for a step that failed (or did not fail as expected) and a failed expectation.
    pub ok: bool,
    /// The label a step gave a timer.
    pub label: Option<(String, TimerId)>,
    /// A step, an expectation or the fixture's end (its summary): the story line's failure
    /// count counts failed steps and expectations, never the summary (issue 34, item 3).
    pub kind: StoryKind,
}

/// What a story item reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StoryKind {
    #[default]
    Step,
    Expectation,
    /// The fixture played to its end (`ok` when every end-of-run expectation held).
    End,
}

/// The failed steps and expectations of a story, in words (`1 expectation failed`,
/// `2 steps and 1 expectation failed`), or `None` when none failed.
pub fn failures(story: &[StoryItem]) -> Option<String> {
    let count = |k: StoryKind| story.iter().filter(|s| !s.ok && s.kind == k).count();
    let (steps, exps) = (count(StoryKind::Step), count(StoryKind::Expectation));
    let n = |n: usize, one: &str| format!("{n} {one}{}", if n == 1 { "" } else { "s" });
    match (steps, exps) {
        (0, 0) => None,
        (0, e) => Some(format!("{} failed", n(e, "expectation"))),
        (s, 0) => Some(format!("{} failed", n(s, "step"))),
        (s, e) => Some(format!(
            "{} and {} failed",
            n(s, "step"),
            n(e, "expectation")
        )),
    }
}

/// The story item a node notification is, if any.
pub fn from_node_event(ev: &NodeEvent) -> Option<StoryItem> {
    StoryNote::of(ev).map(from_note)
}

/// The story item of a story note (a node notification, or `devnet_subscribeStory`'s).
pub fn from_note(note: StoryNote) -> StoryItem {
    match note {
        StoryNote::Step(s) => StoryItem {
            height: Some(s.height),
            text: s.text,
            ok: s.ok,
            label: s.label.map(|l| (l.name, l.timer_id)),
            // The player reports its end as a step of line 0 (fixture lines count from 1).
            kind: if s.line == 0 {
                StoryKind::End
            } else {
                StoryKind::Step
            },
        },
        StoryNote::Expectation(e) => StoryItem {
            height: None,
            text: format!(
                "expectation {} line {}: {}{}",
                if e.passed { "ok" } else { "FAIL" },
                e.line,
                e.description,
                if e.detail.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", e.detail)
                }
            ),
            ok: e.passed,
            label: None,
            kind: StoryKind::Expectation,
        },
    }
}
