//! bevy's `system_param`: a system parameter of one's own, `PlayerCounter`, made of
//! a query and a resource, that counts the players.
//!
//! bevy: `#[derive(SystemParam)]` writes the parameter from its fields, and the `App`
//! (with no runner plugin) runs its schedules once. ripple has no derive macros:
//! `ripple::system_param!` takes the same struct and writes the same parameter.

use ripple::World;
use ripple::prelude::*;

struct Player;

struct PlayerCount(usize);

ripple::system_param! {
    /// A parameter made of parameters: a query and a mutable resource.
    struct PlayerCounter<'w, 's> {
        players: Query<'w, 's, &'static Player>,
        count: ResMut<'w, PlayerCount>,
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
