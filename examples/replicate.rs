//! Replication over a bad link: Crate-topia at 100,000 crates played on a server,
//! mirrored on a client through a real TCP socket on the loopback interface.
//!
//! The server plays the game (its change-driven schedule) and, after every frame,
//! sends the client a delta of what changed since the client's last acknowledged
//! delta. The link between them drops 20% of the messages in each direction (deltas
//! and acknowledgements), duplicates 5% and holds back 5% to deliver them after the
//! next one (reordering). The client applies what arrives and acknowledges it.
//!
//! After the frames, the link heals: the server sends deltas until the client has
//! acknowledged the last one; then the client's world is compared with the server's
//! on every replicated component of every entity, and the example exits non-zero if
//! they differ. It prints the bytes sent and the time spent per frame on each side.
//!
//! Run with `cargo run --release --example replicate` (`-- --crates N --frames F` to
//! change the size).
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]

#[allow(dead_code, reason = "the game's module is shared with the crates example")]
#[path = "crates/game.rs"]
mod game;

use std::io::{self, BufReader, BufWriter, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::ExitCode;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use game::{Activity, Animatable, Body, CollisionShape, Game, Health, Mode, Position, Velocity};
use ripple::query::{QueryState, With};
use ripple::replicate::{Applied, DeltaReceiver, PeerConfig, PeerId, Replicated, Replicator};
use ripple::scene::SceneRegistry;
use ripple::{Entity, World};

/// The components both sides replicate, in the same order.
fn registry() -> SceneRegistry {
    let mut registry = SceneRegistry::new();
    registry
        .component::<Position>("position")
        .and_then(|r| r.component::<Velocity>("velocity"))
        .and_then(|r| r.component::<Animatable>("animatable"))
        .and_then(|r| r.component::<Activity>("activity"))
        .and_then(|r| r.component::<Body>("body"))
        .and_then(|r| r.component::<CollisionShape>("collision_shape"))
        .and_then(|r| r.component::<Health>("health"))
        .expect("valid, distinct names");
    registry
}

/// What the link does with a message: a small deterministic generator, so that every
/// run loses the same messages.
struct Link {
    state: u64,
    healed: bool,
    held: Option<Vec<u8>>,
    sent: usize,
    dropped: usize,
}

impl Link {
    fn new(seed: u64) -> Link {
        Link { state: seed, healed: false, held: None, sent: 0, dropped: 0 }
    }

    fn roll(&mut self) -> u32 {
        // xorshift64*
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        (self.state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as u32 % 100
    }

    /// Sends `message` as the link decides: dropped, duplicated, held back for one
    /// message, or delivered.
    fn send(&mut self, out: &mut impl Write, kind: u8, message: &[u8]) -> io::Result<()> {
        self.sent += 1;
        let roll = if self.healed { 99 } else { self.roll() };
        match roll {
            0..20 => {
                self.dropped += 1;
                return Ok(());
            }
            20..25 => write_frame(out, kind, message)?,
            25..30 if self.held.is_none() => {
                self.held = Some(message.to_vec());
                return Ok(());
            }
            _ => {}
        }
        write_frame(out, kind, message)?;
        if let Some(held) = self.held.take() {
            write_frame(out, kind, &held)?;
        }
        out.flush()
    }
}

/// Message kinds on the wire (each frame: length, kind, bytes).
const DELTA: u8 = 1;
const DONE: u8 = 2;
const ACK: u8 = 3;

fn write_frame(out: &mut impl Write, kind: u8, bytes: &[u8]) -> io::Result<()> {
    out.write_all(&(bytes.len() as u32 + 1).to_le_bytes())?;
    out.write_all(&[kind])?;
    out.write_all(bytes)
}

fn read_frame(input: &mut impl Read, buffer: &mut Vec<u8>) -> io::Result<u8> {
    let mut len = [0; 4];
    input.read_exact(&mut len)?;
    let len = u32::from_le_bytes(len) as usize;
    buffer.resize(len, 0);
    input.read_exact(buffer)?;
    let kind = buffer.remove(0);
    Ok(kind)
}

/// The server's side: plays `frames` frames, then sends until the client has
/// everything. Returns the world, its replicator and the client's peer id, and
/// per-frame figures.
fn serve(listener: TcpListener, crates: usize, frames: usize) -> io::Result<(World, Sender, ServerFigures)> {
    let (stream, _) = listener.accept()?;
    stream.set_nodelay(true)?;
    let (acks_tx, acks) = mpsc::channel::<u64>();
    let mut reader = BufReader::new(stream.try_clone()?);
    thread::spawn(move || {
        let mut buffer = Vec::new();
        while let Ok(ACK) = read_frame(&mut reader, &mut buffer) {
            let seq = u64::from_le_bytes(buffer[..8].try_into().expect("eight bytes"));
            if acks_tx.send(seq).is_err() {
                break;
            }
        }
    });
    let mut out = BufWriter::new(stream);
    let mut game = Game::new(crates, Mode::ChangeDriven);
    let mut replicated = QueryState::<Entity, With<Position>>::new(&mut game.world);
    let all: Vec<Entity> = replicated.iter(&game.world).collect();
    for entity in all {
        game.world.insert(entity, (Replicated,)).expect("alive");
    }
    let mut replicator = Replicator::new(&mut game.world, registry()).expect("a small registry");
    let peer = replicator.add_peer(&mut game.world, PeerConfig::default());
    let mut link = Link::new(0x5EED_1234);
    let mut figures = ServerFigures::default();
    let mut bytes = Vec::new();
    let mut last_seq;
    let mut frame = 0;
    loop {
        let healing = frame >= frames;
        link.healed = healing;
        if !healing {
            game.step();
        }
        let start = Instant::now();
        replicator.update(&game.world);
        bytes.clear();
        let info = replicator.write_delta(&game.world, peer, &mut bytes).expect("serialisable values");
        let elapsed = start.elapsed();
        last_seq = info.seq;
        if !info.snapshot && !healing {
            figures.write.push(elapsed);
            figures.bytes.push(bytes.len());
        } else if info.snapshot {
            figures.snapshot_bytes = figures.snapshot_bytes.max(bytes.len());
        }
        link.send(&mut out, DELTA, &bytes)?;
        // Acknowledgements that arrived meanwhile; once healed, wait for the last.
        let wait = if healing { Duration::from_millis(200) } else { Duration::ZERO };
        let mut acknowledged_last = false;
        while let Ok(seq) =
            if wait.is_zero() { acks.try_recv().map_err(|_| ()) } else { acks.recv_timeout(wait).map_err(|_| ()) }
        {
            replicator.ack(peer, seq).map_err(io::Error::other)?;
            acknowledged_last |= seq == last_seq;
            if healing && acknowledged_last {
                break;
            }
        }
        frame += 1;
        if healing && acknowledged_last {
            break;
        }
        if frame > frames + 100 {
            return Err(io::Error::other("the client never acknowledged the last delta"));
        }
    }
    write_frame(&mut out, DONE, &[])?;
    out.flush()?;
    figures.messages = link.sent;
    figures.dropped = link.dropped;
    Ok((game.world, Sender { replicator, peer }, figures))
}

/// The server's replicator and the client's id in it (the client knows entities by
/// handles of its own, which the replicator translates).
struct Sender {
    replicator: Replicator,
    peer: PeerId,
}

#[derive(Default)]
struct ServerFigures {
    write: Vec<Duration>,
    bytes: Vec<usize>,
    snapshot_bytes: usize,
    messages: usize,
    dropped: usize,
}

/// The client's side: applies what arrives and acknowledges it (through the same bad
/// link) until the server is done.
fn receive(address: std::net::SocketAddr) -> io::Result<(World, DeltaReceiver, Vec<Duration>, usize, Link)> {
    let stream = TcpStream::connect(address)?;
    stream.set_nodelay(true)?;
    let mut input = BufReader::new(stream.try_clone()?);
    let mut out = BufWriter::new(stream);
    let mut world = World::new();
    let mut receiver = DeltaReceiver::new(registry()).expect("a small registry");
    let mut link = Link::new(0xC11E_5678);
    let mut apply = Vec::new();
    let mut stale = 0;
    let mut buffer = Vec::new();
    loop {
        match read_frame(&mut input, &mut buffer)? {
            DELTA => {
                let start = Instant::now();
                let applied = receiver.apply_delta(&mut world, &buffer).map_err(io::Error::other)?;
                apply.push(start.elapsed());
                match applied {
                    Applied::Applied { seq, .. } => link.send(&mut out, ACK, &seq.to_le_bytes())?,
                    Applied::Stale { .. } | Applied::AwaitingSnapshot { .. } => stale += 1,
                }
            }
            DONE => return Ok((world, receiver, apply, stale, link)),
            other => return Err(io::Error::other(format!("unknown message kind {other}"))),
        }
    }
}

/// Every replicated server entity has a twin on the client with equal components, and
/// the client holds no other live replica.
fn compare(server: &mut World, sender: &Sender, client: &World, receiver: &DeltaReceiver) -> Result<usize, String> {
    fn same<T: ripple::Component + PartialEq + std::fmt::Debug>(
        server: &World,
        client: &World,
        (remote, local): (Entity, Entity),
    ) -> Result<(), String> {
        let (a, b) = (server.get::<T>(remote).ok(), client.get::<T>(local).ok());
        if a == b {
            Ok(())
        } else {
            Err(format!("{remote}: {} differs: {a:?} on the server, {b:?} here", std::any::type_name::<T>()))
        }
    }
    let expected = QueryState::<Entity, With<Replicated>>::new(server).iter(server).count();
    let server = &*server;
    let mut twins = 0;
    for (handle, local) in receiver.entity_map().iter() {
        if !client.contains(local) {
            continue;
        }
        let remote = sender.replicator.entity_of(sender.peer, handle).map_err(|e| e.to_string())?;
        let live = remote.filter(|&remote| server.contains(remote) && server.get::<Replicated>(remote).is_ok());
        let Some(remote) = live else {
            if client.get::<Position>(local).is_ok() {
                return Err(format!("{handle} is gone from the server but its replica lives"));
            }
            continue;
        };
        let pair = (remote, local);
        twins += 1;
        same::<Position>(server, client, pair)?;
        same::<Velocity>(server, client, pair)?;
        same::<Animatable>(server, client, pair)?;
        same::<Activity>(server, client, pair)?;
        same::<Body>(server, client, pair)?;
        same::<CollisionShape>(server, client, pair)?;
        same::<Health>(server, client, pair)?;
    }
    if twins != expected {
        return Err(format!("{twins} replicas for {expected} replicated entities"));
    }
    Ok(twins)
}

fn median(values: &mut [Duration]) -> Duration {
    values.sort();
    values.get(values.len() / 2).copied().unwrap_or_default()
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut crates, mut frames) = (100_000, 600);
    while let Some(arg) = args.next() {
        let value = args.next().and_then(|v| v.parse().ok());
        match (arg.as_str(), value) {
            ("--crates", Some(v)) => crates = v,
            ("--frames", Some(v)) => frames = v,
            _ => {
                eprintln!("usage: replicate [--crates N] [--frames F]");
                return ExitCode::FAILURE;
            }
        }
    }
    match run(crates, frames) {
        Ok(report) => {
            println!("{report}");
            ExitCode::SUCCESS
        }
        Err(difference) => {
            eprintln!("NOT EQUAL: {difference}");
            ExitCode::FAILURE
        }
    }
}

/// Plays `frames` frames of a level of `crates` crates on a server thread, mirrored on
/// a client thread over the bad link; returns what it measured, or how the worlds
/// differ at the end.
pub fn run(crates: usize, frames: usize) -> Result<String, String> {
    use std::fmt::Write as _;
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    let server = thread::spawn(move || serve(listener, crates, frames));
    let client = thread::spawn(move || receive(address));
    let (mut server_world, sender, mut figures) =
        server.join().map_err(|_| "the server thread panicked")?.map_err(|e| format!("server: {e}"))?;
    let (client_world, receiver, mut apply, stale, acks) =
        client.join().map_err(|_| "the client thread panicked")?.map_err(|e| format!("client: {e}"))?;
    let bytes: usize = figures.bytes.iter().sum();
    let mut report = String::new();
    let _ = writeln!(report, "Crate-topia at {crates} crates, {frames} frames, over TCP on 127.0.0.1");
    let _ = writeln!(
        report,
        "link: {} of {} deltas and {} of {} acknowledgements dropped; {} late or duplicated deltas ignored",
        figures.dropped, figures.messages, acks.dropped, acks.sent, stale
    );
    let _ = writeln!(report, "first delta (a snapshot): {} bytes", figures.snapshot_bytes);
    let _ = writeln!(
        report,
        "per frame: {:.0} bytes on average ({} max); server update + write {:?} (median), client apply {:?} (median)",
        bytes as f64 / figures.bytes.len().max(1) as f64,
        figures.bytes.iter().max().unwrap_or(&0),
        median(&mut figures.write),
        median(&mut apply),
    );
    let twins = compare(&mut server_world, &sender, &client_world, &receiver)?;
    let _ = write!(report, "equal: the client's {twins} replicas match the server on every replicated component");
    Ok(report)
}
