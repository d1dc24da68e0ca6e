//! The inspector's request parser against arbitrary requests: it never panics, refuses
//! anything without the right token, answers with a status in the client-error range,
//! and routes a write only from a POST.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ripple_inspector::request::{MAX_LIMIT, MAX_URL, Route, parse};

const TOKEN: &str = "0123456789abcdef0123456789abcdef";

fuzz_target!(|input: (u8, String, Option<String>, Vec<u8>)| {
    let (method, url, header, body) = input;
    let method = ["GET", "POST", "PUT", "DELETE", ""][usize::from(method) % 5];
    // Half the inputs carry the right token, so the routes past the check are reached.
    let url = if url.len() % 2 == 0 { format!("{url}&token={TOKEN}") } else { url };
    match parse(method, &url, header.as_deref(), &body, TOKEN) {
        Ok(route) => {
            assert!(url.len() <= MAX_URL);
            assert!(
                url.contains(TOKEN) || header.as_deref() == Some(TOKEN),
                "a route without the token: {url:?}"
            );
            if route.writes() {
                assert_eq!(method, "POST");
            }
            if let Route::Entities { limit, .. } = route {
                assert!(limit <= MAX_LIMIT);
            }
            assert_eq!(parse(method, &url, header.as_deref(), &body, TOKEN), Ok(route), "deterministic");
        }
        Err(refusal) => assert!((400..500).contains(&refusal.status), "{refusal:?}"),
    }
});
