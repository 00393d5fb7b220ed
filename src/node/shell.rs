//! The shell that runs a [`NodeCore`]: Rhai execution and sealing block the thread, so one
//! thread owns the core and takes its work over a channel, each piece with a reply channel.
//! Notifications go out on a broadcast channel (a slow subscriber loses the oldest and is told
//! how many, the node never waits for it); the head is published on a watch channel, so that
//! reading it never waits behind a seal.

use super::core::{NodeCore, NodeEvent, Request};
use super::error::NodeError;
use super::views::HeadView;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use tokio::sync::{broadcast, oneshot, watch};

/// Stack of the node's thread: script calls need 3 MiB of headroom beside the node's own.
pub const NODE_STACK_BYTES: usize = 16 * 1024 * 1024;
/// Notifications a subscriber may fall behind by before it loses the oldest.
pub const DEFAULT_EVENT_CAPACITY: usize = 4096;

/// Work for the node's thread. It returns the reply to send, which the thread sends only
/// after it published the head and the events the work produced: whoever gets a reply and
/// then reads [`NodeHandle::head`] sees its own write.
type Job = Box<dyn FnOnce(&mut NodeCore) -> Reply + Send>;
type Reply = Box<dyn FnOnce() + Send>;

enum Msg {
    Job(Job),
    Shutdown,
}

/// How the shell runs.
#[derive(Clone, Copy, Debug)]
pub struct ShellConfig {
    /// The broadcast channel's capacity ([`DEFAULT_EVENT_CAPACITY`]).
    pub event_capacity: usize,
    /// Threads that answer past-height reads ([`PAST_READ_THREADS`]); 0 answers them on the
    /// node's thread, as before issue 31 (the benches compare both).
    pub past_readers: usize,
}

impl Default for ShellConfig {
    fn default() -> Self {
        ShellConfig {
            event_capacity: DEFAULT_EVENT_CAPACITY,
            past_readers: PAST_READ_THREADS,
        }
    }
}

/// Threads that answer past-height reads (issue 31 item 7): the replay from a checkpoint and
/// the read run there, not on the node's thread, so the live node keeps answering.
pub const PAST_READ_THREADS: usize = 2;

/// Work for a past-read thread.
type PastTask = Box<dyn FnOnce() + Send>;

/// A running node: cheap to clone, usable from any thread and any async task.
#[derive(Clone)]
pub struct NodeHandle {
    tx: mpsc::Sender<Msg>,
    /// The past-read threads' queue (`None`: past reads run on the node's thread).
    past: Option<mpsc::Sender<PastTask>>,
    events: broadcast::Sender<Arc<NodeEvent>>,
    head: watch::Receiver<HeadView>,
}

/// Runs `core` on a thread of its own with the default [`ShellConfig`].
pub fn spawn(core: NodeCore) -> NodeHandle {
    spawn_with(core, ShellConfig::default())
}

/// Runs `core` on a thread of its own. The thread ends when every handle is dropped or
/// [`NodeHandle::shutdown`] is called.
pub fn spawn_with(core: NodeCore, cfg: ShellConfig) -> NodeHandle {
    let (tx, rx) = mpsc::channel::<Msg>();
    let (events, _) = broadcast::channel(cfg.event_capacity.max(1));
    let (head_tx, head) = watch::channel(core.head());
    let ev = events.clone();
    std::thread::Builder::new()
        .name("cowboy-node".into())
        .stack_size(NODE_STACK_BYTES)
        .spawn(move || run(core, rx, ev, head_tx))
        .expect("spawn the node thread");
    NodeHandle {
        tx,
        past: (cfg.past_readers > 0).then(|| spawn_past_readers(cfg.past_readers)),
        events,
        head,
    }
}

/// The past-read threads, taking tasks from one queue; they end when every handle is gone.
/// Each has the node thread's stack: a replay runs scripts.
fn spawn_past_readers(threads: usize) -> mpsc::Sender<PastTask> {
    let (tx, rx) = mpsc::channel::<PastTask>();
    let rx = Arc::new(std::sync::Mutex::new(rx));
    for i in 0..threads {
        let rx = rx.clone();
        std::thread::Builder::new()
            .name(format!("cowboy-past-{i}"))
            .stack_size(NODE_STACK_BYTES)
            .spawn(move || {
                yield_to_the_node();
                loop {
                    let task = rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                    match task {
                        Ok(task) => task(),
                        Err(_) => break,
                    }
                }
            })
            .expect("spawn a past-read thread");
    }
    tx
}

/// Lowers the calling past-read thread's scheduling priority by 10 nice steps (to at most
/// 19), so that a stream of cold past reads (each a replay of up to a few hundred busy
/// blocks) yields the CPU to the node's thread and its block interval; the reads still get
/// what the node leaves idle. A precaution, not measured alone: the node's 10 blocks a second
/// cut to 1.5-3.8 under such reads at a 100,000-timer backlog was `devnet_getBalance`
/// replaying on the node's thread itself (BENCHMARKS.md, ninth session), and nicing without
/// that fix changed nothing there.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn yield_to_the_node() {
    use std::ffi::{c_int, c_uint};
    unsafe extern "C" {
        fn gettid() -> c_int;
        fn getpriority(which: c_int, who: c_uint) -> c_int;
        fn setpriority(which: c_int, who: c_uint, prio: c_int) -> c_int;
    }
    const PRIO_PROCESS: c_int = 0;
    // SAFETY: all three take and return plain integers; on Linux `PRIO_PROCESS` with a thread
    // id names that one thread (threads are tasks), and raising a nice value needs no
    // privilege. A failure leaves the thread at the node's priority, as before.
    #[allow(unsafe_code)]
    unsafe {
        let tid = gettid() as c_uint;
        let nice = getpriority(PRIO_PROCESS, tid);
        setpriority(PRIO_PROCESS, tid, (nice + 10).min(19));
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn yield_to_the_node() {}

/// Where a read's answer arrives.
type Receiver<T> = oneshot::Receiver<Result<T, NodeError>>;

/// How many queued requests the node's thread answers between two blocks when interval
/// mining is behind (a block took longer than the block time, so the next is already due):
/// requests are neither starved by the mining nor able to stop it (issue 31, "the live node
/// keeps answering"; Spec note 34).
const SERVED_PER_LATE_BLOCK: usize = 64;

fn run(
    mut core: NodeCore,
    rx: mpsc::Receiver<Msg>,
    events: broadcast::Sender<Arc<NodeEvent>>,
    head: watch::Sender<HeadView>,
) {
    let start = Instant::now();
    let now_ms = || start.elapsed().as_millis() as u64;
    let mut reply: Option<Reply> = None;
    let mut newest_checkpoint = core.newest_checkpoint();
    // Requests answered since the last block while a block was already due.
    let mut served_behind = 0;
    loop {
        let due = core.next_deadline();
        let behind = due.is_some_and(|d| d <= now_ms());
        let msg = match due {
            None => rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
            // A block is due (the last took longer than the block time): what is already
            // queued is still answered, up to `SERVED_PER_LATE_BLOCK` between two blocks.
            Some(_) if behind => rx.try_recv().map_err(|e| match e {
                mpsc::TryRecvError::Empty => mpsc::RecvTimeoutError::Timeout,
                mpsc::TryRecvError::Disconnected => mpsc::RecvTimeoutError::Disconnected,
            }),
            Some(due) => rx.recv_timeout(Duration::from_millis(due.saturating_sub(now_ms()))),
        };
        let served = matches!(msg, Ok(Msg::Job(_)));
        match msg {
            Ok(Msg::Job(job)) => reply = Some(job(&mut core)),
            Ok(Msg::Shutdown) | Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        // The block waits while fewer than `SERVED_PER_LATE_BLOCK` were answered since the last.
        if behind && served && served_behind + 1 < SERVED_PER_LATE_BLOCK {
            served_behind += 1;
        } else {
            served_behind = 0;
            core.tick(now_ms());
        }
        while let Some(e) = core.poll_event() {
            // No subscriber: nothing to tell.
            let _ = events.send(Arc::new(e));
        }
        head.send_replace(core.head());
        if let Some(r) = reply.take() {
            r();
        }
        if core.newest_checkpoint() != newest_checkpoint {
            newest_checkpoint = core.newest_checkpoint();
            trim_heap();
        }
    }
}

/// Hands the heap's free pages back to the system (issue 31, Spec note 201): called on the
/// node's thread after a checkpoint was placed (every 256 blocks with a body), which is when
/// the checkpoint budget lets older ones go, and on a past-read thread after a read that
/// built its state ([`trim_heap_now_and_then`]). glibc's `free` gives back only the top of its
/// heap; `malloc_trim` releases the free pages inside it too.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn trim_heap() {
    unsafe extern "C" {
        fn malloc_trim(pad: usize) -> std::ffi::c_int;
    }
    // SAFETY: glibc's `malloc_trim` takes no pointer and may be called at any time from any
    // thread (it takes the arenas' locks); Rust's system allocator is glibc's malloc here.
    #[allow(unsafe_code)]
    unsafe {
        malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim_heap() {}

/// [`trim_heap`] after a past read that built its state (a replay, whose copied pages and
/// blocks the fit may just have let go with older states), at most once a second whatever
/// the threads (issue 31: a stream of cold past reads at a 100,000-timer backlog held the
/// freed heap between the node's trims). On the past-read thread, not the node's.
fn trim_heap_now_and_then() {
    use std::sync::atomic::{AtomicU64, Ordering};
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    static NEXT_MS: AtomicU64 = AtomicU64::new(0);
    let now = START.get_or_init(Instant::now).elapsed().as_millis() as u64;
    let next = NEXT_MS.load(Ordering::Relaxed);
    if now >= next
        && NEXT_MS
            .compare_exchange(next, now + 1000, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    {
        trim_heap();
    }
}

impl NodeHandle {
    fn submit(&self, job: Job) -> Result<(), NodeError> {
        self.tx
            .send(Msg::Job(job))
            .map_err(|_| NodeError::NodeStopped)
    }

    /// Queues `f` on the node's thread; its result arrives on the receiver once the head and
    /// the events it caused are published (a caller reads its own writes).
    fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut NodeCore) -> T + Send + 'static,
    ) -> Result<oneshot::Receiver<T>, NodeError> {
        let (tx, rx) = oneshot::channel();
        self.submit(Box::new(move |core| {
            let out = f(core);
            Box::new(move || {
                let _ = tx.send(out);
            })
        }))?;
        Ok(rx)
    }

    /// Applies a request on the node's thread.
    pub async fn request<R: Request>(&self, r: R) -> Result<R::Reply, NodeError> {
        let rx = self.run(move |core| core.apply(r))?;
        rx.await.map_err(|_| NodeError::NodeStopped)?
    }

    /// [`request`](Self::request), blocking the calling thread (not for async tasks).
    pub fn request_blocking<R: Request>(&self, r: R) -> Result<R::Reply, NodeError> {
        let rx = self.run(move |core| core.apply(r))?;
        rx.blocking_recv().map_err(|_| NodeError::NodeStopped)?
    }

    /// Reads the node on its thread (after the work queued before it).
    pub async fn query<T: Send + 'static>(
        &self,
        f: impl FnOnce(&NodeCore) -> T + Send + 'static,
    ) -> Result<T, NodeError> {
        let rx = self.run(move |core| f(core))?;
        rx.await.map_err(|_| NodeError::NodeStopped)
    }

    /// [`query`](Self::query), blocking the calling thread (not for async tasks).
    pub fn query_blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&NodeCore) -> T + Send + 'static,
    ) -> Result<T, NodeError> {
        let rx = self.run(move |core| f(core))?;
        rx.blocking_recv().map_err(|_| NodeError::NodeStopped)
    }

    /// Bench and test hook: [`query_blocking`](Self::query_blocking) with the node mutable
    /// (a bench's hooks on [`NodeCore`], such as `test_hook_drop_part`).
    #[doc(hidden)]
    pub fn test_hook_blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut NodeCore) -> T + Send + 'static,
    ) -> Result<T, NodeError> {
        let rx = self.run(f)?;
        rx.blocking_recv().map_err(|_| NodeError::NodeStopped)
    }

    /// Runs a read request: on the node's thread, or (pinned to a past height) on a past-read
    /// thread, the node's thread only taking what the replay starts from; a read whose answer
    /// is a replay ([`Query::answer`]: a trace rebuilt) is finished on a past-read thread too.
    pub async fn ask<Q: super::Query>(&self, q: Q) -> Result<Q::Reply, NodeError> {
        let rx = match q.past_height().filter(|_| self.past.is_some()) {
            None => self.answered(q)?,
            Some(h) => self.past_read(h, q)?,
        };
        rx.await.map_err(|_| NodeError::NodeStopped)?
    }

    /// [`ask`](Self::ask), blocking the calling thread (not for async tasks).
    pub fn ask_blocking<Q: super::Query>(&self, q: Q) -> Result<Q::Reply, NodeError> {
        let rx = match q.past_height().filter(|_| self.past.is_some()) {
            None => self.answered(q)?,
            Some(h) => self.past_read(h, q)?,
        };
        rx.blocking_recv().map_err(|_| NodeError::NodeStopped)?
    }

    /// Starts a read on the node's thread ([`Query::answer`]); what it leaves to finish runs
    /// on a past-read thread (on the node's thread when the shell has none).
    fn answered<Q: super::Query>(&self, q: Q) -> Result<Receiver<Q::Reply>, NodeError> {
        self.answer_with(move |core| q.answer(core))
    }

    /// Runs `f` on the node's thread; what its [`Answer`](super::Answer) leaves to finish
    /// (a replay) runs on a past-read thread, on the node's thread when the shell has none.
    fn answer_with<T: Send + 'static>(
        &self,
        f: impl FnOnce(&NodeCore) -> super::Answer<T> + Send + 'static,
    ) -> Result<Receiver<T>, NodeError> {
        let (tx, rx) = oneshot::channel();
        let queue = self.past.clone();
        self.submit(Box::new(move |core| {
            let answer = f(core);
            Box::new(move || match (answer, queue) {
                (super::Answer::Off(f), Some(queue)) => {
                    let task: PastTask = Box::new(move || {
                        let _ = tx.send(f());
                    });
                    // The past-read threads end only with the handles: one is alive here.
                    let _ = queue.send(task);
                }
                (answer, _) => {
                    let _ = tx.send(answer.finish());
                }
            })
        }))?;
        Ok(rx)
    }

    /// [`answer_with`](Self::answer_with), blocking the calling thread (not for async tasks):
    /// the local dashboard's view of a past height is built this way (issue 31 item 7).
    pub fn answer_blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&NodeCore) -> super::Answer<T> + Send + 'static,
    ) -> Result<T, NodeError> {
        let rx = self.answer_with(f)?;
        rx.blocking_recv().map_err(|_| NodeError::NodeStopped)?
    }

    /// Runs `f` on an immutable copy of the node taken after the work queued before it
    /// ([`NodeCore::freeze`]), on a past-read thread (issue 31 item 7: an export or a
    /// recording does not hold the node's thread); on the node's thread itself when the shell
    /// has no past-read threads.
    pub async fn frozen<T: Send + 'static>(
        &self,
        f: impl FnOnce(&NodeCore) -> T + Send + 'static,
    ) -> Result<T, NodeError> {
        let Some(queue) = self.past.clone() else {
            return self.query(f).await;
        };
        let (tx, rx) = oneshot::channel();
        self.submit(Box::new(move |core| {
            let copy = core.freeze();
            Box::new(move || {
                let task: PastTask = Box::new(move || {
                    let _ = tx.send(f(&copy.build()));
                });
                // The past-read threads end only with the handles: one is alive here.
                let _ = queue.send(task);
            })
        }))?;
        rx.await.map_err(|_| NodeError::NodeStopped)
    }

    /// Starts a read as of sealed block `h`: the node's thread answers the head itself (and
    /// refusals), or leases a past state's slot (with the seed to fill it when it is new); the
    /// replay and the read run on a past-read thread.
    fn past_read<Q: super::Query>(&self, h: u64, q: Q) -> Result<Receiver<Q::Reply>, NodeError> {
        self.answer_with(move |core| match core.past_lease(h) {
            Ok(None) => super::Answer::Done(q.run(core)),
            Ok(Some(lease)) => super::Answer::Off(Box::new(move || {
                let builds = lease.builds();
                let read = lease.read(|past| q.run_past(past)).and_then(|r| r);
                if builds {
                    trim_heap_now_and_then();
                }
                read
            })),
            Err(e) => super::Answer::Done(Err(e)),
        })
    }

    /// The head as of the last request or block: never waits (a seal in progress shows the
    /// head before it).
    pub fn head(&self) -> HeadView {
        self.head.borrow().clone()
    }

    /// A watch of the head (changes after every request and block).
    pub fn watch_head(&self) -> watch::Receiver<HeadView> {
        self.head.clone()
    }

    /// Notifications from now on. A receiver that falls more than the channel's capacity
    /// behind gets `RecvError::Lagged(n)`, `n` the notifications it lost.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<NodeEvent>> {
        self.events.subscribe()
    }

    /// Stops the node's thread after the work queued before this call.
    pub fn shutdown(&self) {
        let _ = self.tx.send(Msg::Shutdown);
    }

    /// Has the node's thread ended?
    pub fn is_stopped(&self) -> bool {
        self.head.has_changed().is_err()
    }
}
