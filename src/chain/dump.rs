//! A whole chain state as data: [`ChainDump`], written by [`Chain::dump`] and read back by
//! [`Chain::load`] (`cowboy-devnet dump` / `load`, snapshots), and its text as a state file
//! ([`parse_state`], [`state_text`]: what `serve --state`, `--load-state` and a fixture's
//! `base` read).

use super::*;

/// A whole chain state, serializable (`cowboy-devnet dump` / `load`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ChainDump {
    pub format_version: u32,
    pub genesis: Genesis,
    pub height: u64,
    pub head: BlockHeader,
    pub timer_config: TimerConfig,
    pub basefee: BasefeeConfig,
    pub system_deployers: Vec<Address>,
    pub proposer: Address,
    pub accounts: BTreeMap<Address, Account>,
    pub actors: BTreeMap<Address, Actor>,
    #[serde(with = "crate::engine::types::u128_str")]
    #[schemars(with = "String")]
    pub supply: u128,
    #[serde(with = "crate::engine::types::u128_str")]
    #[schemars(with = "String")]
    pub burned: u128,
    pub scheduler: SchedulerKind,
    pub queue: engine::queue::QueueDump,
    /// Heights a [`Chain::halt`] will skip before the next block (0 unless dumped mid-outage).
    #[serde(default)]
    pub halted: u64,
    /// The root of the dumped state when devnet controls (`set_balance`) changed it after the
    /// last block, so that it no longer matches `head.state_root`; `None` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_root: Option<H256>,
    /// The CIP-1 v3 state (activation, lane basefee, p50 tip, fairness window); absent in
    /// dumps from before CIP-1 v3, which load with the genesis settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cip1: Option<engine::Cip1State>,
    /// Where the fixture a live node plays stood (its next step, what it recorded), so that
    /// after a load it goes on from there (issue 20, Spec note 43: the player is part of the
    /// state as it is of snapshots). Opaque to the chain: the node writes and reads it; not
    /// part of any root or hash. Absent when no fixture plays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixture_player: Option<serde_json::Value>,
    /// The CIP-5 drafts' state (watches, hits, Globalbox, Mailbox); absent when pristine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draft: Option<engine::draft::DraftState>,
}

impl Chain {
    /// The state as last committed: the sealed head's, plus any devnet control applied since
    /// (then [`ChainDump::state_root`] carries its root). A read: it changes nothing.
    ///
    /// Refuses ([`BlockOpen`]) while a block is open: the open block's transactions have
    /// already changed the state, which is neither the sealed head's nor a block's, so there
    /// is no committed state to dump until the block is sealed (`mine`).
    pub fn dump(&self) -> Result<ChainDump, BlockOpen> {
        self.check_dumpable()?;
        let policies = self.engine.dump_policies();
        Ok(ChainDump {
            format_version: DUMP_FORMAT_VERSION,
            genesis: self.genesis.clone(),
            height: self.height,
            head: self.head.clone(),
            timer_config: self.timer_config.clone(),
            basefee: self.basefee.clone(),
            system_deployers: self.system_deployers.iter().copied().collect(),
            proposer: self.proposer,
            accounts: self.accounts.clone(),
            actors: self.actors.clone(),
            supply: self.supply,
            burned: self.burned,
            scheduler: self.engine.genesis_scheduler(),
            queue: self.engine.dump(),
            halted: self.skip_next,
            state_root: (self.root != self.head.state_root).then_some(self.root),
            cip1: policies.cip1,
            fixture_player: None,
            draft: policies.draft,
        })
    }

    /// Whether [`dump`](Self::dump) would answer: [`BlockOpen`] while a block is open. Cheap:
    /// the node checks it before it takes a copy to dump on another thread (issue 31 item 7).
    pub fn check_dumpable(&self) -> Result<(), BlockOpen> {
        match &self.open {
            Some(o) => Err(BlockOpen {
                height: o.height,
                txs: o.receipts.len(),
            }),
            None => Ok(()),
        }
    }

    /// Rebuilds a chain from a dump and checks that its state root matches the dumped head.
    pub fn load(d: ChainDump, runtime: Arc<dyn ActorRuntime>) -> Result<Chain, LoadError> {
        if d.format_version != DUMP_FORMAT_VERSION {
            return Err(LoadError::Version {
                found: d.format_version,
                expected: DUMP_FORMAT_VERSION,
            });
        }
        if d.height != d.head.height {
            return Err(LoadError::Format(format!(
                "height {} is not the dumped head's {}",
                d.height, d.head.height
            )));
        }
        check_head(&d)?;
        let engine = engine::Engine::restore(d.queue, d.scheduler)?;
        let mut chain = Chain::new(d.genesis.clone(), runtime)
            .map_err(|e| LoadError::Format(Failure::from_error(e.kind(), &e).message))?;
        chain.timer_config = d.timer_config;
        chain.basefee = d.basefee;
        chain.system_deployers = d.system_deployers.into_iter().collect();
        chain.proposer = d.proposer;
        chain.accounts = d.accounts;
        chain.actors = d.actors;
        chain.supply = d.supply;
        chain.burned = d.burned;
        chain.height = d.height;
        chain.skip_next = d.halted;
        chain.engine = engine;
        let policies = engine::PolicyDump {
            cip1: d.cip1,
            draft: d.draft,
        };
        let policies = PolicyState::restore(&policy_genesis(&d.genesis), policies);
        chain.engine.set_policies(policies);
        chain.engine.check_restored()?;
        chain.commit = StateCommit::default();
        chain.commit.mark_all(&chain.accounts, &chain.actors);
        let root = chain.commit_root();
        let expected = d.state_root.unwrap_or(d.head.state_root);
        if root != expected {
            return Err(LoadError::Format(format!(
                "state root {root} does not match the dumped state root {expected}"
            )));
        }
        chain.head = d.head;
        Ok(chain)
    }
}

/// Issue 30 (Spec note 144): the fields of a dump that the state root does not cover (the
/// head's height, hash, parent hash and skipped heights, `halted`) are checked on their own:
/// a next height must exist (`HeightCannotAdvance`), the head's hash must be the hash of its
/// fields as a seal computes it (`HeadHashMismatch`), the genesis head (height 0) has no parent
/// and skips nothing, and a block cannot skip more heights than lie below it.
fn check_head(d: &ChainDump) -> Result<(), LoadError> {
    let h = &d.head;
    if d.height
        .checked_add(1)
        .and_then(|n| n.checked_add(d.halted))
        .is_none()
    {
        return Err(LoadError::HeightCannotAdvance {
            height: d.height,
            halted: d.halted,
        });
    }
    if h.skipped >= h.height.max(1) {
        return Err(LoadError::Format(format!(
            "the head at height {} skips {} height(s): more than lie below it",
            h.height, h.skipped
        )));
    }
    let expected = h.fields_hash();
    if h.height == 0 {
        // The genesis head (`Chain::new`): no parent, its hash that of its state root.
        if h.parent_hash != H256::default() {
            return Err(LoadError::Format(format!(
                "the genesis head (height 0) names a parent {}",
                h.parent_hash
            )));
        }
        let expected = H256(keccak_parts(&[b"genesis", &h.state_root.0]));
        if h.hash != expected {
            return Err(LoadError::HeadHashMismatch {
                found: h.hash,
                expected,
            });
        }
        return Ok(());
    }
    if h.hash != expected {
        return Err(LoadError::HeadHashMismatch {
            found: h.hash,
            expected,
        });
    }
    if h.parent_hash == h.hash {
        return Err(LoadError::Format(format!(
            "the head at height {} names itself as its parent",
            h.height
        )));
    }
    Ok(())
}

/// The `format` of a state file.
pub const STATE_FORMAT: &str = "cowboy-devnet-state";
/// The version of the state file's envelope (the chain dump has its own `format_version`).
pub const STATE_VERSION: u32 = 1;

#[derive(Serialize)]
struct EnvelopeOut<'a> {
    format: &'static str,
    version: u32,
    chain: &'a ChainDump,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EnvelopeIn {
    format: String,
    version: u32,
    chain: serde_json::Value,
}

/// A state file's text: `{"format": "cowboy-devnet-state", "version": 1, "chain": <dump>}`.
pub fn state_text(dump: &ChainDump) -> String {
    serde_json::to_string(&envelope(dump)).expect("a chain dump serializes")
}

fn envelope(dump: &ChainDump) -> EnvelopeOut<'_> {
    EnvelopeOut {
        format: STATE_FORMAT,
        version: STATE_VERSION,
        chain: dump,
    }
}

/// [`state_text`] written into `w` as it is made (issue 31 item 7: a save of a 1M-timer state
/// never holds its whole text): the same bytes.
pub fn write_state_text(w: impl std::io::Write, dump: &ChainDump) -> std::io::Result<()> {
    serde_json::to_writer(w, &envelope(dump)).map_err(std::io::Error::from)
}

/// A bare dump's text (what `devnet_dumpState` answers) written into `w` as it is made: the
/// bytes of `serde_json::to_string(dump)`.
pub fn write_dump_text(w: impl std::io::Write, dump: &ChainDump) -> std::io::Result<()> {
    serde_json::to_writer(w, dump).map_err(std::io::Error::from)
}

impl ChainDump {
    /// About what the dump holds on the heap, in bytes: its timers (each the struct, its
    /// payload and fee caps), accounts and actors (their scripts and storage are counted by
    /// their serialised size's order, 64 bytes an entry beside them). An estimate: a paged dump
    /// (`devnet_dumpState`, Spec note 196) bounds the copies it holds by it.
    pub fn heap_estimate(&self) -> u64 {
        let timer = std::mem::size_of::<engine::timer::Timer>() as u64;
        let timers: u64 = self
            .queue
            .timers
            .iter()
            .map(|t| timer + t.payload.len() as u64 + t.fee_caps.as_ref().map_or(0, |_| 64))
            .sum();
        let ids: u64 = self
            .queue
            .ring
            .iter()
            .chain(self.queue.epochs.iter())
            .map(|(_, ids)| ids.len() as u64 * 32)
            .sum();
        let entry = 64 + std::mem::size_of::<Account>() as u64;
        let actors = self.actors.len() as u64 * (64 + std::mem::size_of::<Actor>() as u64);
        timers + ids + self.accounts.len() as u64 * entry + actors
    }
}

/// Parses the text of a state file or a bare chain dump (what `run --dump` and
/// `devnet_dumpState` write), checking its shape and versions; [`Chain::load`] checks the rest.
pub fn parse_state(text: &str) -> Result<ChainDump, String> {
    let v: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| format!("not JSON ({e}); truncated or not a state file"))?;
    let chain = if v.get("format").is_some() {
        let env: EnvelopeIn = serde_json::from_value(v).map_err(|e| e.to_string())?;
        if env.format != STATE_FORMAT {
            return Err(format!(
                "format `{}`, expected `{STATE_FORMAT}`",
                env.format
            ));
        }
        if env.version != STATE_VERSION {
            return Err(format!(
                "state file version {}, this build reads version {STATE_VERSION}",
                env.version
            ));
        }
        env.chain
    } else if v.get("format_version").is_some() {
        v
    } else {
        return Err(
            "neither a state file (`format`: `cowboy-devnet-state`) nor a chain dump (`format_version`)"
                .into(),
        );
    };
    let version = chain.get("format_version").and_then(|v| v.as_u64());
    if version != Some(u64::from(DUMP_FORMAT_VERSION)) {
        return Err(format!(
            "chain dump format version {}, this build reads {}",
            version.map_or("missing".to_string(), |v| v.to_string()),
            DUMP_FORMAT_VERSION
        ));
    }
    serde_json::from_value(chain).map_err(|e| format!("chain dump: {e}"))
}
