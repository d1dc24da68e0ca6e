//! Writing the inspector's responses: one per connection, which closes after it, each
//! with the headers that keep the page's token and frames to itself.

use std::borrow::Cow;
use std::io::{self, Write};

use crate::answer::Answer;
use crate::request::Refusal;

/// The page, its script and its style sheet, shipped in the crate.
const PAGE: &str = include_str!("../page/index.html");
const SCRIPT: &str = include_str!("../page/inspector.js");
const STYLE: &str = include_str!("../page/inspector.css");

/// What the page may load and who may frame it: its own files only, no inline
/// script or style, no frames around it, no forms sent anywhere.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
                      img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// A response: a status, a content type and a body.
pub(crate) struct Reply {
    pub(crate) status: u16,
    content_type: &'static str,
    body: Cow<'static, str>,
}

impl Reply {
    pub(crate) fn page() -> Reply {
        Reply { status: 200, content_type: "text/html; charset=utf-8", body: Cow::Borrowed(PAGE) }
    }

    pub(crate) fn script() -> Reply {
        Reply { status: 200, content_type: "text/javascript; charset=utf-8", body: Cow::Borrowed(SCRIPT) }
    }

    pub(crate) fn style() -> Reply {
        Reply { status: 200, content_type: "text/css; charset=utf-8", body: Cow::Borrowed(STYLE) }
    }

    pub(crate) fn json(answer: Answer) -> Reply {
        Reply { status: answer.status, content_type: "application/json", body: Cow::Owned(answer.body) }
    }

    pub(crate) fn refusal(refusal: Refusal) -> Reply {
        Reply::json(Answer::error(refusal.status, refusal.message))
    }

    /// Writes the response, head and body, in one write where the body is small.
    pub(crate) fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        let head = format!(
            "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\
             Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n\
             X-Frame-Options: DENY\r\nCross-Origin-Resource-Policy: same-origin\r\n\
             Content-Security-Policy: {POLICY}\r\n\r\n",
            self.status,
            reason(self.status),
            self.content_type,
            self.body.len(),
        );
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(self.body.as_bytes());
        out.write_all(&bytes)?;
        out.flush()
    }
}

/// The reason phrase of each status the inspector sends.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        411 => "Length Required",
        413 => "Content Too Large",
        414 => "URI Too Long",
        415 => "Unsupported Media Type",
        421 => "Misdirected Request",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "",
    }
}
