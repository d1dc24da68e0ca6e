//! Which structural changes make an entity start or stop matching a system, for its
//! entity enter and exit callbacks.
//!
//! Every decision is made before any callback runs, from the moves read and the world
//! as it is, each entity's moves judged an operation at a time by
//! [`for_each_operation_back`] (a despawn logs the loss of each sparse component the
//! entity had, so a dead entity has none now). An operation's decision is kept at its
//! first move.

use std::ops::ControlFlow;

use crate::change::Move;
use crate::change::history::for_each_operation_back;
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::storage::ArchetypeId;
use crate::system::System;
use crate::world::World;

/// What one move did to an entity's match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Membership {
    /// No change: it matched before and after, or neither.
    Same,
    /// It started matching.
    Enter,
    /// It stopped matching.
    Exit,
}

impl Membership {
    fn of(before: bool, after: bool) -> Membership {
        match (before, after) {
            (false, true) => Membership::Enter,
            (true, false) => Membership::Exit,
            _ => Membership::Same,
        }
    }
}

/// Scratch kept by the schedule (capacity kept, so steady frames allocate nothing).
#[derive(Default)]
pub(super) struct MembershipScratch {
    /// One decision per move read, in the log's order.
    pub(super) decisions: Vec<Membership>,
    /// Positions of the moves, grouped by entity (in log order within each).
    by_entity: Vec<u32>,
    /// The sparse components whose presence differs from now, while undoing an
    /// entity's moves.
    flipped: Vec<ComponentId>,
}

impl MembershipScratch {
    /// Decides, for each of `moves` (read from the world's log, oldest first, ending
    /// at the log's end), whether it made its entity start or stop matching `system`.
    pub(super) fn decide(&mut self, system: &mut dyn System, world: &World, moves: &[Move]) {
        let MembershipScratch { decisions, by_entity, flipped } = self;
        decisions.clear();
        // A sparse set answers only for live entities (a dead one's slot may hold a
        // newer entity): a dead entity has nothing now.
        let has_now = |entity: Entity, alive: bool, component: ComponentId| {
            alive && world.sparse.get(component).is_some_and(|set| set.contains(entity))
        };
        if moves.iter().all(|mv| mv.sparse_component().is_none()) {
            // No sparse component came or went: each entity had the ones it has now
            // throughout (a despawned entity would have logged losing them).
            for mv in moves {
                let alive = world.entities.get(mv.entity).is_some();
                let has = |component| has_now(mv.entity, alive, component);
                let mut matches = |table: Option<ArchetypeId>| {
                    table.is_some_and(|table| system.matches_entity_in(world, table, &has))
                };
                let before = matches(mv.from);
                decisions.push(Membership::of(before, matches(mv.to)));
            }
            return;
        }
        decisions.resize(moves.len(), Membership::Same);
        by_entity.clear();
        by_entity.extend(0..moves.len() as u32);
        by_entity.sort_unstable_by_key(|&at| (moves[at as usize].entity.to_bits(), at));
        for group in by_entity.chunk_by(|&a, &b| moves[a as usize].entity == moves[b as usize].entity) {
            let entity = moves[group[0] as usize].entity;
            let now = world.entities.get(entity).map(|location| location.archetype);
            let alive = now.is_some();
            let matches = |table: Option<ArchetypeId>, flipped: &[ComponentId]| {
                let has = |component| has_now(entity, alive, component) != flipped.contains(&component);
                table.is_some_and(|table| system.matches_entity_in(world, table, &has))
            };
            let history = group.iter().map(|&at| (at as usize, moves[at as usize]));
            for_each_operation_back(history, now, flipped, matches, |at, before, after| {
                decisions[at] = Membership::of(before, after);
                ControlFlow::Continue(())
            });
        }
    }
}
