//! bevy's `error_handling`: fallible systems, commands and observers, with Rust's
//! `?`. A startup system that returns a `Result` builds a scene; a startup system
//! queues commands that fail (one with a handler of its own); a post-startup system
//! that fails is piped into a system that logs the error; an observer that returns a
//! `Result` moves what the pointer moves over.
//!
//! bevy: builds meshes and materials and renders them, picks with the mouse, and sets
//! the `App`'s error handler to `warn`, which logs errors as warnings. Here the scene
//! is components alone, a script moves the pointer, and the handlers print with
//! `say!`. ripple reports errors its own way (see the `// bevy:` notes), so the lines
//! differ from bevy's in wording.

use ripple::prelude::*;
use ripple::system::BoxError;

use super::rng::{self, Rng};

/// bevy: `Mesh3d`, a handle to a mesh; here its name.
struct Mesh3d(&'static str);

/// bevy: `bevy::transform::components::Transform`; here a position.
#[derive(Clone, Copy, Default)]
struct Transform {
    translation: [f32; 3],
}

impl Transform {
    fn from_xyz(x: f32, y: f32, z: f32) -> Self {
        Transform { translation: [x, y, z] }
    }
}

/// bevy: `PointLight { shadow_maps_enabled: true, .. }`; nothing lights anything here.
struct PointLight;

/// bevy: `Camera3d`.
struct Camera3d;

/// bevy: `bevy::picking::events::Pointer<Move>`, triggered on the entity under the
/// pointer as it moves; here the script triggers it.
struct PointerMove;

impl ObserverEvent for PointerMove {}

/// The entities the pointer moves over, one per frame.
const SCRIPT: &[&str] = &["sphere", "sphere", "light", "sphere"];

/// Samples `count` points uniformly on a sphere of `radius`.
// bevy: `UniformMeshSampler::try_new(sphere_mesh.triangles()?)?`, which fails on a
// mesh without triangles; sampling the sphere itself, the port has nothing to fail.
fn sample_sphere(rng: &mut Rng, radius: f32, count: usize) -> Result<Vec<[f32; 3]>, BoxError> {
    if radius <= 0.0 {
        return Err("a sphere to sample needs a positive radius".into());
    }
    Ok((0..count)
        .map(|_| {
            let z = 2.0 * rng.f32() - 1.0;
            let angle = std::f32::consts::TAU * rng.f32();
            let r = (1.0 - z * z).sqrt();
            [radius * r * angle.cos(), radius * r * angle.sin(), radius * z]
        })
        .collect())
}

/// A system that calls several fallible functions with `?`.
// bevy: returns `Result` (`Result<(), BevyError>`); ripple's is `SystemResult`
// (`Result<(), BoxError>`).
fn setup(mut commands: Commands) -> SystemResult {
    let mut seeded_rng = Rng::seed_from_u64(19878367467712);

    // A plane, a light and a camera (bevy: with meshes, materials and a view).
    commands.spawn((Mesh3d("plane 12x12"), Transform::from_xyz(0.0, -2.5, 0.0)));
    commands.spawn((PointLight, Transform::from_xyz(4.0, 8.0, 4.0)));
    commands.spawn((Camera3d, Transform::from_xyz(-2.0, 3.0, 5.0)));

    // The sphere, with 10,000 sample points of its surface as children.
    let sphere = commands.spawn((Mesh3d("sphere"), Transform::from_xyz(-1.0, 1.0, 0.0)));
    for point in sample_sphere(&mut seeded_rng, 1.0, 10_000)? {
        commands.entity(sphere).with_child((Mesh3d("point"), Transform { translation: point }));
    }

    // Done, successfully.
    Ok(())
}

/// An observer that fails when the entity under the pointer has no `Transform`.
// bevy: `fn(On<PointerMove>, DeferredWorld, Local<f32>) -> Result`, its error going to
// the error handler. A ripple observer returns nothing, so it handles its error
// itself, as the `warn` handler would; it writes through a query, as a
// `DeferredWorld` would.
fn fallible_observer(pointer_move: Trigger<PointerMove>, mut transforms: Query<&mut Transform>, mut step: Local<f32>) {
    let result: SystemResult = (|| {
        let mut transform = transforms.get_mut(pointer_move.entity()).map_err(|_| "No transform found.")?;
        *step = if transform.translation[0] > 3. {
            -0.1
        } else if transform.translation[0] < -3. || *step == 0. {
            0.1
        } else {
            *step
        };
        transform.translation[0] += *step;
        Ok(())
    })();
    if let Err(error) = result {
        say!("Encountered an error in observer `fallible_observer`: {error}");
    }
}

struct UninitializedResource;

/// A system that fails.
// bevy: an exclusive system whose error has its severity lowered to a warning
// (`.with_severity(Severity::Warning)`), and whose second step would fail to spawn at
// a given entity (`spawn_empty_at`); ripple's errors carry no severity and it spawns
// at fresh entities only, so the second step is left out (the first fails anyway).
fn failing_system(world: &mut World) -> SystemResult {
    world
        // `get_resource` returns an `Option`: `ok_or` makes it a `Result` for `?`.
        .get_resource::<UninitializedResource>()
        .ok_or("Resource not initialized")?;
    Ok(())
}

fn failing_commands(mut commands: Commands) {
    // This entity doesn't exist! bevy: `Entity::from_raw_u32(12345678)`; a ripple
    // handle's generation is never zero.
    let missing = Entity::from_bits(1 << 32 | 12345678).unwrap();
    // bevy: the failure goes to the error handler (`warn`); ripple records a failed
    // command, which `main` reports.
    commands.entity(missing).insert((Transform::default(),));

    // bevy: `commands.queue_handled(command, handler)` gives one command a handler of
    // its own; ripple has none, so the command handles its error itself.
    commands.add(|world: &mut World| {
        let command = |world: &mut World| -> SystemResult {
            world
                .get_resource::<UninitializedResource>()
                .ok_or("Resource not initialized when accessed in a command")?;
            Ok(())
        };
        if let Err(error) = command(world) {
            say!("{error}, Command `failing_commands::{{closure}}` failed");
        }
    });
}

/// Runs the startup schedules, then a frame per entry of [`SCRIPT`], and returns the
/// world.
pub fn run() -> World {
    rng::seed(3);
    let mut world = World::new();
    // Fallible observers are supported too (bevy: through the error handler).
    world.add_observer(fallible_observer).unwrap();

    // bevy: `app.set_error_handler(warn)`, for the whole app; a ripple schedule takes
    // one (by default it keeps the errors for `take_system_errors`).
    let warn = |error: ripple::system::SystemError| {
        say!("Encountered an error in system `{}`: {}", error.system, error.error);
    };
    let mut startup = Schedule::new();
    startup.set_error_handler(warn);
    startup.add_systems(&mut world, (setup, failing_commands)).unwrap();
    // bevy: `add_systems(PostStartup, failing_system.pipe(|result: In<Result>| ..))`:
    // piped, the error is the second system's to handle. ripple pipes systems with
    // parameters, not exclusive ones (`&mut World`), so an exclusive system calls the
    // one and hands its result to the other.
    let mut post_startup = Schedule::new();
    post_startup.set_error_handler(warn);
    let log_error = |result: In<SystemResult>| {
        let _ = result.0.inspect_err(|err| say!("captured error: {err}"));
    };
    post_startup.add_systems(&mut world, move |world: &mut World| log_error(In(failing_system(world)))).unwrap();

    startup.run(&mut world);
    for failed in world.drain_failed_commands() {
        say!("Encountered an error in command `{}`: {}", failed.command, failed.error);
    }
    post_startup.run(&mut world);

    // The pointer moves over an entity each frame (bevy: picking finds it).
    for over in SCRIPT {
        let target = find(&mut world, over);
        world.trigger_targets(PointerMove, [target]);
    }
    world
}

/// The sphere, or the light.
pub fn find(world: &mut World, name: &str) -> Entity {
    let mut named = world.query::<(Entity, Option<&Mesh3d>, Option<&PointLight>)>();
    let found = named.iter(world).find(|(_, mesh, light)| match name {
        "light" => light.is_some(),
        _ => mesh.is_some_and(|mesh| mesh.0 == name),
    });
    found.unwrap().0
}

/// Where `entity` is along x.
pub fn x(world: &World, entity: Entity) -> f32 {
    world.get::<Transform>(entity).unwrap().translation[0]
}

/// Runs the example.
pub fn main() {
    run();
}
