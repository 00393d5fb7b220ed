//! Primitive protocol types: addresses, timer ids, hashing.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha3::{Digest, Keccak256};
use std::fmt;
use std::str::FromStr;

/// keccak256 of `data`.
pub fn keccak(data: &[u8]) -> [u8; 32] {
    Keccak256::digest(data).into()
}

/// keccak256 over several byte slices, as if concatenated.
pub fn keccak_parts(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Keccak256::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

/// Error parsing a hex-encoded value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParseHexError(pub String);

fn parse_fixed<const N: usize>(s: &str, what: &str) -> Result<[u8; N], ParseHexError> {
    let t = s.strip_prefix("0x").unwrap_or(s);
    let bytes = hex::decode(t).map_err(|e| ParseHexError(format!("{what} `{s}`: {e}")))?;
    bytes.try_into().map_err(|b: Vec<u8>| {
        ParseHexError(format!("{what} `{s}`: expected {N} bytes, got {}", b.len()))
    })
}

/// A 20-byte account or actor address.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Address(pub [u8; 20]);

impl Address {
    /// The burn address; never a valid fee payer (CIP-5 §4.2).
    pub const ZERO: Address = Address([0; 20]);

    /// The address `0x00..00NN`, used for the system-actor band and for short test addresses.
    pub const fn from_low_u64(n: u64) -> Address {
        let mut a = [0u8; 20];
        let b = n.to_be_bytes();
        let mut i = 0;
        while i < 8 {
            a[12 + i] = b[i];
            i += 1;
        }
        Address(a)
    }

    /// True for the reserved system-actor band `0x01..=0x0F` (CIP-5 §4.2).
    pub fn is_system(&self) -> bool {
        self.0[..19].iter().all(|b| *b == 0) && (0x01..=0x0F).contains(&self.0[19])
    }

    /// A deterministic address derived from a human label (fixtures name accounts this way).
    pub fn from_label(label: &str) -> Address {
        let h = keccak_parts(&[b"cowboy-devnet/address/", label.as_bytes()]);
        let mut a = [0u8; 20];
        a.copy_from_slice(&h[12..]);
        Address(a)
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{}", hex::encode(self.0))
    }
}
impl fmt::Debug for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
impl FromStr for Address {
    type Err = ParseHexError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_fixed::<20>(s, "address").map(Address)
    }
}

/// A timer id: keccak256 of the CIP-5 §3.3 preimage.
///
/// CIP-5 §3.1 types `timer_id` as `Vec<u8>` of at most 256 bytes; every id this chain derives is
/// 32 bytes (a keccak digest), so the id is stored fixed-size. Host calls that take an id accept
/// up to 256 bytes and answer `TimerNotFound` for any id that is not a live 32-byte id.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct TimerId(pub [u8; 32]);

impl TimerId {
    /// Short form for logs and tables: the first 4 bytes in hex.
    pub fn short(&self) -> String {
        hex::encode(&self.0[..4])
    }
}

impl fmt::Display for TimerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{}", hex::encode(self.0))
    }
}
impl fmt::Debug for TimerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TimerId({})", self.short())
    }
}
impl FromStr for TimerId {
    type Err = ParseHexError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_fixed::<32>(s, "timer id").map(TimerId)
    }
}

macro_rules! hex_serde {
    ($t:ty, $n:expr) => {
        impl Serialize for $t {
            /// `0x`-prefixed lower-case hex, formatted on the stack (block bodies hash many).
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut buf = [0u8; 2 + 2 * $n];
                buf[0] = b'0';
                buf[1] = b'x';
                hex::encode_to_slice(self.0, &mut buf[2..]).expect("sized buffer");
                s.serialize_str(std::str::from_utf8(&buf).expect("hex is ASCII"))
            }
        }
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}
hex_serde!(Address, 20);
hex_serde!(TimerId, 32);

/// A `std::io::Write` that feeds keccak256: serialize straight into the hash, no buffer.
#[derive(Default)]
pub struct KeccakWriter(Keccak256);

impl KeccakWriter {
    pub fn finish(self) -> [u8; 32] {
        self.0.finalize().into()
    }
}

impl std::io::Write for KeccakWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A 32-byte hash (state roots, block hashes), hex in serde.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct H256(pub [u8; 32]);

impl fmt::Display for H256 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{}", hex::encode(self.0))
    }
}
impl fmt::Debug for H256 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
impl FromStr for H256 {
    type Err = ParseHexError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_fixed::<32>(s, "hash").map(H256)
    }
}
hex_serde!(H256, 32);

/// u128 amounts travel as decimal strings in JSON (JSON numbers lose precision past 2^53).
pub mod u128_str {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &u128, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(itoa::Buffer::new().format(*v))
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Num {
            S(String),
            N(u64),
        }
        match Num::deserialize(d)? {
            Num::S(s) => s.replace('_', "").parse().map_err(serde::de::Error::custom),
            Num::N(n) => Ok(n as u128),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_band() {
        assert!(!Address::ZERO.is_system());
        assert!(Address::from_low_u64(1).is_system());
        assert!(Address::from_low_u64(0x0F).is_system());
        assert!(!Address::from_low_u64(0x10).is_system());
    }

    #[test]
    fn hex_roundtrip() {
        let a = Address::from_label("alice");
        assert_eq!(a.to_string().parse::<Address>().unwrap(), a);
        assert!("0x12".parse::<Address>().is_err());
    }
}
