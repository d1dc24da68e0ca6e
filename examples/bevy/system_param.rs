//! bevy's `system_param`: a system parameter of one's own, `PlayerCounter`, made of
//! a query and a resource, that counts the players.
//!
//! bevy: `#[derive(SystemParam)]` writes the parameter from its fields, and the `App`
//! (with no runner plugin) runs its schedules once. ripple has no derive: the
//! parameter implements `SystemParam` by hand, forwarding to the tuple of its fields.

use ripple::World;
use ripple::prelude::*;
use ripple::system::{EntityCounts, SystemMeta, SystemParam};

struct Player;

struct PlayerCount(usize);

/// A parameter made of parameters: a query and a mutable resource.
struct PlayerCounter<'w, 's> {
    players: Query<'w, 's, &'static Player>,
    count: ResMut<'w, PlayerCount>,
}

/// What `PlayerCounter` is made of, as one parameter.
type Fields = (Query<'static, 'static, &'static Player>, ResMut<'static, PlayerCount>);

// SAFETY: every method forwards to the tuple of the fields, which declares in `init`
// all that its `get` touches; `get` makes the fields from it and nothing else.
unsafe impl SystemParam for PlayerCounter<'_, '_> {
    type State = <Fields as SystemParam>::State;
    type Item<'w, 's> = PlayerCounter<'w, 's>;

    fn init(world: &mut World, meta: &mut SystemMeta) -> Self::State {
        Fields::init(world, meta)
    }

    unsafe fn get<'w, 's>(state: &'s mut Self::State, world: &'w World, meta: &SystemMeta) -> PlayerCounter<'w, 's> {
        // SAFETY: the caller holds the access `init` declared (the fields').
        let (players, count) = unsafe { Fields::get(state, world, meta) };
        PlayerCounter { players, count }
    }

    fn apply(state: &mut Self::State, world: &mut World) {
        Fields::apply(state, world);
    }

    const FALLIBLE: bool = <Fields as SystemParam>::FALLIBLE;

    fn validate(state: &mut Self::State, world: &World) -> Result<(), String> {
        Fields::validate(state, world)
    }

    fn count(state: &mut Self::State, world: &World, counts: &mut EntityCounts) {
        Fields::count(state, world, counts);
    }
}

impl PlayerCounter<'_, '_> {
    fn count(&mut self) {
        self.count.0 = self.players.iter().len();
    }
}

/// Spawns some players to count.
fn spawn(mut commands: Commands) {
    commands.spawn((Player,));
    commands.spawn((Player,));
    commands.spawn((Player,));
}

/// The parameter goes in a system's signature like any other.
fn count_players(mut counter: PlayerCounter) {
    counter.count();

    say!("{} players in the game", counter.count.0);
}

/// Runs the startup schedule and the update schedule once each.
pub fn main() {
    let mut world = World::new();
    world.insert_resource(PlayerCount(0));
    let mut startup = Schedule::new();
    startup.add_systems(&mut world, spawn).unwrap();
    let mut update = Schedule::new();
    update.add_systems(&mut world, count_players).unwrap();
    startup.run(&mut world);
    update.run(&mut world);
}
