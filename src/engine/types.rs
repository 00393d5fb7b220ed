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
#[derive(
    borsh::BorshSerialize,
    borsh::BorshDeserialize,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
)]
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
#[derive(
    borsh::BorshSerialize,
    borsh::BorshDeserialize,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
)]
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

/// keccak256 over the canonical binary encoding of values ([`HashEncode`]): what the chain
/// hashes for transaction hashes and block bodies. Values are written field by field into a
/// small buffer that is fed to the hasher in blocks, so nothing is serialized as a whole.
///
/// The encoding, applied to every field in declaration order:
///
/// - unsigned integers: fixed width, big-endian (`u8`, `u32`, `u64`, `u128`);
/// - `bool`: one byte, 0 or 1;
/// - byte strings and UTF-8 strings: the length as a `u64`, then the bytes;
/// - fixed-size values (`Address`: 20 bytes, `TimerId` and `H256`: 32 bytes): the raw bytes;
/// - `Option<T>`: the byte 0 (none), or the byte 1 and then `T`;
/// - sequences: the length as a `u64`, then each element;
/// - enums: a one-byte tag written out in each type's [`HashEncode`] impl (never derived from
///   declaration order, so reordering variants cannot change a hash), then the variant's fields.
///
/// Every value is self-delimiting, so the encoding is injective: two different values (of one
/// type) never give the same bytes. A hash starts with a domain tag (e.g.
/// `cowboy-devnet/tx/1`), so hashes of different kinds of value, or of an older encoding, never
/// share a preimage.
pub struct HashEncoder {
    hasher: Keccak256,
    buf: Vec<u8>,
}

impl HashEncoder {
    /// Bytes buffered before they are absorbed (a multiple of keccak256's 136-byte rate).
    const BUFFER: usize = 136 * 32;

    /// A hasher whose preimage starts with `domain` (raw bytes, no length).
    pub fn new(domain: &[u8]) -> Self {
        let mut e = HashEncoder {
            hasher: Keccak256::new(),
            buf: Vec::with_capacity(Self::BUFFER),
        };
        e.raw(domain);
        e
    }

    /// Writes `bytes` as they are (for fixed-size values; variable-size ones need [`Self::bytes`]).
    pub fn raw(&mut self, bytes: &[u8]) {
        if self.buf.len() + bytes.len() > Self::BUFFER {
            self.hasher.update(&self.buf);
            self.buf.clear();
            if bytes.len() > Self::BUFFER {
                self.hasher.update(bytes);
                return;
            }
        }
        self.buf.extend_from_slice(bytes);
    }

    pub fn u8(&mut self, v: u8) {
        self.raw(&[v]);
    }
    pub fn u32(&mut self, v: u32) {
        self.raw(&v.to_be_bytes());
    }
    pub fn u64(&mut self, v: u64) {
        self.raw(&v.to_be_bytes());
    }
    pub fn u128(&mut self, v: u128) {
        self.raw(&v.to_be_bytes());
    }
    pub fn bool(&mut self, v: bool) {
        self.u8(v as u8);
    }
    /// A length (of a byte string or a sequence), as a `u64`.
    pub fn length(&mut self, n: usize) {
        self.u64(n as u64);
    }
    /// A variable-length byte string: its length, then its bytes.
    pub fn bytes(&mut self, v: &[u8]) {
        self.length(v.len());
        self.raw(v);
    }
    /// A UTF-8 string, as a byte string.
    pub fn str(&mut self, v: &str) {
        self.bytes(v.as_bytes());
    }

    /// The keccak256 digest of everything written.
    pub fn finish(mut self) -> [u8; 32] {
        self.hasher.update(&self.buf);
        self.hasher.finalize().into()
    }
}

/// A value's canonical binary encoding, written into a [`HashEncoder`] (see there for the rules).
pub trait HashEncode {
    fn hash_encode(&self, e: &mut HashEncoder);
}

impl HashEncode for u32 {
    fn hash_encode(&self, e: &mut HashEncoder) {
        e.u32(*self);
    }
}
impl HashEncode for u64 {
    fn hash_encode(&self, e: &mut HashEncoder) {
        e.u64(*self);
    }
}
impl HashEncode for u128 {
    fn hash_encode(&self, e: &mut HashEncoder) {
        e.u128(*self);
    }
}
impl HashEncode for bool {
    fn hash_encode(&self, e: &mut HashEncoder) {
        e.bool(*self);
    }
}
impl HashEncode for str {
    fn hash_encode(&self, e: &mut HashEncoder) {
        e.str(self);
    }
}
impl HashEncode for String {
    fn hash_encode(&self, e: &mut HashEncoder) {
        e.str(self);
    }
}
impl<T: HashEncode> HashEncode for Option<T> {
    fn hash_encode(&self, e: &mut HashEncoder) {
        match self {
            None => e.u8(0),
            Some(v) => {
                e.u8(1);
                v.hash_encode(e);
            }
        }
    }
}
impl<T: HashEncode> HashEncode for [T] {
    fn hash_encode(&self, e: &mut HashEncoder) {
        e.length(self.len());
        for v in self {
            v.hash_encode(e);
        }
    }
}
impl<T: HashEncode> HashEncode for Vec<T> {
    fn hash_encode(&self, e: &mut HashEncoder) {
        self.as_slice().hash_encode(e);
    }
}
impl HashEncode for Address {
    fn hash_encode(&self, e: &mut HashEncoder) {
        e.raw(&self.0);
    }
}
impl HashEncode for TimerId {
    fn hash_encode(&self, e: &mut HashEncoder) {
        e.raw(&self.0);
    }
}
impl HashEncode for H256 {
    fn hash_encode(&self, e: &mut HashEncoder) {
        e.raw(&self.0);
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

/// `Option<u128>` amounts as decimal strings (`None` absent or `null`), like [`u128_str`].
pub mod opt_u128_str {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &Option<u128>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) => super::u128_str::serialize(v, s),
            None => s.serialize_none(),
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u128>, D::Error> {
        #[derive(Deserialize)]
        struct W(#[serde(with = "super::u128_str")] u128);
        Ok(Option::<W>::deserialize(d)?.map(|w| w.0))
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

    fn digest(f: impl FnOnce(&mut HashEncoder)) -> [u8; 32] {
        let mut e = HashEncoder::new(b"test");
        f(&mut e);
        e.finish()
    }

    #[test]
    fn hash_encoder_is_the_documented_byte_layout() {
        // Buffering (small writes, writes across the buffer edge, writes larger than it) never
        // changes the digest: it is keccak256 of the concatenated encoding.
        let big = vec![7u8; HashEncoder::BUFFER * 2 + 5];
        let got = digest(|e| {
            e.u8(1);
            e.u32(2);
            e.u64(3);
            e.u128(4);
            e.bool(true);
            e.str("hi");
            Some(Address::from_low_u64(9)).hash_encode(e);
            None::<u64>.hash_encode(e);
            vec![TimerId([5; 32])].hash_encode(e);
            for _ in 0..HashEncoder::BUFFER {
                e.u8(8);
            }
            e.bytes(&big);
        });
        let mut want = b"test".to_vec();
        want.push(1);
        want.extend_from_slice(&2u32.to_be_bytes());
        want.extend_from_slice(&3u64.to_be_bytes());
        want.extend_from_slice(&4u128.to_be_bytes());
        want.push(1);
        want.extend_from_slice(&2u64.to_be_bytes());
        want.extend_from_slice(b"hi");
        want.push(1);
        want.extend_from_slice(&Address::from_low_u64(9).0);
        want.push(0);
        want.extend_from_slice(&1u64.to_be_bytes());
        want.extend_from_slice(&[5; 32]);
        want.extend(std::iter::repeat_n(8u8, HashEncoder::BUFFER));
        want.extend_from_slice(&(big.len() as u64).to_be_bytes());
        want.extend_from_slice(&big);
        assert_eq!(got, keccak(&want));
    }

    #[test]
    fn hash_encoding_is_self_delimiting() {
        // Moving a byte across a string boundary changes the hash.
        let a = digest(|e| {
            e.str("ab");
            e.str("c");
        });
        let b = digest(|e| {
            e.str("a");
            e.str("bc");
        });
        assert_ne!(a, b);
        assert_ne!(
            digest(|e| None::<u64>.hash_encode(e)),
            digest(|e| Some(0u64).hash_encode(e))
        );
    }

    #[test]
    fn hex_roundtrip() {
        let a = Address::from_label("alice");
        assert_eq!(a.to_string().parse::<Address>().unwrap(), a);
        assert!("0x12".parse::<Address>().is_err());
    }
}
