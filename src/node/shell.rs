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
}

impl Default for ShellConfig {
    fn default() -> Self {
        ShellConfig {
            event_capacity: DEFAULT_EVENT_CAPACITY,
        }
    }
}

/// A running node: cheap to clone, usable from any thread and any async task.
#[derive(Clone)]
pub struct NodeHandle {
    tx: mpsc::Sender<Msg>,
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
    NodeHandle { tx, events, head }
}

fn run(
    mut core: NodeCore,
    rx: mpsc::Receiver<Msg>,
    events: broadcast::Sender<Arc<NodeEvent>>,
    head: watch::Sender<HeadView>,
) {
    let start = Instant::now();
    let now_ms = || start.elapsed().as_millis() as u64;
    let mut reply: Option<Reply> = None;
    loop {
        let msg = match core.next_deadline() {
            None => rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
            Some(due) => {
                let now = now_ms();
                if due <= now {
                    Err(mpsc::RecvTimeoutError::Timeout)
                } else {
                    rx.recv_timeout(Duration::from_millis(due - now))
                }
            }
        };
        match msg {
            Ok(Msg::Job(job)) => reply = Some(job(&mut core)),
            Ok(Msg::Shutdown) | Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        core.tick(now_ms());
        while let Some(e) = core.poll_event() {
            // No subscriber: nothing to tell.
            let _ = events.send(Arc::new(e));
        }
        head.send_replace(core.head());
        if let Some(r) = reply.take() {
            r();
        }
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

    /// Runs a read request on the node's thread.
    pub async fn ask<Q: super::Query>(&self, q: Q) -> Result<Q::Reply, NodeError> {
        self.query(move |core| q.run(core)).await?
    }

    /// [`ask`](Self::ask), blocking the calling thread (not for async tasks).
    pub fn ask_blocking<Q: super::Query>(&self, q: Q) -> Result<Q::Reply, NodeError> {
        self.query_blocking(move |core| q.run(core))?
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
