//! A command's typed reply ([`CommandReply`]) as the dashboard's [`Answer`], written once for
//! both transports (issue 29): the in-process source gets the reply from
//! `NodeCore::execute`, the attached one decodes the JSON-RPC result into the same type.

use super::command::UiCommand;
use super::data::CommandError;
use super::draft_request::DraftEstimateView;
use super::outcome::{Answer, Estimate};
use crate::engine::TimerId;
use crate::node::CommandReply;

/// The reads a few answers need after the command (each transport makes them its own way).
pub trait AfterReads {
    /// A timer's expiry now, if the node knows the timer.
    fn expiry(&mut self, id: &TimerId) -> Option<u64>;
    /// The head's height now.
    fn height(&mut self) -> u64;
}

/// `cmd`'s answer from its reply.
pub fn answer(cmd: &UiCommand, reply: CommandReply, after: &mut dyn AfterReads) -> Answer {
    match (cmd, reply) {
        (
            UiCommand::ExtendTimer {
                timer_id,
                new_expires_at,
                ..
            },
            _,
        ) => {
            // CIP-5 §5.4 clamps the new expiry to the TTL cap: report what was applied.
            Answer::Expiry(after.expiry(timer_id).unwrap_or(*new_expires_at))
        }
        (UiCommand::Revert(_) | UiCommand::RevertTo(_), _) => Answer::Height(after.height()),
        (UiCommand::DraftTimer(_), CommandReply::Scheduled(s)) => {
            Answer::Registered(s.timer_id, s.created)
        }
        (_, CommandReply::Scheduled(s)) => Answer::TimerId(s.timer_id),
        (UiCommand::EstimateTimer(req), CommandReply::Estimate(e)) => Answer::Estimate(Estimate {
            max_cost: e.max_cost,
            fire_height: e.fire_height.unwrap_or(req.height),
            error: e.error.as_ref().map(CommandError::from_failure),
            auction: e.auction.map(Box::new),
            funding: e.funding,
        }),
        (_, CommandReply::DraftEstimate(est)) => {
            let error = est.error.as_ref().map(CommandError::from_failure);
            Answer::DraftEstimate(Box::new(DraftEstimateView { est: *est, error }))
        }
        (UiCommand::CallActor(_), CommandReply::Receipt(r)) => Answer::Receipt(Box::new(r.receipt)),
        (_, CommandReply::Height(h)) => Answer::Height(h),
        (_, CommandReply::Dropped(d)) => Answer::Dropped(d.dropped),
        (_, CommandReply::Activation(a)) => Answer::Activation(a.activation_height),
        (_, CommandReply::SnapshotId(id)) => Answer::Snapshot(id),
        _ => Answer::Done,
    }
}
