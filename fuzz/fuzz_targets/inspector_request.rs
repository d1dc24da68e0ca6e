//! The inspector's request reading against arbitrary bytes, as the server reads a
//! connection: the head within its cap, the checks made before any body byte, the
//! body of the stated length, then the route. It never panics, never reads past the
//! head's cap and the body's bound, refuses anything but the page's own files without
//! the right token, answers with a status in the error ranges, and routes a write only
//! from a JSON POST of the page's own origin (or none).
#![no_main]

use std::io::Read;

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use ripple_inspector::http::{MAX_HEAD, MAX_HEADERS, read_body, read_head};
use ripple_inspector::request::{Expected, MAX_LIMIT, MAX_URL, Route, admit, parse};

const TOKEN: &str = "0123456789abcdef0123456789abcdef";
const PORT: u16 = 4321;
const MAX_BODY: usize = 1024;

/// A request: raw bytes, or parts assembled into a well-formed head (so the checks
/// past the head are reached), with the right token where asked.
#[derive(Arbitrary, Debug)]
enum Input {
    Raw { bytes: Vec<u8>, step: u8 },
    Parts { method: u8, path: String, headers: Vec<(String, String)>, token: u8, body: Vec<u8>, step: u8 },
}

/// Hands out the input a few bytes a read, as a socket may, counting what was read.
struct Trickle<'a> {
    bytes: &'a [u8],
    step: usize,
    read: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(out.len()).min(self.bytes.len());
        out[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        self.read += n;
        Ok(n)
    }
}

fn assemble(method: u8, path: &str, headers: &[(String, String)], token: u8, body: &[u8]) -> Vec<u8> {
    let method = ["GET", "POST", "PUT", "get", ""][usize::from(method) % 5];
    let query = if token & 1 != 0 { format!("?token={TOKEN}") } else { String::new() };
    let mut head = format!("{method} /{path}{query} HTTP/1.1\r\nHost: 127.0.0.1:{PORT}\r\n");
    if token & 2 != 0 {
        head.push_str(&format!("X-Ripple-Token: {TOKEN}\r\n"));
    }
    if token & 4 != 0 {
        head.push_str(&format!("Content-Type: application/json\r\nContent-Length: {}\r\n", body.len()));
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

fuzz_target!(|input: Input| {
    let (bytes, step) = match input {
        Input::Raw { bytes, step } => (bytes, step),
        Input::Parts { method, path, headers, token, body, step } => {
            (assemble(method, &path, &headers, token, &body), step)
        }
    };
    let mut reader = Trickle { bytes: &bytes, step: usize::from(step).max(1), read: 0 };
    let (head, start) = match read_head(&mut reader) {
        Ok(Some(read)) => read,
        Ok(None) => return,
        Err(refusal) => {
            assert!([400, 408, 431, 505].contains(&refusal.status), "{refusal:?}");
            assert!(reader.read <= MAX_HEAD + 4, "read {} bytes of a head", reader.read);
            return;
        }
    };
    assert!(reader.read <= MAX_HEAD + 4, "read {} bytes of a head", reader.read);
    assert!(head.header_count() <= MAX_HEADERS && head.target.starts_with('/'));
    let expected = Expected { port: PORT, token: TOKEN, max_body: MAX_BODY };
    let admitted = match admit(&head, &expected) {
        Ok(admitted) => admitted,
        Err(refusal) => {
            assert!((400..600).contains(&refusal.status), "{refusal:?}");
            return;
        }
    };
    assert!(admitted.body_length <= MAX_BODY);
    let carries_token = head.header("X-Ripple-Token") == Some(TOKEN) || head.target.contains(TOKEN);
    assert!(!admitted.authenticated || carries_token, "admitted without the token: {head:?}");
    let before_body = reader.read;
    let Ok(Some(body)) = read_body(&mut reader, start, admitted.body_length) else { return };
    assert_eq!(body.len(), admitted.body_length);
    assert!(reader.read - before_body <= admitted.body_length, "read past the body");
    match parse(&head.method, &head.target, head.header("X-Ripple-Token"), &body, TOKEN) {
        Ok(route) => {
            assert!(head.target.len() <= MAX_URL);
            assert!(route.is_public() || admitted.authenticated, "a route without the token: {head:?}");
            if route.writes() {
                assert_eq!(head.method, "POST");
                let json =
                    head.header("Content-Type").is_some_and(|t| t.to_ascii_lowercase().contains("application/json"));
                assert!(json, "a write not declared JSON: {head:?}");
                let own = [format!("http://127.0.0.1:{PORT}"), format!("http://localhost:{PORT}")];
                assert!(head.all("Origin").all(|origin| own.iter().any(|o| o == origin)), "a write from elsewhere");
            }
            if let Route::Entities { limit, .. } = route {
                assert!(limit <= MAX_LIMIT);
            }
            let again = parse(&head.method, &head.target, head.header("X-Ripple-Token"), &body, TOKEN);
            assert_eq!(again, Ok(route), "deterministic");
        }
        Err(refusal) => assert!((400..500).contains(&refusal.status), "{refusal:?}"),
    }
});
