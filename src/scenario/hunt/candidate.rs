//! The adversaries' scenario (issue 33 hunt): a bot per adversary, deployed from a template,
//! and a list of actions, all of them things the fixture format already expresses
//! (`[[actors]]` with `native` code, and `schedule` (with an expiry and a fee payer other than
//! the bot), `cancel`, `extend`, `transfer` steps; under the CIP-5 drafts `watch` and `write`,
//! under `cip5-draft-zh` `interval`).
//! [`Candidate::random`] and [`Candidate::mutate`] draw within the budget from a
//! [`SplitMix64`]; nothing here knows the chain.

use crate::scenario::sweep::SplitMix64;

/// What a bot does when one of its timers fires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Template {
    /// Burns `cycles`.
    Burner { cycles: u64 },
    /// Burns `cycles` and re-arms itself `every` blocks later with `gas_limit`.
    Rescheduler {
        cycles: u64,
        every: u64,
        gas_limit: u64,
    },
    /// A script that burns `cycles` and prices its own fires with a custom GBA (CIP-1 v3
    /// §7.2): a fee cap of `fee_x` times the lane basefee and a tip of `tip_x` times it.
    Bidder { cycles: u64, fee_x: u64, tip_x: u64 },
}

/// One adversary's bot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bot {
    pub template: Template,
    /// Its endowment, from the adversary's funds.
    pub endowment: u128,
}

/// The priority tiers a schedule step may name (CIP-1 v3 §6).
pub const TIERS: [&str; 4] = ["economy", "standard", "fast", "urgent"];

/// An adversary's action, a fixture step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Bot `bot` schedules a timer at `height`, sent at `at`; `id` names it (`label = "aID"`).
    /// `ttl`: it expires that many blocks after `height`; `sender_pays`: the adversary's
    /// account, not the bot, is its fee payer (`fee_payer = "sender"`).
    Schedule {
        id: u32,
        bot: usize,
        at: u64,
        height: u64,
        gas_limit: u64,
        tier: Option<usize>,
        ttl: Option<u64>,
        sender_pays: bool,
    },
    /// Bot `bot` cancels its timer `aID` at `at`.
    Cancel { bot: usize, at: u64, id: u32 },
    /// Bot `bot` moves its timer `aID`'s expiry `by` blocks later at `at`.
    Extend {
        bot: usize,
        at: u64,
        id: u32,
        by: u64,
    },
    /// CIP-5 drafts: bot `bot` watches its own storage key `kKEY` from `at` (`label = "aID"`).
    Watch {
        id: u32,
        bot: usize,
        at: u64,
        key: u8,
        gas_limit: u64,
    },
    /// CIP-5 drafts: a transaction at `at` writes bot `bot`'s key `kKEY` (what its watch sees).
    Write { bot: usize, at: u64, key: u8 },
    /// `cip5-draft-zh`: bot `bot` sets an interval timer every `every` blocks from `at`.
    Interval {
        id: u32,
        bot: usize,
        at: u64,
        every: u64,
        gas_limit: u64,
    },
    /// Adversary `adv` tops up its bot with `amount` at `at`.
    Transfer { adv: usize, at: u64, amount: u128 },
}

impl Action {
    pub fn at(&self) -> u64 {
        match self {
            Action::Schedule { at, .. }
            | Action::Cancel { at, .. }
            | Action::Extend { at, .. }
            | Action::Watch { at, .. }
            | Action::Write { at, .. }
            | Action::Interval { at, .. }
            | Action::Transfer { at, .. } => *at,
        }
    }

    /// The timer this action makes, with its bot and send height: a schedule, a watch or an
    /// interval.
    fn timer(&self) -> Option<(u32, usize, u64)> {
        match self {
            Action::Schedule { id, bot, at, .. }
            | Action::Watch { id, bot, at, .. }
            | Action::Interval { id, bot, at, .. } => Some((*id, *bot, *at)),
            _ => None,
        }
    }

    /// The gas this action's timer counts against the budget of one height, and that height:
    /// a schedule's at its due height; a watch's and an interval's at the first height it can
    /// fire (`at + 1`; an interval's later fires are not counted again).
    fn gas_at(&self) -> Option<(u64, u64)> {
        match self {
            Action::Schedule {
                height, gas_limit, ..
            } => Some((*height, *gas_limit)),
            Action::Watch { at, gas_limit, .. } | Action::Interval { at, gas_limit, .. } => {
                Some((at + 1, *gas_limit))
            }
            _ => None,
        }
    }
}

/// One scenario of the adversaries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub bots: Vec<Bot>,
    pub actions: Vec<Action>,
    pub blocks: u64,
    /// The next free timer id.
    pub next_id: u32,
}

/// The budget a candidate stays within.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub adversaries: usize,
    pub funds: u128,
    pub max_timers: u32,
    pub max_gas_per_block: u64,
    pub blocks: u64,
    /// The scheduler takes state watches and storage writes wake them (the CIP-5 drafts).
    pub watches: bool,
    /// The scheduler takes interval timers (`cip5-draft-zh`).
    pub intervals: bool,
}

/// The largest gas limit a timer is given: under the default `max_cycles_per_fire`
/// (550,000), so four fill the default 2,000,000-cycle lane.
pub const MAX_TIMER_GAS: u64 = 500_000;

impl Limits {
    fn gas_cap(&self) -> u64 {
        self.max_gas_per_block.clamp(1, MAX_TIMER_GAS)
    }
}

fn template(rng: &mut SplitMix64, l: &Limits) -> Template {
    let cycles = rng.range(1_000, l.gas_cap().clamp(1_000, 250_000));
    let roll = rng.below(3);
    if roll == 0 {
        Template::Burner { cycles }
    } else if roll == 1 {
        Template::Bidder {
            cycles,
            fee_x: rng.range(1, 8),
            tip_x: rng.range(0, 8),
        }
    } else {
        Template::Rescheduler {
            cycles,
            every: rng.range(1, 8),
            // A deploy's own schedule has no step to carry an `expect_error`: kept under
            // CIP-1 v3 §10's auction-phase cap (250,000), which every scheduler accepts.
            gas_limit: rng.range(cycles.min(250_000), 250_000),
        }
    }
}

/// A timer's gas limit: half the time the largest allowed (what fills a lane), else uniform.
fn gas(rng: &mut SplitMix64, l: &Limits) -> u64 {
    if rng.below(2) == 0 {
        l.gas_cap()
    } else {
        rng.range(1_000, l.gas_cap())
    }
}

impl Candidate {
    /// No adversary at all, for `blocks` blocks: the baseline.
    pub fn empty(blocks: u64) -> Candidate {
        Candidate {
            bots: Vec::new(),
            actions: Vec::new(),
            blocks,
            next_id: 0,
        }
    }

    /// A random scenario within `l`.
    pub fn random(rng: &mut SplitMix64, l: &Limits) -> Candidate {
        let bots = (0..l.adversaries)
            .map(|_| Bot {
                template: template(rng, l),
                endowment: l.funds / 4 + u128::from(rng.below(1 << 20)) * ((l.funds / 4) >> 20),
            })
            .collect();
        let mut c = Candidate {
            bots,
            actions: Vec::new(),
            blocks: l.blocks,
            next_id: 0,
        };
        let n = rng.range(1, u64::from(l.max_timers.max(1)));
        for _ in 0..n {
            c.add_action(rng, l);
        }
        c.repair(l);
        c
    }

    fn add_action(&mut self, rng: &mut SplitMix64, l: &Limits) {
        let last = self.blocks.saturating_sub(1).max(2);
        let bot = rng.below(self.bots.len() as u64) as usize;
        let timers: Vec<(u32, usize, u64)> =
            self.actions.iter().filter_map(Action::timer).collect();
        match rng.below(12) {
            r @ (0 | 1) if !timers.is_empty() => {
                let (id, bot, at) = timers[rng.below(timers.len() as u64) as usize];
                let at = rng.range(at + 1, last.max(at + 1));
                self.actions.push(if r == 0 {
                    Action::Cancel { bot, at, id }
                } else {
                    Action::Extend {
                        bot,
                        at,
                        id,
                        by: rng.range(1, 20),
                    }
                });
            }
            2 => {
                let amount = (l.funds / 8) >> rng.below(8);
                let at = rng.range(2, last);
                self.actions.push(Action::Transfer {
                    adv: bot,
                    at,
                    amount,
                });
            }
            3 | 4 if l.watches => self.add_watch_or_write(rng, l, bot, last),
            5 if l.intervals => {
                let id = self.take_id();
                self.actions.push(Action::Interval {
                    id,
                    bot,
                    at: rng.range(2, last),
                    every: rng.range(1, 8),
                    gas_limit: gas(rng, l),
                });
            }
            _ => self.add_schedule(rng, l, bot, last),
        }
    }

    fn take_id(&mut self) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// A watch on one of four keys of the bot, or a write of one (a watch needs a write to
    /// fire).
    fn add_watch_or_write(&mut self, rng: &mut SplitMix64, l: &Limits, bot: usize, last: u64) {
        let key = rng.below(4) as u8;
        let at = rng.range(2, last);
        if rng.below(2) == 0 {
            let id = self.take_id();
            self.actions.push(Action::Watch {
                id,
                bot,
                at,
                key,
                gas_limit: gas(rng, l),
            });
        } else {
            self.actions.push(Action::Write { bot, at, key });
        }
    }

    fn add_schedule(&mut self, rng: &mut SplitMix64, l: &Limits, bot: usize, last: u64) {
        let at = rng.range(2, last);
        // Half the time at a height another adversary timer is due at: load piles up where a
        // lane can be filled.
        let heights: Vec<u64> = self
            .actions
            .iter()
            .filter_map(|a| match a {
                Action::Schedule { height, .. } if *height > at => Some(*height),
                _ => None,
            })
            .collect();
        let height = if !heights.is_empty() && rng.below(2) == 0 {
            heights[rng.below(heights.len() as u64) as usize]
        } else {
            rng.range(at + 1, self.blocks.max(at + 1))
        };
        let tier = (rng.below(3) == 0).then(|| rng.below(4) as usize);
        let ttl = (rng.below(4) == 0).then(|| rng.range(1, 10));
        let sender_pays = rng.below(5) == 0;
        let id = self.take_id();
        self.actions.push(Action::Schedule {
            id,
            bot,
            at,
            height,
            gas_limit: gas(rng, l),
            tier,
            ttl,
            sender_pays,
        });
    }

    /// A neighbour: one to three changes (an action added, dropped, moved or resized, a
    /// bot's template redrawn), then [`Candidate::repair`].
    pub fn mutate(&self, rng: &mut SplitMix64, l: &Limits) -> Candidate {
        let mut c = self.clone();
        for _ in 0..rng.range(1, 3) {
            let n = c.actions.len() as u64;
            match rng.below(5) {
                0 | 1 => c.add_action(rng, l),
                2 if n > 0 => {
                    c.actions.remove(rng.below(n) as usize);
                }
                3 if n > 0 => {
                    let i = rng.below(n) as usize;
                    if let Action::Schedule {
                        at,
                        height,
                        gas_limit,
                        ..
                    } = &mut c.actions[i]
                    {
                        *height = rng.range(*at + 1, c.blocks.max(*at + 1));
                        *gas_limit = gas(rng, l);
                    }
                }
                _ => {
                    let b = rng.below(c.bots.len() as u64) as usize;
                    c.bots[b].template = template(rng, l);
                }
            }
        }
        c.repair(l);
        c
    }

    /// Brings the candidate back within the budget: actions in height order (stable), at
    /// most `max_timers` timers (schedules, watches, intervals), the gas counted at one height
    /// ([`Action::gas_at`]) at most `max_gas_per_block` (later timers dropped), each
    /// adversary's endowment plus top-ups at most its funds (top-ups dropped), cancels and
    /// extends only of timers made before them.
    pub fn repair(&mut self, l: &Limits) {
        self.actions.sort_by_key(Action::at);
        let mut timers = 0u32;
        let mut gas_at: std::collections::BTreeMap<u64, u64> = Default::default();
        let mut spent: Vec<u128> = self.bots.iter().map(|b| b.endowment).collect();
        let mut made: Vec<(u32, u64)> = Vec::new();
        self.actions.retain(|a| {
            if let (Some((id, _, at)), Some((h, gas))) = (a.timer(), a.gas_at()) {
                let g = gas_at.entry(h).or_default();
                let ok = timers < l.max_timers && *g + gas <= l.max_gas_per_block;
                if ok {
                    timers += 1;
                    *g += gas;
                    made.push((id, at));
                }
                return ok;
            }
            match a {
                Action::Cancel { id, at, .. } | Action::Extend { id, at, .. } => {
                    made.iter().any(|(i, sat)| i == id && sat < at)
                }
                Action::Transfer { adv, amount, .. } => {
                    let ok = spent[*adv].saturating_add(*amount) <= l.funds;
                    if ok {
                        spent[*adv] += amount;
                    }
                    ok
                }
                _ => true,
            }
        });
    }

    /// What the adversaries commit: endowments and top-ups.
    pub fn funds_used(&self) -> u128 {
        let e: u128 = self.bots.iter().map(|b| b.endowment).sum();
        let t: u128 = self
            .actions
            .iter()
            .map(|a| match a {
                Action::Transfer { amount, .. } => *amount,
                _ => 0,
            })
            .sum();
        e + t
    }
}
