//! One entity's structural history, judged an operation at a time: for readers that
//! must know whether an entity matched a query before and after each of its recent
//! structural changes (a `Dirty` reader's "started matching", a schedule's entity
//! enter and exit callbacks).
//!
//! A table move alone does not tell, once a query names sparse components: whether an
//! entity matches also depends on which of them it had at the time, and gaining or
//! losing one moves no row. So the history is read backwards from the world as it is:
//! undoing a table move puts the entity back in `from`, undoing a sparse move flips
//! that component's presence. The moves one operation logs (an insert, remove or
//! despawn changing table and sparse components together) are judged as one: the
//! states between them never existed.

use std::ops::ControlFlow;

use crate::component::ComponentId;
use crate::storage::ArchetypeId;

use super::Move;

/// Walks one entity's `moves` (tagged by the caller, oldest first, as the log holds
/// them, or a subset of them whose joined flags say which continue the operation of
/// the move before; see [`Move::rejoined`]) back from its state now, `now` being its table (`None` if it is not alive),
/// and hands `judge` each operation, newest first: the tag of the operation's first
/// move and whether the entity matched before and after it, until `judge` breaks.
///
/// `matches` says whether the entity matched in a table, given the sparse components
/// whose presence then differs from now (`flipped`, kept in the caller's scratch
/// vector so steady runs allocate nothing).
pub(crate) fn for_each_operation_back<T: Copy>(
    moves: impl DoubleEndedIterator<Item = (T, Move)>,
    now: Option<ArchetypeId>,
    flipped: &mut Vec<ComponentId>,
    mut matches: impl FnMut(Option<ArchetypeId>, &[ComponentId]) -> bool,
    mut judge: impl FnMut(T, bool, bool) -> ControlFlow<()>,
) {
    flipped.clear();
    let mut table = now;
    let mut after = matches(table, flipped);
    let mut moves = moves.rev().peekable();
    while let Some((tag, mv)) = moves.next() {
        match mv.sparse_component() {
            Some(component) => match flipped.iter().position(|&c| c == component) {
                Some(i) => {
                    flipped.swap_remove(i);
                }
                None => flipped.push(component),
            },
            None => table = mv.from,
        }
        // A joined move is judged with the one that began its operation, unless the
        // moves read begin inside an operation.
        if mv.joined() && moves.peek().is_some() {
            continue;
        }
        let before = matches(table, flipped);
        if judge(tag, before, after).is_break() {
            return;
        }
        after = before;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entity::Entity;

    fn table(i: u32) -> Option<ArchetypeId> {
        Some(ArchetypeId(i))
    }

    /// The entity matches in table 1 with sparse component 7, and never without it.
    fn judged(moves: &[Move], now: Option<ArchetypeId>, has_now: bool) -> Vec<(usize, bool, bool)> {
        let mut out = Vec::new();
        let mut flipped = Vec::new();
        let matches = |t: Option<ArchetypeId>, flipped: &[ComponentId]| {
            t == table(1) && has_now != flipped.contains(&ComponentId(7))
        };
        for_each_operation_back(moves.iter().copied().enumerate(), now, &mut flipped, matches, |at, before, after| {
            out.push((at, before, after));
            ControlFlow::Continue(())
        });
        out
    }

    #[test]
    fn operations_are_judged_newest_first_from_the_state_now() {
        let e = Entity::from_bits((1 << 32) | 3).unwrap();
        let moves = [
            Move::between(e, None, table(0)),       // spawned into table 0
            Move::sparse(e, ComponentId(7), false), // gained 7
            Move::between(e, table(0), table(1)),   // moved to table 1: matches from here
            Move::sparse(e, ComponentId(7), false), // lost 7
        ];
        let got = judged(&moves, table(1), false);
        assert_eq!(got, [(3, true, false), (2, false, true), (1, false, false), (0, false, false)]);
    }

    #[test]
    fn the_moves_of_one_operation_are_judged_as_one() {
        let e = Entity::from_bits((1 << 32) | 3).unwrap();
        // One insert moved the entity to table 1 and gave it 7: the state "in table 1
        // without 7" never existed.
        let moves = [Move::between(e, table(0), table(1)), Move::sparse(e, ComponentId(7), true)];
        assert_eq!(judged(&moves, table(1), true), [(0, false, true)]);
        // Read from inside an operation, the joined move is judged on its own.
        assert_eq!(judged(&moves[1..], table(1), true), [(0, false, true)]);
    }

    #[test]
    fn judging_stops_when_asked() {
        let e = Entity::from_bits((1 << 32) | 3).unwrap();
        let moves = [Move::between(e, None, table(1)), Move::between(e, table(1), table(0))];
        let mut seen = 0;
        let mut flipped = Vec::new();
        for_each_operation_back(
            moves.iter().copied().enumerate(),
            table(0),
            &mut flipped,
            |t, _| t == table(1),
            |_, _, _| {
                seen += 1;
                ControlFlow::Break(())
            },
        );
        assert_eq!(seen, 1);
    }
}
