//! The inspector's HTTP/JSON API through a plain Rust client: the game loop runs on
//! the test's thread (calling `sync` each frame, as a game does), the client on
//! another, and every answer is checked against the world.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::mpsc;
use std::time::Duration;

use ripple::data::DataCommands;
use ripple::scene::SceneRegistry;
use ripple::schedule::Schedule;
use ripple::{Entity, World};
use ripple_inspector::{Inspector, InspectorConfig, Lend};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Position {
    x: f32,
    y: f32,
}
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Health(u32);
struct Secret;

/// The API the data commands reach.
#[derive(Debug, Default, PartialEq)]
struct Tally {
    total: u32,
}

impl Tally {
    fn add(&mut self, amount: u32) {
        self.total += amount;
    }
}

/// One request over a fresh connection: the status and the body.
fn http(port: u16, method: &str, path: &str, host: &str, body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("the inspector listens");
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("a status line");
    let body = response.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default();
    (status, body)
}

/// A client of one inspector.
struct Client {
    port: u16,
    token: String,
}

impl Client {
    fn get(&self, path: &str) -> (u16, Value) {
        let sep = if path.contains('?') { '&' } else { '?' };
        let (status, body) = http(self.port, "GET", &format!("{path}{sep}token={}", self.token), &self.host(), "");
        (status, serde_json::from_str(&body).unwrap_or(Value::Null))
    }

    fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let (status, body) =
            http(self.port, "POST", &format!("{path}?token={}", self.token), &self.host(), &body.to_string());
        (status, serde_json::from_str(&body).unwrap_or(Value::Null))
    }

    fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }
}

/// A world of 100 tracked positions (and a sparse-free untracked `Secret` with no
/// serialiser), and its registry and data commands.
fn game() -> (World, Schedule, SceneRegistry, DataCommands, Vec<Entity>) {
    let mut world = World::new();
    world.track::<Position>();
    world.track::<Health>();
    let entities: Vec<Entity> = (0..100).map(|i| world.spawn((Position { x: i as f32, y: 0.0 }, Health(10)))).collect();
    world.spawn((Secret,));
    let mut registry = SceneRegistry::new();
    registry.component::<Position>("Position").unwrap().component::<Health>("Health").unwrap();
    world.publish_api(Tally::default());
    let mut commands = DataCommands::new();
    commands.target::<Tally>("tally").method("add", Tally::add);
    let mut schedule = Schedule::new();
    schedule.set_profiling(true);
    (world, schedule, registry, commands, entities)
}

/// Runs frames on this thread until `client` returns; each frame moves the first
/// three positions, then syncs the inspector.
fn play<T: Send + 'static>(
    config: InspectorConfig,
    client: impl FnOnce(Client) -> T + Send + 'static,
) -> (T, World, Vec<Entity>) {
    let (mut world, mut schedule, registry, commands, entities) = game();
    let mut inspector = Inspector::start(config).expect("a free loopback port");
    let url = inspector.url();
    assert!(url.starts_with(&format!("http://127.0.0.1:{}/?token=", inspector.port())));
    let client_of = Client { port: inspector.port(), token: inspector.token().to_owned() };
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || done.send(client(client_of)).unwrap());
    loop {
        for &e in &entities[..3] {
            if let Ok(mut position) = world.get_mut::<Position>(e) {
                position.x += 1.0;
            }
        }
        schedule.run(&mut world);
        inspector.sync(Lend::world(&mut world).schedule(&mut schedule).registry(&registry).commands(&commands));
        match finished.try_recv() {
            Ok(result) => return (result, world, entities),
            Err(mpsc::TryRecvError::Empty) => std::thread::sleep(Duration::from_millis(2)),
            Err(mpsc::TryRecvError::Disconnected) => panic!("the client panicked"),
        }
    }
}

/// Polls `/api/live` until it holds frames.
fn live_frames(client: &Client) -> Vec<Value> {
    for _ in 0..500 {
        let (status, live) = client.get("/api/live?since=0");
        assert_eq!(status, 200);
        let frames = live["frames"].as_array().cloned().unwrap_or_default();
        if frames.len() >= 3 {
            return frames;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("no frames sampled");
}

#[test]
fn the_live_view_counts_exactly_what_each_frame_changed() {
    let (frames, _, _) = play(InspectorConfig::default(), |client| live_frames(&client));
    for frame in &frames {
        assert_eq!(frame["changes"]["Position"], json!([3, 0, 0]), "three rows written a frame: {frame}");
        assert_eq!(frame["changes"]["Health"], json!([0, 0, 0]));
        assert_eq!(frame["entities"], json!(101));
        assert!(frame["frame_ns"].as_u64().unwrap() > 0);
    }
    // Samples are spaced (at most 60 a second), each exact for its frame.
    let numbers: Vec<u64> = frames.iter().map(|f| f["frame"].as_u64().unwrap()).collect();
    assert!(numbers.windows(2).all(|w| w[1] > w[0]), "frames in order: {numbers:?}");
}

#[test]
fn the_overview_and_the_page_describe_the_world() {
    let ((page, overview), _, _) = play(InspectorConfig::default(), |client| {
        let (status, page) = http(client.port, "GET", &format!("/?token={}", client.token), &client.host(), "");
        assert_eq!(status, 200);
        let mut overview = client.get("/api/overview");
        while overview.0 == 503 {
            std::thread::sleep(Duration::from_millis(5));
            overview = client.get("/api/overview");
        }
        (page, overview.1)
    });
    assert!(page.contains("ripple inspector"), "the page is served");
    assert_eq!(overview["entities"], json!(101));
    assert_eq!(overview["writes"], json!(false));
    let position = overview["components"].as_array().unwrap().iter().find(|c| c["name"] == "Position").unwrap();
    assert_eq!((position["tracked"].clone(), position["entities"].clone()), (json!(true), json!(100)));
    let rows: u64 = overview["tables"].as_array().unwrap().iter().map(|t| t["rows"].as_u64().unwrap()).sum();
    assert_eq!(rows, 101);
    assert!(overview["memory"]["total_bytes"].as_u64().unwrap() >= 100 * 12);
}

#[test]
fn entities_are_found_and_shown_with_their_values() {
    let ((list, detail, secret, missing), _, entities) = play(InspectorConfig::default(), |client| {
        let (status, list) = client.get("/api/entities?q=health&limit=5&offset=10");
        assert_eq!(status, 200);
        let bits = list["entities"][0]["bits"].as_str().unwrap().to_owned();
        let (_, detail) = client.get(&format!("/api/entity?id={bits}"));
        let (_, secret) = client.get("/api/entities?q=secret");
        let (status, missing) = client.get("/api/entity?id=1");
        assert_eq!(status, 400, "{missing}");
        (list, detail, secret, missing)
    });
    assert_eq!(list["total"], json!(100));
    assert_eq!(list["entities"].as_array().unwrap().len(), 5);
    assert_eq!(list["entities"][0]["bits"], json!(entities[10].to_bits().to_string()));
    let components = detail["components"].as_array().unwrap();
    let health = components.iter().find(|c| c["name"] == "Health").unwrap();
    assert_eq!(health["value"], json!(10));
    assert_eq!(secret["total"], json!(1));
    assert!(missing["error"].as_str().unwrap().contains("not an entity"));
}

#[test]
fn writes_are_refused_unless_enabled() {
    let ((edit, command), world, entities) = play(InspectorConfig::default(), |client| {
        let (status, edit) =
            client.post("/api/edit", json!({ "entity": "4294967296", "component": "Health", "value": 1 }));
        assert_eq!(status, 403);
        let (status, command) = client.post("/api/command", json!(["tally", "add", 5]));
        assert_eq!(status, 403);
        (edit, command)
    });
    assert!(edit["error"].as_str().unwrap().contains("writes are off"));
    assert!(command["error"].is_string());
    assert!(entities.iter().all(|&e| world.get::<Health>(e) == Ok(&Health(10))));
    assert_eq!(world.api::<Tally>().unwrap().total, 0);
}

#[test]
fn enabled_writes_edit_spawn_despawn_and_run_commands_with_typed_errors() {
    let config = InspectorConfig { writes: true, ..InspectorConfig::default() };
    let (results, world, entities) = play(config, |client| {
        let (_, list) = client.get("/api/entities?q=position&limit=1");
        let bits = list["entities"][0]["bits"].as_str().unwrap().to_owned();
        let edit = client.post("/api/edit", json!({ "entity": bits, "component": "Health", "value": 77 }));
        let (_, after) = client.get(&format!("/api/entity?id={bits}"));
        let health = after["components"].as_array().unwrap().iter().find(|c| c["name"] == "Health").unwrap().clone();
        assert_eq!(health["value"], json!(77), "the edit is in the world");
        let bad = client.post("/api/edit", json!({ "entity": bits, "component": "Health", "value": "lots" }));
        let unknown = client.post("/api/edit", json!({ "entity": bits, "component": "Mana", "value": 1 }));
        let spawn =
            client.post("/api/spawn", json!({ "components": { "Health": 3, "Position": { "x": 1.0, "y": 2.0 } } }));
        let bad_spawn = client.post("/api/spawn", json!({ "components": { "Health": 3, "Position": 5 } }));
        let command = client.post("/api/command", json!(["tally", "add", 1]));
        let bad_command = client.post("/api/command", json!(["tally", "explode"]));
        let victim = list["entities"][0]["bits"].as_str().unwrap().to_owned();
        let despawn = client.post("/api/despawn", json!({ "entity": victim }));
        let again = client.post("/api/despawn", json!({ "entity": victim }));
        vec![edit, bad, unknown, spawn, bad_spawn, command, bad_command, despawn, again]
    });
    let statuses: Vec<u16> = results.iter().map(|(s, _)| *s).collect();
    assert_eq!(statuses, [200, 400, 400, 200, 400, 200, 400, 200, 404], "{results:?}");
    assert!(results[1].1["error"].as_str().unwrap().contains("not a value of `Health`"));
    assert!(results[2].1["error"].as_str().unwrap().contains("Mana"));
    assert!(!world.contains(entities[0]), "despawned");
    assert!(entities[1..].iter().all(|&e| world.get::<Health>(e) == Ok(&Health(10))));
    assert_eq!(world.api::<Tally>().unwrap().total, 1);
    let spawned: u64 = results[3].1["entity"].as_str().unwrap().parse().unwrap();
    let spawned = Entity::from_bits(spawned).unwrap();
    assert_eq!(world.get::<Health>(spawned), Ok(&Health(3)));
    assert_eq!(world.get::<Position>(spawned), Ok(&Position { x: 1.0, y: 2.0 }));
    // The refused spawn left nothing behind: 100 + Secret + one spawn - one despawn.
    assert_eq!(world.len(), 101);
}

#[test]
fn strangers_are_refused() {
    let (statuses, _, _) = play(InspectorConfig { max_body: 100, ..InspectorConfig::default() }, |client| {
        let wrong_token = http(client.port, "GET", "/api/overview?token=nope", &client.host(), "").0;
        let no_token = http(client.port, "GET", "/api/overview", &client.host(), "").0;
        let rebinding = http(client.port, "GET", &format!("/?token={}", client.token), "evil.example:80", "").0;
        let big = client.post("/api/edit", json!({ "padding": "x".repeat(200) })).0;
        vec![wrong_token, no_token, rebinding, big]
    });
    assert_eq!(statuses, [401, 401, 421, 413]);
}

#[test]
fn the_request_rate_is_bounded() {
    let config = InspectorConfig { max_requests_per_second: 5, ..InspectorConfig::default() };
    let (statuses, _, _) = play(config, |client| (0..12).map(|_| client.get("/api/live").0).collect::<Vec<_>>());
    assert!(statuses[..5].iter().all(|&s| s == 200), "{statuses:?}");
    assert!(statuses.contains(&429), "{statuses:?}");
}

#[test]
fn with_nobody_watching_sync_samples_nothing() {
    let (mut world, _, _, _, _) = game();
    let mut inspector = Inspector::start(InspectorConfig::default()).unwrap();
    for _ in 0..100 {
        inspector.sync(Lend::world(&mut world));
    }
    let client = Client { port: inspector.port(), token: inspector.token().to_owned() };
    let (_, live) = std::thread::spawn(move || client.get("/api/live")).join().unwrap();
    assert_eq!(live["frames"], json!([]), "no frames before anyone watched");
}

#[test]
fn a_client_that_waits_to_send_its_body_is_told_to() {
    let config = InspectorConfig { writes: true, ..InspectorConfig::default() };
    let ((continued, status), world, entities) = play(config, |client| {
        let body = json!({ "entity": "4294967296", "component": "Health", "value": 42 }).to_string();
        let mut stream = TcpStream::connect(("127.0.0.1", client.port)).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        write!(
            stream,
            "POST /api/edit?token={} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nExpect: 100-continue\r\n\r\n",
            client.token,
            client.host(),
            body.len()
        )
        .unwrap();
        // As curl does: the body only once the server asks for it.
        let mut interim = [0u8; 25];
        stream.read_exact(&mut interim).unwrap();
        stream.write_all(body.as_bytes()).unwrap();
        let mut rest = String::new();
        stream.read_to_string(&mut rest).unwrap();
        (String::from_utf8_lossy(&interim).into_owned(), rest.split(' ').nth(1).unwrap_or("").to_owned())
    });
    assert_eq!(continued, "HTTP/1.1 100 Continue\r\n\r\n");
    assert_eq!(status, "200");
    assert_eq!(world.get::<Health>(entities[0]), Ok(&Health(42)));
}
