//! [`Query::iter_combinations`] and [`Query::iter_combinations_mut`]: every set of `K`
//! distinct matching entities, once each, as bevy_ecs's.

use crate::entity::Entity;
use crate::query::{ArchetypeFilter, QueryData, QueryState, ReadOnlyQueryData};
use crate::world::World;

use super::query_param::Query;

impl<'w, Q: QueryData, F: ArchetypeFilter> Query<'w, '_, Q, F> {
    /// Every combination of `K` distinct matching entities' items, each once, in the
    /// order of the query's entities (the first entity varies slowest): for `K = 2`
    /// and entities `a, b, c`, `[a, b]`, `[a, c]`, `[b, c]`.
    ///
    /// Gathers the matching entities first (into a list this query keeps, so steady
    /// runs allocate nothing), then looks each item up: O(N) to gather plus
    /// O(C(N, K)) lookups. Filters must be decided per table ([`ArchetypeFilter`]:
    /// `With`, `Without`, tuples of them): a combination of changed entities is a
    /// combination of the entities a `Changed` query's iteration collects.
    ///
    /// ```
    /// use ripple::World;
    /// use ripple::schedule::Schedule;
    /// use ripple::system::{Query, ResMut};
    /// struct Mass(u32);
    /// struct Pairs(Vec<(u32, u32)>);
    /// let mut world = World::new();
    /// for mass in [1, 2, 3] {
    ///     world.spawn((Mass(mass),));
    /// }
    /// world.insert_resource(Pairs(Vec::new()));
    /// let mut schedule = Schedule::new();
    /// schedule
    ///     .add_systems(&mut world, |mut bodies: Query<&Mass>, mut pairs: ResMut<Pairs>| {
    ///         for [a, b] in bodies.iter_combinations() {
    ///             pairs.0.push((a.0, b.0));
    ///         }
    ///     })
    ///     .unwrap();
    /// schedule.run(&mut world);
    /// assert_eq!(world.resource::<Pairs>().unwrap().0, [(1, 2), (1, 3), (2, 3)]);
    /// ```
    pub fn iter_combinations<const K: usize>(&mut self) -> QueryCombinationIter<'_, 'w, Q, F, K>
    where
        Q: ReadOnlyQueryData,
    {
        let world = self.world;
        let (entities, state) = self.gather_combined();
        QueryCombinationIter { world, entities, state, next: first_combination::<K>() }
    }

    /// Every combination of `K` distinct matching entities' items with mutable access,
    /// each once, in the order [`iter_combinations`](Self::iter_combinations) gives;
    /// a lending iterator: [`fetch_next`](QueryCombinationIterMut::fetch_next) hands
    /// out one combination at a time, borrowed until the next call.
    ///
    /// ```
    /// use ripple::World;
    /// use ripple::schedule::Schedule;
    /// use ripple::system::Query;
    /// struct Charge(i32);
    /// struct Push(i32);
    /// let mut world = World::new();
    /// let bodies: Vec<_> = [1, 2, 4].map(|c| world.spawn((Charge(c), Push(0)))).into();
    /// let mut schedule = Schedule::new();
    /// schedule
    ///     .add_systems(&mut world, |mut bodies: Query<(&Charge, &mut Push)>| {
    ///         let mut pairs = bodies.iter_combinations_mut();
    ///         while let Some([(a, mut push_a), (b, mut push_b)]) = pairs.fetch_next() {
    ///             push_a.0 += b.0;
    ///             push_b.0 += a.0;
    ///         }
    ///     })
    ///     .unwrap();
    /// schedule.run(&mut world);
    /// let pushes: Vec<i32> = bodies.iter().map(|&e| world.get::<Push>(e).unwrap().0).collect();
    /// assert_eq!(pushes, [6, 5, 3]);
    /// ```
    pub fn iter_combinations_mut<const K: usize>(&mut self) -> QueryCombinationIterMut<'_, 'w, Q, F, K> {
        let world = self.world;
        let (entities, state) = self.gather_combined();
        QueryCombinationIterMut { world, entities, state, next: first_combination::<K>() }
    }

    /// Fills the query's list with its matching entities and lends it with the state.
    fn gather_combined(&mut self) -> (&[Entity], &QueryState<Q, F>) {
        let world = self.world;
        let state = &mut *self.state;
        let (query, combined) = (&state.query, &mut state.combined);
        combined.clear();
        for matched in &query.matched {
            combined.extend_from_slice(world.archetypes.get(matched.archetype).entities());
        }
        if query.sparse {
            // A sparse component does not split tables: keep the entities that have it.
            // SAFETY: the schedule holds the access the query declared for `'w`; each
            // item is dropped at once, before the next is made.
            combined.retain(|&entity| unsafe { query.get_in(world, entity) }.is_ok());
        }
        (combined, query)
    }
}

/// The indices of the first combination of `K`, or `None` for `K = 0`.
fn first_combination<const K: usize>() -> Option<[usize; K]> {
    (K > 0).then(|| std::array::from_fn(|i| i))
}

/// Moves `indices` to the combination after it among `n` entities (the last index
/// varies fastest); `None` after the last one.
fn advance<const K: usize>(mut indices: [usize; K], n: usize) -> Option<[usize; K]> {
    let mut i = K;
    while i > 0 {
        i -= 1;
        if indices[i] < n - (K - i) {
            indices[i] += 1;
            for j in i + 1..K {
                indices[j] = indices[j - 1] + 1;
            }
            return Some(indices);
        }
    }
    None
}

/// The iterator of [`Query::iter_combinations`].
pub struct QueryCombinationIter<'s, 'w, Q: QueryData, F: ArchetypeFilter, const K: usize> {
    world: &'w World,
    entities: &'s [Entity],
    state: &'s QueryState<Q, F>,
    next: Option<[usize; K]>,
}

impl<'w, Q: ReadOnlyQueryData, F: ArchetypeFilter, const K: usize> Iterator for QueryCombinationIter<'_, 'w, Q, F, K> {
    type Item = [Q::Item<'w>; K];

    fn next(&mut self) -> Option<[Q::Item<'w>; K]> {
        let n = self.entities.len();
        loop {
            let indices = self.next.filter(|indices| indices.last().is_some_and(|&last| last < n))?;
            self.next = advance(indices, n);
            let entities = indices.map(|i| self.entities[i]);
            // SAFETY: the schedule holds the (read-only) access the query declared for
            // `'w`; shared items may alias; the state was updated when the system
            // received the query.
            if let Ok(items) = unsafe { self.state.get_many_updated(self.world, entities, false) } {
                return Some(items);
            }
        }
    }
}

/// The lending iterator of [`Query::iter_combinations_mut`].
pub struct QueryCombinationIterMut<'s, 'w, Q: QueryData, F: ArchetypeFilter, const K: usize> {
    world: &'w World,
    entities: &'s [Entity],
    state: &'s QueryState<Q, F>,
    next: Option<[usize; K]>,
}

impl<Q: QueryData, F: ArchetypeFilter, const K: usize> QueryCombinationIterMut<'_, '_, Q, F, K> {
    /// The next combination's items, borrowed until the next call; `None` after the
    /// last.
    #[allow(clippy::should_implement_trait, reason = "a lending iterator: items borrow the iterator")]
    pub fn fetch_next(&mut self) -> Option<[Q::Item<'_>; K]> {
        let n = self.entities.len();
        loop {
            let indices = self.next.filter(|indices| indices.last().is_some_and(|&last| last < n))?;
            self.next = advance(indices, n);
            let entities = indices.map(|i| self.entities[i]);
            let world: &World = self.world;
            // SAFETY: the schedule holds the access the query declared; the entities
            // of one combination are distinct, and the items of the previous one are
            // gone (they borrowed `self` mutably), so each item is the only one alive
            // for its entity; the state was updated when the system received the query.
            if let Ok(items) = unsafe { self.state.get_many_updated(world, entities, false) } {
                return Some(items);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::advance;

    fn all<const K: usize>(n: usize) -> Vec<[usize; K]> {
        let mut out = Vec::new();
        let mut next = super::first_combination::<K>().filter(|first| first.last().is_some_and(|&last| last < n));
        while let Some(indices) = next {
            out.push(indices);
            next = advance(indices, n);
        }
        out
    }

    #[test]
    fn combinations_come_in_order_each_once() {
        assert_eq!(all::<2>(4), [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]);
        assert_eq!(all::<3>(4), [[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]]);
        assert_eq!(all::<1>(3), [[0], [1], [2]]);
        assert!(all::<3>(2).is_empty());
        // C(10, 4) = 210.
        assert_eq!(all::<4>(10).len(), 210);
    }
}
