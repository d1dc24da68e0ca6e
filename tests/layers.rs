//! The crate's floors, enforced: a module imports only from its own floor or the floors
//! below it (docs/design.md, "Floors"). The test reads the sources: every `crate::`
//! path outside comments and unit tests, with names the crate root re-exports traced to
//! the module that defines them, is an import of that module.
//!
//! It fails on any import up a floor, and on any loop of modules that import each
//! other (the core's modules, and the utilities', count as one module each: `core`
//! and `util`), naming the lines or the modules.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

mod sources;

use sources::{code_of, rust_files};

/// The floors, bottom first, and the top-level modules (files or folders of `src/`) on
/// each. `lib` and the modules that assemble a world from every floor (`builtin`, `api`)
/// stand on the roof.
const FLOORS: &[(&str, &[&str])] = &[
    ("util", &["util"]),
    (
        "core",
        &[
            "bundle",
            "change",
            "commands",
            "component",
            "entity",
            "entity_mut",
            "entity_ref",
            "entity_serde",
            "error",
            "hook",
            "disabled",
            "immutable",
            "one_component",
            "one_shot_id",
            "query",
            "reactor",
            "required",
            "relation_error",
            "relation_registry",
            "resource",
            "sparse_mut",
            "spawn_batch",
            "storage",
            "storage_choice",
            "world",
        ],
    ),
    ("systems", &["message", "schedule", "system"]),
    ("extensions", &["dynamic", "hierarchy", "observer", "relation"]),
    ("persistence", &["data", "rollback", "scene"]),
    ("replication", &["replicate"]),
    ("roof", &["api", "builtin", "lib"]),
];

#[test]
fn every_import_runs_down_the_floors() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let floor_of: BTreeMap<&str, usize> =
        FLOORS.iter().enumerate().flat_map(|(floor, (_, modules))| modules.iter().map(move |m| (*m, floor))).collect();
    let files = rust_files(&src);
    let mut unplaced = BTreeSet::new();
    for file in &files {
        let module = top_module(&src, file);
        if !floor_of.contains_key(module.as_str()) {
            unplaced.insert(module);
        }
    }
    assert!(unplaced.is_empty(), "modules on no floor (add them to FLOORS): {unplaced:?}");

    let reexports = root_reexports(&fs::read_to_string(src.join("lib.rs")).expect("src/lib.rs"));
    let mut upward = Vec::new();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let node = |module: &str| match FLOORS[floor_of[module]].0 {
        floor @ ("core" | "util") => floor.to_string(),
        _ => module.to_string(),
    };
    for file in &files {
        let module = top_module(&src, file);
        let text = code_of(&fs::read_to_string(file).expect("a source file"));
        let shown = format!("src/{}", file.strip_prefix(&src).expect("under src").to_string_lossy());
        for (line, name) in crate_paths(&text) {
            let target = if floor_of.contains_key(name.as_str()) {
                name
            } else if let Some(defined_in) = reexports.get(&name) {
                defined_in.clone()
            } else {
                continue;
            };
            graph.entry(node(&module)).or_default().insert(node(&target));
            if floor_of[target.as_str()] > floor_of[module.as_str()] {
                upward.push(format!("{shown}:{line} imports `{target}`, a floor above it"));
            }
        }
    }
    assert!(upward.is_empty(), "imports up a floor:\n  {}", upward.join("\n  "));

    let loops = loops_of(&graph);
    assert!(loops.is_empty(), "modules that import each other (a loop across modules): {loops:?}");
}

/// The sets of two or more nodes of `graph` that reach each other, each sorted.
/// O(V · E): the graph has a few dozen nodes.
fn loops_of(graph: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<Vec<String>> {
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.to_string()];
        while let Some(at) = stack.pop() {
            for next in graph.get(&at).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&String, BTreeSet<String>> = graph.keys().map(|n| (n, reach(n))).collect();
    let mut loops = BTreeSet::new();
    for (n, from_n) in &reached {
        let members: Vec<String> = from_n
            .iter()
            .filter(|m| *m == *n || reached.get(m).is_some_and(|from_m| from_m.contains(*n)))
            .cloned()
            .collect();
        if members.len() > 1 {
            loops.insert(members);
        }
    }
    loops
}

/// The top-level module `file` belongs to: its folder under `src/`, or its own name.
fn top_module(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).expect("under src");
    let first = relative.components().next().expect("a path").as_os_str().to_string_lossy();
    first.strip_suffix(".rs").unwrap_or(&first).to_string()
}

/// The first segment of every `crate::` path in `code`, with its line: `crate::a::b`
/// names `a`, and `crate::{a::b, c}` names `a` and `c`.
fn crate_paths(code: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let line = code[..at].matches('\n').count() + 1;
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            for name in group_heads(group) {
                found.push((line, name));
            }
        } else {
            found.push((line, ident_at(rest)));
        }
    }
    found
}

/// The first identifier of each item of a `{...}` use group (`group` starts after the
/// brace).
fn group_heads(group: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut at_item = true;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => at_item = true,
            c if at_item && depth == 0 && (c.is_alphabetic() || c == '_') => {
                heads.push(ident_at(&group[i..]));
                at_item = false;
            }
            _ => {}
        }
    }
    heads
}

fn ident_at(text: &str) -> String {
    text.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
}

/// The names `lib.rs` re-exports at the crate root, each with the top-level module it
/// comes from (`pub use module::{A, B};` and `pub use module::A;`).
fn root_reexports(lib: &str) -> BTreeMap<String, String> {
    let code = code_of(lib);
    let mut names = BTreeMap::new();
    for (at, _) in code.match_indices("pub use ") {
        let rest = &code[at + "pub use ".len()..];
        let statement = &rest[..rest.find(';').expect("a use ends with ';'")];
        let Some((module, items)) = statement.split_once("::") else { continue };
        let items = items.trim().trim_start_matches('{').trim_end_matches('}');
        for item in items.split(',') {
            let name = item.rsplit("::").next().unwrap_or("").trim();
            if !name.is_empty() && module.trim() != "crate" {
                names.insert(name.to_string(), module.trim().to_string());
            }
        }
    }
    names
}
