//! Accounts, actors and the incremental commitment over them.

use super::runtime::ActorCode;
use crate::engine::Address;
use crate::engine::merkle::SetCommitment;
use crate::engine::types::{keccak_parts, u128_str};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Account {
    #[serde(with = "u128_str")]
    #[schemars(with = "String")]
    pub balance: u128,
    /// Transactions sent (accounts) or timers scheduled (actors); feeds timer ids (CIP-5 §3.3).
    pub nonce: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Actor {
    pub code: ActorCode,
    pub deployer: Address,
    #[serde(with = "storage_hex")]
    #[schemars(with = "BTreeMap<String, String>")]
    pub storage: BTreeMap<Vec<u8>, Vec<u8>>,
}

/// A key of the non-timer state.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StateKey {
    Account(Address),
    Actor(Address),
    Storage(Address, Vec<u8>),
}

/// Commitment to accounts, actors and storage: a leaf per key, rehashed for the keys marked
/// dirty since the last root.
#[derive(Clone, Debug)]
pub struct StateCommit {
    set: SetCommitment,
    leaves: HashMap<StateKey, [u8; 32]>,
    dirty: BTreeSet<StateKey>,
}

impl Default for StateCommit {
    fn default() -> Self {
        StateCommit {
            set: SetCommitment::new(12),
            leaves: HashMap::new(),
            dirty: BTreeSet::new(),
        }
    }
}

impl StateCommit {
    /// Rough heap bytes a clone copies (issue 31, checkpoints bounded by bytes): the leaves'
    /// map and the dirty keys (the bucket tree's chunks are shared until written; small).
    pub(super) fn clone_bytes(&self) -> usize {
        let entry = std::mem::size_of::<(StateKey, [u8; 32])>() + 16;
        (self.leaves.len() + self.dirty.len()) * entry
    }

    pub fn mark(&mut self, key: StateKey) {
        self.dirty.insert(key);
    }

    pub fn dirty_len(&self) -> usize {
        self.dirty.len()
    }

    /// Folds the dirty keys into the commitment and returns its root.
    pub fn root(
        &mut self,
        accounts: &BTreeMap<Address, Account>,
        actors: &BTreeMap<Address, Actor>,
    ) -> [u8; 32] {
        for key in std::mem::take(&mut self.dirty) {
            if let Some(old) = self.leaves.remove(&key) {
                self.set.remove(&old);
            }
            let leaf = match &key {
                StateKey::Account(a) => accounts.get(a).map(|acc| {
                    keccak_parts(&[
                        b"account",
                        &a.0,
                        &acc.balance.to_be_bytes(),
                        &acc.nonce.to_be_bytes(),
                    ])
                }),
                StateKey::Actor(a) => actors
                    .get(a)
                    .map(|act| keccak_parts(&[b"actor", &a.0, &act.deployer.0, &act.code.hash()])),
                StateKey::Storage(a, k) => {
                    actors.get(a).and_then(|act| act.storage.get(k)).map(|v| {
                        keccak_parts(&[b"storage", &a.0, &(k.len() as u32).to_be_bytes(), k, v])
                    })
                }
            };
            if let Some(leaf) = leaf {
                self.set.insert(leaf);
                self.leaves.insert(key, leaf);
            }
        }
        self.set.root()
    }

    /// Marks every key of the given state dirty (after a load).
    pub fn mark_all(
        &mut self,
        accounts: &BTreeMap<Address, Account>,
        actors: &BTreeMap<Address, Actor>,
    ) {
        for a in accounts.keys() {
            self.mark(StateKey::Account(*a));
        }
        for (a, act) in actors {
            self.mark(StateKey::Actor(*a));
            for k in act.storage.keys() {
                self.mark(StateKey::Storage(*a, k.clone()));
            }
        }
    }
}

mod storage_hex {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::collections::BTreeMap;

    pub fn serialize<S: Serializer>(
        m: &BTreeMap<Vec<u8>, Vec<u8>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let v: BTreeMap<String, String> = m
            .iter()
            .map(|(k, v)| {
                (
                    format!("0x{}", hex::encode(k)),
                    format!("0x{}", hex::encode(v)),
                )
            })
            .collect();
        v.serialize(s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<Vec<u8>, Vec<u8>>, D::Error> {
        let v = BTreeMap::<String, String>::deserialize(d)?;
        let un = |s: &str| {
            hex::decode(s.strip_prefix("0x").unwrap_or(s)).map_err(serde::de::Error::custom)
        };
        v.iter().map(|(k, v)| Ok((un(k)?, un(v)?))).collect()
    }
}
