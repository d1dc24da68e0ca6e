//! The crate's docs stand on their own: no rustdoc comment or README line cites a rule
//! number or an article outside the repository, and every reference to a section of
//! docs/design.md ("<heading>" in docs/design.md) names a heading that exists there.

use std::fs;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The crate's sources and README, with their text.
fn documented_files() -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = vec![root.join("README.md")];
    rust_files(&root.join("src"), &mut paths);
    paths.into_iter().map(|path| (path.clone(), fs::read_to_string(&path).unwrap())).collect()
}

/// Whether `line` has a rule number such as `R7` (an `R` that starts a word, then
/// digits that end it).
fn has_rule_number(line: &str) -> bool {
    let bytes = line.as_bytes();
    (0..bytes.len()).any(|i| {
        let starts_word = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        let digits = bytes[i + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
        let ends_word = bytes.get(i + 1 + digits).is_none_or(|b| !b.is_ascii_alphanumeric());
        bytes[i] == b'R' && starts_word && digits > 0 && ends_word
    })
}

/// Whether `line` has the word "seed" or "seeds" (the articles ripple was born from), not as part
/// of an identifier: serde's `DeserializeSeed` and `next_element_seed`, which a
/// deserializer adapter must implement, are not references.
fn mentions_seed(line: &str) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = line.as_bytes();
    line.match_indices("seed").any(|(at, _)| {
        let before = at.checked_sub(1).map(|i| bytes[i]);
        let end = if bytes.get(at + 4) == Some(&b's') { at + 5 } else { at + 4 };
        !before.is_some_and(word) && !bytes.get(end).copied().is_some_and(word)
    })
}

#[test]
fn no_rule_numbers_or_outside_articles() {
    let mut found = Vec::new();
    for (path, text) in documented_files() {
        for (number, line) in text.lines().enumerate() {
            if has_rule_number(line) || mentions_seed(line) {
                found.push(format!("{}:{}: {}", path.display(), number + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "references to text outside the repository:\n{}", found.join("\n"));
    assert!(has_rule_number("rules (R12)") && !has_rule_number("R2D2 RUSTC x86R1"));
    assert!(mentions_seed("as the seed says") && mentions_seed("seed: the articles") && mentions_seed("the seeds."));
    assert!(!mentions_seed("fn next_element_seed<T: DeserializeSeed<'de>>") && !mentions_seed("seeds_x"));
}

#[test]
fn every_design_reference_names_a_heading() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let design = fs::read_to_string(root.join("docs/design.md")).expect("docs/design.md is in the repository");
    let headings: Vec<&str> = design.lines().filter_map(|l| l.trim_start_matches('#').strip_prefix(' ')).collect();
    let mut references = 0;
    for (path, text) in documented_files() {
        // Comments wrap lines: join each file's text into one line per paragraph.
        let joined: String = text
            .lines()
            .map(|l| l.trim().trim_start_matches("//!").trim_start_matches("///").trim_start_matches("//").trim())
            .collect::<Vec<_>>()
            .join(" ");
        let mut rest = joined.as_str();
        while let Some(at) = rest.find("\" in docs/design.md") {
            let before = &rest[..at];
            let name = &before[before.rfind('"').expect("a quoted heading") + 1..];
            assert!(headings.contains(&name), "{}: no heading \"{name}\" in docs/design.md", path.display());
            references += 1;
            rest = &rest[at + 1..];
        }
    }
    assert!(references >= 6, "the rustdoc refers to docs/design.md by heading ({references} found)");
}
