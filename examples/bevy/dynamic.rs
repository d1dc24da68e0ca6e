//! bevy's `dynamic`: components and events defined at run time. A small command line
//! creates components (arrays of `u64`, by name), spawns entities with them, queries
//! them by id (writes add one to each field), registers events with an observer
//! each, and triggers them.
//!
//! bevy: reads its commands from standard input, and needs `unsafe` for raw pointers
//! and layouts. Here a fixed script stands in for the input, and ripple's runtime
//! components take byte strings, with no `unsafe`. The lines printed are bevy's (its
//! prompt, `"\n> "`, begins the next line of output, as on a terminal fed a file).

use std::collections::{BTreeMap, BTreeSet};

use ripple::ComponentId;
use ripple::dynamic::ComponentDescriptor;
use ripple::prelude::*;

const PROMPT: &str = "
Commands:
    comp, c    Create new components
    spawn, s   Spawn entities
    query, q   Query for entities
    event, e   Register dynamic events and observers
    emit, t    Trigger a dynamic event
Enter a command with no parameters for usage.";

const COMPONENT_PROMPT: &str = "
comp, c   Create new components
    Enter a comma separated list of type names optionally followed by a size in u64s.
    e.g. CompA 3, CompB, CompC 2";

const ENTITY_PROMPT: &str = "
spawn, s  Spawn entities
    Enter a comma separated list of components optionally followed by values.
    e.g. CompA 0 1 0, CompB, CompC 1";

const QUERY_PROMPT: &str = "
query, q  Query for entities
    Enter a query to fetch and update entities
    Components with read or write access will be displayed with their values
    Components with write access will have their fields incremented by one

    Accesses: 'A' with, '&A' read, '&mut A' write
    Operators: '||' or, ',' and, '?' optional

    e.g. &A || &B, &mut C, D, ?E";

const EVENT_PROMPT: &str = "
event, e  Register dynamic events and observers
    Enter a comma separated list of event names.
    Each event gets a dynamic observer that prints when fired.
    e.g. OnDamage, OnHeal, OnDeath";

const EMIT_PROMPT: &str = "
emit, t   Trigger a dynamic event
    Enter the name of a previously registered event.
    e.g. OnDamage";

/// What the port types, a line each (bevy: standard input, until an empty line or
/// its end).
pub const SCRIPT: &[&str] = &[
    "comp A 2, B, C 1",
    "spawn A 1 2, B",
    "spawn A 3, C 7",
    "spawn B, C 5",
    "query &A",
    "query &mut A, ?C",
    "query B, &C",
    "query A || C",
    "event OnDamage, OnHeal",
    "t OnDamage",
    "t OnDamage",
    "t OnHeal",
    "t OnDeath",
    "q",
];

/// How many times each dynamic event's observer fired.
// bevy: keyed by `EventKey`, the id of a component registered for the event.
#[derive(Default)]
struct EventFireCount(BTreeMap<ComponentId, u32>);

/// A dynamic event: the key of the event it stands for.
// bevy: `world.trigger_dynamic(event_key, ..)` runs the observers made with
// `Observer::with_dynamic_runner(..).with_event_key(event_key)`, events with no Rust
// type. ripple's events are Rust types; one type carries the key, and each observer
// answers to its own key only.
struct DynamicEvent {
    key: ComponentId,
}

impl ObserverEvent for DynamicEvent {}

/// How a query term touches its component.
#[derive(Clone, Copy, PartialEq)]
enum Access {
    With,
    Read,
    Write,
}

/// Whether bevy's prompt, `"\n> "`, waits for what is printed next: bevy prints it
/// and reads a line, and what it prints next continues the prompt's line.
#[derive(Default)]
struct Prompt(bool);

impl Prompt {
    /// Prints `text`, after the prompt if it waits.
    fn say(&mut self, text: &str) {
        if std::mem::take(&mut self.0) {
            say!("\n> {text}");
        } else {
            say!("{text}");
        }
    }
}

/// Prints `text` as [`Prompt::say`] does.
fn out(world: &mut World, text: &str) {
    world.resource_mut::<Prompt>().unwrap().say(text);
}

/// Runs [`SCRIPT`].
pub fn main() {
    let mut world = World::new();
    let mut component_names = BTreeMap::<String, ComponentId>::new();
    let mut event_names = BTreeMap::<String, ComponentId>::new();

    world.init_resource::<Prompt>();
    say!("{PROMPT}");
    for line in SCRIPT {
        world.resource_mut::<Prompt>().unwrap().0 = true;
        let Some((first, rest)) = line.trim().split_once(|c: char| c.is_whitespace()) else {
            let usage = match line.chars().next() {
                Some('c') => COMPONENT_PROMPT,
                Some('s') => ENTITY_PROMPT,
                Some('q') => QUERY_PROMPT,
                Some('e') => EVENT_PROMPT,
                Some('t') => EMIT_PROMPT,
                _ => PROMPT,
            };
            out(&mut world, usage);
            continue;
        };
        match &first[0..1] {
            "c" => create_components(&mut world, rest, &mut component_names),
            "s" => spawn_entity(&mut world, rest, &component_names),
            "q" => query(&mut world, rest, &component_names),
            "e" => register_events(&mut world, rest, &mut event_names),
            "t" => trigger_event(&mut world, rest, &event_names),
            _ => continue,
        }
    }
    // bevy: prints the prompt once more (with no line's end after it) and finds the
    // input's end.
    world.resource_mut::<Prompt>().unwrap().0 = true;
    out(&mut world, "");
}

fn create_components(world: &mut World, rest: &str, names: &mut BTreeMap<String, ComponentId>) {
    for component in rest.split(',') {
        let mut component = component.split_whitespace();
        let Some(name) = component.next() else { continue };
        let size: usize = match component.next().map(str::parse) {
            Some(Ok(size)) => size,
            _ => 0,
        };
        // Registered with the layout of `[u64; size]` (bevy: a `ComponentDescriptor`
        // made with `unsafe`, for a raw layout).
        let id = world.register_component(ComponentDescriptor::new(name, size * 8, 8).unwrap());
        names.insert(name.to_string(), id);
        out(world, &format!("Component {} created with id: {}", name, id.index()));
    }
}

fn spawn_entity(world: &mut World, rest: &str, names: &BTreeMap<String, ComponentId>) {
    let mut to_insert = Vec::new();
    for component in rest.split(',') {
        let mut component = component.split_whitespace();
        let Some(name) = component.next() else { continue };
        let Some(&id) = names.get(name) else {
            out(world, &format!("Component {name} does not exist"));
            continue;
        };
        // The array's length from the layout registered for the id.
        let len = world.component_layout(id).unwrap().size() / size_of::<u64>();
        let mut values: Vec<u64> = component.take(len).filter_map(|value| value.parse::<u64>().ok()).collect();
        values.resize(len, 0);
        to_insert.push((id, values));
    }
    // bevy: `world.spawn_empty()`, then one `insert_by_ids` of raw pointers.
    let entity = world.spawn_empty();
    for (id, values) in to_insert {
        let bytes: Vec<u8> = values.iter().flat_map(|value| value.to_le_bytes()).collect();
        world.insert_by_id(entity, id, &bytes).unwrap();
    }
    out(world, &format!("Entity spawned with id: {entity}"));
}

/// One term of a query: its component, its access, and whether it is optional.
struct Term {
    id: ComponentId,
    access: Access,
    optional: bool,
}

/// Parses a term (bevy: `parse_term`, which adds it to a `QueryBuilder`).
fn parse_term(world: &mut World, text: &str, names: &BTreeMap<String, ComponentId>) -> Option<Term> {
    let text = text.trim();
    let term = match text.chars().next() {
        Some('?') => parse_term(world, &text[1..], names).map(|term| Term { optional: true, ..term }),
        Some('&') => {
            let mut parts = text.split_whitespace();
            let first = parts.next().unwrap();
            if first == "&mut" {
                parts.next().and_then(|name| names.get(name)).map(|&id| Term {
                    id,
                    access: Access::Write,
                    optional: false,
                })
            } else {
                names.get(&first[1..]).map(|&id| Term { id, access: Access::Read, optional: false })
            }
        }
        Some(_) => names.get(text).map(|&id| Term { id, access: Access::With, optional: false }),
        None => None,
    };
    if term.is_none() && !text.starts_with('?') {
        out(world, &format!("Unable to find component: {text}"));
    }
    term
}

/// Runs a query: terms joined by `,` must all hold, those joined by `||` one of them.
// bevy: a `QueryBuilder<FilteredEntityMut>` with `or` and `optional` groups.
// ripple's dynamic queries take required terms only (`read`, `write`, `with`): the
// port queries those, and checks `||` groups itself with queries of one component
// each; an optional term requires nothing and, as in bevy (where reading one that
// is missing would panic), is not shown.
fn query(world: &mut World, rest: &str, names: &BTreeMap<String, ComponentId>) {
    let mut required = Vec::new();
    let mut any_of = Vec::new();
    for term in rest.split(',') {
        let sub_terms: Vec<&str> = term.split("||").collect();
        if sub_terms.len() == 1 {
            required.extend(parse_term(world, sub_terms[0], names).filter(|term| !term.optional));
        } else {
            any_of.push(sub_terms.iter().filter_map(|term| parse_term(world, term, names)).collect::<Vec<_>>());
        }
    }
    // Entities with each component of an `||` group.
    let mut having = BTreeMap::<ComponentId, BTreeSet<Entity>>::new();
    for term in any_of.iter().flatten() {
        let mut with = world.dynamic_query().with(term.id).build().unwrap();
        let mut found = BTreeSet::new();
        with.for_each(world, |item| {
            found.insert(item.entity());
        });
        having.insert(term.id, found);
    }
    // bevy lists a row's accesses in the order of the components' ids.
    required.sort_by_key(|term| term.id);
    let mut builder = world.dynamic_query();
    for term in &required {
        builder = match term.access {
            Access::With => builder.with(term.id),
            Access::Read => builder.read(term.id),
            Access::Write => builder.write(term.id),
        };
    }
    let mut query = builder.build().unwrap();
    // The terms shown, with their places among the query's terms and their names.
    let shown: Vec<(usize, &Term, &str)> = required
        .iter()
        .filter(|term| term.access != Access::With)
        .enumerate()
        .map(|(index, term)| (index, term, world.component_name(term.id).unwrap()))
        .collect();
    let mut rows = Vec::new();
    query.for_each_mut(world, |mut item| {
        let entity = item.entity();
        if !any_of.iter().all(|group| group.iter().any(|term| having[&term.id].contains(&entity))) {
            return;
        }
        let terms: Vec<String> = shown
            .iter()
            .map(|(index, term, name)| {
                // Written terms have each field incremented once.
                if term.access == Access::Write {
                    let mut bytes = item.get_mut(*index);
                    for field in bytes.chunks_exact_mut(8) {
                        let value = u64::from_le_bytes(field.try_into().unwrap()) + 1;
                        field.copy_from_slice(&value.to_le_bytes());
                    }
                }
                let values: Vec<u64> = item
                    .get(*index)
                    .chunks_exact(8)
                    .map(|field| u64::from_le_bytes(field.try_into().unwrap()))
                    .collect();
                format!("{name}: {values:?}")
            })
            .collect();
        rows.push(format!("{}: {}", entity, terms.join(", ")));
    });
    // bevy: visits its tables in the order they were made, as ripple's query does.
    for row in rows {
        out(world, &row);
    }
}

fn register_events(world: &mut World, rest: &str, events: &mut BTreeMap<String, ComponentId>) {
    for event in rest.split(',') {
        let name = event.trim();
        if name.is_empty() {
            continue;
        }
        // A component id for the event, no Rust type needed (bevy: a zero-sized
        // component registered with `unsafe`, turned into an `EventKey`).
        let event_key = world.register_component(ComponentDescriptor::new(&format!("event:{name}"), 0, 1).unwrap());
        events.insert(name.to_string(), event_key);
        // An observer that prints when the event fires, and counts.
        world
            .add_observer(
                move |trigger: Trigger<DynamicEvent>,
                      counts: Option<ResMut<EventFireCount>>,
                      mut prompt: ResMut<Prompt>| {
                    if trigger.event().key != event_key {
                        return;
                    }
                    prompt.say("  Observer fired!");
                    if let Some(mut counts) = counts {
                        *counts.0.entry(event_key).or_insert(0) += 1;
                    }
                },
            )
            .unwrap();
        out(world, &format!("Event '{name}' registered (key: {}) with a dynamic observer", event_key.index()));
    }
    // Make sure the counter exists.
    world.init_resource::<EventFireCount>();
}

fn trigger_event(world: &mut World, rest: &str, events: &BTreeMap<String, ComponentId>) {
    let name = rest.trim();
    let Some(&event_key) = events.get(name) else {
        out(world, &format!("Event '{name}' does not exist. Register it first with 'event {name}'"));
        return;
    };
    world.trigger(DynamicEvent { key: event_key });
    let count = world.get_resource::<EventFireCount>().map_or(0, |c| c.0.get(&event_key).copied().unwrap_or(0));
    out(world, &format!("Event '{name}' triggered ({count} fires)"));
}
