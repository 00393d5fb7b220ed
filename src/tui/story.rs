//! The story of a fixture played live (issue 23): each step in words as it is played, each
//! expectation's ok/FAIL as it is checked, the fixture's end, and the labels its steps gave
//! timers, so the dashboard names `doomed` rather than `9a58675f`.
//!
//! A source hands these over with [`DashboardSource::take_story`](super::model::DashboardSource::take_story)
//! (an in-process node from its notifications; an attached dashboard from `devnet_subscribeStory`).

use crate::engine::TimerId;
use crate::node::NodeEvent;

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
}

/// The story item a node notification is, if any.
pub fn from_node_event(ev: &NodeEvent) -> Option<StoryItem> {
    match ev {
        NodeEvent::FixtureStep {
            height,
            text,
            ok,
            label,
            ..
        } => Some(StoryItem {
            height: Some(*height),
            text: text.clone(),
            ok: *ok,
            label: label.clone(),
        }),
        NodeEvent::Expectation {
            line,
            description,
            passed,
            detail,
        } => Some(StoryItem {
            height: None,
            text: format!(
                "expectation {} line {line}: {description}{}",
                if *passed { "ok" } else { "FAIL" },
                if detail.is_empty() {
                    String::new()
                } else {
                    format!(" ({detail})")
                }
            ),
            ok: *passed,
            label: None,
        }),
        _ => None,
    }
}
