//! An amount in a fixture: a TOML integer or a decimal string, up to u128 (docs/FIXTURES.md).

use serde::{Deserialize, Deserializer};

/// An amount: a TOML integer or a decimal string (underscores allowed), up to u128.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Amount(pub u128);

/// What an amount field accepts, in error messages.
pub const AMOUNT_EXPECTED: &str = "an integer amount or a decimal string like \"1000000\"";

impl<'de> Deserialize<'de> for Amount {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Amount;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(AMOUNT_EXPECTED)
            }
            fn visit_i64<E: serde::de::Error>(self, i: i64) -> Result<Amount, E> {
                u128::try_from(i)
                    .map(Amount)
                    .map_err(|_| E::custom(format!("amount {i} is negative")))
            }
            fn visit_u64<E: serde::de::Error>(self, u: u64) -> Result<Amount, E> {
                Ok(Amount(u.into()))
            }
            fn visit_i128<E: serde::de::Error>(self, i: i128) -> Result<Amount, E> {
                u128::try_from(i)
                    .map(Amount)
                    .map_err(|_| E::custom(format!("amount {i} is negative")))
            }
            fn visit_u128<E: serde::de::Error>(self, u: u128) -> Result<Amount, E> {
                Ok(Amount(u))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Amount, E> {
                s.replace('_', "").parse::<u128>().map(Amount).map_err(|_| {
                    E::custom(format!(
                        "`{s}` is not an amount: expected {AMOUNT_EXPECTED}"
                    ))
                })
            }
        }
        d.deserialize_any(V)
    }
}
