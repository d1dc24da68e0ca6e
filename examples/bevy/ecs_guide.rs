//! bevy's `ecs_guide`: a guided tour of the ECS through a small score game. Players
//! (`Player`, `Score` and an enum `PlayerStreak`) score points at random each round,
//! resources hold the rules and the game's state, a startup system sets the game up,
//! ordinary, exclusive and stateful (`Local`) systems run each round in three chained
//! sets, and the game ends with an `AppExit` message when someone reaches the winning
//! score or the rounds run out.
//!
//! bevy: `App` runs `Startup` once and then its `Main` schedule (`Update`, then `Last`)
//! every five seconds until an `AppExit` message; here a startup schedule runs once,
//! then the update and last schedules in a plain loop that stops after the frame in
//! which `AppExit` was written. `rand::random` is a seeded generator of this thread.

use std::fmt;

use ripple::prelude::*;
use ripple::schedule::{POST_UPDATE, PRE_UPDATE, SetConfig, UPDATE};

use super::rng;

// COMPONENTS: pieces of functionality we add to entities. These are just normal Rust
// data types (bevy: `#[derive(Component)]`; every `Send + Sync + 'static` type is a
// ripple component).

/// Each player has a name that identifies them.
struct Player {
    name: String,
}

/// Each player also has a score.
struct Score {
    value: usize,
}

/// How many consecutive rounds a player has (or hasn't) scored in: enums are
/// components too.
enum PlayerStreak {
    Hot(usize),
    None,
    Cold(usize),
}

impl fmt::Display for PlayerStreak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerStreak::Hot(n) => write!(f, "{n} round hot streak"),
            PlayerStreak::None => write!(f, "0 round streak"),
            PlayerStreak::Cold(n) => write!(f, "{n} round cold streak"),
        }
    }
}

// RESOURCES: "global" state accessible by systems (bevy: `#[derive(Resource)]`).

/// Information about the game.
#[derive(Default)]
struct GameState {
    current_round: usize,
    total_players: usize,
    winning_player: Option<String>,
}

/// The rules of the game.
struct GameRules {
    winning_score: usize,
    max_rounds: usize,
    max_players: usize,
}

/// bevy: `bevy::app::AppExit`, the message that stops an `App`; there is no `App`
/// here, so the frame loop in [`main`] reads it.
enum AppExit {
    Success,
}

// SYSTEMS: logic that runs on entities, components and resources.

/// The simplest system: prints "This game is fun!" on each run.
fn print_message_system() {
    say!("This game is fun!");
}

/// Reads the rules and starts a new round on each update.
fn new_round_system(game_rules: Res<GameRules>, mut game_state: ResMut<GameState>) {
    game_state.current_round += 1;
    say!("Begin round {} of {}", game_state.current_round, game_rules.max_rounds);
}

/// Updates the score of each player.
fn score_system(mut query: Query<(&Player, &mut Score, &mut PlayerStreak)>) {
    for (player, mut score, mut streak) in &mut query {
        let scored_a_point = rng::with(|rng| rng.bool());
        if scored_a_point {
            score.value += 1;
            // Matching against an enum behind `Mut` dereferences it.
            *streak = match *streak {
                PlayerStreak::Hot(n) => PlayerStreak::Hot(n + 1),
                PlayerStreak::Cold(_) | PlayerStreak::None => PlayerStreak::Hot(1),
            };
            say!("{} scored a point! Their score is: {} ({})", player.name, score.value, *streak);
        } else {
            *streak = match *streak {
                PlayerStreak::Hot(_) | PlayerStreak::None => PlayerStreak::Cold(1),
                PlayerStreak::Cold(n) => PlayerStreak::Cold(n + 1),
            };
            say!("{} did not score a point! Their score is: {} ({})", player.name, score.value, *streak);
        }
    }
    // this game isn't very fun is it :)
}

/// Checks, with the rules, whether a player has won.
// bevy: `query: Query<(&Player, &Score)>` iterates through `&query`; a ripple query
// iterates through `&mut` (an iteration records the query's change window).
fn score_check_system(
    game_rules: Res<GameRules>,
    mut game_state: ResMut<GameState>,
    mut query: Query<(&Player, &Score)>,
) {
    for (player, score) in &mut query {
        if score.value == game_rules.winning_score {
            game_state.winning_player = Some(player.name.clone());
        }
    }
}

/// Ends the game, with an `AppExit` message, when someone won or the rounds ran out.
fn game_over_system(
    game_rules: Res<GameRules>,
    game_state: Res<GameState>,
    mut app_exit_writer: MessageWriter<AppExit>,
) {
    if let Some(ref player) = game_state.winning_player {
        say!("{player} won the game!");
        app_exit_writer.write(AppExit::Success);
    } else if game_state.current_round == game_rules.max_rounds {
        say!("Ran out of rounds. Nobody wins!");
        app_exit_writer.write(AppExit::Success);
    }
}

/// A startup system: runs once, before the others, and sets the game up.
fn startup_system(mut commands: Commands, mut game_state: ResMut<GameState>) {
    commands.insert_resource(GameRules { max_rounds: 10, winning_score: 4, max_players: 4 });

    // Add some players to our world. Players start with a score of 0 ... we want
    // our game to be competitive!
    commands.spawn_batch(vec![
        (Player { name: "Alice".to_string() }, Score { value: 0 }, PlayerStreak::None),
        (Player { name: "Bob".to_string() }, Score { value: 0 }, PlayerStreak::None),
    ]);

    game_state.total_players = 2;
}

/// Uses a command buffer to (maybe) add a new player each round.
fn new_player_system(mut commands: Commands, game_rules: Res<GameRules>, mut game_state: ResMut<GameState>) {
    let add_new_player = rng::with(|rng| rng.bool());
    if add_new_player && game_state.total_players < game_rules.max_players {
        game_state.total_players += 1;
        commands.spawn((
            Player { name: format!("Player {}", game_state.total_players) },
            Score { value: 0 },
            PlayerStreak::None,
        ));
        say!("Player {} joined the game!", game_state.total_players);
    }
}

/// An exclusive system: full, immediate access to the world, doing what
/// `new_player_system` does.
fn exclusive_player_system(world: &mut World) {
    // bevy: `world.resource_mut::<T>()` panics when the resource is missing; ripple's
    // returns a `Result`.
    let total_players = world.resource_mut::<GameState>().unwrap().total_players;
    let should_add_player = {
        let game_rules = world.resource::<GameRules>().unwrap();
        let add_new_player = rng::with(|rng| rng.bool());
        add_new_player && total_players < game_rules.max_players
    };
    if should_add_player {
        say!("Player {} has joined the game!", total_players + 1);
        world.spawn((Player { name: format!("Player {}", total_players + 1) }, Score { value: 0 }, PlayerStreak::None));
        let game_state = world.resource_mut::<GameState>().unwrap();
        game_state.total_players += 1;
    }
}

/// A stateful system: `Local` keeps a value of its own between runs.
fn print_at_end_round(mut counter: Local<u32>) {
    *counter += 1;
    say!("In set 'Last' for the {}th time", *counter);
    // Print an empty line between rounds.
    say!("");
}

/// Runs the game to its end.
pub fn main() {
    rng::seed(2);
    let mut world = World::new();
    world.init_resource::<GameState>();

    // bevy: `add_systems(Startup, startup_system)`.
    let mut startup = Schedule::new();
    startup.add_systems(&mut world, startup_system).unwrap();

    // bevy: `configure_sets(Update, (BeforeRound, Round, AfterRound).chain())`, sets
    // typed as an enum. ripple names sets by strings, and applies commands at the end
    // of the phase that queued them rather than at sync points bevy inserts between
    // ordered systems: so that `score_system` scores a player `new_player_system`
    // spawned in the same round, as in bevy, the three sets are chained by being put
    // in three phases, which run in this order.
    let mut update = Schedule::new();
    update.configure_set(&mut world, SetConfig::new("before_round").in_phase(PRE_UPDATE)).unwrap();
    update.configure_set(&mut world, SetConfig::new("round").in_phase(UPDATE)).unwrap();
    update.configure_set(&mut world, SetConfig::new("after_round").in_phase(POST_UPDATE)).unwrap();
    update.add_systems(&mut world, print_message_system).unwrap();
    // bevy: one `add_systems` call with a nested tuple; ripple's groups do not nest, so
    // each part is added on its own, with the same sets and order.
    update.add_systems(&mut world, (new_round_system, new_player_system).chain().in_set("before_round")).unwrap();
    update.add_systems(&mut world, exclusive_player_system.in_set("before_round")).unwrap();
    update.add_systems(&mut world, score_system.in_set("round")).unwrap();
    update
        .add_systems(
            &mut world,
            (score_check_system, game_over_system.after("score_check_system")).in_set("after_round"),
        )
        .unwrap();
    // bevy: its systems run in parallel where they can, in an order that varies from
    // run to run. One thread runs them here, in the order of ripple's plan, so that
    // `say!` captures each line (its buffer is per thread) and the random draws come
    // in a fixed order; bevy can print this order too.
    update.set_single_threaded(true);

    // bevy: `add_systems(Last, print_at_end_round)`, the `Last` schedule after `Update`.
    let mut last = Schedule::new();
    last.add_systems(&mut world, print_at_end_round).unwrap();

    let mut app_exit = world.message_cursor::<AppExit>();
    startup.run(&mut world);
    loop {
        update.run(&mut world);
        last.run(&mut world);
        // bevy: the `App`'s runner stops after the update in which `AppExit` was sent.
        world.deliver_messages();
        if world.read_messages(&mut app_exit).any(|exit| matches!(exit, AppExit::Success)) {
            break;
        }
    }
}
