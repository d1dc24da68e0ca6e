//! Reading one HTTP request into a [`Route`]: first what its head must show before
//! any of its body is read ([`admit`]: the host, the token, the size, where a write
//! comes from), then the path, the query string and the JSON body, each checked and
//! bounded ([`parse`]). Pure functions of the request's parts, so the fuzz target and
//! the tests reach them without a socket.

use serde_json::Value;

use crate::http::Head;

/// The longest URL read (path and query string together).
pub const MAX_URL: usize = 2048;
/// The longest entity search text.
pub const MAX_QUERY: usize = 256;
/// The most entities one list answer holds.
pub const MAX_LIMIT: usize = 1000;

/// What a request asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Route {
    /// The page itself (served without the token: it holds nothing of the game's).
    Page,
    /// The page's script (served without the token).
    Script,
    /// The page's style sheet (served without the token).
    Style,
    /// The world's shape: tables, component types, events, memory, the inspector's cost.
    Overview,
    /// The frame samples newer than `since`.
    Live {
        /// The last frame the client has.
        since: u64,
    },
    /// The entity whose id (`12v1`) or bits are `query`, and the entities with a
    /// component whose name contains it; a page of them.
    Entities {
        /// The search text (empty: every entity).
        query: String,
        /// How many matches to pass over.
        offset: usize,
        /// How many to return, at most [`MAX_LIMIT`].
        limit: usize,
    },
    /// One entity's components and values.
    Entity {
        /// The entity's bits ([`ripple::Entity::to_bits`]).
        bits: u64,
    },
    /// Writes a component value (JSON, through the scene registry).
    Edit {
        /// The entity's bits.
        entity: u64,
        /// The component's registered name.
        component: String,
        /// The new value.
        value: Value,
    },
    /// Spawns an entity with the given registered components and values.
    Spawn {
        /// Registered names and values, in the request's order.
        components: Vec<(String, Value)>,
    },
    /// Despawns an entity.
    Despawn {
        /// The entity's bits.
        entity: u64,
    },
    /// Runs a data command (the body, as sent).
    Command {
        /// The command's JSON.
        json: Vec<u8>,
    },
}

impl Route {
    /// Whether the route changes the world (refused unless the game enabled writes).
    pub fn writes(&self) -> bool {
        matches!(self, Route::Edit { .. } | Route::Spawn { .. } | Route::Despawn { .. } | Route::Command { .. })
    }

    /// Whether the route is answered by the game at its next sync point (the others
    /// from what the inspector already holds).
    pub fn needs_world(&self) -> bool {
        !matches!(self, Route::Page | Route::Script | Route::Style | Route::Overview | Route::Live { .. })
    }

    /// Whether the route is served without the token.
    pub fn is_public(&self) -> bool {
        matches!(self, Route::Page | Route::Script | Route::Style)
    }
}

/// Why a request was refused: an HTTP status and a message for the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The HTTP status.
    pub status: u16,
    /// What went wrong, in words.
    pub message: String,
}

impl Refusal {
    pub(crate) fn new(status: u16, message: impl Into<String>) -> Self {
        Refusal { status, message: message.into() }
    }
}

/// What [`admit`] checks a request's head against.
#[derive(Clone, Copy, Debug)]
pub struct Expected<'a> {
    /// The port the inspector serves on: the `Host` and `Origin` it accepts name it.
    pub port: u16,
    /// The token every request but those for the page's own files must carry.
    pub token: &'a str,
    /// The largest body read.
    pub max_body: usize,
}

/// What a request's head let through ([`admit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Admitted {
    /// Whether it carries the token (requests for the page's own files need not).
    pub authenticated: bool,
    /// The length of the body to read next, at most [`Expected::max_body`].
    pub body_length: usize,
}

/// Checks what a request's head must show before any byte of its body is read: its
/// `Host`, its token, that an API request comes from the page's own origin (or from
/// no page at all), that a `POST` states its length and sends JSON, and that the
/// body is within bounds.
///
/// # Errors
/// A [`Refusal`]: 421 for another host, 414 for a URL past [`MAX_URL`], 400 for a
/// malformed query string, 401 without the right token, 403 for a request from
/// another site or origin, 501 for a `Transfer-Encoding`, 400 for a malformed
/// `Content-Length`, 411 for a `POST` without one, 413 for a body past `max_body`,
/// 415 for a `POST` whose body is not declared JSON.
pub fn admit(head: &Head, expected: &Expected<'_>) -> Result<Admitted, Refusal> {
    // A page on another site that resolves its own name to 127.0.0.1 (DNS
    // rebinding) sends its own name as the host: refused.
    let ours = |value: &str, scheme: &str| {
        let name = value.strip_prefix(scheme).and_then(|rest| rest.strip_suffix(&format!(":{}", expected.port)));
        matches!(name, Some("127.0.0.1" | "localhost"))
    };
    let mut hosts = head.all("Host");
    if !hosts.next().is_some_and(|host| ours(host, "")) || hosts.next().is_some() {
        return Err(Refusal::new(421, "the inspector answers only requests addressed to 127.0.0.1 or localhost"));
    }
    if head.target.len() > MAX_URL {
        return Err(Refusal::new(414, format!("the URL is longer than {MAX_URL} bytes")));
    }
    let (path, query) = head.target.split_once('?').unwrap_or((&head.target, ""));
    if head.method == "GET" && public_route(path).is_some() {
        return Ok(Admitted { authenticated: false, body_length: 0 });
    }
    let params = Params::parse(query)?;
    if !same_token(head.header("X-Ripple-Token").or(params.get("token")).unwrap_or(""), expected.token) {
        return Err(unauthorised());
    }
    // A page elsewhere that holds the token (a leaked URL) still cannot write: its
    // requests say where they come from.
    if head.header("Sec-Fetch-Site").is_some_and(|site| site != "same-origin" && site != "none") {
        return Err(Refusal::new(403, "a request from another site: only the inspector's own page may call it"));
    }
    if head.all("Origin").any(|origin| !ours(origin, "http://")) {
        return Err(Refusal::new(403, "a request from another origin: only the inspector's own page may call it"));
    }
    let length = head.content_length()?;
    let body_length = match length {
        Some(length) if length > expected.max_body as u64 => {
            return Err(Refusal::new(413, format!("the body is longer than {} bytes", expected.max_body)));
        }
        Some(length) => length as usize,
        None if head.method == "POST" => return Err(Refusal::new(411, "a POST needs a Content-Length")),
        None => 0,
    };
    if head.method == "POST" {
        let media = head.header("Content-Type").and_then(|t| t.split(';').next()).unwrap_or("").trim();
        if !media.eq_ignore_ascii_case("application/json") {
            return Err(Refusal::new(415, "a POST's body must be declared `Content-Type: application/json`"));
        }
    }
    Ok(Admitted { authenticated: true, body_length })
}

/// The route of a path served without the token, if it is one.
fn public_route(path: &str) -> Option<Route> {
    match path {
        "/" | "/index.html" => Some(Route::Page),
        "/inspector.js" => Some(Route::Script),
        "/inspector.css" => Some(Route::Style),
        _ => None,
    }
}

fn unauthorised() -> Refusal {
    Refusal::new(401, "a missing or wrong token: open the URL the game printed")
}

/// Reads a request: `method` and `url` as sent, the `X-Ripple-Token` header if any,
/// the body, and the token this inspector expects. The page's own files are served
/// without the token; everything else needs it.
///
/// # Errors
/// A [`Refusal`]: 401 without the right token, 404 for an unknown path, 405 for the
/// wrong method, 400 for a malformed query or body, 414 for a URL past [`MAX_URL`].
pub fn parse(method: &str, url: &str, token_header: Option<&str>, body: &[u8], token: &str) -> Result<Route, Refusal> {
    if url.len() > MAX_URL {
        return Err(Refusal::new(414, format!("the URL is longer than {MAX_URL} bytes")));
    }
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let get = |route: Route| if method == "GET" { Ok(route) } else { Err(wrong_method("GET")) };
    if let Some(route) = public_route(path) {
        return get(route);
    }
    let params = Params::parse(query)?;
    let sent = token_header.or(params.get("token")).unwrap_or("");
    if !same_token(sent, token) {
        return Err(unauthorised());
    }
    let post = |route: fn(&[u8]) -> Result<Route, Refusal>| {
        if method == "POST" { route(body) } else { Err(wrong_method("POST")) }
    };
    match path {
        "/api/overview" => get(Route::Overview),
        "/api/live" => get(Route::Live { since: params.number("since", 0)? }),
        "/api/entities" => {
            let query = params.get("q").unwrap_or("").to_owned();
            if query.chars().count() > MAX_QUERY {
                return Err(Refusal::new(400, format!("the search text is longer than {MAX_QUERY} characters")));
            }
            let offset = usize::try_from(params.number("offset", 0)?).unwrap_or(usize::MAX);
            let limit = params.number("limit", 100)?.min(MAX_LIMIT as u64) as usize;
            get(Route::Entities { query, offset, limit })
        }
        "/api/entity" => get(Route::Entity { bits: params.required_number("id")? }),
        "/api/edit" => post(|body| {
            let object = json_object(body)?;
            Ok(Route::Edit {
                entity: entity_field(&object)?,
                component: string_field(&object, "component")?,
                value: object.get("value").cloned().ok_or_else(|| Refusal::new(400, "the body has no `value`"))?,
            })
        }),
        "/api/spawn" => post(|body| {
            let object = json_object(body)?;
            let components = match object.get("components") {
                Some(Value::Object(map)) => map.iter().map(|(name, value)| (name.clone(), value.clone())).collect(),
                None => Vec::new(),
                Some(_) => return Err(Refusal::new(400, "`components` is not an object of names to values")),
            };
            Ok(Route::Spawn { components })
        }),
        "/api/despawn" => post(|body| Ok(Route::Despawn { entity: entity_field(&json_object(body)?)? })),
        "/api/command" => post(|body| {
            serde_json::from_slice::<Value>(body)
                .map_err(|error| Refusal::new(400, format!("the body is not JSON: {error}")))?;
            Ok(Route::Command { json: body.to_vec() })
        }),
        _ => Err(Refusal::new(404, format!("no such path: {path}"))),
    }
}

fn wrong_method(expected: &str) -> Refusal {
    Refusal::new(405, format!("this path takes {expected}"))
}

/// Compares tokens in time that does not depend on where they differ.
fn same_token(sent: &str, expected: &str) -> bool {
    sent.len() == expected.len() && sent.bytes().zip(expected.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
}

fn json_object(body: &[u8]) -> Result<serde_json::Map<String, Value>, Refusal> {
    match serde_json::from_slice(body) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(_) => Err(Refusal::new(400, "the body is not a JSON object")),
        Err(error) => Err(Refusal::new(400, format!("the body is not JSON: {error}"))),
    }
}

fn string_field(object: &serde_json::Map<String, Value>, field: &str) -> Result<String, Refusal> {
    match object.get(field) {
        Some(Value::String(text)) => Ok(text.clone()),
        _ => Err(Refusal::new(400, format!("the body has no string `{field}`"))),
    }
}

/// The `entity` field: an entity's bits, as a string (JSON numbers lose bits past
/// 2^53 in a browser) or a number.
fn entity_field(object: &serde_json::Map<String, Value>) -> Result<u64, Refusal> {
    let bad = || Refusal::new(400, "`entity` is not an entity's bits (a decimal string)");
    match object.get("entity") {
        Some(Value::String(text)) => text.parse().map_err(|_| bad()),
        Some(Value::Number(number)) => number.as_u64().ok_or_else(bad),
        _ => Err(bad()),
    }
}

/// A query string's parameters, percent-decoded.
struct Params(Vec<(String, String)>);

impl Params {
    fn parse(query: &str) -> Result<Params, Refusal> {
        let mut params = Vec::new();
        for pair in query.split('&').filter(|pair| !pair.is_empty()) {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            params.push((decode(name)?, decode(value)?));
        }
        Ok(Params(params))
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    fn number(&self, name: &str, default: u64) -> Result<u64, Refusal> {
        match self.get(name) {
            None | Some("") => Ok(default),
            Some(text) => text.parse().map_err(|_| Refusal::new(400, format!("`{name}` is not a whole number"))),
        }
    }

    fn required_number(&self, name: &str) -> Result<u64, Refusal> {
        match self.get(name) {
            Some(text) => text.parse().map_err(|_| Refusal::new(400, format!("`{name}` is not a whole number"))),
            None => Err(Refusal::new(400, format!("the query has no `{name}`"))),
        }
    }
}

/// Percent-decoding (`+` as a space), refusing malformed escapes and invalid UTF-8.
fn decode(text: &str) -> Result<String, Refusal> {
    let bad = || Refusal::new(400, "a malformed percent escape in the query");
    let mut bytes = Vec::with_capacity(text.len());
    let mut input = text.bytes();
    while let Some(byte) = input.next() {
        match byte {
            b'%' => {
                let high = input.next().and_then(|b| (b as char).to_digit(16)).ok_or_else(bad)?;
                let low = input.next().and_then(|b| (b as char).to_digit(16)).ok_or_else(bad)?;
                bytes.push((high * 16 + low) as u8);
            }
            b'+' => bytes.push(b' '),
            other => bytes.push(other),
        }
    }
    String::from_utf8(bytes).map_err(|_| Refusal::new(400, "the query is not UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "abc123";

    fn get(url: &str) -> Result<Route, Refusal> {
        parse("GET", url, None, b"", TOKEN)
    }

    #[test]
    fn routes_read_their_parameters() {
        assert_eq!(get("/?token=abc123"), Ok(Route::Page));
        assert_eq!(get("/"), Ok(Route::Page), "the page holds nothing of the game's");
        assert_eq!(get("/inspector.js"), Ok(Route::Script));
        assert_eq!(get("/api/live?since=41&token=abc123"), Ok(Route::Live { since: 41 }));
        assert_eq!(
            get("/api/entities?token=abc123&q=Pos%20it+x&limit=5000"),
            Ok(Route::Entities { query: "Pos it x".into(), offset: 0, limit: MAX_LIMIT })
        );
        assert_eq!(parse("GET", "/api/entity?id=7", Some(TOKEN), b"", TOKEN), Ok(Route::Entity { bits: 7 }));
        let edit =
            parse("POST", "/api/edit?token=abc123", None, br#"{"entity":"9","component":"hp","value":3}"#, TOKEN);
        assert_eq!(edit, Ok(Route::Edit { entity: 9, component: "hp".into(), value: serde_json::json!(3) }));
        assert!(edit.unwrap().writes());
    }

    #[test]
    fn bad_requests_are_refused_with_a_status_and_a_reason() {
        assert_eq!(get("/api/overview").unwrap_err().status, 401);
        assert_eq!(get("/api/overview?token=abc124").unwrap_err().status, 401);
        assert_eq!(get("/api/overview?token=abc1234").unwrap_err().status, 401);
        assert_eq!(get("/nope?token=abc123").unwrap_err().status, 404);
        assert_eq!(get("/nope").unwrap_err().status, 401, "no path is told to a stranger");
        assert_eq!(parse("POST", "/", None, b"", TOKEN).unwrap_err().status, 405);
        assert_eq!(parse("POST", "/api/live?token=abc123", None, b"", TOKEN).unwrap_err().status, 405);
        assert_eq!(get("/api/live?since=-1&token=abc123").unwrap_err().status, 400);
        assert_eq!(get("/api/entity?token=abc123").unwrap_err().status, 400);
        assert_eq!(get("/api/live?token=abc123&x=%zz").unwrap_err().status, 400);
        assert_eq!(get("/api/live?token=abc123&x=%ff").unwrap_err().status, 400);
        assert_eq!(get(&format!("/?token=abc123&q={}", "a".repeat(MAX_URL))).unwrap_err().status, 414);
        let post = |path: &str, body: &[u8]| parse("POST", path, Some(TOKEN), body, TOKEN).unwrap_err();
        assert_eq!(post("/api/edit", b"{").status, 400);
        assert_eq!(post("/api/edit", b"[1]").status, 400);
        assert!(post("/api/edit", br#"{"entity":"x","component":"hp","value":1}"#).message.contains("bits"));
        assert!(post("/api/edit", br#"{"entity":"1","value":1}"#).message.contains("component"));
        assert_eq!(post("/api/spawn", br#"{"components":[1]}"#).status, 400);
        assert_eq!(post("/api/command", b"not json").status, 400);
    }

    fn admitted(head: &str) -> Result<Admitted, u16> {
        let head = Head::parse(head.as_bytes()).unwrap();
        admit(&head, &Expected { port: 80, token: TOKEN, max_body: 100 }).map_err(|r| r.status)
    }

    #[test]
    fn a_head_is_admitted_or_refused_before_its_body_is_read() {
        let ok = |length| Ok(Admitted { authenticated: true, body_length: length });
        assert_eq!(admitted("GET /api/live?token=abc123 HTTP/1.1\r\nHost: 127.0.0.1:80"), ok(0));
        assert_eq!(admitted("GET /api/live HTTP/1.1\r\nHost: localhost:80\r\nX-Ripple-Token: abc123"), ok(0));
        assert_eq!(
            admitted("GET / HTTP/1.1\r\nHost: localhost:80"),
            Ok(Admitted { authenticated: false, body_length: 0 }),
            "the page's own files need no token"
        );
        assert_eq!(admitted("GET /api/live?token=abc123 HTTP/1.1\r\nHost: evil.example:80"), Err(421));
        assert_eq!(admitted("GET /api/live?token=abc123 HTTP/1.1\r\nHost: 127.0.0.1:81"), Err(421));
        assert_eq!(admitted("GET /api/live?token=abc123 HTTP/1.1"), Err(421));
        assert_eq!(admitted("GET /api/live?token=abc123 HTTP/1.1\r\nHost: 127.0.0.1:80\r\nHost: evil:80"), Err(421));
        assert_eq!(admitted("GET /api/live HTTP/1.1\r\nHost: 127.0.0.1:80"), Err(401));
        // The token is checked before anything about a body.
        assert_eq!(admitted("POST /api/edit HTTP/1.1\r\nHost: 127.0.0.1:80\r\nContent-Length: 99999"), Err(401));
        let post = |headers: &str| {
            admitted(&format!("POST /api/edit?token=abc123 HTTP/1.1\r\nHost: 127.0.0.1:80\r\n{headers}"))
        };
        assert_eq!(post("Content-Type: application/json\r\nContent-Length: 12"), ok(12));
        assert_eq!(post("Content-Type: Application/JSON; charset=utf-8\r\nContent-Length: 0"), ok(0));
        assert_eq!(post("Content-Type: text/plain\r\nContent-Length: 12"), Err(415));
        assert_eq!(post("Content-Length: 12"), Err(415));
        assert_eq!(post("Content-Type: application/json"), Err(411));
        assert_eq!(post("Content-Type: application/json\r\nContent-Length: 101"), Err(413));
        assert_eq!(post("Content-Type: application/json\r\nTransfer-Encoding: chunked"), Err(501));
        let json = "Content-Type: application/json\r\nContent-Length: 1\r\n";
        assert_eq!(post(&format!("{json}Origin: http://127.0.0.1:80")), ok(1));
        assert_eq!(post(&format!("{json}Origin: http://localhost:80\r\nSec-Fetch-Site: same-origin")), ok(1));
        assert_eq!(post(&format!("{json}Origin: http://evil.example")), Err(403));
        assert_eq!(post(&format!("{json}Origin: http://127.0.0.1:81")), Err(403));
        assert_eq!(post(&format!("{json}Origin: null")), Err(403));
        assert_eq!(post(&format!("{json}Sec-Fetch-Site: cross-site")), Err(403));
        assert_eq!(post(&format!("{json}Sec-Fetch-Site: same-site")), Err(403));
    }
}
