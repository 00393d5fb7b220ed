//! The domain error codes (issue 13, "Errors"): one per error kind, in -32050..-32099, with
//! the spec's error name as `reason`. The JSON-RPC errors use them ([`crate::rpc::error`]), and
//! so do the replies that carry an error as data (an estimate's `error`,
//! [`super::command_reply`]). The table is in docs/API.md ("Errors").

/// One domain error kind: its spec name, its code and what a person can do about it.
pub struct Code {
    pub reason: &'static str,
    pub code: i32,
    pub hint: &'static str,
}

/// Every domain error code, in code order.
pub const CODES: &[Code] = &[
    Code {
        reason: "InvalidInput",
        code: -32050,
        hint: "an argument is out of range or malformed; the message says which",
    },
    Code {
        reason: "Unauthorized",
        code: -32051,
        hint: "send from the timer's owner, or (governance) from a system deployer: see devnet_accounts",
    },
    Code {
        reason: "TimerNotFound",
        code: -32052,
        hint: "no live timer has this id: it fired, expired or was cancelled (timer_get shows its history)",
    },
    Code {
        reason: "TimerCapExceeded",
        code: -32053,
        hint: "the actor holds max_timers_per_actor live timers: cancel one or wait for one to fire",
    },
    Code {
        reason: "QuotaExceeded",
        code: -32054,
        hint: "a per-actor or per-block quota is used up: wait for the next block",
    },
    Code {
        reason: "InsufficientFunds",
        code: -32055,
        hint: "fund the account (devnet_setBalance) or lower the fee caps",
    },
    Code {
        reason: "UnknownActor",
        code: -32056,
        hint: "no actor is deployed at this address: actor_deploy first",
    },
    Code {
        reason: "ActorExists",
        code: -32057,
        hint: "an actor is already deployed at this address",
    },
    Code {
        reason: "NonceMismatch",
        code: -32058,
        hint: "send with the account's next nonce",
    },
    Code {
        reason: "BlockFull",
        code: -32059,
        hint: "the block's transaction cycles are used up: mine a block and send again",
    },
    Code {
        reason: "UnknownSnapshot",
        code: -32060,
        hint: "no such snapshot: it was deleted, dropped as the oldest past --snapshots, or never taken",
    },
    Code {
        reason: "TimerRejectedBelowBasefee",
        code: -32061,
        hint: "raise max_fee_per_cycle to at least the lane basefee (scheduler_lane: next_lane_basefee, nanos per cycle)",
    },
    Code {
        reason: "OutOfCycles",
        code: -32062,
        hint: "raise the cycle limit or make the handler cheaper",
    },
    Code {
        reason: "OutOfCells",
        code: -32063,
        hint: "raise the cell limit or store less",
    },
    Code {
        reason: "Reverted",
        code: -32064,
        hint: "the handler reverted: the message is its reason",
    },
    Code {
        reason: "HandlerNotFound",
        code: -32065,
        hint: "the actor's script has no handler by this name",
    },
    Code {
        reason: "CompileError",
        code: -32066,
        hint: "the script does not compile: the message has the line and column",
    },
    Code {
        reason: "ScriptError",
        code: -32067,
        hint: "the script failed at run time: the message says where",
    },
    Code {
        reason: "TimerArgDeprecated",
        code: -32068,
        hint: "`bid` was withdrawn by CIP-1 v3: give max_fee_per_cycle / max_priority_fee_per_cycle (or priority_tier)",
    },
    Code {
        reason: "HistoryPruned",
        code: -32069,
        hint: "the height is older than the node keeps (serve --history N): ask from the oldest kept height",
    },
    Code {
        reason: "TransactionNotFound",
        code: -32070,
        hint: "the node holds no transaction of this hash: unknown, or older than the kept history (serve --history N)",
    },
    Code {
        reason: "StateNotKept",
        code: -32071,
        hint: "the block is kept but not a state to rebuild it from (serve --checkpoint-budget MIB let it go): read from data.first_kept on, or raise the budget",
    },
    Code {
        reason: "ExportRefused",
        code: -32085,
        hint: "files go under the server's --export-dir, named by file name only (no path, no `..`, never over a file)",
    },
    Code {
        reason: "RemoteWriteRefused",
        code: -32086,
        hint: "the server listens off loopback and serves reads only: restart it with --allow-remote-writes",
    },
    Code {
        reason: "DumpTooLarge",
        code: -32087,
        hint: "the whole dump does not fit one response: ask for it in pages, devnet_dumpState [{\"page_bytes\": 16777216}] (issue 31)",
    },
    Code {
        reason: "DumpPagesFull",
        code: -32088,
        hint: "as many paged dumps are open as the server holds: read them to their last page, or wait a minute for an idle one to expire",
    },
    Code {
        reason: "DumpCursorUnknown",
        code: -32089,
        hint: "the cursor names no open paged dump (unknown, read to its end, or idle past a minute) or a page other than the next: start again with page_bytes",
    },
    Code {
        reason: "NodeStopped",
        code: -32098,
        hint: "the node is shutting down or its thread ended; restart it",
    },
    Code {
        reason: "Internal",
        code: -32099,
        hint: "an error without a code of its own; the message and data.reason say what",
    },
];

/// The code for an error name; names without their own code get -32099 (and keep their name
/// in `data.reason`).
pub fn code_of(reason: &str) -> i32 {
    CODES
        .iter()
        .find(|c| c.reason == reason)
        .map_or(-32099, |c| c.code)
}
