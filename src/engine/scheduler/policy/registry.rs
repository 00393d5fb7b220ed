//! The one registry of scheduler policies (issue 29, "Schedulers as plug-ins"): [`REGISTRY`]
//! lists the five, each entry the [`Descriptor`] its policy's module writes. Everything that
//! lists or spells the schedulers comes from here: [`SchedulerKind::ALL`], `as_str`,
//! `Display`, `FromStr` and its "expected one of" error, serde, the CLI's value list and help
//! (`src/cli.rs`), the OpenRPC enum (`rpc/schema_types.rs`), `hunt` / `sweep` / `compare`.
//!
//! Adding a scheduler: its module writes its descriptor, and one line here lists it
//! (docs/ARCHITECTURE.md, "Adding a sixth scheduler").

use super::Policy;
use crate::engine::scheduler::kind::{Activation, Descriptor, Facts, Needs, SchedulerKind};
use serde::{Deserialize, Serialize};

/// A registry entry: a descriptor whose policy is a `dyn Policy`.
pub type Entry = Descriptor<dyn Policy>;

/// The schedulers, in the order every list shows them.
pub const REGISTRY: [&Entry; 5] = [
    &super::FIFO,
    &super::EIP1559,
    &super::CIP1_V1,
    &super::draft::CIP5_DRAFT,
    &super::draft::CIP5_DRAFT_ZH,
];

/// The schedulers `compare` plays when `--schedulers` is not given (with `--with`: the last).
pub const COMPARE_DEFAULT: [SchedulerKind; 2] = [
    SchedulerKind::before_activation(),
    SchedulerKind::after_activation(),
];

const fn kinds() -> [SchedulerKind; REGISTRY.len()] {
    let mut out = [SchedulerKind::Fifo; REGISTRY.len()];
    let mut i = 0;
    while i < REGISTRY.len() {
        out[i] = REGISTRY[i].kind;
        i += 1;
    }
    out
}

/// The one entry whose activation part is `a` (the registry has exactly one of each of
/// `Before` and `After`; a unit test checks it).
const fn with_activation(a: Activation) -> SchedulerKind {
    let mut i = 0;
    while i < REGISTRY.len() {
        if REGISTRY[i].facts.activation as u8 == a as u8 {
            return REGISTRY[i].kind;
        }
        i += 1;
    }
    panic!("no scheduler with this activation part")
}

impl SchedulerKind {
    /// Every scheduler, in the registry's order.
    pub const ALL: [SchedulerKind; REGISTRY.len()] = kinds();

    /// The registry entry of this scheduler.
    pub const fn descriptor(self) -> &'static Entry {
        let mut i = 0;
        while i < REGISTRY.len() {
            if REGISTRY[i].kind as u8 == self as u8 {
                return REGISTRY[i];
            }
            i += 1;
        }
        panic!("a scheduler missing from the registry")
    }

    /// The CLI, serde and OpenRPC spelling.
    pub const fn as_str(self) -> &'static str {
        self.descriptor().name
    }

    /// One line about it (`--help`).
    pub const fn summary(self) -> &'static str {
        self.descriptor().summary
    }

    /// What it has and how it shows.
    pub const fn facts(self) -> Facts {
        self.descriptor().facts
    }

    /// Its policy.
    pub fn policy(self) -> &'static dyn Policy {
        self.descriptor().policy
    }

    /// The scheduler below an activation height (and the genesis default).
    pub const fn before_activation() -> SchedulerKind {
        with_activation(Activation::Before)
    }

    /// The scheduler an activation height switches to.
    pub const fn after_activation() -> SchedulerKind {
        with_activation(Activation::After)
    }

    /// Whether it has the CIP-5 drafts' features (`facts().drafts`); kept for the tests and
    /// branches that ask it by this name.
    pub const fn is_draft(self) -> bool {
        self.facts().drafts
    }

    /// What it needs from the node and the chain.
    pub const fn needs(self) -> Needs {
        self.descriptor().needs
    }

    /// The names of the schedulers whose facts pass `has`, for messages (`a or b`).
    pub fn names_where(has: fn(&Facts) -> bool) -> String {
        let names: Vec<&str> = Self::ALL
            .iter()
            .filter(|k| has(&k.facts()))
            .map(|k| k.as_str())
            .collect();
        match names.split_last() {
            Some((last, [])) => last.to_string(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }

    /// `cip5-draft or cip5-draft-zh`: the schedulers with the drafts' features.
    pub fn draft_names() -> String {
        Self::names_where(|f| f.drafts)
    }

    /// The names, for messages: `a, b, c, d or e` (`or` before `extra` when given:
    /// `a, b, c, d, e or all`).
    pub fn names_list(extra: Option<&str>) -> String {
        let mut names: Vec<&str> = Self::ALL.iter().map(|k| k.as_str()).collect();
        names.extend(extra);
        let last = names.pop().unwrap_or_default();
        if names.is_empty() {
            return last.to_string();
        }
        format!("{} or {last}", names.join(", "))
    }
}

impl std::fmt::Display for SchedulerKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

impl std::str::FromStr for SchedulerKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SchedulerKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| {
                format!(
                    "`{s}` is not a scheduler (expected {})",
                    SchedulerKind::names_list(None)
                )
            })
    }
}

impl Serialize for SchedulerKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for SchedulerKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_is_its_own_and_named_once() {
        for (i, e) in REGISTRY.iter().enumerate() {
            assert_eq!(e.policy.kind(), e.kind, "{}", e.name);
            assert_eq!(e.kind.descriptor().name, e.name);
            assert!(
                REGISTRY[..i]
                    .iter()
                    .all(|o| o.name != e.name && o.kind != e.kind)
            );
            assert_eq!(e.name.parse::<SchedulerKind>(), Ok(e.kind));
            for v in e.variants {
                assert!(
                    crate::engine::scheduler::CATALOG
                        .iter()
                        .any(|c| c.name == *v),
                    "{v}"
                );
            }
        }
        let count = |a| REGISTRY.iter().filter(|e| e.facts.activation == a).count();
        assert_eq!(
            (count(Activation::Before), count(Activation::After)),
            (1, 1)
        );
        assert_eq!(SchedulerKind::default(), SchedulerKind::before_activation());
    }

    #[test]
    fn names_list_reads_as_a_sentence() {
        let all = SchedulerKind::names_list(Some("all"));
        assert!(all.ends_with(" or all"), "{all}");
        assert_eq!(all.matches(", ").count(), REGISTRY.len() - 1);
    }
}
