//! The crate's files, like its modules, mostly do not import each other: the largest
//! circle of files that reach each other through their imports holds at most
//! [`MAX_LOOP`] files (docs/design.md, "Floors"). The one circle the core cannot do
//! without is the world and the callbacks it stores, which take the world.
//!
//! An import is a `use` or a `crate::`/`super::`/`self::` path in a file's code
//! (comments, literals and unit tests left out), resolved to the file that defines the
//! item it names, through the re-exports of the modules on the way: a folder's
//! `mod.rs` that re-exports a name is passed through, not counted. A `pub use` is a
//! module's public face rather than a use of what it names, so it is not an import.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

mod sources;

use sources::{code_of, rust_files};

/// The most files one circle of imports may hold.
const MAX_LOOP: usize = 5;

/// A module path inside the crate: `["storage", "column"]` for `crate::storage::column`.
type ModulePath = Vec<String>;

/// The crate's files, what each defines and re-exports, and its code.
struct Sources {
    /// Each file's path under `src/`, for messages.
    names: Vec<String>,
    modules: Vec<ModulePath>,
    file_of: BTreeMap<ModulePath, usize>,
    /// The names each file defines (types, traits, functions, constants, macros).
    defined: Vec<BTreeSet<String>>,
    /// The names each file re-exports (`pub use`), with the path each stands for.
    reexported: Vec<BTreeMap<String, Vec<String>>>,
    code: Vec<String>,
}

#[test]
fn no_circle_of_imports_holds_more_than_five_files() {
    let sources = Sources::read();
    let imports: Vec<BTreeSet<usize>> = (0..sources.names.len()).map(|file| sources.imports_of(file)).collect();
    let too_big: Vec<Vec<&str>> = circles(&imports)
        .into_iter()
        .filter(|circle| circle.len() > MAX_LOOP)
        .map(|circle| circle.into_iter().map(|file| sources.names[file].as_str()).collect())
        .collect();
    assert!(too_big.is_empty(), "circles of files that import each other, over {MAX_LOOP} files: {too_big:#?}");
}

/// The check finds a circle when there is one: two files of a made-up crate that import
/// each other, and a third that only imports them.
#[test]
fn the_check_sees_a_circle() {
    let imports = vec![BTreeSet::from([1]), BTreeSet::from([0]), BTreeSet::from([0, 1])];
    assert_eq!(circles(&imports), vec![vec![0, 1]]);
}

impl Sources {
    fn read() -> Sources {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let files = rust_files(&src);
        let mut sources = Sources {
            names: Vec::new(),
            modules: Vec::new(),
            file_of: BTreeMap::new(),
            defined: Vec::new(),
            reexported: Vec::new(),
            code: Vec::new(),
        };
        for (index, file) in files.iter().enumerate() {
            let relative = file.strip_prefix(&src).expect("under src").to_string_lossy().replace('\\', "/");
            let mut module: ModulePath = relative.trim_end_matches(".rs").split('/').map(str::to_string).collect();
            if module.last().is_some_and(|last| last == "mod" || (last == "lib" && module.len() == 1)) {
                module.pop();
            }
            let code = code_of(&fs::read_to_string(file).expect("a source file"));
            sources.defined.push(definitions(&code));
            let mut reexported = BTreeMap::new();
            for (is_pub, tree) in use_statements(&code) {
                if is_pub {
                    for (path, name) in expand_use(&tree) {
                        // The first re-export of a name wins (an inline `prelude`
                        // module's come after the root's own).
                        reexported.entry(name).or_insert(path);
                    }
                }
            }
            sources.reexported.push(reexported);
            sources.file_of.insert(module.clone(), index);
            sources.modules.push(module);
            sources.names.push(format!("src/{relative}"));
            sources.code.push(code);
        }
        sources
    }

    /// The files `file` imports.
    fn imports_of(&self, file: usize) -> BTreeSet<usize> {
        let module = &self.modules[file];
        let code = &self.code[file];
        let mut paths: Vec<Vec<String>> = Vec::new();
        for (is_pub, tree) in use_statements(code) {
            if !is_pub {
                paths.extend(expand_use(&tree).into_iter().map(|(path, _)| path));
            }
        }
        paths.extend(crate_paths(&without_pub_uses(code)));
        let mut imported = BTreeSet::new();
        for path in paths {
            if let Some(absolute) = self.absolute(module, &path)
                && let Some(target) = self.resolve(&absolute, 0)
                && target != file
            {
                imported.insert(target);
            }
        }
        imported
    }

    /// `path`, written in `module`, from the crate root; `None` for a path outside the
    /// crate (`std::..`, a local name).
    fn absolute(&self, module: &ModulePath, path: &[String]) -> Option<Vec<String>> {
        let (first, rest) = path.split_first()?;
        match first.as_str() {
            "crate" => Some(rest.to_vec()),
            "self" => Some(module.iter().chain(rest).cloned().collect()),
            "super" => {
                let mut base = module.clone();
                let mut rest = path;
                while let Some((head, tail)) = rest.split_first() {
                    if head != "super" {
                        break;
                    }
                    base.pop();
                    rest = tail;
                }
                Some(base.into_iter().chain(rest.iter().cloned()).collect())
            }
            _ => {
                let mut child = module.clone();
                child.push(first.clone());
                self.file_of.contains_key(&child).then(|| module.iter().chain(path).cloned().collect())
            }
        }
    }

    /// The file that defines what the absolute `path` names: the deepest module on the
    /// path, or, through its re-exports, the file its next name comes from.
    fn resolve(&self, path: &[String], depth: usize) -> Option<usize> {
        let mut module: ModulePath = Vec::new();
        let mut at = 0;
        while at < path.len() {
            let mut deeper = module.clone();
            deeper.push(path[at].clone());
            if !self.file_of.contains_key(&deeper) {
                break;
            }
            module = deeper;
            at += 1;
        }
        let file = *self.file_of.get(&module)?;
        let Some(name) = path.get(at) else { return Some(file) };
        if self.defined[file].contains(name) || depth > 16 {
            return Some(file);
        }
        let through =
            self.reexported[file].get(name).and_then(|target| self.absolute(&module, target)).and_then(|mut target| {
                target.extend(path[at + 1..].iter().cloned());
                self.resolve(&target, depth + 1)
            });
        Some(through.unwrap_or(file))
    }
}

/// The names `code` defines.
fn definitions(code: &str) -> BTreeSet<String> {
    let words: Vec<&str> = code.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
    let keywords = ["struct", "enum", "trait", "fn", "type", "const", "static", "union", "macro_rules"];
    words.windows(2).filter(|pair| keywords.contains(&pair[0])).map(|pair| pair[1].to_string()).collect()
}

/// Every `use` statement of `code`: whether it is a `pub` one (any visibility), and its
/// tree (`a::{b, c}`).
fn use_statements(code: &str) -> Vec<(bool, String)> {
    let mut statements = Vec::new();
    for (at, _) in code.match_indices("use ") {
        if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let before = code[..at].trim_end();
        let is_pub = before.ends_with("pub")
            || (before.ends_with(')') && before.rfind("pub(").is_some_and(|p| !before[p..].contains('\n')));
        let rest = &code[at + "use ".len()..];
        let Some(end) = rest.find(';') else { continue };
        statements.push((is_pub, rest[..end].split_whitespace().collect::<Vec<_>>().join(" ")));
    }
    statements
}

/// The paths a use tree imports, each with the name it is imported as.
fn expand_use(tree: &str) -> Vec<(Vec<String>, String)> {
    let mut out = Vec::new();
    expand_into(tree.trim(), &[], &mut out);
    out
}

fn expand_into(tree: &str, prefix: &[String], out: &mut Vec<(Vec<String>, String)>) {
    let tree = tree.trim();
    if tree.is_empty() {
        return;
    }
    if let Some(open) = tree.find('{') {
        let head: Vec<String> =
            tree[..open].split("::").map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect();
        let prefix: Vec<String> = prefix.iter().cloned().chain(head).collect();
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        for item in split_top_level(inner) {
            expand_into(item, &prefix, out);
        }
        return;
    }
    let (path, alias) = match tree.split_once(" as ") {
        Some((path, alias)) => (path, Some(alias.trim())),
        None => (tree, None),
    };
    let mut full: Vec<String> = prefix.to_vec();
    full.extend(path.split("::").map(str::trim).filter(|s| !s.is_empty()).map(str::to_string));
    if full.last().is_some_and(|last| last == "self" || last == "*") {
        full.pop();
    }
    let Some(last) = full.last().cloned() else { return };
    out.push((full, alias.unwrap_or(&last).to_string()));
}

/// The items of a use group's inside, split at its own commas.
fn split_top_level(inner: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    items
}

/// `code` with its `pub use` statements blanked.
fn without_pub_uses(code: &str) -> String {
    let mut out = code.to_string();
    let mut search = 0;
    while let Some(found) = out[search..].find("pub") {
        let at = search + found;
        search = at + 3;
        if out[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &out[at + 3..];
        let visibility = if rest.starts_with('(') { rest.find(')').map_or(0, |close| close + 1) } else { 0 };
        if !rest[visibility..].trim_start().starts_with("use ") {
            continue;
        }
        let Some(end) = out[at..].find(';') else { break };
        out.replace_range(at..at + end, &" ".repeat(end));
    }
    out
}

/// Every `crate::`, `super::` or `self::` path of `code`, as its segments (a path that
/// opens a group, `crate::a::{..}`, is left to the use statement it is part of).
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    for root in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(root) {
            if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let rest = &code[at..];
            let length = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).unwrap_or(rest.len());
            let text = &rest[..length];
            if rest[length..].starts_with('{') || text.ends_with("::") && rest[length..].starts_with('*') {
                continue;
            }
            let segments: Vec<String> = text.split("::").filter(|s| !s.is_empty()).map(str::to_string).collect();
            if segments.len() > 1 {
                paths.push(segments);
            }
        }
    }
    paths
}

/// The circles of `imports` (the sets of two or more files that reach each other),
/// each sorted, largest first. Tarjan's algorithm, O(files + imports), iterative.
fn circles(imports: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    let n = imports.len();
    let (mut index, mut low, mut on_stack) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut next, mut stack, mut found) = (0, Vec::new(), Vec::new());
    for start in 0..n {
        if index[start] != usize::MAX {
            continue;
        }
        let mut work: Vec<(usize, Vec<usize>)> = vec![(start, imports[start].iter().copied().collect())];
        index[start] = next;
        low[start] = next;
        next += 1;
        stack.push(start);
        on_stack[start] = true;
        while let Some((file, pending)) = work.last_mut() {
            let file = *file;
            if let Some(target) = pending.pop() {
                if index[target] == usize::MAX {
                    index[target] = next;
                    low[target] = next;
                    next += 1;
                    stack.push(target);
                    on_stack[target] = true;
                    work.push((target, imports[target].iter().copied().collect()));
                } else if on_stack[target] {
                    low[file] = low[file].min(index[target]);
                }
                continue;
            }
            work.pop();
            if let Some((parent, _)) = work.last() {
                low[*parent] = low[*parent].min(low[file]);
            }
            if low[file] == index[file] {
                let mut circle = Vec::new();
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    circle.push(member);
                    if member == file {
                        break;
                    }
                }
                if circle.len() > 1 {
                    circle.sort_unstable();
                    found.push(circle);
                }
            }
        }
    }
    found.sort_by_key(|circle| std::cmp::Reverse(circle.len()));
    found
}
