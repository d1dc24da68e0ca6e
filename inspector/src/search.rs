//! Entity search, at the game's sync point and bounded there: an id (`12v1`, or an
//! entity's bits) is looked up, O(1); a component name matches whole tables, which
//! are counted by their rows and paged by slicing them, O(tables + the page); only a
//! name that matches a sparse component makes it look at entities one by one, at
//! most [`SCAN_LIMIT`] of them, and then it says whether it saw them all. The game's
//! thread gathers handles and static names; the server thread writes the JSON.

use ripple::{ComponentId, Entity, Storage, TableSummary, World};
use serde_json::json;

use crate::sample::short_name;

/// The most entities one search looks at one by one (for a sparse component's name).
pub(crate) const SCAN_LIMIT: usize = 65_536;

/// What a search found: how many matches, and a page of them.
pub(crate) struct Found {
    total: usize,
    /// Entities looked at one by one: the page's, the id's, and those scanned.
    visited: usize,
    /// Whether `total` counts every match (a scan may stop at [`SCAN_LIMIT`]).
    complete: bool,
    /// The page: each entity and the index of its component names in `names`.
    page: Vec<(Entity, usize)>,
    names: Vec<Vec<&'static str>>,
}

/// Where the matches counted so far stand against the page asked for.
struct Window {
    offset: usize,
    limit: usize,
}

impl Window {
    /// The part of `count` matches, counted after `before` others, on the page.
    fn part(&self, before: usize, count: usize) -> std::ops::Range<usize> {
        let end = self.offset.saturating_add(self.limit);
        let start = self.offset.clamp(before, before + count) - before;
        start..end.clamp(before + start, before + count) - before
    }
}

/// The entity `needle` names: `12v1` (index, generation) or its bits in decimal.
fn id_of(needle: &str) -> Option<Entity> {
    match needle.split_once('v') {
        Some((index, generation)) => {
            let (index, generation) = (index.parse::<u32>().ok()?, generation.parse::<u32>().ok()?);
            Entity::from_bits(u64::from(generation) << 32 | u64::from(index))
        }
        None => needle.parse().ok().and_then(Entity::from_bits),
    }
}

/// The entity `query` names, if it is alive, then entities with a component whose
/// name contains `query` (case ignored; every entity for an empty query), in table
/// order; `limit` of them from `offset`.
pub(crate) fn search(world: &World, query: &str, offset: usize, limit: usize) -> Found {
    let needle = query.trim().to_lowercase();
    let matches = |name: &str| !needle.is_empty() && short_name(name).to_lowercase().contains(&needle);
    let window = Window { offset, limit };
    let mut found = Found { total: 0, visited: 0, complete: true, page: Vec::new(), names: Vec::new() };
    if let Some(entity) = id_of(&needle).filter(|&e| world.contains(e)) {
        found.visited += 1;
        // Listed here unless a name match lists it below.
        if !world.entity(entity).is_ok_and(|e| e.component_names().any(matches)) {
            if !window.part(0, 1).is_empty() {
                found.push_entity(world, entity);
            }
            found.total += 1;
        }
    }
    let sparse: Vec<ComponentId> = world
        .component_summaries()
        .filter(|c| c.storage == Storage::SparseSet && c.entities > 0 && matches(c.name))
        .map(|c| c.id)
        .collect();
    let any_sparse = world.component_summaries().any(|c| c.storage == Storage::SparseSet && c.entities > 0);
    for table in world.tables().filter(|table| table.rows > 0) {
        let table_matches =
            needle.is_empty() || table.components.iter().any(|&id| world.component_name(id).is_some_and(matches));
        if table_matches {
            let part = window.part(found.total, table.rows);
            found.visited += part.len();
            found.push_rows(world, &table, part, any_sparse);
            found.total += table.rows;
        } else if !sparse.is_empty() && !found.scan(world, &table, &sparse, &window) {
            break;
        }
    }
    found
}

impl Found {
    /// One entity, with its own names.
    fn push_entity(&mut self, world: &World, entity: Entity) {
        let names = world.entity(entity).map(|e| e.component_names().collect()).unwrap_or_default();
        self.names.push(names);
        self.page.push((entity, self.names.len() - 1));
    }

    /// Rows `part` of `table`, all matches: they share the table's names unless the
    /// world has sparse components, which differ per entity.
    fn push_rows(&mut self, world: &World, table: &TableSummary<'_>, part: std::ops::Range<usize>, any_sparse: bool) {
        if part.is_empty() {
            return;
        }
        if any_sparse {
            table.entities[part].iter().for_each(|&entity| self.push_entity(world, entity));
            return;
        }
        self.names.push(table.components.iter().filter_map(|&id| world.component_name(id)).collect());
        let names = self.names.len() - 1;
        self.page.extend(table.entities[part].iter().map(|&entity| (entity, names)));
    }

    /// Looks at `table`'s entities for one with a component of `sparse`, counting
    /// the matches and keeping those on the page. False once [`SCAN_LIMIT`] entities
    /// were looked at: the search stops there, incomplete.
    fn scan(&mut self, world: &World, table: &TableSummary<'_>, sparse: &[ComponentId], window: &Window) -> bool {
        for &entity in table.entities {
            if self.visited >= SCAN_LIMIT {
                self.complete = false;
                return false;
            }
            self.visited += 1;
            if world.entity(entity).is_ok_and(|e| sparse.iter().any(|&id| e.contains_id(id))) {
                if !window.part(self.total, 1).is_empty() {
                    self.push_entity(world, entity);
                }
                self.total += 1;
            }
        }
        true
    }

    /// The answer's JSON (written off the game's thread).
    pub(crate) fn to_json(&self) -> String {
        // Each list of names shortened once, however many entities share it.
        let names: Vec<serde_json::Value> =
            self.names.iter().map(|list| list.iter().map(|name| short_name(name)).collect()).collect();
        let entities: Vec<_> = self
            .page
            .iter()
            .map(|&(entity, at)| {
                json!({ "id": entity.to_string(), "bits": entity.to_bits().to_string(), "components": names[at] })
            })
            .collect();
        json!({ "total": self.total, "complete": self.complete, "visited": self.visited, "entities": entities })
            .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_takes_the_part_of_each_run_of_matches_on_the_page() {
        let window = Window { offset: 5, limit: 10 };
        assert_eq!(window.part(0, 3), 3..3);
        assert_eq!(window.part(3, 4), 2..4);
        assert_eq!(window.part(7, 100), 0..8);
        assert_eq!(window.part(15, 10), 0..0);
        assert_eq!(Window { offset: usize::MAX, limit: usize::MAX }.part(0, 10), 10..10);
    }

    #[test]
    fn ids_are_read_as_index_and_generation_or_bits() {
        let entity = Entity::from_bits(7 << 32 | 12).unwrap();
        assert_eq!(id_of("12v7"), Some(entity));
        assert_eq!(id_of(&entity.to_bits().to_string()), Some(entity));
        assert_eq!(id_of("12v0"), None);
        assert_eq!(id_of("12"), None, "bits with a zero generation name no entity");
        assert_eq!(id_of("v"), None);
        assert_eq!(id_of("position"), None);
    }
}
