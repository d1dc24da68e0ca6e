//! [`Tick`]: a point in the world's change history, compared wrap-aware.

use std::fmt;

/// A point in a world's change history.
///
/// Ticks are 32-bit and wrap. They are only ever compared relative to a recent
/// "now": a tick is newer than another if it is closer to now. The world clamps
/// stored ticks that grow older than [`Tick::MAX_AGE`] (once every
/// `CHECK_TICK_THRESHOLD` ticks), so comparisons never see an ambiguous age however
/// long the world runs.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tick(pub(crate) u32);

/// How often (in ticks) the world clamps old ticks.
pub(crate) const CHECK_TICK_THRESHOLD: u32 = 1 << 29;

impl Tick {
    /// The oldest age a stored tick may reach before it is clamped. Two thresholds of
    /// slack keep every live age below `u32::MAX`.
    pub const MAX_AGE: u32 = u32::MAX - 2 * CHECK_TICK_THRESHOLD - 1;

    /// The raw counter value.
    #[inline]
    pub const fn get(self) -> u32 {
        self.0
    }

    /// How many ticks ago this was, seen from `now`.
    #[inline]
    pub(crate) fn age(self, now: Tick) -> u32 {
        now.0.wrapping_sub(self.0)
    }

    /// Whether this tick is strictly newer than `last_run`, seen from `this_run`.
    #[inline]
    pub fn is_newer_than(self, last_run: Tick, this_run: Tick) -> bool {
        self.age(this_run) < last_run.age(this_run)
    }

    /// Clamps this tick so it is at most [`Tick::MAX_AGE`] old at `now`. Returns
    /// whether it changed.
    #[inline]
    pub(crate) fn clamp(&mut self, now: Tick) -> bool {
        if self.age(now) > Tick::MAX_AGE {
            self.0 = now.0.wrapping_sub(Tick::MAX_AGE);
            true
        } else {
            false
        }
    }
}

impl fmt::Debug for Tick {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tick({})", self.0)
    }
}

/// The ticks an observer run compares against.
#[derive(Clone, Copy, Debug)]
pub struct RunTicks {
    /// When the observer last ran; `None` on its first run, when everything is new.
    pub(crate) last_run: Option<Tick>,
    /// This run's tick; writes made during the run are stamped with it.
    pub(crate) this_run: Tick,
}

impl RunTicks {
    /// Whether `tick` is new to this run.
    #[inline]
    pub(crate) fn is_new(&self, tick: Tick) -> bool {
        match self.last_run {
            None => true,
            Some(last) => tick.is_newer_than(last, self.this_run),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newer_across_wraparound() {
        let last = Tick(u32::MAX - 5);
        let now = Tick(10);
        assert!(Tick(3).is_newer_than(last, now));
        assert!(Tick(u32::MAX - 1).is_newer_than(last, now));
        assert!(!Tick(u32::MAX - 9).is_newer_than(last, now));
        assert!(!last.is_newer_than(last, now));
    }

    #[test]
    fn clamp_keeps_order_with_observers_clamped_below() {
        let now = Tick(7);
        let mut ancient = Tick(now.0.wrapping_sub(Tick::MAX_AGE + 100));
        assert!(ancient.clamp(now));
        assert_eq!(ancient.age(now), Tick::MAX_AGE);
        let mut fresh = Tick(5);
        assert!(!fresh.clamp(now));
    }
}
