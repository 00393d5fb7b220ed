//! The labels given to timers, kept by the node (issue 32, Spec notes 186 and 191): a fixture
//! `schedule` step's `label`, and the `label` param of `timer_schedule`, `timer_watch` and
//! `timer_interval`, so `timer_list` (and the dashboard's finder, attached or not) finds a
//! timer by it and `TimerView` shows it. Not part of the chain's state: no root, dump or
//! replay sees them.

use super::NodeCore;
use crate::engine::TimerId;
use crate::node::session::Entry;
use crate::node::views::{MAX_LABEL, TimerView};
use std::collections::BTreeMap;

/// A label per timer, each at most [`MAX_LABEL`] bytes (a longer one is cut at a character
/// boundary). Kept while the node keeps the timer's compact record (for good, as those are),
/// and cleared with them (a reset, a load).
#[derive(Clone, Debug, Default)]
pub(crate) struct Labels(BTreeMap<TimerId, String>);

impl Labels {
    pub(crate) fn keep(&mut self, timer: TimerId, label: &str) {
        let mut end = label.len().min(MAX_LABEL);
        while !label.is_char_boundary(end) {
            end -= 1;
        }
        self.0.insert(timer, label[..end].to_string());
    }
}

impl NodeCore {
    /// The label given to `id`, if the node knows one.
    pub fn timer_label(&self, id: &TimerId) -> Option<&str> {
        self.labels.0.get(id).map(String::as_str)
    }

    /// Labels `timer` (a fixture step's label, or a registration's `label` param, Spec note
    /// 191: the last label given wins) and logs it for the session's export.
    pub(crate) fn label_timer(&mut self, timer: TimerId, label: String) {
        self.labels.keep(timer, &label);
        self.session.push(Entry::Labelled { timer, label });
    }

    /// `v` with the label the node knows for it (`None`: none).
    pub(crate) fn labelled(&self, mut v: TimerView) -> TimerView {
        v.label = self.timer_label(&v.timer_id).map(String::from);
        v
    }
}
