//! HTTP/1.1 framing for the inspector's server: a request's head read within a byte
//! cap, parsed into its method, target and headers, and a body of a stated length.
//! The reader is any [`Read`]: the server hands it a socket whose reads time out at a
//! deadline, the fuzz target a slice of bytes. Nothing here reads past what it is
//! allowed: the head's cap, then exactly the body's length.

use std::io::{ErrorKind, Read};

use crate::request::Refusal;

/// The most bytes a request head (request line and headers, with their line ends)
/// may take; past it a request is refused 431.
pub const MAX_HEAD: usize = 8 * 1024;
/// The most header lines a request may have; past it a request is refused 431.
pub const MAX_HEADERS: usize = 64;
/// The most bytes one read of the head asks for.
const CHUNK: usize = 2048;

/// A request's head: its request line and headers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Head {
    /// The method, as sent (`GET`, `POST`, ...).
    pub method: String,
    /// The request target: a path and, after a `?`, a query string.
    pub target: String,
    headers: Vec<(String, String)>,
}

impl Head {
    /// Parses a head: the bytes before the blank line that ends it, without that
    /// line's `\r\n\r\n`.
    ///
    /// # Errors
    /// A [`Refusal`]: 400 for a head that is not UTF-8, a malformed request line or
    /// header line, or a folded header; 505 for a version other than HTTP/1.0 or 1.1;
    /// 431 past [`MAX_HEAD`] bytes or [`MAX_HEADERS`] header lines.
    pub fn parse(bytes: &[u8]) -> Result<Head, Refusal> {
        if bytes.len() > MAX_HEAD {
            return Err(Refusal::new(431, format!("the request head is longer than {MAX_HEAD} bytes")));
        }
        let text = std::str::from_utf8(bytes).map_err(|_| Refusal::new(400, "the request head is not UTF-8"))?;
        let mut lines = text.split("\r\n");
        let line = lines.next().unwrap_or("");
        let mut parts = line.split(' ');
        let (Some(method), Some(target), Some(version), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(Refusal::new(400, "the request line is not `METHOD /path HTTP/1.1`"));
        };
        if method.is_empty() || !method.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(Refusal::new(400, "the method is not a word in capitals"));
        }
        if !target.starts_with('/') || target.bytes().any(|b| b.is_ascii_control()) {
            return Err(Refusal::new(400, "the request target is not a path"));
        }
        if version != "HTTP/1.1" && version != "HTTP/1.0" {
            return Err(Refusal::new(505, "only HTTP/1.1 and HTTP/1.0 are spoken here"));
        }
        let mut headers = Vec::new();
        for line in lines {
            if headers.len() == MAX_HEADERS {
                return Err(Refusal::new(431, format!("the request has more than {MAX_HEADERS} headers")));
            }
            if line.starts_with([' ', '\t']) {
                return Err(Refusal::new(400, "a folded header line"));
            }
            let Some((name, value)) = line.split_once(':') else {
                return Err(Refusal::new(400, "a header line without a colon"));
            };
            if name.is_empty() || !name.bytes().all(is_token_byte) {
                return Err(Refusal::new(400, "a header name that is not a token"));
            }
            let value = value.trim_matches([' ', '\t']);
            if value.bytes().any(|b| b.is_ascii_control() && b != b'\t') {
                return Err(Refusal::new(400, "a control character in a header value"));
            }
            headers.push((name.to_owned(), value.to_owned()));
        }
        Ok(Head { method: method.to_owned(), target: target.to_owned(), headers })
    }

    /// The value of the first header named `name` (case ignored).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// How many header lines the head has.
    pub fn header_count(&self) -> usize {
        self.headers.len()
    }

    /// The values of every header named `name` (case ignored), in order.
    pub fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.headers.iter().filter(move |(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The body's length from `Content-Length` (none: no such header).
    ///
    /// # Errors
    /// A [`Refusal`]: 501 for a `Transfer-Encoding` (only bodies of a stated length
    /// are read), 400 for a length that is not a number or lengths that disagree.
    pub fn content_length(&self) -> Result<Option<u64>, Refusal> {
        if self.header("Transfer-Encoding").is_some() {
            return Err(Refusal::new(501, "a Transfer-Encoding is not read here: send a Content-Length"));
        }
        let mut length = None;
        for value in self.all("Content-Length") {
            let parsed = (!value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()))
                .then(|| value.parse::<u64>().ok())
                .flatten()
                .ok_or_else(|| Refusal::new(400, "the Content-Length is not a number"))?;
            if length.is_some_and(|l| l != parsed) {
                return Err(Refusal::new(400, "two Content-Lengths that disagree"));
            }
            length = Some(parsed);
        }
        Ok(length)
    }
}

/// Whether `b` may stand in a header name (RFC 9110's `tchar`).
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Reads a request head from `reader`: up to the blank line that ends it, reading at
/// most [`MAX_HEAD`] bytes and the line end past them. Returns the head and the
/// bytes read after it (the body's first bytes), or `None` if the client closed the
/// connection (or it broke) before a whole head arrived.
///
/// # Errors
/// A [`Refusal`]: 431 for a head past the cap, 408 if a read timed out, or what
/// [`Head::parse`] refuses.
pub fn read_head(reader: &mut impl Read) -> Result<Option<(Head, Vec<u8>)>, Refusal> {
    let cap = MAX_HEAD + 4;
    let mut bytes = Vec::with_capacity(1024);
    let mut chunk = [0u8; CHUNK];
    loop {
        let want = CHUNK.min(cap - bytes.len());
        let read = match reader.read(&mut chunk[..want]) {
            Ok(0) => return Ok(None),
            Ok(read) => read,
            Err(error) if error.kind() == ErrorKind::Interrupted => continue,
            Err(error) if timed_out(&error) => return Err(Refusal::new(408, "the request head took too long")),
            Err(_) => return Ok(None),
        };
        // The blank line may straddle the previous read.
        let from = bytes.len().saturating_sub(3);
        bytes.extend_from_slice(&chunk[..read]);
        if let Some(at) = bytes[from..].windows(4).position(|w| w == b"\r\n\r\n") {
            let end = from + at;
            let rest = bytes[end + 4..].to_vec();
            return Head::parse(&bytes[..end]).map(|head| Some((head, rest)));
        }
        if bytes.len() >= cap {
            return Err(Refusal::new(431, format!("the request head is longer than {MAX_HEAD} bytes")));
        }
    }
}

/// Reads a body of `length` bytes: `start` (what [`read_head`] read past the head),
/// then the rest from `reader`, reading nothing past `length`. `None` if the client
/// closed the connection (or it broke) first.
///
/// # Errors
/// A [`Refusal`]: 408 if a read timed out.
pub fn read_body(reader: &mut impl Read, mut start: Vec<u8>, length: usize) -> Result<Option<Vec<u8>>, Refusal> {
    start.truncate(length);
    let mut body = start;
    body.reserve_exact(length - body.len());
    let mut chunk = [0u8; CHUNK];
    while body.len() < length {
        let want = CHUNK.min(length - body.len());
        match reader.read(&mut chunk[..want]) {
            Ok(0) => return Ok(None),
            Ok(read) => body.extend_from_slice(&chunk[..read]),
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            Err(error) if timed_out(&error) => return Err(Refusal::new(408, "the request body took too long")),
            Err(_) => return Ok(None),
        }
    }
    Ok(Some(body))
}

/// Whether a read failed for its timeout (platforms differ in the kind they give).
fn timed_out(error: &std::io::Error) -> bool {
    matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `input` a few bytes at a time, as a slow socket would hand it over.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let n = self.1.min(out.len()).min(self.0.len());
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn a_head_is_read_whatever_the_reads_and_the_body_follows() {
        let request = b"POST /api/edit?token=x HTTP/1.1\r\nHost: 127.0.0.1:80\r\ncontent-length: 5\r\n\r\nhello";
        for step in [1, 3, 7, 4096] {
            let mut reader = Trickle(request, step);
            let (head, rest) = read_head(&mut reader).unwrap().unwrap();
            assert_eq!((head.method.as_str(), head.target.as_str()), ("POST", "/api/edit?token=x"));
            assert_eq!(head.header("HOST"), Some("127.0.0.1:80"));
            assert_eq!(head.content_length(), Ok(Some(5)));
            assert_eq!(read_body(&mut reader, rest, 5), Ok(Some(b"hello".to_vec())));
        }
    }

    #[test]
    fn malformed_and_oversized_heads_are_refused() {
        let status = |head: &[u8]| Head::parse(head).unwrap_err().status;
        assert_eq!(status(b"GET /"), 400);
        assert_eq!(status(b"GET / HTTP/1.1 x"), 400);
        assert_eq!(status(b"get / HTTP/1.1"), 400);
        assert_eq!(status(b"GET http://x/ HTTP/1.1"), 400);
        assert_eq!(status(b"GET / HTTP/2"), 505);
        assert_eq!(status(b"GET / HTTP/1.1\r\nNo colon"), 400);
        assert_eq!(status(b"GET / HTTP/1.1\r\nA: b\r\n c"), 400);
        assert_eq!(status(b"GET / HTTP/1.1\r\nA b: c"), 400);
        assert_eq!(status(b"GET / HTTP/1.1\r\n\xff: c"), 400);
        let many = format!("GET / HTTP/1.1{}", "\r\nA: b".repeat(MAX_HEADERS + 1));
        assert_eq!(status(many.as_bytes()), 431);
        let long = format!("GET / HTTP/1.1\r\nA: {}\r\n\r\n", "b".repeat(MAX_HEAD));
        assert_eq!(read_head(&mut long.as_bytes()).unwrap_err().status, 431);
        let lengths = |values: &[&str]| {
            let mut head = Head::parse(b"POST / HTTP/1.1").unwrap();
            head.headers = values.iter().map(|v| ("Content-Length".to_owned(), (*v).to_owned())).collect();
            head.content_length().map_err(|r| r.status)
        };
        assert_eq!(lengths(&["12", "12"]), Ok(Some(12)));
        assert_eq!(lengths(&["12", "13"]), Err(400));
        assert_eq!(lengths(&["-1"]), Err(400));
        assert_eq!(lengths(&["+1"]), Err(400));
        assert_eq!(lengths(&["99999999999999999999999"]), Err(400));
        let chunked = Head::parse(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked").unwrap();
        assert_eq!(chunked.content_length().unwrap_err().status, 501);
    }

    #[test]
    fn a_head_reads_no_further_than_its_cap() {
        let endless = std::io::repeat(b'a');
        let mut counted = endless.take(u64::MAX);
        assert_eq!(read_head(&mut counted).unwrap_err().status, 431);
        assert_eq!(u64::MAX - counted.limit(), (MAX_HEAD + 4) as u64);
        // A closed connection is no request.
        assert_eq!(read_head(&mut &b"GET / HTTP/1.1\r\n"[..]), Ok(None));
    }
}
