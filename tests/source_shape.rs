//! The shape of the sources: no file of `src/` over [`MAX_FILE_LINES`] lines and no
//! function over [`MAX_FN_LINES`], so that each file holds one concept and each
//! function one step a reader can follow. The test reads the sources and names every
//! file and function over its limit.

use std::fs;
use std::path::Path;

mod sources;

use sources::{blank_comments_and_literals, rust_files};

/// Lines a file may have.
const MAX_FILE_LINES: usize = 800;

/// Lines a function may have, from its `fn` line to its closing brace.
const MAX_FN_LINES: usize = 100;

#[test]
fn files_and_functions_stay_short() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut long = Vec::new();
    for file in rust_files(&root.join("src")) {
        let shown = file.strip_prefix(root).expect("under the crate").to_string_lossy().replace('\\', "/");
        let source = fs::read_to_string(&file).expect("a source file");
        let lines = source.lines().count();
        if lines > MAX_FILE_LINES {
            long.push(format!("{shown}: {lines} lines"));
        }
        for (name, length) in long_functions(&source) {
            long.push(format!("{shown}::{name}: {length} lines"));
        }
    }
    assert!(
        long.is_empty(),
        "over {MAX_FILE_LINES} lines a file or {MAX_FN_LINES} a function:\n  {}",
        long.join("\n  ")
    );
}

/// The functions of `source` longer than [`MAX_FN_LINES`], with their lengths. A
/// function runs from the line of its `fn` to the line where the brace that opens its
/// body closes; braces in comments, strings and character literals do not count.
fn long_functions(source: &str) -> Vec<(String, usize)> {
    let code = blank_comments_and_literals(source);
    let lines: Vec<&str> = code.lines().collect();
    let mut found = Vec::new();
    let mut line = 0;
    while line < lines.len() {
        let Some(name) = fn_name(lines[line]) else {
            line += 1;
            continue;
        };
        // The body opens at the first `{` from here, unless a `;` ends a declaration
        // without one first.
        let (mut depth, mut opened, mut end) = (0usize, false, None);
        'scan: for (at, text) in lines.iter().enumerate().skip(line) {
            for c in text.chars() {
                match c {
                    ';' if !opened => break 'scan,
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' if opened => {
                        depth -= 1;
                        if depth == 0 {
                            end = Some(at);
                            break 'scan;
                        }
                    }
                    _ => {}
                }
            }
        }
        match end {
            Some(end) => {
                if end - line + 1 > MAX_FN_LINES {
                    found.push((name, end - line + 1));
                }
                // Functions nested in this one are counted within it.
                line = end + 1;
            }
            None => line += 1,
        }
    }
    found
}

/// The name of the function a line declares, if it does (`fn name`, after any
/// qualifiers).
fn fn_name(line: &str) -> Option<String> {
    let mut words = line.split_whitespace();
    while let Some(word) = words.next() {
        match word {
            "fn" => {
                let name: String = words.next()?.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                return (!name.is_empty()).then_some(name);
            }
            "pub" | "const" | "async" | "unsafe" | "extern" | "\"C\"" | "default" => {}
            word if word.starts_with("pub(") => {}
            _ => return None,
        }
    }
    None
}
