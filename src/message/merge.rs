//! Merge policies: coalescing messages that share a key while they wait for the next
//! sync point (twenty hits on one enemy in a frame become one damage message).

use std::collections::VecDeque;
use std::hash::Hash;

use super::dense_keys::{DenseKeys, dense_index, index_is_key, is_dense_type};
use super::key_hash::{Salt, hash_key};
use super::key_table::KeyTable;
use super::take_front::TakeFront;
use crate::util::hint::prefetch;

/// Keys per sync point from which sends are looked up a few sends late, with their
/// table slots and messages loaded ahead (see [`MergeBy`]). Below it the table and the
/// messages fit the caches, and looking up at once is cheaper.
const PIPELINE_FROM_KEYS: usize = 1 << 18;
/// How many sends a pipelined lookup trails its send by.
const PIPELINE_DEPTH: usize = 32;
/// How many sends after its send a pipelined lookup's message is loaded ahead: half way,
/// once its slot has had time to arrive.
const EVENT_AHEAD: usize = PIPELINE_DEPTH / 2;
/// Array slots from which a batch on the dense path loads the slots of the messages
/// [`PIPELINE_DEPTH`] places ahead, and the waiting messages of those
/// [`EVENT_AHEAD`] places ahead: below it the array fits the caches.
const DENSE_PREFETCH_FROM: usize = 1 << 15;

/// Coalesces a sent message into the messages already waiting, or appends it.
pub(crate) trait Merge<E>: Send + Sync {
    /// Sends `message` into `waiting`: combined with the waiting message of the same key,
    /// or appended if its key is new. O(1), amortized. The send may take effect a few
    /// sends later: [`settle`](Merge::settle) before reading `waiting`.
    fn send(&mut self, waiting: &mut Vec<E>, message: E);

    /// Sends every message of `queued`, front first, as [`send`](Merge::send) would one
    /// by one: one call for a whole batch. If `key` or `combine` panics, the message
    /// being merged is lost and the rest stay in `queued`.
    fn send_queued(&mut self, waiting: &mut Vec<E>, queued: &mut Vec<E>);

    /// Completes the sends that have not taken effect yet, so that `waiting` holds
    /// one message per key, as if each send had been combined on the spot.
    fn settle(&mut self, waiting: &mut Vec<E>);

    /// Forgets the keys of the waiting messages (they were delivered). Keeps capacity.
    fn clear(&mut self);
}

/// Merges by a key: `key` names the message's key, `combine` folds a new message into the
/// waiting one with the same key.
///
/// Keys that are integers or entities start each round on the dense path
/// ([`DenseKeys`]: the key indexes an array of ordinals); a key the array cannot take
/// moves the round to the key table, which is then rebuilt from the round's messages.
/// Other keys always use the table.
///
/// A [`KeyTable`] maps each key to its waiting message, so each send is one lookup and
/// either a combine or an append, O(1). Past [`PIPELINE_FROM_KEYS`] keys the table and
/// the messages outgrow the caches, and a lookup that waits for memory costs a send
/// several times what it costs with a thousand keys. So each send is then looked up
/// [`PIPELINE_DEPTH`] sends later instead: its table slot is loaded ahead when it is
/// sent, its waiting message half way, and the lookups of the sends in between overlap
/// their loads. A send is cheap either way, so the gain is modest, and below the
/// limit looking up at once is the cheaper (the limit sits lower for machines with
/// smaller caches; the measurements are in the changelog). The sends still in flight
/// are completed by
/// [`settle`](Merge::settle), before anything reads the waiting messages.
pub(crate) struct MergeBy<E, K, FK, FC> {
    key: FK,
    combine: FC,
    /// Whether `K` is an integer or an entity (see [`DenseKeys`]).
    dense_type: bool,
    /// Whether this round's keys are in `dense` (else in `table`).
    dense_round: bool,
    dense: DenseKeys,
    table: KeyTable,
    /// Sends not looked up yet, with their key and its hash, in send order.
    in_flight: VecDeque<(u64, K, E)>,
    /// Keys from which sends are looked up late: [`PIPELINE_FROM_KEYS`] but in tests.
    pipeline_from: usize,
    /// `None` until the table finds its probe chains crowded, a random salt from then
    /// on (see `key_hash.rs`).
    salt: Option<Salt>,
    /// How many times crowding made the policy draw a new salt.
    rehashes: u32,
}

impl<E, K: 'static, FK, FC> MergeBy<E, K, FK, FC> {
    pub(crate) fn new(key: FK, combine: FC) -> Self {
        Self::with_pipeline_from(key, combine, PIPELINE_FROM_KEYS)
    }

    /// A policy that looks sends up late from `pipeline_from` keys on.
    pub(crate) fn with_pipeline_from(key: FK, combine: FC, pipeline_from: usize) -> Self {
        let dense_type = is_dense_type::<K>();
        MergeBy {
            key,
            combine,
            dense_type,
            dense_round: dense_type,
            dense: DenseKeys::default(),
            table: KeyTable::default(),
            in_flight: VecDeque::new(),
            pipeline_from,
            salt: None,
            rehashes: 0,
        }
    }
}

impl<E, K, FK, FC> MergeBy<E, K, FK, FC> {
    /// Where this policy's messages start in `waiting` (messages waiting from before the
    /// policy was set are not its to merge). Each key the round holds (in the dense
    /// array or in the table) is one message the policy appended, and the policy's are
    /// the last, so the ordinals are places from here on.
    #[inline(always)]
    fn first(&self, waiting: &[E]) -> usize {
        waiting.len() - if self.dense_round { self.dense.len() } else { self.table.len() }
    }
}

impl<E, K, FK, FC> MergeBy<E, K, FK, FC>
where
    K: Hash + Eq + 'static,
    FK: Fn(&E) -> K,
    FC: Fn(&mut E, E),
{
    /// Combines `message` into the waiting message of its key, or appends it, on the
    /// dense path; a key the dense array cannot take moves the round to the table
    /// first. `pending`: this and the messages of its batch still to come, which the
    /// array may grow for. O(1), amortized.
    #[inline(always)]
    fn apply_dense(&mut self, waiting: &mut Vec<E>, key: K, message: E, pending: usize) {
        if let Some(index) = dense_index(&key) {
            let first = waiting.len() - self.dense.len();
            match self.dense.find(index) {
                Some(o) if (self.key)(&waiting[first + o as usize]) == key => {
                    (self.combine)(&mut waiting[first + o as usize], message);
                    return;
                }
                // Another key holds the index (an entity of another generation).
                Some(_) => {}
                None => {
                    if self.dense.insert(index, pending) {
                        waiting.push(message);
                        return;
                    }
                }
            }
        }
        self.leave_dense(waiting);
        let hash = hash_key(&key, &self.salt);
        self.apply(waiting, hash, key, message);
    }

    /// Combines the messages of `queued` whose key waits on the dense path into the
    /// waiting message of that key (`ours` are the policy's waiting messages), until
    /// one has a key that does not (a new key, or one the array cannot hold): that one
    /// is returned, to be sent the general way. O(1) per message; the loop keeps the
    /// array, the round and `ours` at hand, which a send that may insert cannot.
    /// With `AHEAD`, over an array of [`DENSE_PREFETCH_FROM`] slots or more, it loads
    /// ahead ([`load_ahead`](Self::load_ahead)); a loop of its own, so that the loop
    /// over a small array carries none of it.
    #[inline(always)]
    fn combine_dense_hits<const AHEAD: bool>(&self, ours: &mut [E], queued: &mut TakeFront<'_, E>) -> Option<E> {
        let (slots, round) = self.dense.view();
        while let Some(message) = queued.next() {
            if AHEAD {
                self.load_ahead(slots, round, ours, queued);
            }
            let key = (self.key)(&message);
            if let Some(index) = dense_index(&key)
                && let Some(&(slot_round, ordinal)) = slots.get(index)
                && slot_round == round
                && let Some(waiting) = ours.get_mut(ordinal as usize)
                // An integer key is its index, and only its own message is held there.
                && (index_is_key::<K>() || (self.key)(waiting) == key)
            {
                (self.combine)(waiting, message);
                continue;
            }
            return Some(message);
        }
        None
    }

    /// Starts loading, for a batch on the dense path over a large array, the slot of the
    /// message [`PIPELINE_DEPTH`] places ahead and the waiting message of the one
    /// [`EVENT_AHEAD`] places ahead (its slot loaded since), so that the lookups of a
    /// batch overlap their waits for memory.
    #[inline(always)]
    fn load_ahead(&self, slots: &[(u32, u32)], round: u32, ours: &[E], queued: &TakeFront<'_, E>) {
        if let Some(index) = queued.peek(PIPELINE_DEPTH).and_then(|m| dense_index(&(self.key)(m))) {
            prefetch(slots.as_ptr().wrapping_add(index));
        }
        if let Some(index) = queued.peek(EVENT_AHEAD).and_then(|m| dense_index(&(self.key)(m)))
            && let Some(&(slot_round, ordinal)) = slots.get(index)
            && slot_round == round
        {
            prefetch(ours.as_ptr().wrapping_add(ordinal as usize));
        }
    }

    /// Moves the round's keys from the dense array to the table, rebuilt from the
    /// round's messages, where the rest of the round's keys go too.
    #[cold]
    fn leave_dense(&mut self, waiting: &[E]) {
        let (ours, key) = (&waiting[self.first(waiting)..], &self.key);
        let salt = self.salt;
        self.dense_round = false;
        self.table.refill(ours.len() + 1, ours.iter().map(|message| hash_key(key(message), &salt)));
    }

    /// Combines `message`, whose key is `key` with hash `hash`, into the waiting message of
    /// that key, or appends it.
    // Inlined into `send`, even though it is large: as a call of its own, it cost a
    // third of a send with a thousand keys (measured).
    #[inline(always)]
    fn apply(&mut self, waiting: &mut Vec<E>, hash: u64, key: K, message: E) {
        if self.table.is_full() {
            self.grow(waiting);
        }
        let first = self.first(waiting);
        let ours = &mut waiting[first..];
        match self.table.find_or_insert(hash, |o| (self.key)(&ours[o as usize]) == key) {
            Some(o) => (self.combine)(&mut ours[o as usize], message),
            None => {
                waiting.push(message);
                if self.table.is_crowded() {
                    self.rehash(waiting);
                }
            }
        }
    }

    /// Keys crowd the table's probe chains (chosen to collide under the fixed hash, as
    /// keys from data can be): from now on hashes keys with a new random salt, and
    /// rebuilds the table (and the hashes of sends in flight) with it.
    #[cold]
    fn rehash(&mut self, waiting: &[E]) {
        let salt = Some(Salt::random());
        self.salt = salt;
        self.rehashes += 1;
        for (hash, key, _) in &mut self.in_flight {
            *hash = hash_key(&*key, &salt);
        }
        self.grow(waiting);
    }

    /// Rebuilds the table, with room for one more key, from the keys of this policy's
    /// messages under the current salt (twice as large when it was full).
    #[cold]
    fn grow(&mut self, waiting: &[E]) {
        let (ours, key) = (&waiting[self.first(waiting)..], &self.key);
        // A panic in `key` here leaves the table short of keys; the policy would then
        // append a second message for a key it lost, never merge wrongly.
        let salt = self.salt;
        self.table.rebuild(ours.len() + 1, ours.iter().map(|message| hash_key(key(message), &salt)));
    }
}

impl<E, K, FK, FC> Merge<E> for MergeBy<E, K, FK, FC>
where
    E: Send + Sync,
    K: Hash + Eq + Send + Sync + 'static,
    FK: Fn(&E) -> K + Send + Sync,
    FC: Fn(&mut E, E) + Send + Sync,
{
    #[inline]
    fn send(&mut self, waiting: &mut Vec<E>, message: E) {
        let key = (self.key)(&message);
        if self.dense_round {
            self.apply_dense(waiting, key, message, 1);
            return;
        }
        let hash = hash_key(&key, &self.salt);
        if self.in_flight.is_empty() && self.table.len() < self.pipeline_from {
            self.apply(waiting, hash, key, message);
            return;
        }
        self.table.prefetch(hash);
        // The send made EVENT_AHEAD sends ago, looked up EVENT_AHEAD sends from now.
        let half_way = self.in_flight.len().wrapping_sub(EVENT_AHEAD);
        if let Some(&(h, ..)) = self.in_flight.get(half_way) {
            let ordinal = self.table.likely_ordinal(h) as usize;
            prefetch(waiting.as_ptr().wrapping_add(self.first(waiting) + ordinal));
        }
        // Queued before the oldest is applied, so that a panic in `key` or `combine`
        // there loses only that one.
        self.in_flight.push_back((hash, key, message));
        if self.in_flight.len() > PIPELINE_DEPTH {
            let (hash, key, message) = self.in_flight.pop_front().expect("the pipeline is over its depth");
            self.apply(waiting, hash, key, message);
        }
    }

    fn send_queued(&mut self, waiting: &mut Vec<E>, queued: &mut Vec<E>) {
        let mut queued = TakeFront::new(queued);
        // A round on the dense path stays in this loop until it leaves the path: runs of
        // keys already waiting, each ended by one sent the general way.
        while self.dense_round {
            let first = self.first(waiting);
            let hits = if self.dense.view().0.len() >= DENSE_PREFETCH_FROM {
                self.combine_dense_hits::<true>(&mut waiting[first..], &mut queued)
            } else {
                self.combine_dense_hits::<false>(&mut waiting[first..], &mut queued)
            };
            let Some(message) = hits else { return };
            let key = (self.key)(&message);
            let pending = queued.remaining() + 1;
            self.apply_dense(waiting, key, message, pending);
        }
        // On the table, while sends are looked up at once (as `send` would, with the
        // lookup inlined into this loop).
        while self.in_flight.is_empty() && self.table.len() < self.pipeline_from {
            let Some(message) = queued.next() else { return };
            let key = (self.key)(&message);
            let hash = hash_key(&key, &self.salt);
            self.apply(waiting, hash, key, message);
        }
        for message in queued {
            self.send(waiting, message);
        }
    }

    fn settle(&mut self, waiting: &mut Vec<E>) {
        while let Some((hash, key, message)) = self.in_flight.pop_front() {
            self.apply(waiting, hash, key, message);
        }
    }

    fn clear(&mut self) {
        debug_assert!(self.in_flight.is_empty(), "settled before delivery");
        self.table.clear();
        self.dense.clear();
        self.dense_round = self.dense_type;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entity::Entity;
    use proptest::prelude::*;

    type Pair = (u32, u32);

    /// What merged sends through a key → position map leave: the reference. The fold
    /// is order-sensitive, so combining out of send order would show.
    fn merged_one_by_one(messages: &[Pair]) -> Vec<Pair> {
        let mut waiting: Vec<Pair> = Vec::new();
        for &(key, amount) in messages {
            match waiting.iter_mut().find(|(k, _)| *k == key) {
                Some(first) => fold(first, (key, amount)),
                None => waiting.push((key, amount)),
            }
        }
        waiting
    }

    fn fold(first: &mut Pair, (_, amount): Pair) {
        first.1 = first.1.wrapping_mul(31).wrapping_add(amount);
    }

    /// A key of a type the dense path does not serve: always looked up in the table.
    #[derive(PartialEq, Eq, Hash)]
    struct Tagged(u32);

    /// A key whose hash is the same for every value: every lookup collides.
    #[derive(PartialEq, Eq)]
    struct Colliding(u32);

    impl Hash for Colliding {
        fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
            state.write_u32(7);
        }
    }

    /// Sends `messages` one by one and settles.
    fn sent(merge: &mut impl Merge<Pair>, messages: &[Pair]) -> Vec<Pair> {
        let mut waiting = Vec::new();
        for &message in messages {
            merge.send(&mut waiting, message);
        }
        merge.settle(&mut waiting);
        merge.clear();
        waiting
    }

    /// Sends each key twice (the second round in reverse), settles, and returns the
    /// merged messages.
    fn sent_twice(merge: &mut MergeBy<(u64, u32), u64, KeyOf, Combine>, keys: &[u64]) -> Vec<(u64, u32)> {
        let mut waiting = Vec::new();
        for &key in keys.iter().chain(keys.iter().rev()) {
            merge.send(&mut waiting, (key, 1));
        }
        merge.settle(&mut waiting);
        merge.clear();
        waiting
    }

    type KeyOf = fn(&(u64, u32)) -> u64;
    type Combine = fn(&mut (u64, u32), (u64, u32));

    fn counting_policy() -> MergeBy<(u64, u32), u64, KeyOf, Combine> {
        MergeBy::new((|e: &(u64, u32)| e.0) as KeyOf, (|sum: &mut (u64, u32), e: (u64, u32)| sum.1 += e.1) as Combine)
    }

    /// 20,000 keys below 2^32 crafted against the starting hash: sums of small multiples
    /// of the Fibonacci numbers F32 and F33, whose products with the golden-ratio
    /// multiplier come within a few millionths of a whole turn, so their homes (the
    /// hash's top bits) crowd into a handful of slots.
    pub(crate) fn crafted_against_golden() -> Vec<u64> {
        const F32: u64 = 2_178_309;
        const F33: u64 = 3_524_578;
        (1..=200u64).flat_map(|a| (1..=100u64).map(move |b| a * F32 + b * F33)).collect()
    }

    #[test]
    fn keys_crafted_to_collide_switch_the_policy_to_a_salted_hash() {
        // `i · 0xf1de83e19937733d` undoes the golden-ratio multiplier: one probe chain.
        let inverse: Vec<u64> = (0..20_000u64).map(|i| i.wrapping_mul(0xf1de_83e1_9937_733d)).collect();
        let mut policy = counting_policy();
        let merged = sent_twice(&mut policy, &inverse);
        assert!(policy.salt.is_some() && policy.rehashes == 1);
        assert!(merged.iter().zip(&inverse).all(|(message, &key)| *message == (key, 2)));

        let crafted = crafted_against_golden();
        let homes = |salt: Option<Salt>| {
            let mut homes: Vec<u64> = crafted.iter().map(|&k| hash_key(k, &salt) >> 49).collect();
            homes.sort_unstable();
            homes.dedup();
            homes.len()
        };
        assert!(homes(None) < 100, "crafted: {} homes of 32,768 for 20,000 keys", homes(None));
        let mut policy = counting_policy();
        let merged = sent_twice(&mut policy, &crafted);
        assert!(policy.salt.is_some(), "crowding was detected");
        // At random, about 14,900 of 32,768 homes.
        let spread = homes(policy.salt);
        assert!(spread > 14_000, "salted, they spread: {spread} homes");
        assert_eq!(policy.rehashes, 1, "crowding ends with the first salt");
        assert_eq!(merged.len(), crafted.len());
        assert!(merged.iter().zip(&crafted).all(|(message, &key)| *message == (key, 2)), "merged in first-send order");
        // Looked up late too (the hashes of sends in flight are redone).
        let mut late = MergeBy::with_pipeline_from(
            (|e: &(u64, u32)| e.0) as KeyOf,
            (|sum: &mut (u64, u32), e: (u64, u32)| sum.1 += e.1) as Combine,
            100,
        );
        let merged = sent_twice(&mut late, &crafted);
        assert!(late.salt.is_some());
        assert!(merged.iter().zip(&crafted).all(|(message, &key)| *message == (key, 2)));
    }

    #[test]
    fn ordinary_keys_keep_the_fixed_hash() {
        let consecutive: Vec<u64> = (0..100_000).collect();
        let scattered: Vec<u64> = (0..100_000u64).map(|i| i.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ (i >> 7)).collect();
        for keys in [consecutive, scattered] {
            let mut policy = counting_policy();
            for _ in 0..3 {
                assert_eq!(sent_twice(&mut policy, &keys).len(), keys.len());
            }
            assert!(policy.salt.is_none(), "no crowding for ordinary keys: {:?}", &keys[..3]);
        }
        // Keys a power of two apart crowd the fixed hash (about 2.5 probes past home
        // per insert at 2^20 apart, where spread keys take a fraction of one): the
        // policy may switch, and merges right either way.
        let strided: Vec<u64> = (0..100_000u64).map(|i| i << 20).collect();
        let mut policy = counting_policy();
        let merged = sent_twice(&mut policy, &strided);
        assert!(merged.iter().zip(&strided).all(|(message, &key)| *message == (key, 2)));
    }

    proptest! {
        #[test]
        fn merging_equals_merging_one_send_at_a_time(
            messages in proptest::collection::vec((0u32..64, 0u32..1000), 0..300),
        ) {
            let expected = merged_one_by_one(&messages);
            let mut dense = MergeBy::new(|e: &Pair| e.0, fold);
            let mut by_key = MergeBy::new(|e: &Pair| Tagged(e.0), fold);
            let mut colliding = MergeBy::new(|e: &Pair| Colliding(e.0), fold);
            // Looked up late from the fourth key on.
            let mut late = MergeBy::with_pipeline_from(|e: &Pair| Tagged(e.0), fold, 3);
            // Keys 60 and up stand for huge ids: a round that sends one moves from the
            // dense array to the table part-way.
            let huge = |k: u32| if k >= 60 { u64::from(k) << 40 } else { u64::from(k) };
            let mut leaving = MergeBy::new(move |e: &Pair| huge(e.0), fold);
            // Keys 56 and up stand for entities of another generation in the slot of
            // key - 56: a round that sends one also moves to the table.
            let entity = |k: u32| {
                let (index, generation) = if k >= 56 { (k - 56, 2u32) } else { (k, 1) };
                Entity::from_bits(u64::from(generation) << 32 | u64::from(index)).unwrap()
            };
            let mut entities = MergeBy::new(move |e: &Pair| entity(e.0), fold);
            // Twice each: the second round runs on a cleared table.
            for _ in 0..2 {
                prop_assert_eq!(sent(&mut dense, &messages), expected.clone(), "on the dense path");
                prop_assert_eq!(sent(&mut by_key, &messages), expected.clone());
                prop_assert_eq!(sent(&mut colliding, &messages), expected.clone(), "keys sharing a hash");
                prop_assert_eq!(sent(&mut late, &messages), expected.clone(), "looked up late");
                prop_assert_eq!(sent(&mut leaving, &messages), expected.clone(), "leaving the dense path");
                prop_assert_eq!(sent(&mut entities, &messages), expected.clone(), "entities sharing a slot");
            }
        }
    }

    #[test]
    fn many_keys_are_looked_up_late_and_keep_first_send_order_and_fold_order() {
        // More keys than are looked up at once, each sent three times, scrambled.
        let (keys, pipeline_from) = (3_000u32, 1_000);
        let messages: Vec<Pair> = (0..3 * keys).map(|i| (i.wrapping_mul(2_654_435_761) % keys, i)).collect();
        let expected = {
            let mut at = vec![usize::MAX; keys as usize];
            let mut waiting: Vec<Pair> = Vec::new();
            for &message in &messages {
                match at[message.0 as usize] {
                    usize::MAX => {
                        at[message.0 as usize] = waiting.len();
                        waiting.push(message);
                    }
                    i => fold(&mut waiting[i], message),
                }
            }
            waiting
        };
        let mut merge = MergeBy::with_pipeline_from(|e: &Pair| Tagged(e.0), fold, pipeline_from);
        let mut waiting = Vec::new();
        for &message in &messages {
            merge.send(&mut waiting, message);
        }
        assert_eq!(merge.in_flight.len(), PIPELINE_DEPTH, "past the limit, sends are looked up late");
        assert_eq!(merge.table.capacity(), (2 * keys as usize).next_power_of_two(), "doubled as it filled, no more");
        assert!(waiting != expected, "so the last ones have not taken effect before settling");
        merge.settle(&mut waiting);
        assert!(waiting == expected, "one message per key, in first-send order, folded in send order");
        // A settle part-way, then more sends: the same as one settle at the end.
        merge.clear();
        waiting.clear();
        let (early, late) = messages.split_at(messages.len() / 2);
        early.iter().for_each(|&message| merge.send(&mut waiting, message));
        merge.settle(&mut waiting);
        late.iter().for_each(|&message| merge.send(&mut waiting, message));
        merge.settle(&mut waiting);
        assert!(waiting == expected, "a settle may come more than once before delivery");
        // After delivery, a few keys are looked up at once again.
        merge.clear();
        waiting.clear();
        merge.send(&mut waiting, (5, 1));
        merge.send(&mut waiting, (5, 1));
        assert_eq!(waiting, [(5, 32)]);
    }

    #[test]
    fn events_waiting_before_the_policy_are_not_merged() {
        let mut merge = MergeBy::new(|e: &Pair| e.0, fold);
        let mut waiting = vec![(1, 1), (1, 1)];
        // Enough keys to grow the table several times: growth reads only its own messages.
        for key in 0..100 {
            merge.send(&mut waiting, (key, 1));
        }
        merge.send(&mut waiting, (1, 1));
        merge.settle(&mut waiting);
        assert_eq!(&waiting[..4], [(1, 1), (1, 1), (0, 1), (1, 32)]);
        assert_eq!(waiting.len(), 102);
    }
}
