//! The event feed's filter (`/`).

use super::data::{DashboardData, EventRow};

/// The event feed's filter, parsed once per use: every word must match the event's kind, its
/// actor (name or address prefix) or its timer id (hex prefix); `kind:`, `actor:` and
/// `timer:` narrow a word to one of them. Case does not matter.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FeedFilter {
    words: Vec<(Scope, String)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scope {
    Any,
    Kind,
    Actor,
    Timer,
}

impl FeedFilter {
    pub fn parse(s: &str) -> Self {
        let words = s
            .split_whitespace()
            .map(|w| {
                let w = w.to_ascii_lowercase();
                for (p, scope) in [
                    ("kind:", Scope::Kind),
                    ("actor:", Scope::Actor),
                    ("timer:", Scope::Timer),
                ] {
                    if let Some(v) = w.strip_prefix(p) {
                        return (scope, v.to_string());
                    }
                }
                (Scope::Any, w)
            })
            .collect();
        FeedFilter { words }
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    pub fn matches(&self, e: &EventRow, data: &DashboardData) -> bool {
        let contains_ci = |hay: &str, w: &str| {
            hay.as_bytes()
                .windows(w.len().max(1))
                .any(|win| win.eq_ignore_ascii_case(w.as_bytes()))
        };
        let actor = |w: &str| {
            e.actor.is_some_and(|a| {
                data.names.get(&a).is_some_and(|n| contains_ci(n, w))
                    || (w.len() > 2 && w.starts_with("0x") && a.to_string().starts_with(w))
            })
        };
        let timer = |w: &str| {
            let w = w.trim_start_matches("0x");
            !w.is_empty()
                && w.len() <= 64
                && w.bytes().all(|b| b.is_ascii_hexdigit())
                && e.timer
                    .is_some_and(|t| hex::encode(&t.0[..w.len().div_ceil(2)]).starts_with(w))
        };
        self.words.iter().all(|(scope, w)| match scope {
            Scope::Kind => contains_ci(&e.kind, w),
            Scope::Actor => actor(w),
            Scope::Timer => timer(w),
            Scope::Any => contains_ci(&e.kind, w) || actor(w) || timer(w),
        })
    }
}
