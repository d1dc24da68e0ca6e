//! The inspector's server: connections accepted on the loopback socket and served by
//! a fixed pool of workers ([`crate::pool`]), one request per connection. A request's
//! head is read within a byte cap and a deadline and checked (host, token, origin,
//! size) before any byte of its body is read; then it is answered from what the game
//! handed over (the samples, the overview), or queued for the game's next sync point,
//! which answers within the inspector's share of the game's time. The server never
//! touches the world.

use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::answer::{Answer, WorldAnswer};
use crate::http;
use crate::limiter::Limiter;
use crate::pool::{Pool, Taken, WORKERS};
use crate::reply::Reply;
use crate::request::{self, Expected, Refusal, Route};
use crate::sample::Sample;

/// How long a client stays "watching" after its last request: the game samples
/// frames only while someone watches.
const WATCH_FOR: Duration = Duration::from_secs(3);
/// How long a request that needs the world waits for the game.
const WAIT_FOR_GAME: Duration = Duration::from_secs(3);
/// How long a client may take to send a request's head, and then its body.
const HEAD_TIMEOUT: Duration = Duration::from_secs(2);
const BODY_TIMEOUT: Duration = Duration::from_secs(5);
/// How long writing an answer may take.
const WRITE_TIMEOUT: Duration = Duration::from_secs(2);
/// After a refusal, how long and how much of the rest of the request is read and
/// dropped, so that the client reads the refusal rather than a reset.
const LINGER: Duration = Duration::from_millis(250);
const LINGER_BYTES: usize = 256 * 1024;
/// Requests waiting for the game at once, at most: the other workers stay free for
/// the page's polls.
const MAX_WORLD_WAITERS: usize = WORKERS / 2;

/// What the game and the server's threads share.
pub(crate) struct Shared {
    pub(crate) token: String,
    pub(crate) writes: bool,
    pub(crate) max_body: usize,
    pub(crate) history: usize,
    /// The share of the game's time the requests for the world may take.
    pub(crate) world_budget: f64,
    /// Whether a client asked for something in the last [`WATCH_FOR`]: the game
    /// samples frames only then.
    pub(crate) watched: AtomicBool,
    /// Whether requests wait in `state.requests` and the budget allows answering.
    pub(crate) pending: AtomicBool,
    /// Whether a client asked for the overview (and the budget allows building one).
    pub(crate) overview_wanted: AtomicBool,
    /// When the last request with the token came, in nanoseconds since `epoch`.
    epoch: Instant,
    last_request: AtomicU64,
    limiter: Mutex<Limiter>,
    world_waiters: AtomicUsize,
    state: Mutex<State>,
}

/// What the game hands over (samples, the overview) and what it is asked.
#[derive(Default)]
pub(crate) struct State {
    /// The latest samples, oldest first (shared, so that a request takes them out
    /// from under the lock and writes their JSON without holding the game up).
    pub(crate) frames: VecDeque<Arc<Sample>>,
    /// The latest overview, as JSON.
    pub(crate) overview: Option<String>,
    /// Requests for the game's next sync point, oldest first.
    pub(crate) requests: Vec<Queued>,
    next_id: u64,
    /// When the game may next work for the requests: until then it has spent its
    /// share of the game's time.
    next_work_at: Option<Instant>,
}

/// A request waiting for the game, with where its answer goes.
pub(crate) struct Queued {
    id: u64,
    pub(crate) route: Route,
    pub(crate) reply: mpsc::Sender<WorldAnswer>,
}

impl Shared {
    pub(crate) fn new(token: String, config: &crate::InspectorConfig) -> Shared {
        Shared {
            token,
            writes: config.writes,
            max_body: config.max_body,
            history: config.history.max(1),
            world_budget: config.world_budget.clamp(1e-6, 1.0),
            watched: AtomicBool::new(false),
            pending: AtomicBool::new(false),
            overview_wanted: AtomicBool::new(false),
            epoch: Instant::now(),
            last_request: AtomicU64::new(0),
            limiter: Mutex::new(Limiter::new(config.max_requests_per_second)),
            world_waiters: AtomicUsize::new(0),
            state: Mutex::new(State::default()),
        }
    }

    /// The shared state. A thread that panicked holding it left samples and queues
    /// that are each whole: they are used as they are.
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Notes that the game spent `spent` on requests: it does no more for them until
    /// that is `world_budget` of the time since (after what it already owed).
    pub(crate) fn charge(&self, state: &mut State, spent: Duration) {
        let now = Instant::now();
        let from = state.next_work_at.map_or(now, |at| at.max(now));
        state.next_work_at = Some(from + spent.div_f64(self.world_budget));
    }

    fn since_epoch(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    fn note_request(&self) {
        self.last_request.store(self.since_epoch(), Ordering::Relaxed);
        self.watched.store(true, Ordering::Relaxed);
    }

    /// How long until the watch ends, if someone watches.
    fn watch_left(&self) -> Option<Duration> {
        if !self.watched.load(Ordering::Relaxed) {
            return None;
        }
        let quiet = self.since_epoch().saturating_sub(self.last_request.load(Ordering::Relaxed));
        Some(Duration::from_nanos((WATCH_FOR.as_nanos() as u64).saturating_sub(quiet)).max(Duration::from_millis(1)))
    }

    fn expire_watch(&self) {
        let quiet = self.since_epoch().saturating_sub(self.last_request.load(Ordering::Relaxed));
        if quiet > WATCH_FOR.as_nanos() as u64 {
            self.watched.store(false, Ordering::Relaxed);
        }
    }
}

/// The running server: the acceptor's thread and the workers'.
pub(crate) struct Server {
    pool: Arc<Pool>,
    address: SocketAddr,
    acceptor: Option<JoinHandle<()>>,
    workers: Vec<JoinHandle<()>>,
}

/// Serves `listener` until [`Server::stop`].
pub(crate) fn start(listener: TcpListener, shared: Arc<Shared>) -> io::Result<Server> {
    let address = listener.local_addr()?;
    let pool = Arc::new(Pool::new());
    let mut server = Server { pool: Arc::clone(&pool), address, acceptor: None, workers: Vec::new() };
    for worker in 0..WORKERS {
        let (pool_of, shared_of) = (Arc::clone(&pool), Arc::clone(&shared));
        let spawned = std::thread::Builder::new()
            .name(format!("ripple-inspector-{worker}"))
            .spawn(move || work(worker, &pool_of, &shared_of, address.port()));
        match spawned {
            Ok(handle) => server.workers.push(handle),
            Err(error) => {
                server.stop(&shared);
                return Err(error);
            }
        }
    }
    let spawned = std::thread::Builder::new().name("ripple-inspector".into()).spawn(move || accept(&listener, &pool));
    match spawned {
        Ok(handle) => server.acceptor = Some(handle),
        Err(error) => {
            server.stop(&shared);
            return Err(error);
        }
    }
    Ok(server)
}

impl Server {
    /// Stops serving: connections are cut off, waiting requests dropped, and every
    /// thread joined (the acceptor's only if it could be woken).
    pub(crate) fn stop(&mut self, shared: &Shared) {
        self.pool.close();
        shared.lock().requests.clear();
        let woken = TcpStream::connect_timeout(&self.address, Duration::from_secs(1)).is_ok();
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
        match self.acceptor.take() {
            Some(acceptor) if woken => {
                let _ = acceptor.join();
            }
            // Blocked in accept for good: left to end with the process.
            _ => {}
        }
    }
}

/// Accepts connections into the pool until it closes.
fn accept(listener: &TcpListener, pool: &Pool) {
    loop {
        let accepted = listener.accept();
        if pool.is_closed() {
            return;
        }
        match accepted {
            Ok((stream, _)) => pool.admit(stream),
            // Out of descriptors, say: a pause rather than a spin.
            Err(_) => std::thread::sleep(Duration::from_millis(10)),
        }
    }
}

/// A worker: serves connections from the pool until it closes. While someone
/// watches, a waiting worker wakes when the watch would end, to end it: the worker
/// that served the latest request always waits so, and nothing wakes while nobody
/// watches.
fn work(worker: usize, pool: &Pool, shared: &Shared, port: u16) {
    loop {
        match pool.take(worker, shared.watch_left()) {
            Taken::Closed => return,
            Taken::Nothing => {}
            Taken::Connection(stream) => serve(&stream, worker, pool, shared, port),
        }
        shared.expire_watch();
    }
}

/// What reading a request came to.
enum Incoming {
    /// The client went away before a whole request.
    Gone,
    Refused(Refusal),
    Request(Route),
}

/// Serves one connection: one request, one answer.
fn serve(stream: &TcpStream, worker: usize, pool: &Pool, shared: &Shared, port: u16) {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    match read(stream, shared, port) {
        Incoming::Gone => {}
        Incoming::Refused(refusal) => {
            send(stream, &Reply::refusal(refusal));
            linger(stream);
        }
        Incoming::Request(route) => {
            pool.answering(worker);
            send(stream, &route_reply(shared, route));
        }
    }
}

/// Reads a request: its head within [`HEAD_TIMEOUT`], which must pass
/// [`request::admit`] (and, with the token, the rate limit) before its body is read
/// within [`BODY_TIMEOUT`].
fn read(stream: &TcpStream, shared: &Shared, port: u16) -> Incoming {
    let (head, start) = match http::read_head(&mut Deadline::new(stream, HEAD_TIMEOUT)) {
        Ok(Some(read)) => read,
        Ok(None) => return Incoming::Gone,
        Err(refusal) => return Incoming::Refused(refusal),
    };
    let expected = Expected { port, token: &shared.token, max_body: shared.max_body };
    let admitted = match request::admit(&head, &expected) {
        Ok(admitted) => admitted,
        Err(refusal) => return Incoming::Refused(refusal),
    };
    if admitted.authenticated {
        shared.note_request();
        if !shared.limiter.lock().unwrap_or_else(PoisonError::into_inner).allow() {
            let refusal = Refusal::new(429, "too many requests: the inspector answers a bounded number per second");
            return Incoming::Refused(refusal);
        }
    }
    // A client that waits to be told to send its body (curl does, past 1 KiB) is told.
    let expects = head.header("Expect").is_some_and(|e| e.eq_ignore_ascii_case("100-continue"));
    if expects && admitted.body_length > start.len() {
        let _ = (&mut &*stream).write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
    }
    let body = match http::read_body(&mut Deadline::new(stream, BODY_TIMEOUT), start, admitted.body_length) {
        Ok(Some(body)) => body,
        Ok(None) => return Incoming::Gone,
        Err(refusal) => return Incoming::Refused(refusal),
    };
    match request::parse(&head.method, &head.target, head.header("X-Ripple-Token"), &body, &shared.token) {
        Ok(route) => Incoming::Request(route),
        Err(refusal) => Incoming::Refused(refusal),
    }
}

/// Reads from a socket until a deadline: each read waits at most what is left.
struct Deadline<'a> {
    stream: &'a TcpStream,
    until: Instant,
}

impl<'a> Deadline<'a> {
    fn new(stream: &'a TcpStream, within: Duration) -> Self {
        Deadline { stream, until: Instant::now() + within }
    }
}

impl Read for Deadline<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        self.stream.set_read_timeout(Some(left))?;
        (&mut &*self.stream).read(out)
    }
}

/// Writes `reply` and ends the connection's sending side; a client gone away is
/// nobody's problem.
fn send(stream: &TcpStream, reply: &Reply) {
    let _ = reply.write_to(&mut &*stream);
    let _ = stream.shutdown(Shutdown::Write);
}

/// After a refusal, reads and drops what the client still sends, for a moment, so
/// that closing does not reset the connection before the client read the refusal.
fn linger(stream: &TcpStream) {
    let mut reader = Deadline::new(stream, LINGER);
    let (mut chunk, mut dropped) = ([0u8; 4096], 0);
    while dropped < LINGER_BYTES {
        match reader.read(&mut chunk) {
            Ok(read @ 1..) => dropped += read,
            _ => break,
        }
    }
}

fn route_reply(shared: &Shared, route: Route) -> Reply {
    match route {
        Route::Page => Reply::page(),
        Route::Script => Reply::script(),
        Route::Style => Reply::style(),
        Route::Overview => overview(shared),
        Route::Live { since } => {
            let (latest, fresh) = {
                let state = shared.lock();
                let latest = state.frames.back().map_or(0, |sample| sample.frame);
                let fresh: Vec<Arc<Sample>> = state.frames.iter().filter(|s| s.frame > since).cloned().collect();
                (latest, fresh)
            };
            let frames: Vec<String> = fresh.iter().map(|sample| sample.to_json()).collect();
            Reply::json(Answer {
                status: 200,
                body: format!("{{\"latest\":{latest},\"frames\":[{}]}}", frames.join(",")),
            })
        }
        route if route.writes() && !shared.writes => {
            Reply::json(Answer::error(403, "writes are off: the game did not enable them (InspectorConfig::writes)"))
        }
        route => ask_world(shared, route),
    }
}

/// A place among the requests waiting for the game ([`MAX_WORLD_WAITERS`]).
struct WorldWaiter<'a>(&'a AtomicUsize);

impl<'a> WorldWaiter<'a> {
    fn enter(shared: &'a Shared) -> Option<Self> {
        let waiters = &shared.world_waiters;
        if waiters.fetch_add(1, Ordering::AcqRel) >= MAX_WORLD_WAITERS {
            waiters.fetch_sub(1, Ordering::AcqRel);
            return None;
        }
        Some(WorldWaiter(waiters))
    }
}

impl Drop for WorldWaiter<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

fn busy() -> Reply {
    Reply::json(Answer::error(503, "busy: as many requests as the inspector takes already wait for the game"))
}

fn no_sync() -> Reply {
    Reply::json(Answer::error(503, "the game has not reached a sync point (Inspector::sync) for 3 s"))
}

/// Queues `route` for the game and waits for its answer. The game is told of it
/// (`pending`) only once its budget allows, so a client asking without pause gets the
/// game's time it is allowed and no more.
fn ask_world(shared: &Shared, route: Route) -> Reply {
    let Some(_waiting) = WorldWaiter::enter(shared) else { return busy() };
    let (sender, receiver) = mpsc::channel();
    let id = {
        let mut state = shared.lock();
        state.next_id += 1;
        let id = state.next_id;
        state.requests.push(Queued { id, route, reply: sender });
        id
    };
    let deadline = Instant::now() + WAIT_FOR_GAME;
    loop {
        let now = Instant::now();
        let budget_back = shared.lock().next_work_at.filter(|&at| at > now);
        if budget_back.is_none() {
            shared.pending.store(true, Ordering::Release);
        }
        let until = budget_back.map_or(deadline, |at| at.min(deadline));
        match receiver.recv_timeout(until.saturating_duration_since(now)) {
            Ok(answer) => return Reply::json(answer.into_answer()),
            Err(RecvTimeoutError::Timeout) if Instant::now() < deadline => {}
            Err(_) => {
                shared.lock().requests.retain(|queued| queued.id != id);
                return no_sync();
            }
        }
    }
}

/// The latest overview (at most one request old while the budget allows), asking the
/// game for a new one. Before the game's first watched sync there is none, and the
/// request waits for it as a request for the world would.
fn overview(shared: &Shared) -> Reply {
    let deadline = Instant::now() + WAIT_FOR_GAME;
    let mut waiting: Option<WorldWaiter<'_>> = None;
    loop {
        let (overview, allowed) = {
            let state = shared.lock();
            (state.overview.clone(), state.next_work_at.is_none_or(|at| at <= Instant::now()))
        };
        if allowed {
            shared.overview_wanted.store(true, Ordering::Relaxed);
        }
        if let Some(body) = overview {
            return Reply::json(Answer { status: 200, body });
        }
        if waiting.is_none() {
            match WorldWaiter::enter(shared) {
                Some(place) => waiting = Some(place),
                None => return busy(),
            }
        }
        if Instant::now() >= deadline {
            return no_sync();
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}
