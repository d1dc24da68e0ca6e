//! What the inspector's network tests share: a raw HTTP client that says exactly
//! what it sends (as a hostile local process would), and a game loop on the test's
//! thread that calls `sync` each frame while a client runs on another.
#![allow(dead_code, reason = "each test file uses part of it")]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::mpsc;
use std::time::Duration;

use ripple::World;
use ripple::data::DataCommands;
use ripple::scene::SceneRegistry;
use ripple::schedule::Schedule;
use ripple_inspector::{Inspector, InspectorConfig, Lend};

/// How long a test client waits for an answer before calling it lost: far past any
/// answer time on a loaded machine, so only a server that never answers fails it.
pub const PATIENCE: Duration = Duration::from_secs(20);

/// A response as read off the socket.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    /// Header lines, `name: value`, as sent.
    pub headers: Vec<String>,
    pub body: String,
}

impl Response {
    /// The first header named `name` (case ignored).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.trim().eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

/// Sends `request` as is on a fresh connection and reads the response to the end.
///
/// # Panics
/// If nothing comes back within [`PATIENCE`].
pub fn raw(port: u16, request: &[u8]) -> Response {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("the inspector listens");
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    stream.write_all(request).unwrap();
    read_response(&mut stream).unwrap_or_else(|error| panic!("no answer within {PATIENCE:?}: {error}"))
}

/// Reads a response from `stream` until the server closes it.
pub fn read_response(stream: &mut TcpStream) -> std::io::Result<Response> {
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes)?;
    parse_response(&bytes)
}

fn parse_response(bytes: &[u8]) -> std::io::Result<Response> {
    let text = String::from_utf8_lossy(bytes);
    let (head, body) = text.split_once("\r\n\r\n").ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidData, format!("no response head in {} bytes", bytes.len()))
    })?;
    let mut lines = head.split("\r\n");
    let status = lines.next().and_then(|line| line.split(' ').nth(1)).and_then(|s| s.parse().ok()).unwrap_or(0);
    Ok(Response { status, headers: lines.map(str::to_owned).collect(), body: body.to_owned() })
}

/// A well-behaved client of one inspector.
#[derive(Clone)]
pub struct Client {
    pub port: u16,
    pub token: String,
}

impl Client {
    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// `GET path` with the token in the query string.
    pub fn get(&self, path: &str) -> Response {
        let sep = if path.contains('?') { '&' } else { '?' };
        let request = format!(
            "GET {path}{sep}token={} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            self.token,
            self.host()
        );
        raw(self.port, request.as_bytes())
    }

    /// `POST path` with a JSON body, the token and `extra` header lines (each ending
    /// in `\r\n`).
    pub fn post(&self, path: &str, content_type: &str, extra: &str, body: &str) -> Response {
        let request = format!(
            "POST {path}?token={} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Type: {content_type}\r\n\
             {extra}Content-Length: {}\r\n\r\n{body}",
            self.token,
            self.host(),
            body.len()
        );
        raw(self.port, request.as_bytes())
    }
}

/// What a game lends the inspector, owned.
pub struct Game {
    pub world: World,
    pub schedule: Schedule,
    pub registry: SceneRegistry,
    pub commands: DataCommands,
}

impl Game {
    pub fn new(world: World) -> Game {
        Game { world, schedule: Schedule::new(), registry: SceneRegistry::new(), commands: DataCommands::new() }
    }
}

/// What [`play`] hands back.
pub struct Played<T> {
    pub result: T,
    pub game: Game,
    /// Frames played.
    pub frames: u64,
}

/// Runs frames on this thread until `client` returns: each frame calls `frame` with
/// the world and the frame's number, runs the schedule and syncs the inspector, then
/// sleeps `pause` (none: flat out).
pub fn play<T: Send + 'static>(
    mut game: Game,
    config: InspectorConfig,
    pause: Option<Duration>,
    mut frame: impl FnMut(&mut World, u64),
    client: impl FnOnce(Client) -> T + Send + 'static,
) -> Played<T> {
    let mut inspector = Inspector::start(config).expect("a free loopback port");
    let client_of = Client { port: inspector.port(), token: inspector.token().to_owned() };
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || done.send(client(client_of)).unwrap());
    let mut frames = 0u64;
    loop {
        frames += 1;
        frame(&mut game.world, frames);
        game.schedule.run(&mut game.world);
        inspector.sync(
            Lend::world(&mut game.world).schedule(&mut game.schedule).registry(&game.registry).commands(&game.commands),
        );
        match finished.try_recv() {
            Ok(result) => return Played { result, game, frames },
            Err(mpsc::TryRecvError::Empty) => {
                if let Some(pause) = pause {
                    std::thread::sleep(pause);
                }
            }
            Err(mpsc::TryRecvError::Disconnected) => panic!("the client panicked"),
        }
    }
}
