//! Crate-topia under the inspector: the demo's level (a million resting crates and
//! five movers by default) played frame after frame, with the page showing what
//! changes, live.
//!
//! ```text
//! cargo run --release -p ripple-inspector --example crates
//! ```
//!
//! prints the page's address (open it in a browser); `--help` lists the options.
//!
//! `--measure [ROUNDS]` measures what watching costs the game instead: a client on
//! another thread polls the page's API, and blocks of frames with the inspector's
//! sync alternate with blocks without it, in the same process on the same world. It
//! prints the median of the blocks' paired ratios as a row of the paired tool's table
//! (bench/PAIRED.md). The client polls as the page does (`--client page`: the live
//! samples four times a second, the overview every two seconds, an entity's values
//! every second), or asks for the heaviest answers as fast as they come
//! (`--client search`: entity searches by an id and for a page of 1,000 entities, in
//! turn, with the rate limit lifted so that only the inspector's budget holds it back).
//!
//! `--crowd [POLLS]` measures how promptly a polling client is answered while 2,000
//! idle connections and one held-back request body are open against the inspector
//! (the process needs about 2,600 open files: `ulimit -n 4096` first). It prints the
//! polls' median and worst answer times and how many came within 100 ms.

#[path = "../../examples/crates/game.rs"]
#[allow(dead_code, reason = "the demo's module serves the demo's binary too")]
mod game;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use game::{Activity, Animatable, Body, CollisionShape, Game, Health, Mode, Position, Velocity};
use ripple::scene::SceneRegistry;
use ripple_inspector::{Inspector, InspectorConfig, Lend};

/// How long a measured block lasts, about: long enough to hold the samples a
/// watched game takes (up to 60 a second).
const BLOCK_TIME: Duration = Duration::from_millis(100);

/// What `--help` prints.
const USAGE: &str = "\
Crate-topia under the inspector: prints the page's address and plays until stopped.

usage: crates [OPTIONS]

  --crates N          crates in the level (1,000,000)
  --frames N          stop after N frames (by default it runs until stopped)
  --fps F             frames a second (60); 0 runs flat out
  --writes            let the page edit values, spawn, despawn and send data commands
  --port P            the loopback port (by default any free one)
  --measure [ROUNDS]  measure what watching costs the game instead (60 rounds)
  --client page|search  with --measure: poll as the page does (page), or ask for
                      the heaviest searches as fast as they are answered (search)
  --crowd [POLLS]     measure poll answer times beside 2,000 idle connections and
                      a held-back body instead (40 polls)
  -h, --help          this text";

/// Who polls the inspector while `--measure` measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Client {
    /// As the page does.
    Page,
    /// The heaviest searches, as fast as they are answered.
    Search,
}

/// The command line, read.
#[derive(Clone, Debug, PartialEq)]
struct Options {
    crates: usize,
    frames: Option<u64>,
    fps: u64,
    writes: bool,
    port: u16,
    /// Rounds to measure, if measuring.
    measure: Option<usize>,
    client: Client,
    /// Polls to time beside a crowd of connections, if measuring that.
    crowd: Option<usize>,
}

/// What the command line asks for.
#[derive(Debug, PartialEq)]
enum Command {
    Play(Options),
    Help,
}

/// Reads the arguments (the program's name left out).
fn parse(args: &[String]) -> Result<Command, String> {
    let mut options = Options {
        crates: 1_000_000,
        frames: None,
        fps: 60,
        writes: false,
        port: 0,
        measure: None,
        client: Client::Page,
        crowd: None,
    };
    let mut args = args.iter().peekable();
    let number =
        |name: &str, text: &str| text.parse::<u64>().map_err(|_| format!("{name} takes a whole number, not `{text}`"));
    while let Some(arg) = args.next() {
        let name = arg.as_str();
        let mut value = || args.next().map(String::as_str).ok_or_else(|| format!("{name} needs a value"));
        match name {
            "-h" | "--help" => return Ok(Command::Help),
            "--crates" => options.crates = number(name, value()?)? as usize,
            "--frames" => options.frames = Some(number(name, value()?)?),
            "--fps" => options.fps = number(name, value()?)?,
            "--port" => {
                let text = value()?;
                options.port = text.parse().map_err(|_| format!("--port takes a port number, not `{text}`"))?;
            }
            "--writes" => options.writes = true,
            "--measure" => {
                let rounds = match args.next_if(|next| !next.starts_with('-')) {
                    Some(text) => number(name, text)? as usize,
                    None => 60,
                };
                options.measure = Some(rounds.max(1));
            }
            "--crowd" => {
                let polls = match args.next_if(|next| !next.starts_with('-')) {
                    Some(text) => number(name, text)? as usize,
                    None => 40,
                };
                options.crowd = Some(polls.max(1));
            }
            "--client" => {
                options.client = match value()? {
                    "page" => Client::Page,
                    "search" => Client::Search,
                    other => return Err(format!("--client is `page` or `search`, not `{other}`")),
                };
            }
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    if options.client == Client::Search && options.measure.is_none() {
        return Err("--client is for --measure".into());
    }
    Ok(Command::Play(options))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = match parse(&args) {
        Ok(Command::Play(options)) => options,
        Ok(Command::Help) => {
            println!("{USAGE}");
            return;
        }
        Err(error) => {
            eprintln!("crates: {error}\n\n{USAGE}");
            std::process::exit(2);
        }
    };
    let mut config = InspectorConfig { port: options.port, writes: options.writes, ..InspectorConfig::default() };
    if options.client == Client::Search {
        // Only the inspector's budget holds the client back, not the rate limit.
        config.max_requests_per_second = 1_000_000;
    }
    let registry = registry();
    eprintln!("building a level of {} crates...", options.crates);
    let mut game = Game::new(options.crates, Mode::ChangeDriven);
    let mut inspector = Inspector::start(config).unwrap_or_else(|error| {
        eprintln!("the inspector could not start: {error}");
        std::process::exit(1);
    });
    if let Some(rounds) = options.measure {
        measure(&mut game, &mut inspector, &registry, rounds, options.client);
        return;
    }
    if let Some(polls) = options.crowd {
        crowd(&mut game, &mut inspector, &registry, polls);
        return;
    }
    println!("inspect Crate-topia at {}", inspector.url());
    let _ = std::io::stdout().flush();
    let period = if options.fps == 0 { Duration::ZERO } else { Duration::from_secs_f64(1.0 / options.fps as f64) };
    let mut next = Instant::now();
    for _ in 0..options.frames.unwrap_or(u64::MAX) {
        game.step();
        inspector.sync(Lend::world(&mut game.world).schedule(&mut game.schedule).registry(&registry));
        next += period;
        if let Some(wait) = next.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        } else {
            next = Instant::now();
        }
    }
}

/// The demo's components with serialisers, by the names the page shows.
fn registry() -> SceneRegistry {
    let mut registry = SceneRegistry::new();
    registry
        .component::<Position>("Position")
        .and_then(|r| r.component::<Velocity>("Velocity"))
        .and_then(|r| r.component::<Animatable>("Animatable"))
        .and_then(|r| r.component::<Activity>("Activity"))
        .and_then(|r| r.component::<Body>("Body"))
        .and_then(|r| r.component::<CollisionShape>("CollisionShape"))
        .and_then(|r| r.component::<Health>("Health"))
        .expect("distinct names and types");
    registry
}

/// Plays blocks of frames with and without the inspector's sync while a client
/// watches, and prints the paired ratio.
fn measure(game: &mut Game, inspector: &mut Inspector, registry: &SceneRegistry, rounds: usize, client: Client) {
    for _ in 0..30 {
        game.step();
    }
    // An id the search client asks for: the last crate's.
    let id = game.world.tables().filter_map(|table| table.entities.last()).last().map(|e| e.to_string());
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (port, token, stop) = (inspector.port(), inspector.token().to_owned(), Arc::clone(&stop));
        std::thread::spawn(move || match client {
            Client::Page => watch(port, &token, &stop),
            Client::Search => search(port, &token, &stop, &id.unwrap_or_default()),
        })
    };
    // Until the client's first request arrives and the samplers are set up.
    let warm_until = Instant::now() + Duration::from_secs(1);
    while Instant::now() < warm_until {
        game.step();
        inspector.sync(Lend::world(&mut game.world).schedule(&mut game.schedule).registry(registry));
    }
    // Frames per block: as many as the game plays in `BLOCK_TIME` unwatched.
    let started = Instant::now();
    let mut block_frames = 0usize;
    while started.elapsed() < BLOCK_TIME {
        game.step();
        block_frames += 1;
    }
    let (mut with, mut without, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let mut block = |synced: bool| {
            let started = Instant::now();
            for _ in 0..block_frames {
                game.step();
                if synced {
                    inspector.sync(Lend::world(&mut game.world).schedule(&mut game.schedule).registry(registry));
                }
            }
            started.elapsed().as_secs_f64() / block_frames as f64
        };
        let (a, b) = if round % 2 == 0 {
            let a = block(true);
            (a, block(false))
        } else {
            let b = block(false);
            (block(true), b)
        };
        with.push(a);
        without.push(b);
        ratios.push(a / b);
    }
    stop.store(true, Ordering::Relaxed);
    let polls = watcher.join().expect("the watcher ends");
    // Nobody watching: what a sync costs then (the client stopped; the inspector
    // stops sampling 3 s after its last request).
    std::thread::sleep(Duration::from_millis(3500));
    let calls = 1_000_000u32;
    let started = Instant::now();
    for _ in 0..calls {
        inspector.sync(Lend::world(&mut game.world).schedule(&mut game.schedule).registry(registry));
    }
    let idle = started.elapsed() / calls;
    eprintln!("a sync with nobody watching: {} ns (mean of {calls})", idle.as_nanos());
    let quarter_medians: Vec<f64> = ratios.chunks(rounds.div_ceil(4).max(1)).map(|c| median(&mut c.to_vec())).collect();
    let (lo, hi) = quarter_medians.iter().fold((f64::MAX, 0.0f64), |(lo, hi), &m| (lo.min(m), hi.max(m)));
    let faster = ratios.iter().filter(|&&r| r < 1.0).count();
    eprintln!(
        "{polls} requests answered while measuring; {} crates; {block_frames} frames a block; {} samples taken",
        game.world.len(),
        inspector.samples()
    );
    let workload = match client {
        Client::Page => "crates_inspector",
        Client::Search => "crates_inspector_search",
    };
    println!(
        "| {workload} | without the inspector | {} | {} | **{:.3}** | {faster} / {rounds} | {lo:.3} – {hi:.3} |",
        fmt_us(median(&mut with)),
        fmt_us(median(&mut without)),
        median(&mut ratios),
    );
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Idle connections the crowd holds open.
const CROWD: usize = 2000;

/// Plays frames at about 60 a second while a client opens [`CROWD`] idle connections
/// and a request whose body it holds back, then times `polls` polls of the live
/// samples, one every 25 ms; prints the answer times.
fn crowd(game: &mut Game, inspector: &mut Inspector, registry: &SceneRegistry, polls: usize) {
    let (port, token) = (inspector.port(), inspector.token().to_owned());
    let client = std::thread::spawn(move || -> Result<Vec<Duration>, String> {
        let connect = || TcpStream::connect(("127.0.0.1", port)).map_err(|e| format!("a connection: {e} (ulimit -n?)"));
        let idle = (0..CROWD).map(|_| connect()).collect::<Result<Vec<_>, _>>()?;
        let mut slow = connect()?;
        write!(
            slow,
            "POST /api/edit?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\
             Content-Type: application/json\r\nContent-Length: 65536\r\n\r\n{{"
        )
        .map_err(|e| e.to_string())?;
        let mut times = Vec::with_capacity(polls);
        for _ in 0..polls {
            let asked = Instant::now();
            get(port, &token, "/api/live?").ok_or("a poll went unanswered")?;
            times.push(asked.elapsed());
            std::thread::sleep(Duration::from_millis(25));
        }
        drop((idle, slow));
        Ok(times)
    });
    while !client.is_finished() {
        game.step();
        inspector.sync(Lend::world(&mut game.world).schedule(&mut game.schedule).registry(registry));
        std::thread::sleep(Duration::from_millis(16));
    }
    match client.join() {
        Ok(Ok(mut times)) => {
            times.sort();
            let prompt = times.iter().filter(|&&t| t <= Duration::from_millis(100)).count();
            println!(
                "{} polls beside {CROWD} idle connections and a held-back body: median {:?}, worst {:?}, {prompt} of \
                 them within 100 ms",
                times.len(),
                times[times.len() / 2],
                times[times.len() - 1],
            );
        }
        Ok(Err(error)) => {
            eprintln!("crates: {error}");
            std::process::exit(1);
        }
        Err(_) => {
            eprintln!("crates: the client thread panicked");
            std::process::exit(1);
        }
    }
}

fn fmt_us(seconds: f64) -> String {
    format!("{:.2} µs", seconds * 1e6)
}

/// `GET path` (with a query string) with the token; the body if answered 200.
fn get(port: u16, token: &str, path: &str) -> Option<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    write!(stream, "GET {path}&token={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n").ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    response
        .starts_with("HTTP/1.1 200")
        .then(|| response.split_once("\r\n\r\n").map_or(String::new(), |(_, b)| b.to_owned()))
}

/// Asks for the heaviest answers as fast as they come until `stop`: a search by
/// `id`, then a page of 1,000 entities, in turn. Returns how many were answered 200.
fn search(port: u16, token: &str, stop: &AtomicBool, id: &str) -> usize {
    let mut answered = 0;
    while !stop.load(Ordering::Relaxed) {
        answered += usize::from(get(port, token, &format!("/api/entities?q={id}")).is_some());
        answered += usize::from(get(port, token, "/api/entities?q=&limit=1000").is_some());
    }
    answered
}

/// Polls as the page does until `stop`; returns how many requests were answered 200.
fn watch(port: u16, token: &str, stop: &AtomicBool) -> usize {
    let get = |path: &str| get(port, token, path);
    let (mut answered, mut latest, mut tick) = (0, 0u64, 0u64);
    let mut entity: Option<String> = None;
    while !stop.load(Ordering::Relaxed) {
        if let Some(body) = get(&format!("/api/live?since={latest}")) {
            answered += 1;
            if let Some(at) = body.find("\"latest\":") {
                latest = body[at + 9..]
                    .split(|c: char| !c.is_ascii_digit())
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(latest);
            }
        }
        if tick % 8 == 0 && get("/api/overview?").is_some() {
            answered += 1;
        }
        if tick % 4 == 0 {
            match &entity {
                Some(bits) => answered += usize::from(get(&format!("/api/entity?id={bits}")).is_some()),
                None => {
                    entity = get("/api/entities?q=velocity&limit=1").and_then(|body| {
                        let at = body.find("\"bits\":\"")? + 8;
                        Some(body[at..].split('"').next()?.to_owned())
                    });
                }
            }
        }
        tick += 1;
        std::thread::sleep(Duration::from_millis(250));
    }
    answered
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_line(line: &str) -> Result<Command, String> {
        parse(&line.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
    }

    #[test]
    fn options_are_read_and_strangers_refused() {
        assert_eq!(parse_line("--help"), Ok(Command::Help));
        assert_eq!(parse_line("--crates 10 -h"), Ok(Command::Help));
        let Ok(Command::Play(options)) = parse_line("--crates 1000 --writes --fps 0 --port 8080 --frames 9") else {
            panic!("a valid line")
        };
        assert_eq!((options.crates, options.writes, options.fps, options.port), (1000, true, 0, 8080));
        assert_eq!((options.frames, options.measure), (Some(9), None));
        let Ok(Command::Play(measured)) = parse_line("--measure --client search") else { panic!("a valid line") };
        assert_eq!((measured.measure, measured.client), (Some(60), Client::Search));
        let Ok(Command::Play(measured)) = parse_line("--measure 80 --crates 5") else { panic!("a valid line") };
        assert_eq!((measured.measure, measured.crates), (Some(80), 5));
        assert_eq!(parse_line("--inspect"), Err("unknown option `--inspect`".into()));
        assert_eq!(parse_line("--crates"), Err("--crates needs a value".into()));
        assert!(parse_line("--crates many").unwrap_err().contains("whole number"));
        assert!(parse_line("--port 70000").unwrap_err().contains("port number"));
        assert!(parse_line("--measure --client everything").unwrap_err().contains("`page` or `search`"));
        assert!(parse_line("--client search").unwrap_err().contains("--measure"));
    }

    /// Every command line the README and this crate's docs give for the example parses.
    #[test]
    fn the_documented_command_lines_are_understood() {
        let docs = [
            include_str!("../../README.md"),
            include_str!("../../CHANGELOG.md"),
            include_str!("../../bench/PAIRED.md"),
            include_str!("crates.rs"),
        ];
        let marker = "-p ripple-inspector --example crates";
        let mut lines = 0;
        for doc in docs {
            for at in doc.match_indices(marker).map(|(at, _)| at + marker.len()) {
                let rest = &doc[at..];
                let end = rest.find(['`', '\n']).unwrap_or(rest.len());
                let args = rest[..end].trim().strip_prefix("--").unwrap_or("").trim();
                assert!(parse_line(args).is_ok(), "`{args}` is not understood: {:?}", parse_line(args));
                lines += 1;
            }
        }
        assert!(lines >= 3, "the docs give the example's command lines");
    }
}
