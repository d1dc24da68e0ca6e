//! bevy's `immutable_components`: components that can be read, replaced or removed,
//! never written in place, so that what follows their inserts and replacements (an
//! index of names) sees every change.
//!
//! bevy: `#[component(immutable)]` makes a write a compile error; every type is a
//! component in ripple, so immutability is a registration
//! (`World::register_immutable`) and a write is refused at run time, naming the
//! component. bevy keeps the index with the hooks `on_insert` and `on_discard`;
//! ripple has no discard hook, so the index follows `OnInsert` and `OnReplace`
//! observers, which see the same moments. bevy's example prints nothing (its checks
//! are asserts); neither does the port.

use std::collections::HashMap;

use ripple::ComponentId;
use ripple::dynamic::{ComponentDescriptor, DynamicError};
use ripple::prelude::*;

/// This component is mutable, the default case.
pub struct MyMutableComponent(bool);

/// This component is immutable (once registered so). Once inserted into the ECS, it
/// can only be viewed, or removed. Replacement is also permitted, as this is
/// equivalent to removal and insertion.
pub struct MyImmutableComponent(bool);

fn demo_1(world: &mut World) {
    world.register_immutable::<MyImmutableComponent>();
    // Immutable components can be inserted just like mutable components.
    let entity = world.spawn((MyMutableComponent(false), MyImmutableComponent(false)));
    let mut entity = world.entity_mut(entity).unwrap();

    // But where mutable components can be mutated...
    let mut my_mutable_component = entity.get_mut::<MyMutableComponent>().unwrap();
    my_mutable_component.0 = true;

    // ...immutable ones cannot. bevy: the line below fails to compile; here it
    // panics, naming `MyImmutableComponent`.
    // let mut my_immutable_component = entity.get_mut::<MyImmutableComponent>().unwrap();

    // Instead, you could take or replace the immutable component to update its value.
    // bevy: `entity.take::<MyImmutableComponent>()`.
    let mut my_immutable_component = entity.remove_one::<MyImmutableComponent>().unwrap();
    my_immutable_component.0 = true;
    entity.insert_one(my_immutable_component).unwrap();
    assert!(entity.get::<MyImmutableComponent>().unwrap().0);
    assert!(entity.get::<MyMutableComponent>().unwrap().0);
}

/// This is an example of a component like bevy's `Name`, but immutable.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Name(pub &'static str);

/// This index allows for O(1) lookups of an [`Entity`] by its [`Name`].
#[derive(Default)]
struct NameIndex {
    name_to_entity: HashMap<Name, Entity>,
}

impl NameIndex {
    fn get_entity(&self, name: &'static str) -> Option<Entity> {
        self.name_to_entity.get(&Name(name)).copied()
    }
}

/// When a [`Name`] is inserted, we will add it to our [`NameIndex`].
///
/// Since all mutations to [`Name`] are captured by observers, we know it is not
/// currently inserted in the index, and its value will not change without them.
fn on_insert_name(trigger: Trigger<OnInsert<Name>>, names: Query<&Name>, index: Option<ResMut<NameIndex>>) {
    let Ok(&name) = names.get(trigger.entity()) else {
        unreachable!("OnInsert guarantees `Name` is available on the entity")
    };
    let Some(mut index) = index else {
        return;
    };
    index.name_to_entity.insert(name, trigger.entity());
}

/// When a [`Name`] is removed or replaced, remove it from our [`NameIndex`].
fn on_replace_name(trigger: Trigger<OnReplace<Name>>, names: Query<&Name>, index: Option<ResMut<NameIndex>>) {
    let Ok(name) = names.get(trigger.entity()) else {
        unreachable!("OnReplace guarantees `Name` is available on the entity")
    };
    let Some(mut index) = index else {
        return;
    };
    index.name_to_entity.remove(name);
}

fn demo_2(world: &mut World) {
    // bevy: `#[component(immutable, on_insert = .., on_discard = ..)]` on `Name`.
    world.register_immutable::<Name>();
    world.add_observer(on_insert_name).unwrap();
    world.add_observer(on_replace_name).unwrap();

    // Setup our name index
    world.init_resource::<NameIndex>();

    // Spawn some entities!
    let alyssa = world.spawn((Name("Alyssa"),));
    let javier = world.spawn((Name("Javier"),));

    // Check our index
    let index = world.resource::<NameIndex>().unwrap();

    assert_eq!(index.get_entity("Alyssa"), Some(alyssa));
    assert_eq!(index.get_entity("Javier"), Some(javier));

    // Changing the name of an entity is also fully capture by our index
    world.entity_mut(javier).unwrap().insert_one(Name("Steven")).unwrap();

    // Javier changed their name to Steven
    let steven = javier;

    // Check our index
    let index = world.resource::<NameIndex>().unwrap();

    assert_eq!(index.get_entity("Javier"), None);
    assert_eq!(index.get_entity("Steven"), Some(steven));
}

/// This example demonstrates how to work with _dynamic_ immutable components.
///
/// bevy: registers them with an unsafe `ComponentDescriptor::new_with_layout` and
/// inserts through `OwningPtr`; ripple's runtime components are byte strings, safely.
fn demo_3(world: &mut World) {
    // This is a list of dynamic components we will create.
    // The first item is the name of the component, and the second is the size
    // in bytes.
    let my_dynamic_components = [("Foo", 1), ("Bar", 2), ("Baz", 4)];

    // This pipeline takes our component descriptions, registers them, and gets
    // their ComponentId's.
    let my_registered_components = my_dynamic_components
        .into_iter()
        .map(|(name, size)| {
            let descriptor = ComponentDescriptor::new(name, size, 1).unwrap().immutable();
            (name, size, world.register_component(descriptor))
        })
        .collect::<Vec<(&str, usize, ComponentId)>>();

    // Now that our components are registered, let's add them to an entity
    let entity = world.spawn_empty();

    for (_name, size, component_id) in &my_registered_components {
        // We're just storing some zeroes for the sake of demonstration.
        let data = std::iter::repeat_n(0, *size).collect::<Vec<u8>>();
        world.insert_by_id(entity, *component_id, &data).unwrap();
    }

    for (_name, _size, component_id) in &my_registered_components {
        // With immutable components, we can read the values...
        assert!(world.get_by_id(entity, *component_id).is_ok());

        // ...but we cannot gain a mutable reference.
        assert!(matches!(world.get_mut_by_id(entity, *component_id), Err(DynamicError::Immutable { .. })));

        // Instead, you must either remove or replace the value.
    }
}

/// bevy runs the three demos as `Startup` systems; here one after another.
pub fn main() {
    let mut world = World::new();
    demo_1(&mut world);
    demo_2(&mut world);
    demo_3(&mut world);
}
