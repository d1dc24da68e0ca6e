//! Reading one HTTP request into a [`Route`]: the token, the path, the query string
//! and the JSON body, each checked and bounded. A pure function of the request's
//! parts, so the fuzz target and the tests reach it without a socket.

use serde_json::Value;

/// The longest URL read (path and query string together).
pub const MAX_URL: usize = 2048;
/// The longest entity search text.
pub const MAX_QUERY: usize = 256;
/// The most entities one list answer holds.
pub const MAX_LIMIT: usize = 1000;

/// What a request asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Route {
    /// The page itself.
    Page,
    /// The world's shape: tables, component types, events, memory, the inspector's cost.
    Overview,
    /// The frame samples newer than `since`.
    Live {
        /// The last frame the client has.
        since: u64,
    },
    /// Entities whose id or component names contain `query`, a page of them.
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
        !matches!(self, Route::Page | Route::Overview | Route::Live { .. })
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

/// Reads a request: `method` and `url` as sent, the `X-Ripple-Token` header if any,
/// the body, and the token this inspector expects.
///
/// # Errors
/// A [`Refusal`]: 401 without the right token, 404 for an unknown path, 405 for the
/// wrong method, 400 for a malformed query or body, 414 for a URL past [`MAX_URL`].
pub fn parse(method: &str, url: &str, token_header: Option<&str>, body: &[u8], token: &str) -> Result<Route, Refusal> {
    if url.len() > MAX_URL {
        return Err(Refusal::new(414, format!("the URL is longer than {MAX_URL} bytes")));
    }
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let params = Params::parse(query)?;
    let sent = token_header.or(params.get("token")).unwrap_or("");
    if !same_token(sent, token) {
        return Err(Refusal::new(401, "a missing or wrong token: open the URL the game printed"));
    }
    let get = |route: Route| if method == "GET" { Ok(route) } else { Err(wrong_method("GET")) };
    let post = |route: fn(&[u8]) -> Result<Route, Refusal>| {
        if method == "POST" { route(body) } else { Err(wrong_method("POST")) }
    };
    match path {
        "/" | "/index.html" => get(Route::Page),
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
}
