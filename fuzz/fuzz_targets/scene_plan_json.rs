//! Structure-aware json scenes: the fuzzer picks a plan (see `scene_plan.rs`) that is
//! rendered as a json scene and loaded; a refusal changes nothing, a success adds
//! exactly what it reports, and what must be refused (values nested past the limit,
//! things written twice) is.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "scene_common.rs"]
mod common;
#[path = "scene_plan.rs"]
mod plan;

fuzz_target!(|plan: plan::Plan| {
    plan::run(&plan, true);
});
