//! Feeds arbitrary bytes to the loader as a JSON scene: it never panics, a refused load
//! leaves the world exactly as it was, and a load that succeeds adds exactly the
//! entities it reports.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "scene_common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let _ = common::check(data, |registry, world, data| registry.load_json(world, data));
});
