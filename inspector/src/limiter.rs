//! The request rate's bound: a token bucket. Only requests that carry the inspector's
//! token draw on it, so a flood of strangers' requests cannot use up the page's.

use std::time::Instant;

/// Up to `per_second` requests a second, in bursts of as many.
pub(crate) struct Limiter {
    per_second: f64,
    tokens: f64,
    at: Instant,
}

impl Limiter {
    pub(crate) fn new(per_second: u32) -> Self {
        let per_second = f64::from(per_second.max(1));
        Limiter { per_second, tokens: per_second, at: Instant::now() }
    }

    /// Whether one more request may be answered now (and counts it if so).
    pub(crate) fn allow(&mut self) -> bool {
        let now = Instant::now();
        self.tokens = (self.tokens + (now - self.at).as_secs_f64() * self.per_second).min(self.per_second);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}
