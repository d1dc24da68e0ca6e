//! bevy's `iter_combinations`: 100 bodies and a star pull on each other in pairs
//! (`iter_combinations_mut`), and Verlet steps move them.
//!
//! bevy: the bodies are meshes lit by the star, on `FixedUpdate` at 64 Hz, with a
//! camera that turns towards the star; here the ECS core runs 64 fixed steps with no
//! rendering, and prints what bevy's example only shows: how many pairs each step
//! visits and that the pairwise forces conserve momentum.

use ripple::prelude::*;

use super::rng::Rng;

const GRAVITY_CONSTANT: f32 = 0.001;
const NUM_BODIES: usize = 100;
/// bevy's default fixed timestep (64 Hz).
const TIMESTEP: f32 = 1.0 / 64.0;

/// A 3D vector, as bevy's `Vec3`: the little of it this example needs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Vec3 {
    x: f32,
    y: f32,
    z: f32,
}

impl Vec3 {
    const ZERO: Vec3 = Vec3 { x: 0.0, y: 0.0, z: 0.0 };
    fn new(x: f32, y: f32, z: f32) -> Vec3 {
        Vec3 { x, y, z }
    }
    fn length_squared(self) -> f32 {
        self.x * self.x + self.y * self.y + self.z * self.z
    }
    fn normalize(self) -> Vec3 {
        self * (1.0 / self.length_squared().sqrt())
    }
}

impl std::ops::Add for Vec3 {
    type Output = Vec3;
    fn add(self, o: Vec3) -> Vec3 {
        Vec3::new(self.x + o.x, self.y + o.y, self.z + o.z)
    }
}
impl std::ops::Sub for Vec3 {
    type Output = Vec3;
    fn sub(self, o: Vec3) -> Vec3 {
        Vec3::new(self.x - o.x, self.y - o.y, self.z - o.z)
    }
}
impl std::ops::Mul<f32> for Vec3 {
    type Output = Vec3;
    fn mul(self, s: f32) -> Vec3 {
        Vec3::new(self.x * s, self.y * s, self.z * s)
    }
}
impl std::ops::AddAssign for Vec3 {
    fn add_assign(&mut self, o: Vec3) {
        *self = *self + o;
    }
}
impl std::ops::SubAssign for Vec3 {
    fn sub_assign(&mut self, o: Vec3) {
        *self = *self - o;
    }
}

struct Mass(f32);
struct Acceleration(Vec3);
struct LastPos(Vec3);
struct Star;
/// bevy: `Transform` (translation and scale; no rotation is needed).
struct Transform {
    translation: Vec3,
}

/// How many pairs the interaction visited in the last step (not in bevy's example).
#[derive(Default)]
struct Pairs(usize);

fn generate_bodies(mut commands: Commands) {
    // bevy seeds `ChaCha8Rng` with this number; ripple's ports use SplitMix64 (other
    // numbers, the same distribution).
    let mut rng = Rng::seed_from_u64(19878367467713);
    for _ in 0..NUM_BODIES {
        let radius: f32 = rng.range_f32(0.1..0.7);
        let mass_value = radius * radius * radius * 10.;
        let position = Vec3::new(rng.range_f32(-1.0..1.0), rng.range_f32(-1.0..1.0), rng.range_f32(-1.0..1.0))
            .normalize()
            * rng.range_f32(0.2f32..1.0).cbrt()
            * 15.;
        let velocity = Vec3::new(rng.range_f32(-0.5..0.5), rng.range_f32(-0.5..0.5), rng.range_f32(-0.5..0.5));
        // bevy: a `BodyBundle` with a mesh and a material besides.
        commands.spawn((
            Mass(mass_value),
            Acceleration(Vec3::ZERO),
            LastPos(position - velocity * TIMESTEP),
            Transform { translation: position },
        ));
    }
    // bevy: the star also has a point light as its child.
    commands.spawn((
        Mass(500.0),
        Acceleration(Vec3::ZERO),
        LastPos(Vec3::ZERO),
        Transform { translation: Vec3::ZERO },
        Star,
    ));
}

fn interact_bodies(mut query: Query<(&Mass, &Transform, &mut Acceleration)>, mut pairs: ResMut<Pairs>) {
    pairs.0 = 0;
    let mut iter = query.iter_combinations_mut();
    while let Some([(Mass(m1), transform1, mut acc1), (Mass(m2), transform2, mut acc2)]) = iter.fetch_next() {
        let delta = transform2.translation - transform1.translation;
        let distance_sq: f32 = delta.length_squared();

        let f = GRAVITY_CONSTANT / distance_sq;
        let force_unit_mass = delta * f;
        acc1.0 += force_unit_mass * *m2;
        acc2.0 -= force_unit_mass * *m1;
        pairs.0 += 1;
    }
}

fn integrate(mut query: Query<(&mut Acceleration, &mut Transform, &mut LastPos)>) {
    let dt_sq = TIMESTEP * TIMESTEP;
    for (mut acceleration, mut transform, mut last_pos) in &mut query {
        // verlet integration
        // x(t+dt) = 2x(t) - x(t-dt) + a(t)dt^2 + O(dt^4)

        let new_pos = transform.translation * 2.0 - last_pos.0 + acceleration.0 * dt_sq;
        acceleration.0 = Vec3::ZERO;
        last_pos.0 = transform.translation;
        transform.translation = new_pos;
    }
}

/// The bodies' total momentum (mass times the velocity of the last step).
fn momentum(world: &mut World) -> Vec3 {
    let mut bodies = world.query::<(&Mass, &Transform, &LastPos)>();
    let mut total = Vec3::ZERO;
    for (mass, transform, last) in bodies.iter(world) {
        total += (transform.translation - last.0) * (mass.0 / TIMESTEP);
    }
    total
}

/// Runs the startup system, then 64 fixed steps.
pub fn main() {
    let mut world = World::new();
    world.init_resource::<Pairs>();
    let mut startup = Schedule::new();
    startup.add_systems(&mut world, generate_bodies).unwrap();
    startup.run(&mut world);
    let mut fixed_update = Schedule::new();
    fixed_update.add_systems(&mut world, (interact_bodies, integrate).chain()).unwrap();
    let before = momentum(&mut world);
    for _ in 0..64 {
        fixed_update.run(&mut world);
    }
    let after = momentum(&mut world);
    let mut star = world.query_filtered::<&Transform, With<Star>>();
    let star_moved = star.iter(&world).next().map(|t| t.translation.length_squared() > 0.0);
    say!("bodies: {}", world.query::<&Mass>().iter(&world).count());
    say!("pairs per step: {}", world.resource::<Pairs>().unwrap().0);
    say!("the star moved: {}", star_moved == Some(true));
    let drift = (after - before).length_squared().sqrt();
    // Pairwise forces cancel, so only `f32` rounding moves the total: within 1 %.
    say!("momentum conserved: {}", drift < 1e-2 * before.length_squared().sqrt());
}
