//! Coalescing a long list of sent events by key at the sync point, for merge policies
//! whose keys outgrow the cache.
//!
//! A hash map from key to waiting event makes each merged send O(1), but once it holds
//! hundreds of thousands of keys every send is a cache miss or two, and the per-send
//! cost grows tenfold between a thousand keys and a million. Past a limit the policy
//! therefore stops looking keys up on send and appends; at the sync point this module
//! sorts `(hash, position)` pairs by the top bits of the key hash (a radix sort: two
//! or three streaming passes), then walks the sorted runs and folds each key's events
//! into its first, in send order. Only that walk touches events out of order, with
//! prefetching; at a million keys a send costs a few times what it does at a thousand,
//! where a map lookup costs twelve times as much.
//!
//! If `key` or `combine` panics, the events being coalesced are dropped.

use std::hash::{BuildHasher, BuildHasherDefault, Hash};

use crate::hash::IdHasher;
use crate::hint::prefetch;

/// Bits of the key hash sorted per radix pass while the sorted list fits the cache, and
/// past that (2^18 events): narrower digits scatter into fewer pages at once, which
/// costs a pass more but misses the TLB far less.
const WIDE_DIGIT: u32 = 11;
const NARROW_DIGIT: u32 = 8;
const WIDE_UP_TO: u32 = 1 << 18;
const BUCKETS: usize = 1 << WIDE_DIGIT;
const MAX_PASSES: usize = u32::BITS.div_ceil(NARROW_DIGIT) as usize;
/// How many events ahead the grouping loop prefetches the events it will fold.
const PREFETCH_AHEAD: usize = 16;

/// Buffers reused from one sync point to the next, so a steady frame allocates nothing.
pub(crate) struct Coalescer<E> {
    /// `(hash, position)` of every event, sorted by hash.
    order: Vec<(u32, u32)>,
    scratch: Vec<(u32, u32)>,
    /// The events by position while they are folded; `None` once folded into another.
    slots: Vec<Option<E>>,
    /// `(hash, position)` of the distinct keys met so far in one run of the sort.
    heads: Vec<(u32, u32)>,
}

impl<E> Default for Coalescer<E> {
    fn default() -> Self {
        Coalescer { order: Vec::new(), scratch: Vec::new(), slots: Vec::new(), heads: Vec::new() }
    }
}

impl<E> Coalescer<E> {
    /// Folds together the events of `events` that share a key: each key's first event
    /// stays where it is and absorbs the later ones, in order, through `combine`; the
    /// others are removed. The result is what sending the events one by one through a
    /// key → position map would have left.
    pub(crate) fn coalesce<K: Hash + Eq>(
        &mut self,
        events: &mut Vec<E>,
        key: impl Fn(&E) -> K,
        mut combine: impl FnMut(&mut E, E),
    ) {
        let len = u32::try_from(events.len()).expect("fewer than 2^32 events wait for one sync point");
        let digits = Digits::for_len(len);
        let hasher = BuildHasherDefault::<IdHasher>::default();
        let mut counts = [[0u32; BUCKETS]; MAX_PASSES];
        self.order.clear();
        self.order.extend((0..len).zip(events.iter()).map(|(at, event)| {
            // Fibonacci hashing leaves its best bits at the top.
            let hash = (hasher.hash_one(key(event)) >> 32) as u32;
            for (pass, counts) in counts.iter_mut().enumerate().take(digits.passes) {
                counts[digits.digit(hash, pass)] += 1;
            }
            (hash, at)
        }));
        radix_sort(&mut self.order, &mut self.scratch, &mut counts, digits);

        self.slots.clear();
        self.slots.extend(events.drain(..).map(Some));
        let (order, slots, heads) = (&self.order, &mut self.slots, &mut self.heads);
        let mut start = 0;
        while start < order.len() {
            // A run: the events whose sorted hash bits are equal. Equal keys have equal
            // hashes, so each key's events are all in one run, in send order (the sort
            // is stable).
            let sorted = order[start].0 >> digits.low;
            let end = start + order[start..].iter().take_while(|&&(hash, _)| hash >> digits.low == sorted).count();
            for &(_, ahead) in order.get(start + PREFETCH_AHEAD..end + PREFETCH_AHEAD).unwrap_or_default() {
                prefetch(&slots[ahead as usize]);
            }
            // A key sent once needs nothing; only runs of two or more are folded.
            if end - start > 1 {
                fold_run(&order[start..end], slots, heads, &key, &mut combine);
            }
            start = end;
        }
        events.extend(self.slots.drain(..).flatten());
    }
}

/// Folds one run of events: usually all of one key, but distinct keys may share the
/// sorted bits of their hash, so each event is matched against the run's distinct keys.
fn fold_run<E, K: Eq>(
    run: &[(u32, u32)],
    slots: &mut [Option<E>],
    heads: &mut Vec<(u32, u32)>,
    key: &impl Fn(&E) -> K,
    combine: &mut impl FnMut(&mut E, E),
) {
    heads.clear();
    for &(hash, at) in run {
        let Some(event) = slots[at as usize].take() else { continue };
        let event_key = key(&event);
        let same_key = |&&(head_hash, head): &&(u32, u32)| {
            head_hash == hash && slots[head as usize].as_ref().is_some_and(|first| key(first) == event_key)
        };
        match heads.iter().find(same_key).and_then(|&(_, head)| slots[head as usize].as_mut()) {
            Some(first) => combine(first, event),
            None => {
                slots[at as usize] = Some(event);
                heads.push((hash, at));
            }
        }
    }
}

/// Which bits of the hash the sort uses: the top `passes` × `width` (all 32 at most).
/// About one more bit than the event count needs keeps runs to a key or two; sorting
/// all 32 would cost passes and find no more equal keys.
#[derive(Clone, Copy)]
struct Digits {
    width: u32,
    passes: usize,
    /// The lowest bit sorted: runs are the events whose `hash >> low` are equal.
    low: u32,
}

impl Digits {
    fn for_len(len: u32) -> Digits {
        let bits = (u32::BITS - len.leading_zeros() + 1).min(u32::BITS);
        let width = if len <= WIDE_UP_TO { WIDE_DIGIT } else { NARROW_DIGIT };
        let passes = bits.div_ceil(width);
        Digits { width, passes: passes as usize, low: u32::BITS.saturating_sub(passes * width) }
    }

    /// How many values a digit takes.
    fn buckets(self) -> usize {
        1 << self.width
    }

    /// The digit sorted in `pass`, from the least significant.
    #[inline(always)]
    fn digit(self, hash: u32, pass: usize) -> usize {
        let shift = self.low + pass as u32 * self.width;
        ((hash >> shift) as usize) & (self.buckets() - 1)
    }
}

/// Sorts `items` stably by the bits of their first field that `digits` names, one
/// counting pass per digit; `counts` holds each pass's digit counts. A pass whose digit
/// is the same for every item is skipped.
fn radix_sort(
    items: &mut Vec<(u32, u32)>,
    scratch: &mut Vec<(u32, u32)>,
    counts: &mut [[u32; BUCKETS]; MAX_PASSES],
    digits: Digits,
) {
    scratch.clear();
    scratch.resize(items.len(), (0, 0));
    for (pass, counts) in counts.iter_mut().enumerate().take(digits.passes) {
        let counts = &mut counts[..digits.buckets()];
        if counts.iter().any(|&count| count as usize == items.len()) {
            continue;
        }
        // Counts become the first output position of each digit.
        let mut next = 0;
        for count in counts.iter_mut() {
            (*count, next) = (next, next + *count);
        }
        for &item in items.iter() {
            let slot = &mut counts[digits.digit(item.0, pass)];
            scratch[*slot as usize] = item;
            *slot += 1;
        }
        std::mem::swap(items, scratch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What merged sends through a key → position map leave: the reference.
    fn merged_one_by_one(events: &[(u32, u32)]) -> Vec<(u32, u32)> {
        let mut waiting: Vec<(u32, u32)> = Vec::new();
        for &(key, amount) in events {
            match waiting.iter_mut().find(|(k, _)| *k == key) {
                Some(first) => first.1 = first.1.wrapping_mul(31).wrapping_add(amount),
                None => waiting.push((key, amount)),
            }
        }
        waiting
    }

    fn coalesced<K: Hash + Eq>(
        coalescer: &mut Coalescer<(u32, u32)>,
        events: &[(u32, u32)],
        key: impl Fn(&(u32, u32)) -> K,
    ) -> Vec<(u32, u32)> {
        let mut waiting = events.to_vec();
        // Order-sensitive combine: folding out of send order would show.
        coalescer
            .coalesce(&mut waiting, key, |first, (_, amount)| first.1 = first.1.wrapping_mul(31).wrapping_add(amount));
        waiting
    }

    /// A key whose hash is the same for every value: every event lands in one run.
    #[derive(PartialEq, Eq)]
    struct Colliding(u32);

    impl Hash for Colliding {
        fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
            state.write_u32(7);
        }
    }

    proptest! {
        #[test]
        fn coalescing_equals_merging_one_send_at_a_time(
            events in proptest::collection::vec((0u32..64, 0u32..1000), 0..300),
        ) {
            let mut coalescer = Coalescer::default();
            let expected = merged_one_by_one(&events);
            prop_assert_eq!(coalesced(&mut coalescer, &events, |e| e.0), expected.clone());
            prop_assert_eq!(coalesced(&mut coalescer, &events, |e| Colliding(e.0)), expected, "keys sharing a hash");
        }
    }

    #[test]
    fn many_keys_keep_first_send_order_and_sums() {
        // Keys 0..20_000 sent three times each, in a scrambled order.
        let events: Vec<(u32, u32)> = (0..60_000u32).map(|i| ((i.wrapping_mul(7919)) % 20_000, i % 5)).collect();
        let mut coalescer = Coalescer::default();
        let mut waiting = events.clone();
        coalescer.coalesce(&mut waiting, |e| e.0, |first, (_, amount)| first.1 += amount);
        assert_eq!(waiting.len(), 20_000);
        let mut first_seen = Vec::new();
        let mut sums = vec![0u32; 20_000];
        let mut seen = vec![false; 20_000];
        for &(key, amount) in &events {
            sums[key as usize] += amount;
            if !std::mem::replace(&mut seen[key as usize], true) {
                first_seen.push(key);
            }
        }
        assert_eq!(waiting.iter().map(|e| e.0).collect::<Vec<_>>(), first_seen);
        assert!(waiting.iter().all(|&(key, sum)| sums[key as usize] == sum));
    }

    #[test]
    fn radix_sort_is_stable_and_sorted_by_the_digits_bits() {
        for len in [1u32, 2, 100, 5_000, 70_000, WIDE_UP_TO + 1] {
            let digits = Digits::for_len(len);
            let mut items: Vec<(u32, u32)> = (0..len).map(|i| (i.wrapping_mul(2_654_435_761), i)).collect();
            let mut counts = [[0u32; BUCKETS]; MAX_PASSES];
            for &(hash, _) in &items {
                for (pass, counts) in counts.iter_mut().enumerate().take(digits.passes) {
                    counts[digits.digit(hash, pass)] += 1;
                }
            }
            let mut expected = items.clone();
            expected.sort_by_key(|&(hash, _)| hash >> digits.low);
            radix_sort(&mut items, &mut Vec::new(), &mut counts, digits);
            assert_eq!(items, expected, "{len} items");
        }
        let shape = |len| {
            let digits = Digits::for_len(len);
            (digits.width, digits.passes, digits.low)
        };
        assert_eq!(shape(100_000), (11, 2, 10));
        assert_eq!(shape(2_000_000), (8, 3, 8));
        assert_eq!(shape(u32::MAX), (8, 4, 0));
    }
}
