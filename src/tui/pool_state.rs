//! The pool overlay's and a dry run's state (issue 32, Spec notes 189-190): a leaf the
//! dashboard's state holds while they are open; [`crate::tui::pool`] takes their keys.

use super::command::DryRequest;
use crate::node::{DryRunView, TxView};

/// A dry run's request and the node's answer.
pub type DryRanReply = (DryRequest, Result<DryRunView, String>);

/// Where Esc in a dry run's answer returns: the schedule form or the call prompt it came
/// from, with its input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DryBack {
    Form(Box<super::form::ScheduleForm>),
    Prompt(Box<super::prompt::Prompt>),
}

/// The pool overlay's state: the node's last answer (oldest first, as the node lists them) and
/// the selected row (0: the newest).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PoolOverlay {
    /// `None` while asking; `Err` with the node's message.
    pub txs: Option<Result<Vec<TxView>, String>>,
    pub sel: usize,
}

impl PoolOverlay {
    /// The rows as shown: newest first.
    pub fn rows(&self) -> Vec<&TxView> {
        match &self.txs {
            Some(Ok(v)) => v.iter().rev().collect(),
            _ => Vec::new(),
        }
    }
}

/// A dry run's answer as shown, with the form it came from (Esc returns to it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DryRunShown {
    pub reply: DryRanReply,
    pub back: Option<DryBack>,
}
