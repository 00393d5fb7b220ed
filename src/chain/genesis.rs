//! Genesis settings (`[genesis]`-level settings of a fixture, `--scheduler` and
//! `--activation-height` on the command line): what a fresh chain starts from.

use super::types::BasefeeConfig;
use crate::engine::scheduler::kind::Activation;
use crate::engine::{
    self, Address, Cip1Config, QueueConfig, SchedulerKind, TimerConfig, TimerError,
};
use serde::{Deserialize, Serialize};

/// Genesis settings: everything a fresh chain starts from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Genesis {
    pub timer: TimerConfig,
    pub basefee: BasefeeConfig,
    pub queue: QueueConfig,
    /// `eip1559` here without an `activation_height` runs CIP-1 v3 from genesis (height 1);
    /// `fifo` runs CIP-5 until `activation_height`, if any (Spec note 49).
    pub scheduler: SchedulerKind,
    /// The first height planned by the eip1559 scheduler (CIP-1 v3 §13.2), `None`: never
    /// (or, with `scheduler = eip1559`, height 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub activation_height: Option<u64>,
    /// The CIP-1 v3 parameters (`[cip1]` in a fixture).
    pub cip1: Cip1Config,
    /// The CIP-5 drafts' parameters (`[cip5_draft]` in a fixture; English §12, zh §13).
    #[serde(skip_serializing_if = "is_default_draft")]
    pub cip5_draft: engine::draft::DraftParams,
    /// Senders allowed to issue system instructions 48/49/50 (CIP-5 §5.4).
    pub system_deployers: Vec<Address>,
    /// Receives priority tips (CIP-1 v3 §3 step 8).
    pub proposer: Address,
    /// Initial balances, minted at genesis.
    pub accounts: Vec<GenesisAccount>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GenesisAccount {
    pub address: Address,
    #[serde(with = "crate::engine::types::u128_str")]
    #[schemars(with = "String")]
    pub balance: u128,
}

impl Genesis {
    /// Applies the command line's `--scheduler` and `--activation-height` (CIP-1 v3 §13.2,
    /// Spec note 49) over the fixture's settings. A height of 0 is refused (the first
    /// block is height 1).
    pub fn with_scheduler(
        mut self,
        scheduler: Option<SchedulerKind>,
        activation_height: Option<u64>,
    ) -> Result<Genesis, TimerError> {
        if let Some(s) = scheduler {
            self.scheduler = s;
        }
        if let Some(h) = activation_height {
            if h == 0 {
                return Err(TimerError::InvalidInput(
                    "--activation-height 0 is in the past: the first block is height 1".into(),
                ));
            }
            self.activation_height = Some(h);
        }
        Ok(self)
    }

    /// Applies the command line's `--variant NAME=VALUE` (issue 21) over the fixture's
    /// `[variants]`; a bad one is `InvalidInput` naming it.
    pub fn with_variants<S: AsRef<str>>(mut self, pairs: &[S]) -> Result<Genesis, TimerError> {
        for p in pairs {
            self.cip1.variants.set_pair(p.as_ref())?;
        }
        Ok(self)
    }
}

fn is_default_draft(p: &engine::draft::DraftParams) -> bool {
    *p == engine::draft::DraftParams::default()
}

/// Contract decision 8: `scheduler = eip1559` without a height activates at height 1;
/// otherwise the activation height, if any.
pub(super) fn effective_activation(g: &Genesis) -> Option<u64> {
    match (g.scheduler.facts().activation, g.activation_height) {
        (Activation::After, None) => Some(1),
        (_, h) => h,
    }
}

/// What the genesis sets for the policies (their state at genesis and a dump's absent parts).
pub(super) fn policy_genesis(g: &Genesis) -> crate::engine::PolicyGenesis<'_> {
    crate::engine::PolicyGenesis {
        scheduler: g.scheduler,
        cip1: &g.cip1,
        activation_height: effective_activation(g),
        draft: g.cip5_draft,
    }
}

/// The default governance account of a devnet (`Address::from_label("governance")`).
pub fn default_governor() -> Address {
    Address::from_label("governance")
}

impl Default for Genesis {
    fn default() -> Self {
        Genesis {
            timer: TimerConfig::default(),
            basefee: BasefeeConfig::default(),
            queue: QueueConfig::default(),
            scheduler: SchedulerKind::default(),
            activation_height: None,
            cip1: Cip1Config::default(),
            cip5_draft: Default::default(),
            system_deployers: vec![default_governor()],
            proposer: Address::from_label("proposer"),
            accounts: Vec::new(),
        }
    }
}
