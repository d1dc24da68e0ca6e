//! Reading the crate's own sources, for the tests that check their shape
//! (`source_shape.rs`), their floors (`layers.rs`) and their import circles
//! (`file_loops.rs`).

use std::fs;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, sorted.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).expect("a source folder") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// `source` with comments removed and the insides of string and character literals
/// blanked, line breaks kept.
pub fn blank_comments_and_literals(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let chars: Vec<char> = source.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                if chars[i] == '\n' {
                    out.push('\n');
                }
                i += 1;
            }
            i += 2;
        } else if c == '"' {
            // A raw string's `#`s came before: its end is a quote too (this crate's raw
            // strings hold no quote).
            out.push('"');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                } else if chars[i] == '\n' {
                    out.push('\n');
                }
                i += 1;
            }
            out.push('"');
            i += 1;
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            // A one-character literal such as '{' (a lifetime has no closing quote).
            out.push_str("' '");
            i += 3;
        } else if c == '\'' && next == Some('\\') {
            // An escaped character literal such as '\n' or '\u{7b}'.
            out.push_str("' '");
            i += 2;
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

#[allow(dead_code, reason = "the shape test reads whole files")]
/// The source without comments (doc comments included) and string contents, and
/// without the unit tests (`#[cfg(test)]` and all after it: the crate keeps them last),
/// line breaks kept.
pub fn code_of(source: &str) -> String {
    let source = match source.find("#[cfg(test)]") {
        Some(tests) => &source[..tests],
        None => source,
    };
    blank_comments_and_literals(source)
}
