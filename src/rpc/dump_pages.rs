//! `devnet_dumpState` off the node's thread, bounded and paged (issue 31 item 7: "large
//! answers stream or page, `devnet_dumpState` at 1M pending works over HTTP, with a named
//! error where a limit applies").
//!
//! The node's thread only takes a copy of the state ([`DumpStateCopy`], shared pages); the
//! dump's image and its text are made on another thread, written into a writer as they are
//! made (never a `serde_json::Value` of the whole state, never the whole text twice).
//!
//! - `devnet_dumpState []` answers the whole dump, as before, when its text fits one response
//!   ([`WHOLE_LIMIT`], under the server's response limit); a larger one is refused by name,
//!   `DumpTooLarge`, as soon as the text passes the limit (jsonrpsee's generic -32008 came
//!   after the whole text was built).
//! - `devnet_dumpState [{"page_bytes": n}]` starts a paged dump (Spec note 196): a copy of the
//!   state is pinned under a dump id, a thread writes its text into a bounded channel (it waits
//!   while no page is asked for), and each call returns the next `n` bytes of the text as a
//!   string, cut at a character boundary, with the cursor of the next page (`null` after the
//!   last). `devnet_dumpState [{"cursor": c}]` asks for the page `c` names; asking again for
//!   the page just served answers it again (a lost response). The pages' `data` concatenated is
//!   byte for byte the text of `devnet_dumpState []` (what `--load-state FILE` and
//!   `devnet_loadState` take).
//! - Bounds: at most [`MAX_OPEN_DUMPS`] paged dumps at once, holding at most
//!   [`MAX_HELD_BYTES`] between them (by [`ChainDump::heap_estimate`]); a dump not asked for a
//!   page in [`IDLE`] is dropped. Beyond a bound: `DumpPagesFull`; a cursor that names no open
//!   dump (unknown, expired, finished) or a page other than the next or the last served:
//!   `DumpCursorUnknown`. Neither changes anything.

use crate::chain::ChainDump;
use crate::node::DumpCopy;
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

/// The server's response limit (jsonrpsee's `max_response_body_size`, [`super::server`]).
pub const MAX_RESPONSE_BODY: u32 = 256 * 1024 * 1024;
/// The most text a whole `devnet_dumpState []` answers: the response limit less room for the
/// JSON-RPC envelope around the result.
pub const WHOLE_LIMIT: usize = MAX_RESPONSE_BODY as usize - (1 << 20);
/// A page's size when `page_bytes` is not given.
pub const DEFAULT_PAGE_BYTES: u64 = 16 * 1024 * 1024;
/// The smallest page.
pub const MIN_PAGE_BYTES: u64 = 1024;
/// The largest page: its text escaped as a JSON string (each `"` and `\` doubled) stays under
/// the response limit.
pub const MAX_PAGE_BYTES: u64 = 64 * 1024 * 1024;
/// Paged dumps open at once.
pub const MAX_OPEN_DUMPS: usize = 2;
/// What the open paged dumps may hold between them ([`ChainDump::heap_estimate`]).
pub const MAX_HELD_BYTES: u64 = 2 * 1024 * 1024 * 1024;
/// A paged dump not asked for a page for this long is dropped.
pub const IDLE: Duration = Duration::from_secs(60);
/// The text goes from the writing thread in pieces of this size.
const PIECE: usize = 64 * 1024;
/// Pieces written ahead of the page asked for.
const AHEAD: usize = 8;

/// Why a dump was refused (each a named error, `data.reason`).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DumpError {
    #[error(
        "DumpTooLarge: the dump's text passes {limit} bytes, the most one response carries; ask for it in pages: devnet_dumpState [{{\"page_bytes\": {DEFAULT_PAGE_BYTES}}}]"
    )]
    TooLarge { limit: usize },
    #[error("DumpPagesFull: {0}")]
    Full(String),
    #[error("DumpCursorUnknown: {0}")]
    Cursor(String),
}

impl DumpError {
    pub fn reason(&self) -> &'static str {
        match self {
            DumpError::TooLarge { .. } => "DumpTooLarge",
            DumpError::Full(_) => "DumpPagesFull",
            DumpError::Cursor(_) => "DumpCursorUnknown",
        }
    }
}

/// A writer that stops with an error once more than `limit` bytes were written into it.
struct Limited {
    buf: Vec<u8>,
    limit: usize,
}

impl Write for Limited {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        if self.buf.len() + b.len() > self.limit {
            return Err(std::io::Error::other("over the limit"));
        }
        self.buf.extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The whole dump's text (`serde_json::to_string` of [`DumpCopy::dump`]), or `TooLarge` as
/// soon as it passes `limit` bytes. Runs on the calling thread (a blocking one).
pub fn whole_text(copy: &DumpCopy, limit: usize) -> Result<String, DumpError> {
    let dump = copy.dump();
    let mut w = Limited {
        buf: Vec::new(),
        limit,
    };
    match crate::chain::dump::write_dump_text(&mut w, &dump) {
        Ok(()) => Ok(String::from_utf8(w.buf).expect("serde_json writes UTF-8")),
        Err(_) => Err(DumpError::TooLarge { limit }),
    }
}

/// What the writing thread sends: first what the dump holds, then its text.
enum Piece {
    Start { held: u64, height: u64 },
    Text(Vec<u8>),
}

/// A writer into the channel, a piece at a time; fails once the reader is gone (the dump
/// expired or was dropped), which ends the writing thread.
struct ToChannel {
    tx: SyncSender<Piece>,
    buf: Vec<u8>,
}

impl ToChannel {
    fn send(&mut self) -> std::io::Result<()> {
        let piece = std::mem::replace(&mut self.buf, Vec::with_capacity(PIECE));
        self.tx
            .send(Piece::Text(piece))
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))
    }
}

impl Write for ToChannel {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(b);
        if self.buf.len() >= PIECE {
            self.send()?;
        }
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        if !self.buf.is_empty() {
            self.send()?;
        }
        Ok(())
    }
}

/// The text of a dump as it is written by a thread of its own.
struct Stream {
    rx: Receiver<Piece>,
    /// Text received and not served yet.
    rest: Vec<u8>,
    /// The writer is done: `rest` is all that is left.
    ended: bool,
}

impl Stream {
    /// Starts the writing thread on `copy`; returns once the dump's image is made (what it
    /// holds is known).
    fn start(copy: DumpCopy) -> (Stream, u64, u64) {
        let (tx, rx) = sync_channel::<Piece>(AHEAD);
        std::thread::Builder::new()
            .name("cowboy-dump".into())
            .spawn(move || {
                let dump: ChainDump = copy.dump();
                drop(copy);
                let start = Piece::Start {
                    held: dump.heap_estimate(),
                    height: dump.height,
                };
                if tx.send(start).is_err() {
                    return;
                }
                let mut w = ToChannel {
                    tx,
                    buf: Vec::with_capacity(PIECE),
                };
                // A reader gone (expired, dropped) ends the writing: nothing to report.
                let _ = crate::chain::dump::write_dump_text(&mut w, &dump).and_then(|()| w.flush());
            })
            .expect("spawn a dump thread");
        let (held, height) = match rx.recv() {
            Ok(Piece::Start { held, height }) => (held, height),
            _ => (0, 0),
        };
        let s = Stream {
            rx,
            rest: Vec::new(),
            ended: false,
        };
        (s, held, height)
    }

    /// The next at most `max` bytes of text (waits for the writer), cut at a character
    /// boundary; empty only at the end.
    fn take(&mut self, max: usize) -> Vec<u8> {
        while self.rest.len() < max && !self.ended {
            match self.rx.recv() {
                Ok(Piece::Text(t)) => self.rest.extend_from_slice(&t),
                Ok(Piece::Start { .. }) => {}
                Err(_) => self.ended = true,
            }
        }
        let mut cut = max.min(self.rest.len());
        // A UTF-8 continuation byte (10xxxxxx) never starts a character.
        while cut < self.rest.len() && cut > 0 && (self.rest[cut] & 0xC0) == 0x80 {
            cut -= 1;
        }
        let tail = self.rest.split_off(cut);
        std::mem::replace(&mut self.rest, tail)
    }

    fn is_done(&self) -> bool {
        self.ended && self.rest.is_empty()
    }
}

/// One page of a paged dump (the result of `devnet_dumpState [{page_bytes | cursor}]`).
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct DumpPage {
    /// The paged dump's id.
    pub dump: u64,
    /// The height of the sealed head dumped.
    pub height: u64,
    /// This page's index, from 0.
    pub page: u64,
    /// Where `data` starts in the dump's text, in bytes.
    pub offset: u64,
    /// The next piece of the dump's text (a JSON text once all pages are put together).
    pub data: String,
    /// The cursor of the next page; `null` after the last page.
    pub next: Option<String>,
}

/// A paged dump being read.
struct Paged {
    stream: Stream,
    page_bytes: usize,
    height: u64,
    held: u64,
    next_page: u64,
    offset: u64,
    last: Option<DumpPage>,
    touched: Instant,
}

/// The bounds of the paged dumps ([`DumpLimits::default`]: [`MAX_OPEN_DUMPS`],
/// [`MAX_HELD_BYTES`], [`IDLE`]).
#[derive(Clone, Copy, Debug)]
pub struct DumpLimits {
    pub max_open: usize,
    pub max_held_bytes: u64,
    pub idle: Duration,
}

impl Default for DumpLimits {
    fn default() -> Self {
        DumpLimits {
            max_open: MAX_OPEN_DUMPS,
            max_held_bytes: MAX_HELD_BYTES,
            idle: IDLE,
        }
    }
}

/// The open paged dumps (one per server).
#[derive(Default)]
pub struct DumpPages {
    inner: Mutex<Open>,
    limits: DumpLimits,
}

#[derive(Default)]
struct Open {
    next_id: u64,
    dumps: BTreeMap<u64, Arc<Mutex<Paged>>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// `"<dump>:<page>"`.
pub fn cursor(dump: u64, page: u64) -> String {
    format!("{dump}:{page}")
}

fn parse_cursor(c: &str) -> Result<(u64, u64), DumpError> {
    c.split_once(':')
        .and_then(|(d, p)| Some((d.parse().ok()?, p.parse().ok()?)))
        .ok_or_else(|| DumpError::Cursor(format!("`{c}` is not a cursor (`<dump>:<page>`)")))
}

impl DumpPages {
    /// Paged dumps bounded by `limits` (the tests' shorter ones).
    pub fn with_limits(limits: DumpLimits) -> Self {
        DumpPages {
            inner: Mutex::default(),
            limits,
        }
    }

    /// Drops the dumps idle for longer than the limit; how many are left.
    fn reap(&self) -> usize {
        let idle = self.limits.idle;
        let mut open = lock(&self.inner);
        open.dumps.retain(|_, p| {
            // A dump whose page is being made is in use.
            p.try_lock().map_or(true, |g| g.touched.elapsed() < idle)
        });
        open.dumps.len()
    }

    /// Checks that one more paged dump may open (before its copy is taken).
    pub fn check_room(&self) -> Result<(), DumpError> {
        let max = self.limits.max_open;
        if self.reap() >= max {
            return Err(DumpError::Full(format!(
                "{max} paged dumps are open (the most at once): read them to their last page, or wait {} s for an idle one to expire",
                self.limits.idle.as_secs()
            )));
        }
        Ok(())
    }

    /// Opens a paged dump of `copy` with pages of `page_bytes` and serves its first page.
    /// Blocking (the dump's image is made here): call it on a blocking thread.
    pub fn open(self: &Arc<Self>, copy: DumpCopy, page_bytes: u64) -> Result<DumpPage, DumpError> {
        self.check_room()?;
        let (stream, held, height) = Stream::start(copy);
        let id = {
            let mut open = lock(&self.inner);
            let others: u64 = open
                .dumps
                .values()
                .map(|p| p.try_lock().map_or(0, |g| g.held))
                .sum();
            let (max_open, max_held) = (self.limits.max_open, self.limits.max_held_bytes);
            if open.dumps.len() >= max_open || others + held > max_held {
                return Err(DumpError::Full(format!(
                    "the open paged dumps would hold about {} bytes with this one ({held}), more than {max_held}: read the open ones to their last page first",
                    others + held
                )));
            }
            open.next_id += 1;
            let id = open.next_id;
            let paged = Paged {
                stream,
                page_bytes: page_bytes as usize,
                height,
                held,
                next_page: 0,
                offset: 0,
                last: None,
                touched: Instant::now(),
            };
            open.dumps.insert(id, Arc::new(Mutex::new(paged)));
            id
        };
        self.expire_later(id);
        self.page(&cursor(id, 0))
    }

    /// Drops dump `id` once it has been idle for the limit (a thread that wakes as often),
    /// so an abandoned dump lets its copy go without another call.
    fn expire_later(self: &Arc<Self>, id: u64) {
        let weak: Weak<Self> = Arc::downgrade(self);
        let idle = self.limits.idle;
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(idle);
                let Some(pages) = weak.upgrade() else { return };
                pages.reap();
                if !lock(&pages.inner).dumps.contains_key(&id) {
                    return;
                }
            }
        });
    }

    /// The page `c` names: the next one (made now, waiting for the writer) or the last one
    /// served again. Blocking: call it on a blocking thread.
    pub fn page(&self, c: &str) -> Result<DumpPage, DumpError> {
        let (id, page) = parse_cursor(c)?;
        self.reap();
        let paged = lock(&self.inner).dumps.get(&id).cloned().ok_or_else(|| {
            DumpError::Cursor(format!(
                "no open paged dump {id}: unknown, read to its end, or idle for over {} s",
                self.limits.idle.as_secs()
            ))
        })?;
        let mut p = lock(&paged);
        p.touched = Instant::now();
        if let Some(last) = p.last.as_ref().filter(|l| l.page == page) {
            return Ok(last.clone());
        }
        if page != p.next_page {
            return Err(DumpError::Cursor(format!(
                "page {page} of dump {id} is neither the next ({}) nor the last served",
                p.next_page
            )));
        }
        let max = p.page_bytes;
        let bytes = p.stream.take(max);
        let data = String::from_utf8(bytes).expect("pages are cut at character boundaries");
        let done = p.stream.is_done();
        let out = DumpPage {
            dump: id,
            height: p.height,
            page,
            offset: p.offset,
            next: (!done).then(|| cursor(id, page + 1)),
            data,
        };
        p.offset += out.data.len() as u64;
        p.next_page += 1;
        p.last = Some(out.clone());
        drop(p);
        if done {
            // Read to its end: its copy goes now.
            lock(&self.inner).dumps.remove(&id);
        }
        Ok(out)
    }

    /// Paged dumps open now.
    pub fn open_count(&self) -> usize {
        self.reap()
    }
}
