//! The inspector against hostile local processes, over TCP: a client that holds a
//! body back, one that sends endless headers, one that floods it without the token,
//! and a web page that posts to it across origins. None may stall, inflate or lock
//! out the page, nor change the world.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use common::{Client, Game, PATIENCE, Response, play, raw, read_response};
use ripple::World;
use ripple_inspector::InspectorConfig;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Health(u32);

/// A world of ten entities with a registered `Health`.
fn game() -> Game {
    let mut world = World::new();
    for _ in 0..10 {
        world.spawn((Health(10),));
    }
    let mut game = Game::new(world);
    game.registry.component::<Health>("Health").unwrap();
    game
}

/// A connection that sends a `POST` head announcing a 64 KiB body, then one byte of
/// it, and holds the rest back.
fn slow_body(client: &Client, token: Option<&str>) -> TcpStream {
    let mut stream = TcpStream::connect(("127.0.0.1", client.port)).unwrap();
    let query = token.map(|t| format!("?token={t}")).unwrap_or_default();
    write!(
        stream,
        "POST /api/edit{query} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 65536\r\n\r\n{{",
        client.host()
    )
    .unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    stream
}

#[test]
fn a_held_back_body_stalls_nobody_and_a_stranger_is_refused_before_sending_it() {
    let played = play(
        game(),
        InspectorConfig::default(),
        Some(Duration::from_millis(1)),
        |_, _| {},
        |client| {
            let mut stranger = slow_body(&client, None);
            let _member = slow_body(&client, Some(&client.token));
            // The page's polls are answered while both bodies are held back.
            let polls: Vec<u16> = (0..10).map(|_| client.get("/api/live").status).collect();
            // The stranger is refused from its headers, its body never read.
            let refused = read_response(&mut stranger).map(|r| r.status);
            (polls, refused.ok())
        },
    );
    let (polls, stranger) = played.result;
    assert_eq!(polls, [200; 10]);
    assert_eq!(stranger, Some(401), "a request without the token is refused before its body");
}

#[test]
fn a_client_that_stops_mid_request_is_timed_out() {
    let played = play(
        game(),
        InspectorConfig::default(),
        Some(Duration::from_millis(1)),
        |_, _| {},
        |client| {
            let mut stream = TcpStream::connect(("127.0.0.1", client.port)).unwrap();
            // Half a head, then nothing.
            write!(stream, "GET /api/live?token={} HTTP/1.1\r\nHost: {}\r\n", client.token, client.host()).unwrap();
            stream.set_read_timeout(Some(PATIENCE)).unwrap();
            let mut answer = Vec::new();
            // The server gives up on it: it answers 408 and closes.
            let closed = stream.read_to_end(&mut answer).is_ok();
            (closed, String::from_utf8_lossy(&answer).into_owned())
        },
    );
    let (closed, answer) = played.result;
    assert!(closed, "the server closed the connection of a client that stopped sending");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer:?}");
}

#[test]
fn headers_past_the_cap_are_refused_unread() {
    let played = play(
        game(),
        InspectorConfig::default(),
        Some(Duration::from_millis(1)),
        |_, _| {},
        |client| {
            let mut stream = TcpStream::connect(("127.0.0.1", client.port)).unwrap();
            stream.set_write_timeout(Some(PATIENCE)).unwrap();
            let reader = stream.try_clone().unwrap();
            let answer = std::thread::spawn(move || {
                let mut reader = reader;
                reader.set_read_timeout(Some(PATIENCE)).unwrap();
                let mut bytes = Vec::new();
                // A reset after the answer is fine: the answer is what counts.
                let mut chunk = [0u8; 4096];
                while let Ok(n @ 1..) = reader.read(&mut chunk) {
                    bytes.extend_from_slice(&chunk[..n]);
                }
                String::from_utf8_lossy(&bytes).into_owned()
            });
            write!(stream, "GET /api/live?token={} HTTP/1.1\r\nHost: {}\r\nX-Pad: ", client.token, client.host())
                .unwrap();
            // One header line of up to 64 MiB: the server must stop reading it long before.
            let chunk = vec![b'a'; 64 * 1024];
            let mut sent = 0usize;
            while sent < 64 << 20 {
                match stream.write(&chunk) {
                    Ok(n) => sent += n,
                    Err(_) => break,
                }
            }
            (sent, answer.join().unwrap())
        },
    );
    let (sent, answer) = played.result;
    assert!(answer.starts_with("HTTP/1.1 431"), "{answer:?}");
    // What the socket buffers hold is all that got through before the server closed.
    assert!(sent < 64 << 20, "the server read all {sent} bytes of one header line");
}

#[test]
fn a_flood_without_the_token_leaves_the_pages_budget_alone() {
    let config = InspectorConfig { max_requests_per_second: 5, ..InspectorConfig::default() };
    let played = play(
        game(),
        config,
        Some(Duration::from_millis(1)),
        |_, _| {},
        |client| {
            let stranger =
                format!("GET /api/live?token=guess HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", client.host());
            let refused: Vec<u16> = (0..40).map(|_| raw(client.port, stranger.as_bytes()).status).collect();
            let page: Vec<u16> = (0..3).map(|_| client.get("/api/live").status).collect();
            (refused, page)
        },
    );
    let (refused, page) = played.result;
    assert!(refused.iter().all(|&s| s == 401), "{refused:?}");
    assert_eq!(page, [200; 3], "the page's requests are not refused for the strangers' flood");
}

/// What a write answers, with `headers` (lines ending in `\r\n`) and a content type.
fn edit(client: &Client, content_type: &str, headers: &str, value: u32) -> Response {
    let body = format!(r#"{{"entity":"4294967296","component":"Health","value":{value}}}"#);
    client.post("/api/edit", content_type, headers, &body)
}

#[test]
fn writes_from_other_origins_are_refused() {
    let config = InspectorConfig { writes: true, ..InspectorConfig::default() };
    let played = play(
        game(),
        config,
        Some(Duration::from_millis(1)),
        |_, _| {},
        |client| {
            let own = format!("http://{}", client.host());
            vec![
                // A form's simple POST: not JSON.
                edit(&client, "text/plain", "", 1).status,
                edit(&client, "application/x-www-form-urlencoded", "", 2).status,
                // A no-cors fetch from a page elsewhere, with the token.
                edit(&client, "application/json", "Origin: http://evil.example\r\n", 3).status,
                edit(&client, "application/json", "Origin: null\r\n", 4).status,
                edit(&client, "application/json", "Sec-Fetch-Site: cross-site\r\n", 5).status,
                edit(&client, "application/json", "Sec-Fetch-Site: same-site\r\n", 6).status,
                // The page itself, and a tool that sends no origin.
                edit(&client, "application/json", &format!("Origin: {own}\r\nSec-Fetch-Site: same-origin\r\n"), 7)
                    .status,
                edit(&client, "application/json; charset=utf-8", "", 8).status,
            ]
        },
    );
    assert_eq!(played.result, [415, 415, 403, 403, 403, 403, 200, 200]);
    let first = ripple::Entity::from_bits(4294967296).unwrap();
    assert_eq!(played.game.world.get::<Health>(first), Ok(&Health(8)), "only the page's and the tool's edits landed");
}

#[test]
fn the_page_keeps_its_token_and_frames_to_itself() {
    let played = play(
        game(),
        InspectorConfig::default(),
        Some(Duration::from_millis(1)),
        |_, _| {},
        |client| {
            let page = client.get("/");
            let scripts: Vec<Response> = page
                .body
                .split("<script src=\"")
                .skip(1)
                .filter_map(|rest| rest.split('"').next())
                .map(|src| client.get(src))
                .collect();
            (page, scripts)
        },
    );
    let (page, scripts) = played.result;
    assert_eq!(page.status, 200);
    assert_eq!(page.header("Referrer-Policy"), Some("no-referrer"));
    let csp = page.header("Content-Security-Policy").expect("a content security policy");
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    assert!(!csp.contains("'unsafe-inline'"), "{csp}");
    assert!(!page.body.contains("<script>"), "no inline script");
    assert!(!scripts.is_empty() && scripts.iter().all(|s| s.status == 200), "the page's scripts are served");
    let script: String = scripts.iter().map(|s| s.body.as_str()).collect();
    assert!(script.contains("history.replaceState"), "the page takes the token out of the address bar");
}
