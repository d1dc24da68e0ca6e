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
#[repr(transparent)]
pub struct Tick(pub(crate) u32);

/// How often (in ticks) the world clamps old ticks.
pub(crate) const CHECK_TICK_THRESHOLD: u32 = 1 << 29;

/// Ages just past [`Tick::MAX_AGE`] into which maintenance compresses ancient ticks,
/// preserving their order relative to idle readers.
pub(crate) const ANCIENT_BAND: u32 = 1 << 20;

impl Tick {
    /// The oldest age a tick keeps exactly. Older ticks are compressed into a narrow
    /// band of older ages that keeps their order relative to every reader's last
    /// run; two thresholds of slack keep every live age below `u32::MAX`.
    pub const MAX_AGE: u32 = u32::MAX - 2 * CHECK_TICK_THRESHOLD - 1 - ANCIENT_BAND;

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

    /// The newer of this tick and `other`, seen from `now`.
    #[inline]
    pub(crate) fn newest(self, other: Tick, now: Tick) -> Tick {
        if self.age(now) <= other.age(now) { self } else { other }
    }

    /// A tick older than every tick that matters at `now` (exactly [`Tick::MAX_AGE`]
    /// old), which ages like a stored tick, so tick maintenance treats it as one.
    #[inline]
    pub(crate) fn oldest(now: Tick) -> Tick {
        Tick(now.0.wrapping_sub(Tick::MAX_AGE))
    }
}

/// The order-preserving compression of ancient ticks that tick maintenance applies.
///
/// `anchors` are the ages of idle readers' last runs older than [`Tick::MAX_AGE`].
/// Every tick older than `MAX_AGE` maps to a slot: below every anchor, equal to one,
/// or between two. Slots map to ages in `(MAX_AGE, MAX_AGE + ANCIENT_BAND]`, so a
/// remapped tick compares with every remapped reader exactly as before, and stays
/// older than every tick that was not remapped.
pub struct Remap {
    now: Tick,
    /// Ancient reader ages, oldest first, distinct.
    anchors: Vec<u32>,
}

impl Remap {
    pub(crate) fn new(now: Tick, mut anchors: Vec<u32>) -> Remap {
        anchors.retain(|&age| age > Tick::MAX_AGE);
        anchors.sort_unstable_by(|a, b| b.cmp(a));
        anchors.dedup();
        // More idle readers than the band has slots for: the oldest share slots,
        // which can only make them see old changes again, never miss one.
        let slots = (ANCIENT_BAND as usize - 1) / 2;
        if anchors.len() > slots {
            anchors.drain(..anchors.len() - slots);
        }
        Remap { now, anchors }
    }

    /// The tick maintenance runs at.
    pub(crate) fn now(&self) -> Tick {
        self.now
    }

    /// The remapped tick.
    #[inline]
    pub(crate) fn apply(&self, tick: Tick) -> Tick {
        let age = tick.age(self.now);
        if age <= Tick::MAX_AGE {
            return tick;
        }
        let older = self.anchors.partition_point(|&anchor| anchor > age);
        let slot = if self.anchors.get(older) == Some(&age) { 2 * older + 1 } else { 2 * older } as u32;
        Tick(self.now.0.wrapping_sub(Tick::MAX_AGE + ANCIENT_BAND - slot))
    }
}

impl fmt::Debug for Tick {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tick({})", self.0)
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
    fn remap_preserves_order_against_idle_observers() {
        let now = Tick(7);
        let at = |age: u32| Tick(now.0.wrapping_sub(age));
        let observers = [Tick::MAX_AGE + 1000, Tick::MAX_AGE + 500];
        let remap = Remap::new(now, observers.to_vec());
        let ticks = [
            Tick::MAX_AGE + 2000,
            Tick::MAX_AGE + 1000,
            Tick::MAX_AGE + 700,
            Tick::MAX_AGE + 500,
            Tick::MAX_AGE + 10,
            5,
            0,
        ];
        for &observer in &observers {
            for &tick in &ticks {
                let (o, t) = (remap.apply(at(observer)), remap.apply(at(tick)));
                assert_eq!(t.is_newer_than(o, now), at(tick).is_newer_than(at(observer), now), "{tick} vs {observer}");
                assert!(t.age(now) <= Tick::MAX_AGE + ANCIENT_BAND);
            }
        }
        assert_eq!(remap.apply(at(5)), at(5), "recent ticks are untouched");
    }
}
