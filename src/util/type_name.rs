//! Type names for messages, without their module paths.

/// A type's name without module paths: `Option<ripple::entity::Entity>` reads
/// `Option<Entity>`. What messages, and tools showing a world's components by
/// [`World::component_name`](crate::World::component_name), print.
///
/// ```
/// assert_eq!(ripple::short_type_name("Vec<game::Position>"), "Vec<Position>");
/// ```
pub fn short_type_name(name: &str) -> String {
    let mut short = String::with_capacity(name.len());
    let mut segment_start = 0;
    for (i, c) in name.char_indices() {
        if c.is_alphanumeric() || c == '_' || c == ':' {
            continue;
        }
        short.push_str(last_segment(&name[segment_start..i]));
        short.push(c);
        segment_start = i + c.len_utf8();
    }
    short.push_str(last_segment(&name[segment_start..]));
    short
}

fn last_segment(path: &str) -> &str {
    path.rsplit("::").next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::short_type_name;

    #[test]
    fn type_names_lose_their_paths() {
        assert_eq!(short_type_name("ripple::entity::Entity"), "Entity");
        assert_eq!(short_type_name("core::option::Option<(u32, alloc::string::String)>"), "Option<(u32, String)>");
        assert_eq!(short_type_name("[u8; 4]"), "[u8; 4]");
        // A generic system function's default name.
        assert_eq!(short_type_name("game::systems::spawn<game::Crate>"), "spawn<Crate>");
    }
}
