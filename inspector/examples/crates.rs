//! Crate-topia under the inspector: the demo's level (a million resting crates and
//! five movers by default) played frame after frame, with the page showing what
//! changes, live.
//!
//! ```text
//! cargo run --release -p ripple-inspector --example crates -- --inspect
//! ```
//!
//! prints the page's address (open it in a browser). Options: `--crates N`,
//! `--frames N` (stop after N frames; by default it runs until stopped), `--fps F`
//! (frames a second, 60 by default; 0 runs flat out), `--writes` (let the page edit
//! values, spawn, despawn), `--port P`.
//!
//! `--measure [ROUNDS]` measures what watching costs the game instead: a client on
//! another thread polls the page's API as the page does (the live samples four times
//! a second, the overview every two seconds, an entity's values every second), and
//! blocks of frames with the inspector's sync alternate with blocks without it, in
//! the same process on the same world. It prints the median of the blocks' paired
//! ratios as a row of the paired tool's table (bench/PAIRED.md).

#[path = "../../examples/crates/game.rs"]
#[allow(dead_code, reason = "the demo's module serves the demo's binary too")]
mod game;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use game::{Activity, Animatable, Body, CollisionShape, Game, Health, Mode, Position, Velocity};
use ripple::SceneRegistry;
use ripple_inspector::{Inspector, InspectorConfig, Lend};

/// How long a measured block lasts, about: long enough to hold the samples a
/// watched game takes (up to 60 a second).
const BLOCK_TIME: Duration = Duration::from_millis(100);

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)?.parse::<u64>().ok());
    let crates = value("--crates").unwrap_or(1_000_000) as usize;
    let config = InspectorConfig {
        port: value("--port").unwrap_or(0) as u16,
        writes: args.iter().any(|a| a == "--writes"),
        ..InspectorConfig::default()
    };
    let registry = registry();
    eprintln!("building a level of {crates} crates...");
    let mut game = Game::new(crates, Mode::ChangeDriven);
    let mut inspector = Inspector::start(config).unwrap_or_else(|error| {
        eprintln!("the inspector could not start: {error}");
        std::process::exit(1);
    });
    if args.iter().any(|a| a == "--measure") {
        let rounds = value("--measure").unwrap_or(60) as usize;
        measure(&mut game, &mut inspector, &registry, rounds);
        return;
    }
    println!("inspect Crate-topia at {}", inspector.url());
    let _ = std::io::stdout().flush();
    let frames = value("--frames").unwrap_or(u64::MAX);
    let fps = value("--fps").unwrap_or(60);
    let period = if fps == 0 { Duration::ZERO } else { Duration::from_secs_f64(1.0 / fps as f64) };
    let mut next = Instant::now();
    for _ in 0..frames {
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
fn measure(game: &mut Game, inspector: &mut Inspector, registry: &SceneRegistry, rounds: usize) {
    for _ in 0..30 {
        game.step();
    }
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (port, token, stop) = (inspector.port(), inspector.token().to_owned(), Arc::clone(&stop));
        std::thread::spawn(move || watch(port, &token, &stop))
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
    println!(
        "| crates_inspector | without the inspector | {} | {} | **{:.3}** | {faster} / {rounds} | {lo:.3} – {hi:.3} |",
        fmt_us(median(&mut with)),
        fmt_us(median(&mut without)),
        median(&mut ratios),
    );
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn fmt_us(seconds: f64) -> String {
    format!("{:.2} µs", seconds * 1e6)
}

/// Polls as the page does until `stop`; returns how many requests were answered 200.
fn watch(port: u16, token: &str, stop: &AtomicBool) -> usize {
    let get = |path: &str| -> Option<String> {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
        write!(stream, "GET {path}&token={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n")
            .ok()?;
        let mut response = String::new();
        stream.read_to_string(&mut response).ok()?;
        response
            .starts_with("HTTP/1.1 200")
            .then(|| response.split_once("\r\n\r\n").map_or(String::new(), |(_, b)| b.to_owned()))
    };
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
