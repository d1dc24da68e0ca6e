//! What the page's charts are drawn from tells the truth about the frames between
//! samples: a spike in a frame that was not sampled still shows in the next sample's
//! peak, system times say which runs the profiler measured, and values print as the
//! game wrote them.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use common::{Client, Game, play};
use ripple::{Entity, World};
use ripple_inspector::InspectorConfig;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Position {
    x: f32,
    y: f32,
}

/// A world of 1,000 tracked positions.
fn game() -> (Game, Vec<Entity>) {
    let mut world = World::new();
    world.track::<Position>();
    let entities = (0..1000).map(|i| world.spawn((Position { x: i as f32, y: 0.0 },))).collect();
    let mut game = Game::new(world);
    game.registry.component::<Position>("Position").unwrap();
    (game, entities)
}

/// Moves the first three positions, and on the frame `spike` asks for, all of them.
fn mover(entities: Vec<Entity>, spike: Arc<AtomicU64>) -> impl FnMut(&mut World, u64) {
    move |world, frame| {
        let all = spike.compare_exchange(u64::MAX, frame, Ordering::AcqRel, Ordering::Acquire).is_ok();
        let moved = if all { &entities[..] } else { &entities[..3] };
        for &e in moved {
            world.get_mut::<Position>(e).unwrap().x += 1.0;
        }
    }
}

/// Polls `/api/live` until a sample at or past `frame` arrives; every sample so far.
fn samples_through(client: &Client, frame: u64) -> Vec<Value> {
    let mut samples = Vec::new();
    for _ in 0..2000 {
        let live = client.get("/api/live?since=0").json();
        samples = live["frames"].as_array().cloned().unwrap_or_default();
        if samples.last().is_some_and(|s| s["frame"].as_u64() >= Some(frame) && frame > 0) {
            return samples;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("no sample reached frame {frame}: {samples:?}");
}

#[test]
fn a_spike_between_samples_shows_in_the_next_samples_peak() {
    let (game, entities) = game();
    let spike = Arc::new(AtomicU64::new(0));
    let asked = Arc::clone(&spike);
    let played =
        play(game, InspectorConfig::default(), Some(Duration::from_millis(1)), mover(entities, spike), move |client| {
            samples_through(&client, 1);
            // Spikes until one lands between two samples: the sample after it did not see
            // the spike's own frame, only its window did.
            for _ in 0..50 {
                asked.store(u64::MAX, Ordering::Release);
                let at = loop {
                    match asked.load(Ordering::Acquire) {
                        u64::MAX => std::thread::sleep(Duration::from_millis(1)),
                        frame => break frame,
                    }
                };
                let samples = samples_through(&client, at + 1);
                let next = samples.iter().find(|s| s["frame"].as_u64().unwrap() >= at).unwrap().clone();
                if next["frame"].as_u64() != Some(at) {
                    return (at, next);
                }
            }
            panic!("every spike landed on a sampled frame");
        });
    let (at, sample) = played.result;
    assert_eq!(sample["changes"]["Position"][0], json!(3), "the sampled frame itself moved three: {sample}");
    let peak = &sample["peak"];
    assert!(peak["frames"].as_u64().unwrap() >= 2, "the window since the previous sample holds frame {at}: {sample}");
    assert!(peak["changes"]["Position"][0].as_u64().unwrap() >= 1000, "the spike of frame {at} shows: {sample}");
}

#[test]
fn a_long_frame_between_samples_shows_as_the_peak_frame_time() {
    let (game, entities) = game();
    let slow = Arc::new(AtomicU64::new(0));
    let asked = Arc::clone(&slow);
    let mut moving = mover(entities, Arc::new(AtomicU64::new(0)));
    let frame = move |world: &mut World, frame: u64| {
        moving(world, frame);
        if slow.compare_exchange(u64::MAX, frame, Ordering::AcqRel, Ordering::Acquire).is_ok() {
            std::thread::sleep(Duration::from_millis(40));
        }
    };
    let played = play(game, InspectorConfig::default(), Some(Duration::from_millis(1)), frame, move |client| {
        samples_through(&client, 1);
        asked.store(u64::MAX, Ordering::Release);
        let at = loop {
            match asked.load(Ordering::Acquire) {
                u64::MAX => std::thread::sleep(Duration::from_millis(1)),
                frame => break frame,
            }
        };
        let samples = samples_through(&client, at + 1);
        samples.into_iter().find(|s| s["frame"].as_u64().unwrap() >= at).unwrap()
    });
    let sample = played.result;
    // The sleep makes that frame at least 40 ms long, sampled or not.
    assert!(sample["peak"]["frame_ns"].as_u64().unwrap() >= 40_000_000, "{sample}");
}

#[test]
fn system_times_say_which_runs_were_measured() {
    let (mut game, entities) = game();
    game.schedule.add_system(&mut game.world, || {}).unwrap();
    game.schedule.set_profiling(true);
    let played = play(
        game,
        InspectorConfig::default(),
        Some(Duration::from_millis(1)),
        mover(entities, Arc::new(AtomicU64::new(0))),
        |client| samples_through(&client, 400),
    );
    let samples = played.result;
    let runs: Vec<(u64, u64)> = samples
        .iter()
        .filter_map(|s| s["systems"].as_object()?.values().next().cloned())
        .map(|system| (system["runs"].as_u64().unwrap(), system["measured"].as_u64().unwrap()))
        .collect();
    assert!(!runs.is_empty(), "{samples:?}");
    let (last_runs, last_measured) = *runs.last().unwrap();
    // The profiler measures one run in 64: the page is told so, and draws those.
    assert!(last_runs >= 400 && last_measured < last_runs / 10, "{runs:?}");
}

#[test]
fn values_print_as_the_game_wrote_them() {
    let (game, entities) = game();
    let first = entities[0];
    let played = play(
        game,
        InspectorConfig::default(),
        Some(Duration::from_millis(1)),
        move |world, frame| {
            if frame == 1 {
                *world.get_mut::<Position>(first).unwrap() = Position { x: 3.15, y: -0.1 };
            }
        },
        move |client| client.get(&format!("/api/entity?id={}", first.to_bits())).body,
    );
    let body = played.result;
    assert!(body.contains(r#"{"x":3.15,"y":-0.1}"#), "{body}");
}
