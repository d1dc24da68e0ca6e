//! bevy's `custom_query_param`: queries written as named structs (`#[derive(
//! QueryData)]`, `#[derive(QueryFilter)]`): read-only and mutable ones, nested,
//! optional and generic, with a custom filter, against the same query as a tuple, and
//! iterated contiguously (slices per table).
//!
//! bevy: derives the query types and their item types; ripple's query traits are
//! sealed (a query is a tuple of `&T`, `&mut T`, `Option<..>`, `Entity`, `Ref<T>` and
//! nested tuples, a filter a tuple of filters), so the port queries tuples and moves
//! each item into a struct named as bevy's item type, which prints as bevy's does.
//! The `App` has no runner plugin, so its schedules run once.

use std::fmt::Debug;

use ripple::prelude::*;

#[derive(Debug)]
struct ComponentA;
#[derive(Debug)]
struct ComponentB;
#[derive(Debug)]
struct ComponentC;
#[derive(Debug)]
struct ComponentD;
#[derive(Debug)]
struct ComponentZ;

/// bevy: the item of `NestedQuery { c: &ComponentC, d: Option<&ComponentD> }`.
#[derive(Debug)]
#[expect(dead_code, reason = "printed with `Debug` only, as bevy's item is")]
struct NestedQueryItem<'w> {
    c: &'w ComponentC,
    d: Option<&'w ComponentD>,
}

/// bevy: the item of `GenericQuery<T, P> { generic: (&T, &P) }`.
#[derive(Debug)]
#[expect(dead_code, reason = "printed with `Debug` only, as bevy's item is")]
struct GenericQueryItem<'w, T, P> {
    generic: (&'w T, &'w P),
}

/// bevy: `NestedQuery`, as a tuple.
type NestedQuery = (&'static ComponentC, Option<&'static ComponentD>);

/// bevy: `GenericQuery<T, P>`, as a tuple.
type GenericQuery<T, P> = (&'static T, &'static P);

/// bevy: `#[derive(QueryFilter)] struct CustomQueryFilter<T, P>`, as a tuple of its
/// fields' filters.
type CustomQueryFilter<T, P> = (
    With<ComponentC>,
    With<ComponentD>,
    Or<(Added<ComponentC>, Changed<ComponentD>, Without<ComponentZ>)>,
    (With<T>, With<P>),
);

/// bevy: `#[derive(QueryData)] struct ReadOnlyCustomQuery<T, P>` with fields
/// `entity`, `a`, `b`, `nested`, `optional_nested`, `optional_tuple`, `generic` and
/// `empty: EmptyQuery` (which matches everything, and is left out).
type ReadOnlyCustomQuery<T, P> = (
    Entity,
    &'static ComponentA,
    Option<&'static ComponentB>,
    NestedQuery,
    Option<NestedQuery>,
    Option<(&'static ComponentB, &'static ComponentZ)>,
    GenericQuery<T, P>,
);

fn nested<'w>((c, d): (&'w ComponentC, Option<&'w ComponentD>)) -> NestedQueryItem<'w> {
    NestedQueryItem { c, d }
}

fn print_components_read_only(
    mut query: Query<ReadOnlyCustomQuery<ComponentC, ComponentD>, CustomQueryFilter<ComponentC, ComponentD>>,
) {
    say!("Print components (read_only):");
    for (entity, a, b, nested_item, optional_nested, optional_tuple, generic) in &mut query {
        say!("Entity: {}", entity);
        say!("A: {:?}", a);
        say!("B: {:?}", b);
        say!("Nested: {:?}", nested(nested_item));
        say!("Optional nested: {:?}", optional_nested.map(nested));
        say!("Optional tuple: {:?}", optional_tuple);
        say!("Generic: {:?}", GenericQueryItem { generic });
    }
    say!("");
}

/// bevy: `#[derive(QueryData)] #[query_data(mutable)] struct CustomQuery<T, P>`: the
/// same fields, `a` and `b` mutable, and `optional_tuple: Option<(NestedQuery, &mut
/// ComponentZ)>`.
type CustomQuery<T, P> = (
    Entity,
    &'static mut ComponentA,
    Option<&'static mut ComponentB>,
    NestedQuery,
    Option<NestedQuery>,
    Option<(NestedQuery, &'static mut ComponentZ)>,
    GenericQuery<T, P>,
);

fn print_components_iter_mut(
    mut query: Query<CustomQuery<ComponentC, ComponentD>, CustomQueryFilter<ComponentC, ComponentD>>,
) {
    say!("Print components (iter_mut):");
    for (entity, a, b, nested_item, optional_nested, optional_tuple, generic) in &mut query {
        say!("Entity: {}", entity);
        // bevy: prints `Mut(ComponentA)`; ripple's `Mut` prints as the value it wraps,
        // as `&mut T` does.
        say!("A: {:?}", a);
        say!("B: {:?}", b);
        say!("Optional nested: {:?}", optional_nested.map(nested));
        say!("Optional tuple: {:?}", optional_tuple.map(|(item, z)| (nested(item), z)));
        say!("Nested: {:?}", nested(nested_item));
        say!("Generic: {:?}", GenericQueryItem { generic });
    }
    say!("");
}

/// bevy: iterates the mutable `CustomQuery` through `&query`, which gives its
/// read-only items; a ripple query of `&mut T` always hands out `Mut<T>`, so the port
/// asks for the read-only form itself.
fn print_components_iter(
    mut query: Query<ReadOnlyCustomQuery<ComponentC, ComponentD>, CustomQueryFilter<ComponentC, ComponentD>>,
) {
    say!("Print components (iter):");
    for (entity, a, b, nested_item, _, _, generic) in &mut query {
        say!("Entity: {}", entity);
        say!("A: {:?}", a);
        say!("B: {:?}", b);
        say!("Nested: {:?}", nested(nested_item));
        say!("Generic: {:?}", GenericQueryItem { generic });
    }
    say!("");
}

type NestedTupleQuery = (&'static ComponentC, &'static ComponentD);
type GenericTupleQuery<T, P> = (&'static T, &'static P);

/// The tuple query's items.
type TupleQuery =
    (Entity, &'static ComponentA, &'static ComponentB, NestedTupleQuery, GenericTupleQuery<ComponentC, ComponentD>);

/// The tuple query's filter.
type TupleFilter =
    (With<ComponentC>, With<ComponentD>, Or<(Added<ComponentC>, Changed<ComponentD>, Without<ComponentZ>)>);

fn print_components_tuple(mut query: Query<TupleQuery, TupleFilter>) {
    say!("Print components (tuple):");
    for (entity, a, b, nested, (generic_c, generic_d)) in &mut query {
        say!("Entity: {entity}");
        say!("A: {a:?}");
        say!("B: {b:?}");
        say!("Nested: {:?} {:?}", nested.0, nested.1);
        say!("Generic: {generic_c:?} {generic_d:?}");
    }
    say!("");
}

/// bevy: `#[derive(QueryData)] #[query_data(contiguous(all))] struct
/// CustomContiguousQuery<T, P>` with fields `entity`, `a: Ref<ComponentA>`, `b` and
/// `generic`, as a tuple.
type CustomContiguousQuery<T, P> = (Entity, Ref<'static, ComponentA>, Option<&'static ComponentB>, GenericQuery<T, P>);

/// bevy: `query.contiguous_iter()`, a table at a time, each field a slice of the
/// table's column (`Entity: [..]`, `A: ContiguousRef([..])`, ...). ripple has no
/// contiguous iteration of typed queries; the port gathers the items of the query
/// into vectors, which, the entities here sharing one table, hold what bevy's slices
/// do. `A` prints as a plain slice (bevy's `ContiguousRef` carries change ticks).
fn print_components_contiguous_iter(mut query: Query<CustomContiguousQuery<ComponentC, ComponentD>>) {
    say!("Print components (contiguous_iter):");
    let (mut entities, mut a, mut b, mut c, mut d) = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (entity, component_a, component_b, (component_c, component_d)) in &mut query {
        entities.push(entity);
        a.push(component_a.into_inner());
        b.push(component_b);
        c.push(component_c);
        d.push(component_d);
    }
    say!("Entity: {:?}", entities);
    say!("A: {:?}", a);
    // bevy: `Option<&ComponentB>` over a table is one `Option` of a slice.
    say!("B: {:?}", b.iter().copied().collect::<Option<Vec<_>>>());
    say!("Generic: {:?} {:?}", c, d);
}

fn spawn(mut commands: Commands) {
    commands.spawn((ComponentA, ComponentB, ComponentC, ComponentD));
}

/// Runs the startup schedule and the update schedule once each.
pub fn main() {
    let mut world = World::new();
    let mut startup = Schedule::new();
    startup.add_systems(&mut world, spawn).unwrap();
    let mut update = Schedule::new();
    update
        .add_systems(
            &mut world,
            (
                print_components_read_only,
                print_components_iter_mut,
                print_components_iter,
                print_components_tuple,
                print_components_contiguous_iter,
            )
                .chain(),
        )
        .unwrap();
    startup.run(&mut world);
    update.run(&mut world);
}
