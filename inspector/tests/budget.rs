//! What the inspector's requests cost the game's thread, counted in entities visited,
//! not timed: an entity found by its id is looked up, not searched for; a page of
//! entities costs the page; a search by a sparse component's name stops at a bound it
//! states; and a client asking for the heaviest searches without pause is answered
//! while the game plays on. The share of the game's time such a client takes is a
//! benchmark line (`cargo run --release -p ripple-inspector --example crates --
//! --measure 80 --client search`, bench/PAIRED.md), not a test.

mod common;

use std::time::Duration;

use common::{Game, play};
use ripple::{Entity, World};
use ripple_inspector::InspectorConfig;
use serde_json::json;

struct Position(#[allow(dead_code, reason = "only stored")] [f32; 2]);
struct Velocity(#[allow(dead_code, reason = "only stored")] [f32; 2]);

/// `n` entities with a position, every tenth with a velocity too.
fn world(n: usize) -> (World, Vec<Entity>) {
    let mut world = World::new();
    let entities = (0..n)
        .map(|i| {
            if i % 10 == 0 {
                world.spawn((Position([0.0; 2]), Velocity([1.0; 2])))
            } else {
                world.spawn((Position([0.0; 2]),))
            }
        })
        .collect();
    (world, entities)
}

#[test]
fn an_entity_is_found_by_its_id_without_a_search() {
    let (world, entities) = world(200_000);
    let wanted = entities[123_456];
    let played = play(
        Game::new(world),
        InspectorConfig::default(),
        Some(Duration::from_millis(1)),
        |_, _| {},
        move |client| {
            let by_id = client.get(&format!("/api/entities?q={wanted}")).json();
            let by_bits = client.get(&format!("/api/entities?q={}", wanted.to_bits())).json();
            let unknown = client.get("/api/entities?q=199999999v7").json();
            let page = client.get("/api/entities?q=&offset=150000&limit=1000").json();
            let before = client.get("/api/entities?q=&offset=149999&limit=2").json();
            let named = client.get("/api/entities?q=veloc&offset=5000&limit=10").json();
            (by_id, by_bits, unknown, (page, before), named)
        },
    );
    let (by_id, by_bits, unknown, (page, before), named) = played.result;
    for found in [&by_id, &by_bits] {
        assert_eq!(found["total"], json!(1), "{found}");
        assert_eq!(found["entities"][0]["bits"], json!(wanted.to_bits().to_string()));
        assert!(found["visited"].as_u64().is_some_and(|v| v <= 1), "one lookup: {found}");
    }
    assert_eq!((unknown["total"].clone(), unknown["visited"].clone()), (json!(0), json!(0)), "{unknown}");
    // A page of the unfiltered list visits that page, not the entities before it.
    assert_eq!(page["total"], json!(200_000));
    assert_eq!(page["entities"].as_array().unwrap().len(), 1000);
    assert_eq!(page["entities"][0], before["entities"][1], "pages follow on");
    assert!(page["visited"].as_u64().is_some_and(|v| v <= 1000), "{}", page["visited"]);
    // A name matches whole tables, counted by their rows.
    assert_eq!(named["total"], json!(20_000));
    assert!(named["visited"].as_u64().is_some_and(|v| v <= 10), "{}", named["visited"]);
    assert!(named["entities"][0]["components"].as_array().unwrap().contains(&json!("Velocity")));
}

#[test]
fn a_client_asking_for_the_heaviest_searches_is_answered_while_the_game_plays() {
    let (world, entities) = world(200_000);
    let id_like = entities[199_999].to_string();
    let moved = entities[..2000].to_vec();
    let frame = move |world: &mut World, _| {
        for &e in &moved {
            world.get_mut::<Position>(e).unwrap().0[0] += 1.0;
        }
    };
    let played = play(Game::new(world), InspectorConfig::default(), None, frame, move |client| {
        (0..60)
            .map(|i| {
                let path = if i % 2 == 0 {
                    format!("/api/entities?q={id_like}")
                } else {
                    "/api/entities?q=&limit=1000".into()
                };
                let answer = client.get(&path);
                (answer.status, answer.json()["visited"].as_u64())
            })
            .collect::<Vec<_>>()
    });
    // Every search answered, each within its bound: one lookup for an id, the page
    // for a page (the budget spaces them out; how much time it leaves the game is
    // measured by the benchmark line named above).
    for (i, &(status, visited)) in played.result.iter().enumerate() {
        assert_eq!(status, 200, "search {i}");
        let bound = if i % 2 == 0 { 1 } else { 1000 };
        assert!(visited.is_some_and(|v| v <= bound), "search {i} visited {visited:?}");
    }
    assert!(played.frames > 0);
}

struct Marked;

#[test]
fn a_sparse_components_name_is_searched_within_a_bound_that_the_answer_states() {
    let searched = |n: usize| {
        let (mut world, entities) = world(n);
        world.set_storage::<Marked>(ripple::Storage::SparseSet).unwrap();
        for &e in &entities[n - 10..] {
            world.insert(e, (Marked,)).unwrap();
        }
        let played = play(
            Game::new(world),
            InspectorConfig::default(),
            Some(Duration::from_millis(1)),
            |_, _| {},
            |client| client.get("/api/entities?q=marked").json(),
        );
        played.result
    };
    let small = searched(1000);
    assert_eq!((small["total"].clone(), small["complete"].clone()), (json!(10), json!(true)), "{small}");
    assert!(small["entities"][0]["components"].as_array().unwrap().contains(&json!("Marked")));
    // The marked entities lie past the bound: the answer says it stopped short.
    let large = searched(200_000);
    assert_eq!(large["complete"], json!(false), "{large}");
    assert!(large["visited"].as_u64().unwrap() <= 65_536, "{large}");
}
