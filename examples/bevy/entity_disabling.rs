//! bevy's `entity_disabling`: disabling an entity hides it from queries without
//! despawning it. Queries that do not name `Disabled` skip entities that have it;
//! naming it (`With<Disabled>`) finds them again.
//!
//! bevy: three meshes are clicked with the mouse and Space re-enables them; here a
//! script of clicks and key presses drives the same observer and systems, and the
//! list bevy shows as on-screen text is printed when it changes.

use ripple::Disabled;
use ripple::prelude::*;

/// The shapes' names (bevy's `Name`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Name(&'static str);

struct DisableOnClick;

/// bevy: `Pointer<Click>`, sent by its picking plugin; sent here by the script.
struct PointerClick;
impl ObserverEvent for PointerClick {}

/// bevy: `ButtonInput<KeyCode>`; here whether Space was just pressed.
struct SpacePressed(bool);

/// bevy: the `Text` showing the list.
#[derive(Default)]
struct NameText(String);

fn disable_entities_on_click(
    click: Trigger<PointerClick>,
    valid_query: Query<&DisableOnClick>,
    mut commands: Commands,
) {
    // Windows and text are entities and can be clicked!
    // We definitely don't want to disable the window itself,
    // because that would cause the app to close!
    if valid_query.get(click.entity()).is_ok() {
        // Just add the `Disabled` component to the entity to disable it.
        // Note that the `Disabled` component is *only* added to the entity,
        // its children are not affected.
        commands.entity(click.entity()).insert_one(Disabled);
    }
}

// The query here will not find entities with the `Disabled` component,
// because it does not explicitly include it.
fn list_all_named_entities(query: Query<&Name>, mut text: ResMut<NameText>) {
    let mut text_string = String::from("Named entities found:\n");
    // Query iteration order is not guaranteed, so we sort the names
    // to ensure the output is consistent. (bevy: `query.iter().sort::<&Name>()`.)
    let mut names: Vec<&Name> = query.iter().collect();
    names.sort();
    for name in names {
        text_string.push_str(&format!("{name:?}\n"));
    }
    if text.0 != text_string {
        say!("{}", text_string.trim_end());
        text.0 = text_string;
    }
}

fn reenable_entities_on_space(
    mut commands: Commands,
    // This query can find disabled entities,
    // because it explicitly includes the `Disabled` component.
    disabled_entities: Query<Entity, With<Disabled>>,
    input: Res<SpacePressed>,
) {
    if input.0 {
        for entity in disabled_entities.iter() {
            // To re-enable an entity, just remove the `Disabled` component.
            commands.entity(entity).remove_one::<Disabled>();
        }
    }
}

fn setup_scene(mut commands: Commands) {
    // bevy: each shape also has a mesh, a material and a transform.
    for name in ["Annulus", "Bestagon", "Rhombus"] {
        commands.spawn((Name(name), DisableOnClick));
    }
}

/// One frame of input: the shape clicked, if any, and whether Space was pressed.
const SCRIPT: [(Option<&str>, bool); 6] =
    [(None, false), (Some("Annulus"), false), (Some("Rhombus"), false), (None, false), (None, true), (None, false)];

/// Spawns the shapes, then runs six scripted frames.
pub fn main() {
    let mut world = World::new();
    world.init_resource::<NameText>();
    world.insert_resource(SpacePressed(false));
    world.add_observer(disable_entities_on_click).unwrap();
    let mut startup = Schedule::new();
    startup.add_systems(&mut world, setup_scene).unwrap();
    startup.run(&mut world);
    let mut update = Schedule::new();
    // `say!` keeps lines per thread for the tests: the printing system runs here.
    update.set_single_threaded(true);
    update.add_systems(&mut world, (list_all_named_entities, reenable_entities_on_space)).unwrap();
    for (click, space) in SCRIPT {
        if let Some(clicked) = click {
            let mut shapes = world.query::<(Entity, &Name)>();
            let target = shapes.iter(&world).find(|(_, name)| name.0 == clicked).map(|(entity, _)| entity);
            world.trigger_targets(PointerClick, target);
        }
        world.insert_resource(SpacePressed(space));
        update.run(&mut world);
    }
}
