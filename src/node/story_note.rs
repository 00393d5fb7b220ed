//! A fixture's story as `devnet_subscribeStory` sends it (issue 23; issue 29, "command replies
//! read field by field"): one typed notification per step played or expectation checked, so
//! the server writes it and an attached dashboard reads it back with the same type.

use super::NodeEvent;
use crate::engine::TimerId;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One story notification: `{"step": {...}}` or `{"expectation": {...}}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StoryNote {
    /// A step played (its words, whether it applied, the label it gave a timer).
    Step(StepNote),
    /// An expectation checked.
    Expectation(ExpectationNote),
}

/// A fixture step as played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct StepNote {
    pub height: u64,
    /// The step's line in the fixture (0: the fixture's end).
    pub line: usize,
    pub text: String,
    pub ok: bool,
    /// The label a `schedule` step gave the timer it scheduled.
    pub label: Option<StoryLabel>,
}

/// A label and the timer it names.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct StoryLabel {
    pub name: String,
    pub timer_id: TimerId,
}

/// An expectation as checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ExpectationNote {
    /// The expectation's line in the fixture.
    pub line: usize,
    pub description: String,
    pub passed: bool,
    pub detail: String,
}

impl StoryNote {
    /// The story note of a node notification, if it is part of the story.
    pub fn of(e: &NodeEvent) -> Option<StoryNote> {
        Some(match e {
            NodeEvent::FixtureStep {
                height,
                line,
                text,
                ok,
                label,
            } => StoryNote::Step(StepNote {
                height: *height,
                line: *line,
                text: text.clone(),
                ok: *ok,
                label: label.as_ref().map(|(name, timer_id)| StoryLabel {
                    name: name.clone(),
                    timer_id: *timer_id,
                }),
            }),
            NodeEvent::Expectation {
                line,
                description,
                passed,
                detail,
            } => StoryNote::Expectation(ExpectationNote {
                line: *line,
                description: description.clone(),
                passed: *passed,
                detail: detail.clone(),
            }),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_note_is_written_as_the_subscription_always_wrote_it_and_reads_back() {
        let id = TimerId([7; 32]);
        let step = NodeEvent::FixtureStep {
            height: 3,
            line: 12,
            text: "schedule ping".into(),
            ok: true,
            label: Some(("ping".into(), id)),
        };
        let v = serde_json::to_value(StoryNote::of(&step).unwrap()).unwrap();
        assert_eq!(
            v,
            json!({"step": {"height": 3, "line": 12, "text": "schedule ping", "ok": true,
                "label": {"name": "ping", "timer_id": id}}})
        );
        let back: StoryNote = serde_json::from_value(v).unwrap();
        assert_eq!(Some(back), StoryNote::of(&step));
        let e = NodeEvent::Expectation {
            line: 4,
            description: "fires".into(),
            passed: false,
            detail: "no".into(),
        };
        let v = serde_json::to_value(StoryNote::of(&e).unwrap()).unwrap();
        assert_eq!(
            v,
            json!({"expectation": {"line": 4, "description": "fires", "passed": false, "detail": "no"}})
        );
        assert_eq!(StoryNote::of(&NodeEvent::StateLoaded { height: 1 }), None);
    }
}
