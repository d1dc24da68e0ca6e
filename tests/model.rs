//! Model test: random operation sequences against a naive map-of-maps model, comparing
//! every observable result.

use std::any::type_name;
use std::collections::HashMap;

use proptest::prelude::*;
use ripple::query::{Or, With, Without};
use ripple::{ComponentError, Entity, MissingComponent, NoSuchEntity, Storage, World};

#[derive(Clone, Copy, Debug, PartialEq)]
struct A(u32);
#[derive(Clone, Copy, Debug, PartialEq)]
struct B(i64);
#[derive(Clone, Copy, Debug, PartialEq)]
struct T;
#[derive(Clone, Debug, PartialEq)]
struct S(String);

#[derive(Clone, Debug, Default, PartialEq)]
struct Model {
    a: Option<A>,
    b: Option<B>,
    t: bool,
    s: Option<S>,
}

#[derive(Clone, Copy, Debug)]
enum Shape {
    Empty,
    A,
    Ab,
    Abt,
    Bs,
    Abts,
    T,
}

#[derive(Clone, Copy, Debug)]
enum RemoveShape {
    A,
    B,
    T,
    Ab,
    S,
    Bts,
}

#[derive(Clone, Debug)]
enum Op {
    Spawn(Shape, u32),
    Despawn(usize),
    Insert(usize, Shape, u32),
    Remove(usize, RemoveShape),
    GetA(usize),
    GetS(usize),
    SetB(usize, i64),
    Query(u8),
    Clear,
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::Empty),
        Just(Shape::A),
        Just(Shape::Ab),
        Just(Shape::Abt),
        Just(Shape::Bs),
        Just(Shape::Abts),
        Just(Shape::T)
    ]
}

fn remove_shape() -> impl Strategy<Value = RemoveShape> {
    prop_oneof![
        Just(RemoveShape::A),
        Just(RemoveShape::B),
        Just(RemoveShape::T),
        Just(RemoveShape::Ab),
        Just(RemoveShape::S),
        Just(RemoveShape::Bts)
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (shape(), any::<u32>()).prop_map(|(s, v)| Op::Spawn(s, v)),
        3 => any::<usize>().prop_map(Op::Despawn),
        4 => (any::<usize>(), shape(), any::<u32>()).prop_map(|(e, s, v)| Op::Insert(e, s, v)),
        4 => (any::<usize>(), remove_shape()).prop_map(|(e, s)| Op::Remove(e, s)),
        2 => any::<usize>().prop_map(Op::GetA),
        1 => any::<usize>().prop_map(Op::GetS),
        2 => (any::<usize>(), any::<i64>()).prop_map(|(e, v)| Op::SetB(e, v)),
        3 => (0u8..5).prop_map(Op::Query),
        1 => Just(Op::Clear),
    ]
}

/// The model's view of a bundle shape with values derived from `v`.
fn shape_model(shape: Shape, v: u32) -> Model {
    let a = Some(A(v));
    let b = Some(B(-(v as i64)));
    let s = Some(S(format!("s{v}")));
    match shape {
        Shape::Empty => Model::default(),
        Shape::A => Model { a, ..Model::default() },
        Shape::Ab => Model { a, b, ..Model::default() },
        Shape::Abt => Model { a, b, t: true, ..Model::default() },
        Shape::Bs => Model { b, s, ..Model::default() },
        Shape::Abts => Model { a, b, t: true, s },
        Shape::T => Model { t: true, ..Model::default() },
    }
}

fn spawn(world: &mut World, shape: Shape, v: u32) -> Entity {
    let m = shape_model(shape, v);
    match shape {
        Shape::Empty => world.spawn(()),
        Shape::A => world.spawn((m.a.unwrap(),)),
        Shape::Ab => world.spawn((m.a.unwrap(), m.b.unwrap())),
        Shape::Abt => world.spawn((T, m.b.unwrap(), m.a.unwrap())),
        Shape::Bs => world.spawn((m.s.unwrap(), m.b.unwrap())),
        Shape::Abts => world.spawn((m.a.unwrap(), m.b.unwrap(), T, m.s.unwrap())),
        Shape::T => world.spawn((T,)),
    }
}

fn insert(world: &mut World, e: Entity, shape: Shape, v: u32) -> Result<(), NoSuchEntity> {
    let m = shape_model(shape, v);
    match shape {
        Shape::Empty => world.insert(e, ()),
        Shape::A => world.insert(e, (m.a.unwrap(),)),
        Shape::Ab => world.insert(e, (m.b.unwrap(), m.a.unwrap())),
        Shape::Abt => world.insert(e, (m.a.unwrap(), m.b.unwrap(), T)),
        Shape::Bs => world.insert(e, (m.b.unwrap(), m.s.unwrap())),
        Shape::Abts => world.insert(e, (m.s.unwrap(), T, m.b.unwrap(), m.a.unwrap())),
        Shape::T => world.insert(e, (T,)),
    }
}

fn merge(into: &mut Model, from: Model) {
    if from.a.is_some() {
        into.a = from.a;
    }
    if from.b.is_some() {
        into.b = from.b;
    }
    into.t |= from.t;
    if from.s.is_some() {
        into.s = from.s;
    }
}

/// Removes from world and model; returns the world's result rendered comparably.
fn remove(world: &mut World, model: &mut HashMap<Entity, Model>, e: Entity, shape: RemoveShape) {
    let (name_a, name_b, name_t, name_s) = (type_name::<A>(), type_name::<B>(), type_name::<T>(), type_name::<S>());
    let Some(m) = model.get_mut(&e) else {
        let err = Err(ComponentError::NoSuchEntity(NoSuchEntity(e)));
        let got = match shape {
            RemoveShape::A => world.remove::<(A,)>(e).map(|_| ()),
            RemoveShape::B => world.remove::<(B,)>(e).map(|_| ()),
            RemoveShape::T => world.remove::<(T,)>(e).map(|_| ()),
            RemoveShape::Ab => world.remove::<(A, B)>(e).map(|_| ()),
            RemoveShape::S => world.remove::<(S,)>(e).map(|_| ()),
            RemoveShape::Bts => world.remove::<(B, T, S)>(e).map(|_| ()),
        };
        assert_eq!(got, err);
        return;
    };
    fn missing_in<R>(entity: Entity, component: &'static str) -> Result<R, ComponentError> {
        Err(ComponentError::MissingComponent(MissingComponent { entity, component }))
    }
    match shape {
        RemoveShape::A => match m.a.take() {
            Some(a) => assert_eq!(world.remove::<(A,)>(e), Ok((a,))),
            None => assert_eq!(world.remove::<(A,)>(e), missing_in(e, name_a)),
        },
        RemoveShape::B => match m.b.take() {
            Some(b) => assert_eq!(world.remove::<(B,)>(e), Ok((b,))),
            None => assert_eq!(world.remove::<(B,)>(e), missing_in(e, name_b)),
        },
        RemoveShape::T => {
            let got = world.remove::<(T,)>(e).map(|_| ());
            if std::mem::take(&mut m.t) { assert_eq!(got, Ok(())) } else { assert_eq!(got, missing_in(e, name_t)) }
        }
        RemoveShape::Ab => {
            let got = world.remove::<(A, B)>(e);
            match (m.a, m.b) {
                (Some(a), Some(b)) => {
                    assert_eq!(got, Ok((a, b)));
                    m.a = None;
                    m.b = None;
                }
                (None, _) => assert_eq!(got, missing_in(e, name_a)),
                (_, None) => assert_eq!(got, missing_in(e, name_b)),
            }
        }
        RemoveShape::S => match m.s.take() {
            Some(s) => assert_eq!(world.remove::<(S,)>(e), Ok((s,))),
            None => assert_eq!(world.remove::<(S,)>(e), missing_in(e, name_s)),
        },
        RemoveShape::Bts => {
            let got = world.remove::<(B, T, S)>(e);
            match (m.b, m.t, m.s.clone()) {
                (Some(b), true, Some(s)) => {
                    assert_eq!(got, Ok((b, T, s)));
                    m.b = None;
                    m.t = false;
                    m.s = None;
                }
                (None, _, _) => assert_eq!(got, missing_in(e, name_b)),
                (_, false, _) => assert_eq!(got, missing_in(e, name_t)),
                (_, _, None) => assert_eq!(got, missing_in(e, name_s)),
            }
        }
    }
}

fn check_query(world: &mut World, model: &HashMap<Entity, Model>, kind: u8) {
    let sorted = |mut v: Vec<(Entity, String)>| {
        v.sort_by_key(|x| x.0);
        v
    };
    let (got, want) = match kind {
        0 => {
            let mut q = world.query::<(Entity, &A)>();
            let got = q.iter(world).map(|(e, a)| (e, format!("{a:?}"))).collect();
            let want = model.iter().filter_map(|(e, m)| Some((*e, format!("{:?}", m.a?)))).collect();
            (got, want)
        }
        1 => {
            let mut q = world.query_filtered::<(Entity, &A, Option<&B>), Without<T>>();
            let got = q.iter(world).map(|(e, a, b)| (e, format!("{a:?} {b:?}"))).collect();
            let want = model
                .iter()
                .filter(|(_, m)| !m.t)
                .filter_map(|(e, m)| Some((*e, format!("{:?} {:?}", m.a?, m.b.as_ref()))))
                .collect();
            (got, want)
        }
        2 => {
            let mut q = world.query_filtered::<Entity, Or<(With<S>, With<T>)>>();
            let got = q.iter(world).map(|e| (e, String::new())).collect();
            let want = model.iter().filter(|(_, m)| m.s.is_some() || m.t).map(|(e, _)| (*e, String::new())).collect();
            (got, want)
        }
        3 => {
            // Mutation through a query: A += 1 where B is present.
            let mut q = world.query_filtered::<&mut A, With<B>>();
            q.for_each_mut(world, |mut a| a.0 = a.0.wrapping_add(1));
            let mut check = world.query::<(Entity, &A)>();
            let got = check.iter(world).map(|(e, a)| (e, format!("{a:?}"))).collect();
            let want = model
                .iter()
                .filter_map(|(e, m)| {
                    let a = m.a?;
                    let a = if m.b.is_some() { A(a.0.wrapping_add(1)) } else { a };
                    Some((*e, format!("{a:?}")))
                })
                .collect();
            (got, want)
        }
        _ => {
            let mut q = world.query::<(Entity, Option<&mut S>, &B)>();
            let got = q.iter_mut(world).map(|(e, s, b)| (e, format!("{s:?} {b:?}"))).collect();
            let want = model.iter().filter_map(|(e, m)| Some((*e, format!("{:?} {:?}", m.s.as_ref(), m.b?)))).collect();
            (got, want)
        }
    };
    assert_eq!(sorted(got), sorted(want), "query kind {kind}");
}

/// `sparse[i]`: whether A, B, T, S (in that order) are stored in sparse sets.
fn run(ops: Vec<Op>, sparse: [bool; 4]) {
    let mut world = World::new();
    let storage = |sparse: bool| if sparse { Storage::SparseSet } else { Storage::Table };
    world.set_storage::<A>(storage(sparse[0])).unwrap();
    world.set_storage::<B>(storage(sparse[1])).unwrap();
    world.set_storage::<T>(storage(sparse[2])).unwrap();
    world.set_storage::<S>(storage(sparse[3])).unwrap();
    let mut model: HashMap<Entity, Model> = HashMap::new();
    let mut issued: Vec<Entity> = Vec::new();
    let pick = |issued: &[Entity], i: usize| issued.get(i % issued.len().max(1)).copied();
    for op in ops {
        match op {
            Op::Spawn(shape, v) => {
                let e = spawn(&mut world, shape, v);
                assert!(!model.contains_key(&e), "spawn returned a live handle {e}");
                model.insert(e, shape_model(shape, v));
                issued.push(e);
            }
            Op::Despawn(i) => {
                let Some(e) = pick(&issued, i) else { continue };
                let want = model.remove(&e).map(|_| ()).ok_or(NoSuchEntity(e));
                assert_eq!(world.despawn(e), want);
            }
            Op::Insert(i, shape, v) => {
                let Some(e) = pick(&issued, i) else { continue };
                let got = insert(&mut world, e, shape, v);
                match model.get_mut(&e) {
                    Some(m) => {
                        assert_eq!(got, Ok(()));
                        merge(m, shape_model(shape, v));
                    }
                    None => assert_eq!(got, Err(NoSuchEntity(e))),
                }
            }
            Op::Remove(i, shape) => {
                let Some(e) = pick(&issued, i) else { continue };
                remove(&mut world, &mut model, e, shape);
            }
            Op::GetA(i) => {
                let Some(e) = pick(&issued, i) else { continue };
                let want = match model.get(&e) {
                    None => Err(ComponentError::NoSuchEntity(NoSuchEntity(e))),
                    Some(m) => m.a.ok_or(ComponentError::MissingComponent(MissingComponent {
                        entity: e,
                        component: type_name::<A>(),
                    })),
                };
                assert_eq!(world.get::<A>(e).copied(), want);
                assert_eq!(world.entity(e).map(|r| r.has::<A>()).ok(), model.get(&e).map(|m| m.a.is_some()));
            }
            Op::GetS(i) => {
                let Some(e) = pick(&issued, i) else { continue };
                let want = model.get(&e).and_then(|m| m.s.clone());
                assert_eq!(world.get::<S>(e).ok().cloned(), want);
                assert_eq!(world.entity(e).ok().map(|r| r.has::<T>()), model.get(&e).map(|m| m.t));
            }
            Op::SetB(i, v) => {
                let Some(e) = pick(&issued, i) else { continue };
                match (world.get_mut::<B>(e), model.get_mut(&e)) {
                    (Ok(mut b), Some(m)) => {
                        assert!(m.b.is_some());
                        b.0 = v;
                        m.b = Some(B(v));
                    }
                    (Err(ComponentError::MissingComponent(_)), Some(m)) => assert!(m.b.is_none()),
                    (Err(ComponentError::NoSuchEntity(_)), None) => {}
                    (got, want) => panic!("get_mut mismatch for {e}: {:?} vs {:?}", got.map(|b| *b), want),
                }
            }
            Op::Query(kind) => {
                check_query(&mut world, &model, kind);
                if kind == 3 {
                    for m in model.values_mut() {
                        if let (Some(a), Some(_)) = (m.a.as_mut(), m.b) {
                            a.0 = a.0.wrapping_add(1);
                        }
                    }
                }
            }
            Op::Clear => {
                world.clear();
                model.clear();
            }
        }
        assert_eq!(world.len(), model.len());
    }
    for e in &issued {
        assert_eq!(world.contains(*e), model.contains_key(e));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn world_matches_model(ops in prop::collection::vec(op(), 200), sparse in prop::array::uniform4(any::<bool>())) {
        run(ops, sparse);
    }
}
