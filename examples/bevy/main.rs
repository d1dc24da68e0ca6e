//! bevy_ecs's own ECS examples (`examples/ecs` in bevy's repository, bevy 0.20), ported
//! to ripple one module each, under bevy's file names. Each prints what bevy's prints
//! for the same frames; `tests/bevy_examples.rs` checks it, and README.md beside this
//! file lists what differs and why.
//!
//! `cargo run --example bevy -- ecs_guide` runs one; `cargo run --example bevy` runs
//! them all, each under a heading.

#![allow(elided_lifetimes_in_paths, reason = "system signatures read as bevy's examples write them")]

/// Prints a line and, when a test captures the output, keeps it.
macro_rules! say { ($($arg:tt)*) => { super::capture::line(format!($($arg)*)) }; }

// What the ports share: output capture, scripted input, a 2D vector, a seeded
// generator.
pub mod capture;
pub mod input;
pub mod iter_combinations;
pub mod math;
pub mod rng;

// The ports, under bevy's file names.
pub mod callbacks;
pub mod change_detection;
pub mod component_hooks;
pub mod contiguous_query;
pub mod custom_executor;
pub mod custom_query_param;
pub mod custom_schedule;
pub mod delayed_commands;
pub mod dynamic;
pub mod ecs_guide;
pub mod entity_disabling;
pub mod error_handling;
pub mod fallible_params;
pub mod fixed_timestep;
pub mod generic_system;
pub mod hierarchy;
pub mod immutable_components;
pub mod message;
pub mod nondeterministic_system_order;
pub mod observer_propagation;
pub mod observers;
pub mod one_shot_systems;
pub mod parallel_query;
pub mod relationships;
pub mod removal_detection;
pub mod run_conditions;
pub mod startup_system;
pub mod system_closure;
pub mod system_param;
pub mod system_piping;

/// Every ported example, by bevy's file name, in the order of the port's priority.
pub const EXAMPLES: &[(&str, fn())] = &[
    ("ecs_guide", ecs_guide::main),
    ("change_detection", change_detection::main),
    ("component_hooks", component_hooks::main),
    ("observers", observers::main),
    ("observer_propagation", observer_propagation::main),
    ("relationships", relationships::main),
    ("hierarchy", hierarchy::main),
    ("one_shot_systems", one_shot_systems::main),
    ("run_conditions", run_conditions::main),
    ("system_piping", system_piping::main),
    ("removal_detection", removal_detection::main),
    ("fallible_params", fallible_params::main),
    ("error_handling", error_handling::main),
    ("generic_system", generic_system::main),
    ("parallel_query", parallel_query::main),
    ("message", message::main),
    ("system_closure", system_closure::main),
    ("system_param", system_param::main),
    ("custom_query_param", custom_query_param::main),
    ("nondeterministic_system_order", nondeterministic_system_order::main),
    ("startup_system", startup_system::main),
    ("callbacks", callbacks::main),
    ("custom_schedule", custom_schedule::main),
    ("custom_executor", custom_executor::main),
    ("fixed_timestep", fixed_timestep::main),
    ("dynamic", dynamic::main),
    ("delayed_commands", delayed_commands::main),
    ("contiguous_query", contiguous_query::main),
    ("iter_combinations", iter_combinations::main),
    ("immutable_components", immutable_components::main),
    ("entity_disabling", entity_disabling::main),
];

/// Runs the example named on the command line, or all of them.
fn main() {
    let wanted: Vec<String> = std::env::args().skip(1).collect();
    if wanted.is_empty() {
        for (name, example) in EXAMPLES {
            capture::line(format!("=== {name} ==="));
            example();
        }
        return;
    }
    for name in &wanted {
        let Some((_, example)) = EXAMPLES.iter().find(|(known, _)| known == name) else {
            let names: Vec<&str> = EXAMPLES.iter().map(|(name, _)| *name).collect();
            eprintln!("no example `{name}`; the examples are: {}", names.join(", "));
            std::process::exit(2);
        };
        example();
    }
}
