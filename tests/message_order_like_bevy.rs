//! Messages a system writes are readable by the systems ordered after it in the same
//! schedule run, as in bevy_ecs: a "damage, then check death" chain does not lag a
//! frame. Each test states what bevy_ecs gives for the same program.

#![allow(elided_lifetimes_in_paths, reason = "system signatures read as a bevy user writes them")]

use ripple::prelude::*;
use ripple::schedule::{POST_UPDATE, PRE_UPDATE};

struct Damage(u32);
#[derive(Default)]
struct Seen(Vec<usize>);

fn deal(mut out: MessageWriter<Damage>) {
    out.write(Damage(1));
}

fn check(mut hits: MessageReader<Damage>, mut seen: ResMut<Seen>) {
    seen.0.push(hits.read().count());
}

fn world() -> World {
    let mut world = World::new();
    world.insert_resource(Seen::default());
    world
}

fn run_frames(world: &mut World, schedule: &mut Schedule, frames: usize) -> Vec<usize> {
    for _ in 0..frames {
        schedule.run(world);
    }
    std::mem::take(&mut world.resource_mut::<Seen>().unwrap().0)
}

#[test]
fn a_reader_chained_after_its_writer_reads_the_same_run() {
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_systems(&mut world, (deal, check).chain()).unwrap();
    // bevy_ecs: [1, 1, 1]; ripple before this change: [0, 1, 1].
    assert_eq!(run_frames(&mut world, &mut schedule, 3), [1, 1, 1]);
}

#[test]
fn a_chain_of_three_passes_a_message_on_in_one_run() {
    struct Death;
    fn kill(mut hits: MessageReader<Damage>, mut deaths: MessageWriter<Death>) {
        deaths.write_batch(hits.read().map(|_| Death));
    }
    fn count_deaths(mut deaths: MessageReader<Death>, mut seen: ResMut<Seen>) {
        seen.0.push(deaths.read().count());
    }
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_systems(&mut world, (deal, kill, count_deaths).chain()).unwrap();
    assert_eq!(run_frames(&mut world, &mut schedule, 3), [1, 1, 1]);
}

#[test]
fn a_reader_ordered_before_its_writer_reads_the_next_run() {
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_systems(&mut world, (check, deal).chain()).unwrap();
    // bevy_ecs: [0, 1, 1].
    assert_eq!(run_frames(&mut world, &mut schedule, 3), [0, 1, 1]);
}

#[test]
fn a_reader_in_a_later_phase_reads_the_same_run() {
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, deal.in_phase(PRE_UPDATE)).unwrap();
    schedule.add_system(&mut world, check.in_phase(POST_UPDATE)).unwrap();
    assert_eq!(run_frames(&mut world, &mut schedule, 3), [1, 1, 1]);
}

#[test]
fn an_exclusive_writer_is_read_by_systems_after_it() {
    let mut world = world();
    let mut schedule = Schedule::new();
    let exclusive = |world: &mut World| world.write_message(Damage(1));
    schedule.add_systems(&mut world, (exclusive, check).chain()).unwrap();
    assert_eq!(run_frames(&mut world, &mut schedule, 2), [1, 1]);
}

#[test]
fn messages_written_between_runs_are_read_in_the_next_run() {
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, check).unwrap();
    world.write_message(Damage(1));
    world.write_message(Damage(2));
    // bevy_ecs: written to the buffer, readable at once; here delivered as the run starts.
    assert_eq!(run_frames(&mut world, &mut schedule, 2), [2, 0]);
}

#[test]
fn a_merged_message_type_gathers_the_whole_phase() {
    // Merging is ripple's own: sends of one key are folded until the phase's sync
    // point, across every writer of the phase, so a reader in the same phase reads
    // them the next run and a reader in a later phase the same run.
    #[derive(Default)]
    struct Late(Vec<u32>);
    fn deal_more(mut out: MessageWriter<Damage>) {
        out.write(Damage(2));
    }
    fn total(mut hits: MessageReader<Damage>, mut seen: ResMut<Seen>) {
        seen.0.push(hits.read().map(|d| d.0 as usize).sum());
    }
    fn total_late(mut hits: MessageReader<Damage>, mut late: ResMut<Late>) {
        late.0.push(hits.read().map(|d| d.0).sum());
    }
    let mut world = world();
    world.insert_resource(Late::default());
    world.merge_messages_by(|_: &Damage| 0u32, |into, from| into.0 += from.0);
    let mut schedule = Schedule::new();
    schedule.add_systems(&mut world, (deal, deal_more, total_late).chain()).unwrap();
    schedule.add_system(&mut world, total.in_phase(POST_UPDATE)).unwrap();
    assert_eq!(run_frames(&mut world, &mut schedule, 3), [3, 3, 3]);
    assert_eq!(world.resource::<Late>().unwrap().0, [0, 3, 3]);
}

#[test]
fn a_reader_beside_its_writer_is_reported_as_an_ambiguity() {
    // bevy_ecs reports the pair (both touch `Messages<Damage>`); in ripple they do not
    // conflict, but the reader reads the writer's messages only the next run unless it
    // is ordered after it, so the pair is listed until an order is given.
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_systems(&mut world, (deal, check)).unwrap();
    let found = schedule.ambiguities();
    assert_eq!(found.len(), 1);
    assert_eq!((found[0].first.as_str(), found[0].second.as_str()), ("deal", "check"));
    assert!(found[0].conflicts[0].contains("MessagesOf"), "{:?}", found[0].conflicts);
    // Ordered either way, or declared on purpose, it is not.
    let mut ordered = Schedule::new();
    let mut world = self::world();
    ordered.add_systems(&mut world, (deal, check).chain()).unwrap();
    assert!(ordered.ambiguities().is_empty());
    let mut excused = Schedule::new();
    let mut world = self::world();
    excused.add_systems(&mut world, (deal, check.ambiguous_with("deal"))).unwrap();
    assert!(excused.ambiguities().is_empty());
}
