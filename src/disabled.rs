//! [`Disabled`]: a marker that hides an entity from every query that does not ask
//! for it, without despawning it (bevy_ecs's entity disabling).

use crate::component::ComponentId;
use crate::world::World;

/// Hides the entity that has it from queries: a query (typed, a system's, or a
/// [`DynamicQuery`](crate::dynamic::DynamicQuery)) skips entities with `Disabled`
/// unless it names `Disabled` itself, in its data (`&Disabled`, `Option<&Disabled>`)
/// or its filters (`With<Disabled>`, `Without<Disabled>`, inside `Or` too). Insert it
/// to disable an entity, remove it to enable it again; the entity keeps its
/// components and its handle meanwhile, and direct access (`World::get`,
/// `World::entity`, `get_mut`) still reaches it. Only the entity is hidden, not its
/// children.
///
/// `Disabled` is stored in tables in every world (so a query skips whole tables, at
/// no cost per entity); [`World::set_storage`] refuses to change that.
///
/// ```
/// use ripple::{Disabled, World};
/// use ripple::query::With;
/// struct Name(&'static str);
/// let mut world = World::new();
/// let annulus = world.spawn((Name("Annulus"),));
/// world.spawn((Name("Rhombus"),));
/// world.insert_one(annulus, Disabled).unwrap();
/// let mut names = world.query::<&Name>();
/// assert_eq!(names.iter(&world).map(|n| n.0).collect::<Vec<_>>(), ["Rhombus"]);
/// let mut disabled = world.query_filtered::<&Name, With<Disabled>>();
/// assert_eq!(disabled.iter(&world).map(|n| n.0).collect::<Vec<_>>(), ["Annulus"]);
/// world.remove_one::<Disabled>(annulus).unwrap(); // enabled again
/// assert_eq!(names.iter(&world).count(), 2);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Disabled;

/// Registers [`Disabled`] (in tables) in a new world.
pub(crate) fn install(world: &mut World) {
    world.components.id_or_register::<Disabled>();
}

/// The component a query built with `mentions` skips entities with by default:
/// `Disabled`'s id, unless the query names it (or the world never registered it).
pub(crate) fn hidden_by_default(world: &World, mentions: impl Fn(ComponentId) -> bool) -> Option<ComponentId> {
    world.components.id::<Disabled>().filter(|&id| !mentions(id))
}
