//! Structure-aware scene inputs: the fuzzer picks a *plan* (records with ids,
//! components and references, a long `ChildOf` chain in some order, deeply nested
//! values, keys and resources written twice), which is rendered as a JSON or binary
//! scene and loaded. Random bytes rarely get past the scene's syntax to these paths;
//! plans reach them on every run.
//!
//! Besides `common::check` (a refusal changes nothing; a success adds exactly what it
//! reports, with children in file order), the plan knows what must be refused: a value
//! nested past the limit, a record with two ids, a key or resource written twice.

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use ripple::scene::{LoadError, NESTING_LIMIT};

use crate::common;

/// How a plan names an entity: `World(k)` is one of the fixture world's entities (or
/// a dead slot), `File(k)` the id of record `k` (which may not exist).
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Ref {
    World(u8),
    File(u8),
}

impl Ref {
    /// The entity's bits: the fixture's entities are slots 0 to 4 at generation 1 or
    /// 2; file ids start at slot 1,000.
    fn bits(self) -> u64 {
        match self {
            Ref::World(k) => (u64::from(k % 2 + 1) << 32) | u64::from(k % 5),
            Ref::File(k) => (1 << 32) | (1_000 + u64::from(k)),
        }
    }

    fn text(self) -> String {
        let bits = self.bits();
        format!("{}v{}", bits as u32, bits >> 32)
    }
}

#[derive(Arbitrary, Debug, Clone)]
pub enum Component {
    Position(f32, f32),
    Name(String),
    Target(Ref),
    ChildOf(Ref),
    /// A `Tree` `.0 % 512` levels deep, or `.0` times 16 (up to about a million)
    /// when `.1 % 16 == 0`.
    Tree(u16, u8),
    Moving,
    Mood(Option<Ref>),
    /// A `ChildOf` by its bits (a chain's links name the link before this way).
    ChildOfBits(u64),
}

impl Component {
    fn name(&self) -> &'static str {
        match self {
            Component::Position(..) => "position",
            Component::Name(_) => "name",
            Component::Target(_) => "target",
            Component::ChildOf(_) | Component::ChildOfBits(_) => "child_of",
            Component::Tree(..) => "tree",
            Component::Moving => "moving",
            Component::Mood(_) => "mood",
        }
    }

    /// Levels of the tree value, if this is one.
    fn tree_depth(&self) -> Option<usize> {
        match self {
            Component::Tree(depth, scale) if scale % 16 == 0 => Some(usize::from(*depth) * 16),
            Component::Tree(depth, _) => Some(usize::from(*depth) % 512),
            _ => None,
        }
    }
}

#[derive(Arbitrary, Debug, Clone)]
pub struct Record {
    id: u8,
    /// A second `"id"` key (JSON only).
    second_id: Option<u8>,
    components: Vec<Component>,
    /// Splits the components over two `"components"` keys (JSON only).
    split_components: bool,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum ChainOrder {
    RootFirst,
    LeafFirst,
    /// The top half root first, then the bottom half leaf first.
    Halves,
}

/// A chain of up to 1,023 records, each the `ChildOf` of the one before, with ids
/// from 2,000 on.
#[derive(Arbitrary, Debug, Clone)]
pub struct Chain {
    length: u16,
    order: ChainOrder,
    /// What the chain's root is a child of, if anything.
    root_parent: Option<Ref>,
}

#[derive(Arbitrary, Debug, Clone)]
pub struct Plan {
    records: Vec<Record>,
    chain: Option<Chain>,
    /// Score resources, in order (two of them: one written twice).
    scores: Vec<u64>,
}

/// One record as rendered: id bits, extra id, components.
struct Rendered {
    id: u64,
    second_id: Option<u64>,
    components: Vec<Component>,
    split: bool,
}

impl Plan {
    /// The records to render, chain included, in file order.
    fn records(&self) -> Vec<Rendered> {
        let mut out: Vec<Rendered> = self
            .records
            .iter()
            .take(64)
            .map(|record| Rendered {
                id: Ref::File(record.id).bits(),
                second_id: record.second_id.map(|k| Ref::File(k).bits()),
                components: record.components.iter().take(8).cloned().collect(),
                split: record.split_components,
            })
            .collect();
        if let Some(chain) = &self.chain {
            let length = usize::from(chain.length % 1_024);
            let id = |i: usize| (1u64 << 32) | (2_000 + i as u64);
            let order: Vec<usize> = match chain.order {
                ChainOrder::RootFirst => (0..length).collect(),
                ChainOrder::LeafFirst => (0..length).rev().collect(),
                ChainOrder::Halves => (0..length / 2).chain((length / 2..length).rev()).collect(),
            };
            out.extend(order.into_iter().map(|i| Rendered {
                id: id(i),
                second_id: None,
                components: match (i, chain.root_parent) {
                    (0, None) => vec![Component::Moving],
                    (0, Some(parent)) => vec![Component::ChildOf(parent)],
                    _ => vec![Component::Position(i as f32, 0.0), Component::ChildOfBits(id(i - 1))],
                },
                split: false,
            }));
        }
        out
    }

    /// Whether the plan has something every loader must refuse, whatever else it has:
    /// a value nested past the limit, or (JSON) a record with two ids or two
    /// `"components"` keys.
    fn must_refuse(&self, json: bool) -> bool {
        let deep = |record: &Record| {
            record.components.iter().take(8).any(|c| c.tree_depth().is_some_and(|d| d + 1 > NESTING_LIMIT as usize))
        };
        self.records.iter().take(64).any(|record| {
            deep(record)
                || (json && (record.second_id.is_some() || (record.split_components && !record.components.is_empty())))
        }) || self.scores.len() > 1
    }
}

fn bits_text(bits: u64) -> String {
    format!("{}v{}", bits as u32, bits >> 32)
}

fn json_value(component: &Component) -> String {
    match component {
        Component::Position(x, y) => {
            let number = |v: &f32| if v.is_finite() { format!("{v}") } else { "0".into() };
            format!(r#"{{"x": {}, "y": {}}}"#, number(x), number(y))
        }
        Component::Name(name) => serde_json_string(name),
        Component::Target(r) => format!("\"{}\"", r.text()),
        Component::ChildOf(r) => format!("\"{}\"", r.text()),
        Component::ChildOfBits(bits) => format!("\"{}\"", bits_text(*bits)),
        Component::Tree(..) => {
            let depth = component.tree_depth().unwrap();
            format!("{}\"Leaf\"{}", "{\"Node\":".repeat(depth), "}".repeat(depth))
        }
        Component::Moving => "null".into(),
        Component::Mood(None) => "\"Calm\"".into(),
        Component::Mood(Some(r)) => format!(r#"{{"Hunting": {{"prey": "{}"}}}}"#, r.text()),
    }
}

fn serde_json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The plan as a JSON scene.
pub fn json(plan: &Plan) -> Vec<u8> {
    let records = plan.records();
    let mut out = String::from(r#"{"format": "ripple-scene", "version": 1, "resources": {"#);
    let scores: Vec<String> = plan.scores.iter().take(2).map(|s| format!(r#""score": {s}"#)).collect();
    out.push_str(&scores.join(", "));
    out.push_str(r#"}, "entities": ["#);
    for (index, record) in records.iter().enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        out.push_str(&format!(r#"{{"id": "{}""#, bits_text(record.id)));
        if let Some(second) = record.second_id {
            out.push_str(&format!(r#", "id": "{}""#, bits_text(second)));
        }
        let values: Vec<String> =
            record.components.iter().map(|c| format!("\"{}\": {}", c.name(), json_value(c))).collect();
        let (first, second) = values.split_at(if record.split { values.len() / 2 } else { values.len() });
        out.push_str(&format!(r#", "components": {{{}}}"#, first.join(", ")));
        if record.split && !second.is_empty() {
            out.push_str(&format!(r#", "components": {{{}}}"#, second.join(", ")));
        }
        out.push('}');
    }
    out.push_str("]}");
    out.into_bytes()
}

/// The registry's component names in registration order: their index in a binary
/// scene's name table.
const NAMES: [&str; 8] = ["position", "name", "target", "links", "mood", "moving", "child_of", "tree"];

fn varint(mut value: u64, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn binary_value(component: &Component, out: &mut Vec<u8>) {
    match component {
        Component::Position(x, y) => {
            out.extend(x.to_le_bytes());
            out.extend(y.to_le_bytes());
        }
        Component::Name(name) => {
            varint(name.len() as u64, out);
            out.extend(name.as_bytes());
        }
        Component::Target(r) => varint(r.bits(), out),
        Component::ChildOf(r) => varint(r.bits(), out),
        Component::ChildOfBits(bits) => varint(*bits, out),
        Component::Tree(..) => {
            out.extend(std::iter::repeat_n(1, component.tree_depth().unwrap()));
            out.push(0);
        }
        Component::Moving => {}
        Component::Mood(None) => out.push(0),
        Component::Mood(Some(r)) => {
            out.push(2);
            varint(r.bits(), out);
        }
    }
}

/// The plan as a binary scene: each record a run of its own (a record's components
/// as the plan lists them, a name written twice included).
pub fn binary(plan: &Plan) -> Vec<u8> {
    let records = plan.records();
    let mut out = b"RPLSCENE\x01\x00".to_vec();
    varint(NAMES.len() as u64, &mut out);
    for name in NAMES {
        varint(name.len() as u64, &mut out);
        out.extend(name.as_bytes());
    }
    let scores: Vec<u64> = plan.scores.iter().take(2).copied().collect();
    varint(scores.len() as u64, &mut out);
    for score in scores {
        varint(5, &mut out);
        out.extend(b"score");
        varint(score, &mut out);
    }
    varint(records.len() as u64, &mut out);
    for record in &records {
        varint(record.components.len() as u64, &mut out);
        for component in &record.components {
            varint(NAMES.iter().position(|&n| n == component.name()).unwrap() as u64, &mut out);
        }
        varint(1, &mut out);
        varint(record.id, &mut out);
        for component in &record.components {
            binary_value(component, &mut out);
        }
    }
    out
}

/// Loads the plan rendered as JSON or binary, and checks what it must.
pub fn run(plan: &Plan, as_json: bool) {
    let input = if as_json { json(plan) } else { binary(plan) };
    let outcome = if as_json {
        common::check(&input, |registry, world, data| registry.load_json(world, data))
    } else {
        common::check(&input, |registry, world, data| registry.load_binary(world, data))
    };
    if plan.must_refuse(as_json) {
        assert!(outcome.is_err(), "a plan that must be refused loaded: {plan:?}");
    }
    if let Err(LoadError::TooDeep { .. }) = outcome {
        assert!(
            plan.records
                .iter()
                .take(64)
                .flat_map(|r| r.components.iter().take(8))
                .any(|c| c.tree_depth().is_some_and(|d| d + 1 > NESTING_LIMIT as usize)),
            "TooDeep without a deep value"
        );
    }
}
