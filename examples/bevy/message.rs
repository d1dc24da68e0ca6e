//! bevy's `message`: writing, changing and reading messages, in an order set by
//! chaining systems, through a damage-over-time effect. Every second a system deals
//! 10 damage; another adds a tenth of any 10 or more as extra damage; armor takes 1
//! off each; a system applies what is left and reports the damage received, which two
//! more systems react to with a sound and a particle effect.
//!
//! bevy: a `Timer` ticked by the clock, at the display's frame rate; here 13 frames
//! of a fixed 0.25 s, so the timer fires in frames 4, 8 and 12 (and the last damage
//! is heard in frame 13). bevy logs with `info!`; `say!` prints the message alone.

use std::sync::atomic::{AtomicI32, Ordering};

use ripple::prelude::*;

/// The time each frame takes.
const DELTA_SECS: f32 = 0.25;
/// The frames [`main`] runs.
const FRAMES: usize = 13;

/// Sent when something attempts to deal damage to another entity.
// bevy: `amount: i32`, changed in place by a `MessageMutator`; ripple hands messages
// out shared, so the amount is an atomic that the armor can lower for the readers
// after it.
#[derive(Debug)]
struct DealDamage {
    pub amount: AtomicI32,
}

impl DealDamage {
    fn new(amount: i32) -> Self {
        DealDamage { amount: AtomicI32::new(amount) }
    }

    fn amount(&self) -> i32 {
        self.amount.load(Ordering::Relaxed)
    }
}

/// Sent when an entity receives damage.
#[derive(Debug, Default)]
struct DamageReceived;

/// Sent when an entity blocks damage with armor.
#[derive(Debug, Default)]
struct ArmorBlockedDamage;

/// bevy: `bevy::time::Timer`, repeating.
struct Timer {
    duration: f32,
    elapsed: f32,
}

impl Timer {
    /// Advances the timer; whether it finished (and started again).
    fn tick(&mut self, delta: f32) -> bool {
        self.elapsed += delta;
        let finished = self.elapsed >= self.duration;
        if finished {
            self.elapsed -= self.duration;
        }
        finished
    }
}

/// When to deal damage: once a second.
// bevy: `#[derive(Resource, Deref, DerefMut)] struct DamageTimer(pub Timer)`.
struct DamageTimer(Timer);

impl Default for DamageTimer {
    fn default() -> Self {
        DamageTimer(Timer { duration: 1.0, elapsed: 0.0 })
    }
}

/// bevy: `bevy::time::Time`; only the frame's delta is read here.
struct Time {
    delta_secs: f32,
}

/// Ticks the timer, and sends a `DealDamage` when it finishes.
fn deal_damage_over_time(
    time: Res<Time>,
    mut state: ResMut<DamageTimer>,
    mut deal_damage_writer: MessageWriter<DealDamage>,
) {
    if state.0.tick(time.delta_secs) {
        deal_damage_writer.write(DealDamage::new(10));
    }
}

/// Reads `DealDamage` messages and writes more of them.
// bevy: a `MessageMutator<DealDamage>`, which reads and writes one type (a reader
// and a writer of it would conflict there). ripple has no `MessageMutator`; a reader
// and a writer of one type may sit in one system.
fn apply_extra_damage(mut dmg_reader: MessageReader<DealDamage>, mut dmg_writer: MessageWriter<DealDamage>) {
    let mut extra = Vec::new();
    for message in dmg_reader.read() {
        if message.amount() >= 10 {
            extra.push(DealDamage::new(message.amount() / 10));
        }
    }
    // This system reads the messages it wrote itself, the next time it runs.
    for message in extra {
        dmg_writer.write(message);
    }
}

/// Applies armor to each `DealDamage`, and sends `ArmorBlockedDamage` if none is left.
// bevy: `MessageMutator::read` hands out `&mut DealDamage`; here the atomic amount.
fn apply_armor_to_damage(
    mut dmg_messages: MessageReader<DealDamage>,
    mut armor_messages: MessageWriter<ArmorBlockedDamage>,
) {
    for message in dmg_messages.read() {
        let amount = message.amount.fetch_sub(1, Ordering::Relaxed) - 1;
        if amount <= 0 {
            armor_messages.write(ArmorBlockedDamage);
        }
    }
}

/// Sends `DamageReceived` for each `DealDamage` with damage left.
fn apply_damage_to_health(
    mut deal_damage_reader: MessageReader<DealDamage>,
    mut damaged_received_writer: MessageWriter<DamageReceived>,
) {
    for deal_damage in deal_damage_reader.read() {
        say!("Applying {} damage", deal_damage.amount());
        if deal_damage.amount() > 0 {
            // bevy: `write_default()`, for a message type that has a `Default`.
            damaged_received_writer.write(DamageReceived);
        }
    }
}

/// Plays a sound for each `DamageReceived`.
fn play_damage_received_sound(mut damage_received_reader: MessageReader<DamageReceived>) {
    for _ in damage_received_reader.read() {
        say!("Playing a sound.");
    }
}

/// Spawns a particle effect for each `DamageReceived`: any number of systems read
/// the same messages.
fn play_damage_received_particle_effect(mut damage_received_reader: MessageReader<DamageReceived>) {
    for _ in damage_received_reader.read() {
        say!("Playing particle effect.");
    }
}

/// Runs [`FRAMES`] frames.
pub fn main() {
    let mut world = World::new();
    // bevy: `add_message::<T>()` for each type; ripple registers one on first use.
    world.init_resource::<DamageTimer>();
    world.insert_resource(Time { delta_secs: DELTA_SECS });

    let mut update = Schedule::new();
    // Chained, so that each writer runs before the readers of what it writes.
    update
        .add_systems(
            &mut world,
            (deal_damage_over_time, apply_extra_damage, apply_armor_to_damage, apply_damage_to_health).chain(),
        )
        .unwrap();
    // Not ordered against each other or the chain: they may run before it and read
    // its messages a frame late, or in parallel with each other. ripple sees no
    // conflict between a reader and a writer of one message type, so its plan runs
    // them in the first stage, before the chain: a frame late, one of bevy's orders.
    update.add_systems(&mut world, (play_damage_received_sound, play_damage_received_particle_effect)).unwrap();
    // One thread runs them, in the order of ripple's plan, so that `say!` captures
    // each line.
    update.set_single_threaded(true);

    for _ in 0..FRAMES {
        update.run(&mut world);
    }
}
