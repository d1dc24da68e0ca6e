//! Undo and redo in an editor: a session of named edits (spawning nodes, renaming,
//! moving, reparenting, reordering siblings, deleting a subtree) is undone edit by
//! edit back to the start and redone to the end. At every step the scene equals a
//! fresh world that ran the session's first edits only: same entities (deleted nodes
//! come back under their own handles), same values, same children in the same order.
//! Each undo and redo costs what its edit changed.
//!
//! Run with `cargo run --example undo`.

use std::collections::BTreeMap;

use ripple::hierarchy::ChildOf;
use ripple::rollback::UndoHistory;
use ripple::{Entity, World};

/// A node's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name(pub String);

/// A node's place in the scene.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pos(pub f32, pub f32);

/// The scene's registered state, for comparison: each node's name, place, parent and
/// children, by handle.
pub type Scene = BTreeMap<Entity, (Option<Name>, Option<Pos>, Option<Entity>, Vec<Entity>)>;

/// The scene as it is.
pub fn scene(world: &mut World) -> Scene {
    let mut all = world.query::<Entity>();
    let entities: Vec<Entity> = all.iter(world).collect();
    entities
        .into_iter()
        .map(|e| {
            let children = world.children(e).map(<[Entity]>::to_vec).unwrap_or_default();
            (e, (world.get::<Name>(e).ok().cloned(), world.get::<Pos>(e).ok().copied(), world.parent(e), children))
        })
        .collect()
}

fn named(world: &mut World, name: &str) -> Entity {
    let mut all = world.query::<(Entity, &Name)>();
    all.iter(world).find(|(_, n)| n.0 == name).map(|(e, _)| e).expect("a node of that name")
}

/// The session's edits, in order: a name and what it does.
pub const EDITS: [&str; 9] = [
    "add root",
    "add three lamps",
    "rename lamp 2",
    "move the lamps",
    "add a shelf under root",
    "put lamp 3 on the shelf",
    "put the book first",
    "delete the shelf",
    "add a rug",
];

/// Applies edit `i` of [`EDITS`].
pub fn apply(world: &mut World, i: usize) {
    match i {
        0 => {
            world.spawn((Name("root".into()), Pos(0.0, 0.0)));
        }
        1 => {
            let root = named(world, "root");
            for n in 1..=3 {
                let lamp = world.spawn((Name(format!("lamp {n}")), Pos(n as f32, 0.0)));
                world.set_parent(lamp, root).unwrap();
            }
        }
        2 => {
            let lamp = named(world, "lamp 2");
            world.get_mut::<Name>(lamp).unwrap().0 = "reading lamp".into();
        }
        3 => {
            let mut lamps = world.query::<(&Name, &mut Pos)>();
            lamps.for_each_mut(world, |(name, mut pos)| {
                if name.0.contains("lamp") {
                    pos.1 += 2.0;
                }
            });
        }
        4 => {
            let root = named(world, "root");
            let shelf = world.spawn((Name("shelf".into()), Pos(5.0, 5.0)));
            world.set_parent(shelf, root).unwrap();
        }
        5 => {
            let (lamp, shelf) = (named(world, "lamp 3"), named(world, "shelf"));
            world.set_parent(lamp, shelf).unwrap();
            world.spawn((Name("book".into()),)).pipe(|book| world.set_parent(book, shelf).unwrap());
        }
        6 => {
            let (book, shelf) = (named(world, "book"), named(world, "shelf"));
            world.insert_children(shelf, 0, &[book]).unwrap();
        }
        7 => {
            let shelf = named(world, "shelf");
            world.despawn(shelf).unwrap(); // its lamp and book go with it
        }
        _ => {
            let root = named(world, "root");
            let rug = world.spawn((Name("rug".into()), Pos(0.0, -1.0)));
            world.insert_children(root, 0, &[rug]).unwrap();
        }
    }
}

/// `value.pipe(f)`: calls `f` with the value (keeps the edits one expression each).
trait Pipe: Sized {
    fn pipe<R>(self, f: impl FnOnce(Self) -> R) -> R {
        f(self)
    }
}
impl<T> Pipe for T {}

/// A fresh world that ran the first `n` edits.
pub fn fresh(n: usize) -> World {
    let mut world = World::new();
    for i in 0..n {
        apply(&mut world, i);
    }
    world
}

/// Runs the session, undoes every edit and redoes every edit, checking the scene
/// against a fresh world at each step; returns the lines it would print.
pub fn session() -> Vec<String> {
    let mut out = Vec::new();
    let mut world = World::new();
    let mut history = UndoHistory::new(&mut world, 100);
    history.register::<Name>(&mut world).register::<Pos>(&mut world).register_relation::<ChildOf>(&mut world);
    for (i, name) in EDITS.iter().enumerate() {
        apply(&mut world, i);
        assert!(history.commit(&world, *name), "edit {name:?} changed nothing registered");
    }
    out.push(format!("{} edits, {} entities", history.edits().len(), world.len()));
    for step in (0..EDITS.len()).rev() {
        let undone = history.undo(&mut world).expect("an edit to undo");
        assert_eq!(undone, EDITS[step]);
        assert_eq!(scene(&mut world), scene(&mut fresh(step)), "after undoing {undone:?}");
        let stats = history.last_stats();
        out.push(format!(
            "undo {undone:?}: {} values, {} despawned, {} back",
            stats.values, stats.despawned, stats.revived
        ));
    }
    assert!(history.undo(&mut world).is_none(), "nothing left to undo");
    for step in 1..=EDITS.len() {
        let redone = history.redo(&mut world).expect("an edit to redo");
        assert_eq!(redone, EDITS[step - 1]);
        assert_eq!(scene(&mut world), scene(&mut fresh(step)), "after redoing {redone:?}");
    }
    out.push(format!("redone all {} edits: the scene equals the session's end", EDITS.len()));
    // An edit after an undo forgets what could be redone.
    history.undo(&mut world);
    let root = named(&mut world, "root");
    world.get_mut::<Pos>(root).unwrap().0 = 9.0;
    history.commit(&world, "move root");
    assert!(history.redo(&mut world).is_none());
    out.push(format!("after a new edit: {:?} can be redone", history.undone().collect::<Vec<_>>()));
    out
}

fn main() {
    for line in session() {
        println!("{line}");
    }
}
