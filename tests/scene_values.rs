//! Values at the edges of what a scene can hold: nesting deep enough to exhaust the
//! stack, and floats JSON cannot write. A load refuses the first with a typed error
//! and changes nothing; a save refuses what its own loader would refuse, so every file
//! a save writes loads back.

use ripple::scene::{LoadError, NESTING_LIMIT, SaveError, SceneRegistry, ValueSite};
use ripple::{Entity, World};
use serde::{Deserialize, Serialize};

/// A recursive value: each `Node` is one more level.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
enum Tree {
    Leaf,
    Node(Box<Tree>),
}

impl Tree {
    fn deep(levels: usize) -> Tree {
        (0..levels).fold(Tree::Leaf, |tree, _| Tree::Node(Box::new(tree)))
    }
}

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
struct Floats {
    single: f32,
    double: f64,
}

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
struct Gravity(f32);

fn registry() -> SceneRegistry {
    let mut registry = SceneRegistry::new();
    registry.component::<Tree>("tree").unwrap();
    registry.component::<Floats>("floats").unwrap();
    registry.resource::<Gravity>("gravity").unwrap();
    registry
}

/// A world with an entity, for loads that must leave it as it was.
fn seeded_world() -> World {
    let mut world = World::new();
    world.spawn((Tree::Leaf, Floats { single: 1.0, double: 2.0 }));
    world
}

fn unchanged(world: &World) {
    assert_eq!(world.len(), 1);
    assert_eq!(world.archetype_count(), seeded_world().archetype_count());
}

/// A binary scene of one entity (id 0v1) whose `tree` is `levels` `Node`s deep,
/// written by hand: about a byte per level.
fn binary_tree(levels: usize) -> Vec<u8> {
    let mut scene = b"RPLSCENE\x01\x00".to_vec();
    scene.extend([1, 4]); // one component name: "tree"
    scene.extend(b"tree");
    scene.extend([0, 1]); // no resources; one entity
    scene.extend([1, 0, 1]); // a run: one component (name 0), one entity,
    scene.extend([0x80, 0x80, 0x80, 0x80, 0x10]); // its id, 0v1 (bits 1 << 32)
    scene.extend(std::iter::repeat_n(1, levels));
    scene.push(0);
    scene
}

/// Failed before the fix: the load recursed a million levels deep and the stack
/// overflowed (the process aborted).
#[test]
fn a_binary_value_nested_a_million_deep_is_refused() {
    let registry = registry();
    let mut world = seeded_world();
    let error = registry.load_binary(&mut world, binary_tree(1_000_000)).unwrap_err();
    let site = ValueSite::Component { entity: 0, name: "tree".into() };
    assert!(matches!(&error, LoadError::TooDeep { site: s, .. } if *s == site), "{error:?}");
    assert!(error.to_string().starts_with("cannot read `tree` of entity 0 at byte "), "{error}");
    unchanged(&world);
    // Just within the limit it loads (a `Node` and the `Leaf` each take a level).
    let loaded = registry.load_binary(&mut world, binary_tree(NESTING_LIMIT as usize - 1)).unwrap();
    assert_eq!(*world.get::<Tree>(loaded.entities()[0]).unwrap(), Tree::deep(NESTING_LIMIT as usize - 1));
    let mut world = seeded_world();
    assert!(matches!(
        registry.load_binary(&mut world, binary_tree(NESTING_LIMIT as usize)),
        Err(LoadError::TooDeep { .. })
    ));
    unchanged(&world);
}

#[test]
fn a_json_value_nested_a_million_deep_is_refused() {
    let registry = registry();
    let mut world = seeded_world();
    let levels = 1_000_000;
    let tree = format!("{}\"Leaf\"{}", "{\"Node\":".repeat(levels), "}".repeat(levels));
    let scene = format!(r#"{{"entities": [{{"id": "0v1", "components": {{"tree": {tree}}}}}]}}"#);
    let error = registry.load_json(&mut world, scene).unwrap_err();
    assert!(matches!(error, LoadError::TooDeep { .. }), "{error:?}");
    unchanged(&world);
}

/// Saving what a load would refuse is refused instead, naming the entity and the
/// component; what a save writes always loads.
#[test]
fn a_save_refuses_a_value_nested_past_the_limit_in_both_formats() {
    let registry = registry();
    let mut world = World::new();
    let fine = world.spawn((Tree::deep(NESTING_LIMIT as usize - 1),));
    for format in ["json", "binary"] {
        let input = save(&registry, &world, format).unwrap();
        let mut into = World::new();
        let loaded = load(&registry, &mut into, format, &input).unwrap();
        assert_eq!(*into.get::<Tree>(loaded.entity(fine).unwrap()).unwrap(), Tree::deep(NESTING_LIMIT as usize - 1));
    }
    let deep = world.spawn((Tree::deep(NESTING_LIMIT as usize),));
    for format in ["json", "binary"] {
        let error = save(&registry, &world, format).unwrap_err();
        assert!(
            matches!(&error, SaveError::TooDeep { entity: Some(e), name } if *e == deep && name == "tree"),
            "{error:?}"
        );
        assert_eq!(error.to_string(), format!("cannot save `tree` of entity {deep}: it nests deeper than 127 levels"));
    }
}

fn save(registry: &SceneRegistry, world: &World, format: &str) -> Result<Vec<u8>, SaveError> {
    let mut out = Vec::new();
    match format {
        "json" => registry.save(world).to_json(&mut out),
        _ => registry.save(world).to_binary(&mut out),
    }
    .map(|_| out)
}

fn load(
    registry: &SceneRegistry,
    world: &mut World,
    format: &str,
    input: &[u8],
) -> Result<ripple::scene::Loaded, LoadError> {
    match format {
        "json" => registry.load_json(world, input),
        _ => registry.load_binary(world, input),
    }
}

/// Failed before the fix: serde_json wrote NaN and the infinities as `null`, and the
/// load then refused the file.
#[test]
fn a_json_save_refuses_floats_it_cannot_write_and_binary_keeps_them_bit_for_bit() {
    let registry = registry();
    let nan_with_payload = f64::from_bits(0x7ff8_0000_0000_beef);
    for (single, double) in [(f32::NAN, 1.0), (1.0, f64::INFINITY), (f32::NEG_INFINITY, 0.5), (0.0, nan_with_payload)] {
        let mut world = World::new();
        world.spawn((Floats { single: 0.0, double: 0.0 },));
        let odd = world.spawn((Floats { single, double },));
        let error = save(&registry, &world, "json").unwrap_err();
        let SaveError::NotFinite { entity, name, value } = &error else { panic!("{error:?}") };
        assert_eq!((*entity, name.as_str()), (Some(odd), "floats"));
        let expected = if single.is_finite() { double } else { f64::from(single) };
        assert_eq!(value.to_bits(), expected.to_bits(), "{error}");
        assert!(error.to_string().starts_with(&format!("cannot save `floats` of entity {odd}: ")), "{error}");
        // Binary holds them exactly, payload and sign included.
        let binary = save(&registry, &world, "binary").unwrap();
        let mut into = World::new();
        let loaded = load(&registry, &mut into, "binary", &binary).unwrap();
        let back = *into.get::<Floats>(loaded.entity(odd).unwrap()).unwrap();
        assert_eq!((back.single.to_bits(), back.double.to_bits()), (single.to_bits(), double.to_bits()));
    }
    // A resource is checked the same way.
    let mut world = World::new();
    world.insert_resource(Gravity(f32::INFINITY));
    let error = save(&registry, &world, "json").unwrap_err();
    assert!(matches!(&error, SaveError::NotFinite { entity: None, name, .. } if name == "gravity"), "{error:?}");
    assert_eq!(error.to_string(), "cannot save resource `gravity`: inf cannot be written in JSON");
}

#[test]
fn extreme_finite_floats_round_trip_exactly_in_both_formats() {
    let registry = registry();
    let values = [
        (f32::MIN_POSITIVE / 8.0, f64::MIN_POSITIVE / 3.0), // subnormals
        (f32::from_bits(1), f64::from_bits(1)),             // the smallest subnormals
        (-f32::from_bits(0x007f_ffff), -f64::from_bits(0x000f_ffff_ffff_ffff)), // the largest
        (f32::MAX, f64::MAX),
        (f32::MIN, f64::MIN),
        (-0.0, -0.0),
        (0.1, 0.1),
        (1.0 / 3.0, 1.0 / 3.0),
    ];
    // And finite floats of every exponent: random bit patterns.
    let mut bits: u64 = 0x9e37_79b9_7f4a_7c15;
    let random = (0..4_000).filter_map(|_| {
        bits ^= bits << 13;
        bits ^= bits >> 7;
        bits ^= bits << 17;
        let (single, double) = (f32::from_bits(bits as u32), f64::from_bits(bits));
        (single.is_finite() && double.is_finite()).then_some((single, double))
    });
    let values: Vec<(f32, f64)> = values.into_iter().chain(random).collect();
    let mut world = World::new();
    let entities: Vec<Entity> =
        values.iter().map(|&(single, double)| world.spawn((Floats { single, double },))).collect();
    world.insert_resource(Gravity(f32::from_bits(3)));
    for format in ["json", "binary"] {
        let input = save(&registry, &world, format).unwrap();
        let mut into = World::new();
        let loaded = load(&registry, &mut into, format, &input).unwrap();
        for (&entity, &(single, double)) in entities.iter().zip(&values) {
            let back = *into.get::<Floats>(loaded.entity(entity).unwrap()).unwrap();
            assert_eq!(back.single.to_bits(), single.to_bits(), "{format}: {single:e}");
            assert_eq!(back.double.to_bits(), double.to_bits(), "{format}: {double:e}");
        }
        assert_eq!(into.resource::<Gravity>().unwrap().0.to_bits(), 3, "{format}");
    }
}
