//! Runs passes of one `observe_lifecycle` line alone, for a profiler (`perf`,
//! `callgrind`) to attribute: `observer_profile LINE PASSES [unobserved]`, LINE being
//! `ripple` or `bevy_ecs`. Prints the time per pass (a rough figure: judge bars by the
//! paired tool).

use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: observer_profile LINE PASSES [unobserved]";
    let (line, passes) = match args.as_slice() {
        [line, passes, ..] => (line.as_str(), passes.parse::<u32>().expect(usage)),
        _ => panic!("{usage}"),
    };
    let lines = if args.get(2).is_some_and(|a| a == "unobserved") {
        bench::observers::lifecycle_unobserved_lines()
    } else {
        bench::observers::lifecycle_lines()
    };
    let (_, mut pass) = lines.into_iter().find(|(name, _)| *name == line).expect("a line name");
    pass();
    let start = Instant::now();
    for _ in 0..passes {
        pass();
    }
    println!("{line}: {:.1?} per pass", start.elapsed() / passes);
}
