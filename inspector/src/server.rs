//! The inspector's server thread: it reads requests from the loopback socket, checks
//! them, answers what it can from the samples the game handed over, and queues the
//! rest for the game's next sync point, waiting for the answer there. It never
//! touches the world.

use std::collections::VecDeque;
use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use crate::answer::Answer;
use crate::request::{self, Refusal, Route};
use crate::sample::Sample;

/// The page, shipped in the crate.
const PAGE: &str = include_str!("../page/index.html");
/// How long a client stays "watching" after its last request: the game samples frames
/// only while someone watches.
const WATCH_FOR: Duration = Duration::from_secs(3);
/// How long a request that needs the world waits for the game's next sync point.
const WAIT_FOR_GAME: Duration = Duration::from_secs(3);

/// What the game and the server thread share.
pub(crate) struct Shared {
    pub(crate) token: String,
    pub(crate) writes: bool,
    pub(crate) max_body: usize,
    pub(crate) max_requests_per_second: u32,
    pub(crate) history: usize,
    /// Whether a client asked for something in the last [`WATCH_FOR`]: the game
    /// samples frames only then.
    pub(crate) watched: AtomicBool,
    /// Whether requests wait in `state.requests`.
    pub(crate) pending: AtomicBool,
    /// Whether a client asked for the overview since the game last wrote one.
    pub(crate) overview_wanted: AtomicBool,
    pub(crate) shutdown: AtomicBool,
    pub(crate) state: Mutex<State>,
}

/// What the game hands over (samples, the overview) and what it is asked.
#[derive(Default)]
pub(crate) struct State {
    /// The latest samples, oldest first.
    pub(crate) frames: VecDeque<Sample>,
    /// The latest overview, as JSON.
    pub(crate) overview: Option<String>,
    /// Requests for the game's next sync point, with where to send each answer.
    pub(crate) requests: Vec<(Route, mpsc::Sender<Answer>)>,
}

/// Runs until `shared.shutdown` is set.
pub(crate) fn serve(server: tiny_http::Server, shared: Arc<Shared>, port: u16) {
    let mut last_request = Instant::now() - WATCH_FOR;
    let mut limiter = Limiter::new(shared.max_requests_per_second);
    while !shared.shutdown.load(Ordering::Relaxed) {
        if last_request.elapsed() > WATCH_FOR {
            shared.watched.store(false, Ordering::Relaxed);
        }
        let request = match server.recv_timeout(Duration::from_millis(100)) {
            Ok(Some(request)) => request,
            Ok(None) => continue,
            Err(_) => break,
        };
        let mut request = request;
        let reply = if limiter.allow() {
            handle(&shared, port, &mut request, &mut last_request)
        } else {
            Reply::Json(Answer::error(429, "too many requests: the inspector answers a bounded number per second"))
        };
        // A client that went away mid-answer is nobody's problem.
        let _ = request.respond(reply.into_response());
    }
}

/// What goes back: the page, or JSON.
enum Reply {
    Page,
    Json(Answer),
}

impl Reply {
    fn into_response(self) -> tiny_http::Response<std::io::Cursor<Vec<u8>>> {
        let (status, body, content_type) = match self {
            Reply::Page => (200, PAGE.to_owned(), "text/html; charset=utf-8"),
            Reply::Json(answer) => (answer.status, answer.body, "application/json"),
        };
        tiny_http::Response::from_string(body)
            .with_status_code(status)
            .with_header(header("Content-Type", content_type))
            .with_header(header("Cache-Control", "no-store"))
            .with_header(header("X-Content-Type-Options", "nosniff"))
            .with_header(header(
                "Content-Security-Policy",
                "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; \
                 img-src 'self' data:",
            ))
    }
}

fn handle(shared: &Shared, port: u16, request: &mut tiny_http::Request, last_request: &mut Instant) -> Reply {
    match read(shared, port, request) {
        Ok(route) => {
            *last_request = Instant::now();
            shared.watched.store(true, Ordering::Relaxed);
            route_reply(shared, route)
        }
        Err(refusal) => Reply::Json(Answer::error(refusal.status, refusal.message)),
    }
}

fn header(name: &str, value: &str) -> tiny_http::Header {
    tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("valid header text")
}

/// Checks the request's host and size and reads it into a route.
fn read(shared: &Shared, port: u16, request: &mut tiny_http::Request) -> Result<Route, Refusal> {
    // A page on another site that resolves its own name to 127.0.0.1 (DNS
    // rebinding) sends its own name as the host: refused.
    let host = request.headers().iter().find(|h| h.field.equiv("Host")).map(|h| h.value.as_str().to_owned());
    let allowed = [format!("127.0.0.1:{port}"), format!("localhost:{port}")];
    if !host.as_deref().is_some_and(|host| allowed.iter().any(|a| a == host)) {
        return Err(Refusal::new(421, "the inspector answers only requests addressed to 127.0.0.1 or localhost"));
    }
    if request.body_length().is_some_and(|length| length > shared.max_body) {
        return Err(Refusal::new(413, format!("the body is longer than {} bytes", shared.max_body)));
    }
    let mut body = Vec::new();
    request
        .as_reader()
        .take(shared.max_body as u64 + 1)
        .read_to_end(&mut body)
        .map_err(|error| Refusal::new(400, format!("the body could not be read: {error}")))?;
    if body.len() > shared.max_body {
        return Err(Refusal::new(413, format!("the body is longer than {} bytes", shared.max_body)));
    }
    let token = request.headers().iter().find(|h| h.field.equiv("X-Ripple-Token")).map(|h| h.value.as_str().to_owned());
    let method = request.method().as_str().to_owned();
    request::parse(&method, request.url(), token.as_deref(), &body, &shared.token)
}

fn route_reply(shared: &Shared, route: Route) -> Reply {
    match route {
        Route::Page => Reply::Page,
        Route::Overview => {
            shared.overview_wanted.store(true, Ordering::Relaxed);
            // The latest overview (at most one request old); before the game's first
            // watched sync there is none, and the request waits for it as a request
            // for the world would.
            let waited = Instant::now();
            loop {
                let overview = shared.state.lock().map(|state| state.overview.clone()).unwrap_or(None);
                match overview {
                    Some(body) => return Reply::Json(Answer { status: 200, body }),
                    None if waited.elapsed() < WAIT_FOR_GAME => std::thread::sleep(Duration::from_millis(5)),
                    None => return Reply::Json(Answer::error(503, "the game has not reached a sync point for 3 s")),
                }
            }
        }
        Route::Live { since } => {
            let Ok(state) = shared.state.lock() else {
                return Reply::Json(Answer::error(500, "the inspector's state is poisoned"));
            };
            let latest = state.frames.back().map_or(0, |sample| sample.frame);
            // Written here, off the game's thread.
            let frames: Vec<String> =
                state.frames.iter().filter(|sample| sample.frame > since).map(Sample::to_json).collect();
            Reply::Json(Answer {
                status: 200,
                body: format!("{{\"latest\":{latest},\"frames\":[{}]}}", frames.join(",")),
            })
        }
        route if route.writes() && !shared.writes => {
            Reply::Json(Answer::error(403, "writes are off: the game did not enable them (InspectorConfig::writes)"))
        }
        route => {
            let (sender, receiver) = mpsc::channel();
            match shared.state.lock() {
                Ok(mut state) => state.requests.push((route, sender)),
                Err(_) => return Reply::Json(Answer::error(500, "the inspector's state is poisoned")),
            }
            shared.pending.store(true, Ordering::Release);
            Reply::Json(receiver.recv_timeout(WAIT_FOR_GAME).unwrap_or_else(|_| {
                Answer::error(503, "the game has not reached a sync point (Inspector::sync) for 3 s")
            }))
        }
    }
}

/// A token bucket: up to `per_second` requests a second, in bursts of as many.
struct Limiter {
    per_second: f64,
    tokens: f64,
    at: Instant,
}

impl Limiter {
    fn new(per_second: u32) -> Self {
        let per_second = f64::from(per_second.max(1));
        Limiter { per_second, tokens: per_second, at: Instant::now() }
    }

    fn allow(&mut self) -> bool {
        let now = Instant::now();
        self.tokens = (self.tokens + (now - self.at).as_secs_f64() * self.per_second).min(self.per_second);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}
