//! [`World::clear`]: despawning every entity at once, as despawning each would (hooks
//! and observers included), keeping the tables and their capacity.

use crate::change::Move;
use crate::entity::Entity;
use crate::hook::{HookKind, RemovedIds};
use crate::world::World;

impl World {
    /// Despawns every entity, dropping all components. Resources are kept, and so are
    /// the archetype tables and their capacity.
    pub fn clear(&mut self) {
        self.flush_reserved();
        let hooked = self.archetypes.iter().any(|table| table.hooks.has(HookKind::Remove) && !table.is_empty())
            || (self.sparse_hooks.has(HookKind::Remove) && self.sparse.iter().any(|set| set.len() > 0));
        let observed = self.has_reactor() && (hooked || self.reactor.despawns);
        if observed {
            // Entity by entity, as `despawn` runs hooks and observers. They cannot
            // change the world's structure, so the list stays right throughout.
            let all: Vec<Entity> = self.archetypes.iter().flat_map(|table| table.entities().iter().copied()).collect();
            for entity in all {
                let location = self.locate(entity).expect("listed entities are alive");
                self.sparse.components_of(entity, &mut self.sparse_scratch);
                self.hooks_before_removal(entity, RemovedIds::Table(location.archetype));
            }
            self.flush_reserved_entities();
        } else if hooked {
            // Entity by entity, as `despawn` runs them: its sparse components' hooks,
            // then its table components'.
            let mut queue = std::mem::take(&mut self.hook_queue);
            let mut sparse = std::mem::take(&mut self.sparse_scratch);
            let sparse_hooked = self.sparse_hooks.has(HookKind::Remove);
            for table in self.archetypes.iter() {
                let table_hooked = table.hooks.has(HookKind::Remove);
                if !table_hooked && !sparse_hooked {
                    continue;
                }
                for &entity in table.entities() {
                    if sparse_hooked {
                        self.sparse.components_of(entity, &mut sparse);
                        self.run_hooks(&mut queue, HookKind::Remove, entity, &sparse, |_| true);
                    }
                    if table_hooked {
                        self.run_hooks(&mut queue, HookKind::Remove, entity, table.components(), |_| true);
                    }
                }
            }
            self.sparse_scratch = sparse;
            self.hook_queue = queue;
            // As in `despawn`: reserved entities first, then the slots are freed. The
            // entities the hooks spawned are cleared with the rest; their commands
            // then fail and are recorded.
            self.flush_reserved_entities();
        }
        let now = self.change_tick();
        for &id in self.sparse.ids() {
            let set = self.sparse.get(id).expect("listed sets exist");
            for &entity in set.entities() {
                Self::record_removals(&mut self.removals, &[id], entity, now);
            }
        }
        // Each entity's sparse components are logged after its despawn, joined to it,
        // as `despawn` logs them (only when someone reads the log: finding them takes
        // a look in every set), while the sets still hold them.
        let log_sparse = self.moves.is_observed() && self.sparse.iter().any(|set| set.len() > 0);
        let mut sparse = std::mem::take(&mut self.sparse_scratch);
        for table in self.archetypes.iter() {
            for &entity in table.entities() {
                self.entities.free(entity);
                Self::record_removals(&mut self.removals, table.components(), entity, now);
                self.moves.push(Move::between(entity, Some(table.id()), None));
                if log_sparse {
                    self.sparse.components_of(entity, &mut sparse);
                    self.moves.push_sparse(entity, sparse.iter().copied(), true);
                }
            }
        }
        self.sparse_scratch = sparse;
        // Every set and table is emptied even if a value's `Drop` panics (the first
        // panic goes on once all are), so the world matches what was logged.
        let mut panicked = None;
        let mut empty = |clear: &mut dyn FnMut()| {
            if let Err(panic) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(clear)) {
                panicked.get_or_insert(panic);
            }
        };
        for set in self.sparse.iter_mut() {
            empty(&mut || set.clear());
        }
        for table in self.archetypes.iter_mut() {
            empty(&mut || table.clear());
        }
        if let Some(panic) = panicked {
            std::panic::resume_unwind(panic);
        }
        if hooked || observed {
            self.apply_hook_commands();
        }
    }
}
