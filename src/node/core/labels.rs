//! The labels fixtures give timers, kept by the node (issue 32 item 3, Spec note 186): a
//! `schedule` step's `label`, so `timer_list` (and the dashboard's finder, attached or not)
//! finds a timer by it. Not part of the chain's state: no root, dump or replay sees them.

use super::NodeCore;
use crate::engine::TimerId;
use crate::node::views::MAX_LABEL;
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
    /// The label a fixture gave `id`, if the node knows one.
    pub fn timer_label(&self, id: &TimerId) -> Option<&str> {
        self.labels.0.get(id).map(String::as_str)
    }
}
