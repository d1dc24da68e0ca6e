//! bevy's `observer_propagation`: events that bubble up the hierarchy. A goblin wears
//! three pieces of armor, its children; attacks aim at a piece of armor and, if the
//! armor does not block all the damage, go on to the goblin with what is left. A
//! global observer names everything an attack hits. The goblin dies eventually.
//!
//! bevy: attacks on a 200 ms timer (`on_timer`), choosing with `rand`; here an attack
//! per frame, from a seeded generator, until the goblin dies (bevy exits then, with
//! `AppExit`). bevy logs with `info!`/`warn!`; `say!` prints the message alone.

use std::sync::atomic::{AtomicU16, Ordering};

use ripple::prelude::*;
use ripple::query::With;

use super::rng;

/// The most frames the port runs, should the goblin outlive them.
const MAX_FRAMES: usize = 100;

/// bevy: `bevy::ecs::name::Name`.
struct Name(&'static str);

fn setup(mut commands: Commands) {
    // bevy: `commands.spawn(..).observe(..).with_children(..)`: ripple's `spawn`
    // returns the entity, and the builder calls go through `commands.entity(e)`.
    let goblin = commands.spawn((Name("Goblin"), HitPoints(50)));
    commands.entity(goblin).observe(take_damage).with_children(|parent| {
        parent.spawn((Name("Helmet"), Armor(5))).observe(block_attack);
        parent.spawn((Name("Socks"), Armor(10))).observe(block_attack);
        parent.spawn((Name("Shirt"), Armor(15))).observe(block_attack);
    });
}

/// An attack that bubbles up from the armor to its wearer.
// bevy: `#[derive(EntityEvent)] #[entity_event(propagate, auto_propagate)]`, with the
// target in the event (`entity: Entity`) and `damage: u16`, which observers change
// through `mut attack: On<Attack>` as the event goes up. A ripple event bubbles along
// `ChildOf` with `BUBBLES` (always on, as `auto_propagate`), its target is the
// trigger's, and observers see it shared (`Trigger::event` is `&E`): the damage is an
// atomic so that the armor can lower it for the wearer.
struct Attack {
    damage: AtomicU16,
}

impl ObserverEvent for Attack {
    const BUBBLES: bool = true;
}

/// An entity that can take damage.
struct HitPoints(u16);

/// For damage to reach the wearer, it must exceed the armor.
struct Armor(u16);

/// bevy: `AppExit`, which stops the `App`; here it stops the frame loop.
struct AppExit;

/// Attacks a piece of the goblin's armor (bevy: on a timer; here every frame).
fn attack_armor(entities: Query<Entity, With<Armor>>, mut commands: Commands) {
    // bevy: `entities.iter().choose(&mut rng)`.
    let entities: Vec<Entity> = entities.iter().collect();
    if entities.is_empty() {
        return;
    }
    let (entity, damage) = rng::with(|rng| {
        let entity = entities[rng.range(0..entities.len() as u64) as usize];
        (entity, rng.range(1..20) as u16)
    });
    commands.trigger_targets(Attack { damage: AtomicU16::new(damage) }, [entity]);
    say!("⚔️  Attack for {} damage", damage);
}

fn attack_hits(attack: Trigger<Attack>, name: Query<&Name>) {
    if let Ok(name) = name.get(attack.entity()) {
        say!("Attack hit {}", name.0);
    }
}

/// Placed on each piece of armor: checks whether it absorbed all the damage.
fn block_attack(mut attack: Trigger<Attack>, armor: Query<(&Armor, &Name)>) {
    let (armor, name) = armor.get(attack.entity()).unwrap();
    let damage = attack.event().damage.load(Ordering::Relaxed).saturating_sub(armor.0);
    if damage > 0 {
        say!("🩸 {} damage passed through {}", damage, name.0);
        // The armor does not stop it: the attack goes on to the goblin, weakened.
        attack.event().damage.store(damage, Ordering::Relaxed);
    } else {
        say!("🛡️  {} damage blocked by {}", attack.event().damage.load(Ordering::Relaxed), name.0);
        // The armor stopped the attack: the event stops here.
        attack.propagate(false);
        say!("(propagation halted early)\n");
    }
}

/// Placed on the wearer: runs when armor lets damage through (or, were it attacked
/// directly, for every attack).
fn take_damage(
    attack: Trigger<Attack>,
    mut hp: Query<(&mut HitPoints, &Name)>,
    mut commands: Commands,
    mut app_exit: MessageWriter<AppExit>,
) {
    let (mut hp, name) = hp.get_mut(attack.entity()).unwrap();
    hp.0 = hp.0.saturating_sub(attack.event().damage.load(Ordering::Relaxed));

    if hp.0 > 0 {
        say!("{} has {:.1} HP", name.0, hp.0);
    } else {
        say!("💀 {} has died a gruesome death", name.0);
        commands.despawn(attack.entity());
        app_exit.write(AppExit);
    }

    say!("(propagation reached root)\n");
}

/// Attacks until the goblin dies.
pub fn main() {
    rng::seed(11);
    let mut world = World::new();
    // A global observer: it runs wherever an attack hits.
    world.add_observer(attack_hits).unwrap();

    let mut startup = Schedule::new();
    startup.add_systems(&mut world, setup).unwrap();
    let mut update = Schedule::new();
    update.add_systems(&mut world, attack_armor).unwrap();

    let mut app_exit = world.message_cursor::<AppExit>();
    startup.run(&mut world);
    for _ in 0..MAX_FRAMES {
        update.run(&mut world);
        world.deliver_messages();
        if world.read_messages(&mut app_exit).next().is_some() {
            break;
        }
    }
}
