//! A hunt's spec errors (issue 33, docs/HUNT.md), apart so the spec, its measures and its
//! victim each name them without importing one another.

/// What is wrong with a hunt's spec: found before anything runs.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum HuntError {
    #[error("BadSpec: {0}")]
    BadSpec(String),
    #[error("UnknownVictim: {0}")]
    UnknownVictim(String),
    #[error("UnknownMeasure: {0}")]
    UnknownMeasure(String),
    #[error(
        "UnknownScheduler: `{0}` is not a scheduler ({names})",
        names = crate::engine::SchedulerKind::names_list(Some("all"))
    )]
    UnknownScheduler(String),
    #[error("UnknownVariant: {0}")]
    UnknownVariant(String),
    #[error("ZeroBudget: {0}")]
    ZeroBudget(String),
}
