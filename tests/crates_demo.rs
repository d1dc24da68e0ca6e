//! The headline example's game, at a small size: the brute-force and change-driven
//! runs draw the same thing every frame, and the change-driven systems visit only what
//! changed (counted, not timed).

use std::collections::HashMap;

#[allow(dead_code, reason = "the example uses parts the test does not")]
#[path = "../examples/crates/game.rs"]
mod game;

use game::{DrawCmd, Game, Mode, Sprite, compare};
use ripple::Entity;

const CRATES: usize = 2_000;
const MOVERS: u64 = 5;
const FRAMES: usize = 120;

fn snapshot(game: &Game) -> HashMap<Entity, DrawCmd> {
    game.draw_list().iter().map(|(e, cmd)| (e, *cmd)).collect()
}

#[test]
fn both_runs_draw_the_same_and_the_change_driven_one_visits_only_what_changed() {
    let mut brute = Game::new(CRATES, Mode::BruteForce);
    let mut driven = Game::new(CRATES, Mode::ChangeDriven);
    let mut before = HashMap::new();
    let mut redrawn_total = 0;
    let (mut driven_collisions, mut brute_collisions) = (0, 0);
    for frame in 0..FRAMES {
        brute.step();
        driven.step();
        compare(&brute, &driven).unwrap_or_else(|e| panic!("frame {frame}: {e}"));
        assert_eq!(brute.score(), driven.score(), "frame {frame}: explosions");
        let now = snapshot(&brute);
        let (brute_work, driven_work) = (brute.work(), driven.work());

        // Brute force visits everything.
        assert_eq!(brute_work.renderer, now.len() as u64, "frame {frame}");
        assert!(brute_work.collision >= CRATES as u64 - brute.score());

        if frame == 0 {
            assert_eq!(driven_work.renderer, now.len() as u64, "a first run draws everything");
        } else {
            // The renderer visits exactly the entities whose drawing changed, appeared
            // or went away.
            let changed = now.iter().filter(|(e, cmd)| before.get(*e) != Some(*cmd)).count();
            let gone = before.keys().filter(|e| !now.contains_key(*e)).count();
            assert_eq!(driven_work.renderer, (changed + gone) as u64, "frame {frame}: renderer");
            redrawn_total += changed + gone;
            // The animator visits the entities whose animation plays.
            let playing = before
                .values()
                .filter(|cmd| matches!(cmd.sprite, Sprite::Player | Sprite::Goblin | Sprite::Bat | Sprite::Exploding))
                .count();
            assert_eq!(driven_work.animator, playing as u64, "frame {frame}: animator");
            assert!(brute_work.animator >= now.len() as u64);
            // The collision detector visits the shapes that changed or went away and
            // the crates in the grid cells next to the movers: never the whole level.
            assert!(
                driven_work.collision < brute_work.collision / 4,
                "frame {frame}: collision visited {} change-driven, {} brute force",
                driven_work.collision,
                brute_work.collision
            );
            driven_collisions += driven_work.collision;
            brute_collisions += brute_work.collision;
        }
        assert_eq!(driven_work.movement, MOVERS);
        assert_eq!(driven_work.combat, brute_work.combat, "frame {frame}: the same contacts");
        before = now;
    }
    assert!(brute.score() > 0, "crates were destroyed: the game exercised flashes, deaths and despawns");
    assert!(redrawn_total > FRAMES * MOVERS as usize, "the game moved things");
    assert!(redrawn_total < FRAMES * CRATES / 20, "yet redrew far less than everything");
    assert!(
        driven_collisions < brute_collisions / 10,
        "collision: {driven_collisions} visits change-driven against {brute_collisions} brute force"
    );
}
