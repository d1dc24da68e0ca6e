//! The demo's Chrome trace is a valid trace-event document with one complete event
//! per system run.

#[allow(dead_code, reason = "the example uses parts the test does not")]
#[path = "../examples/crates/game.rs"]
mod game;

/// Systems in the game's schedule.
const SYSTEMS: usize = 7;

#[test]
fn the_demo_trace_has_one_complete_event_per_system_run() {
    let frames = 7;
    let mut game = game::Game::new(500, game::Mode::ChangeDriven);
    game.schedule.record_trace(true);
    for _ in 0..frames {
        game.step();
    }
    let schedule = &mut game.schedule;
    let trace: serde_json::Value = serde_json::from_str(&schedule.chrome_trace()).expect("the trace is valid JSON");
    let events = trace["traceEvents"].as_array().expect("a traceEvents array");
    let rows = schedule.report_rows();
    assert_eq!(rows.len(), SYSTEMS);
    for row in &rows {
        let runs: Vec<&serde_json::Value> = events.iter().filter(|e| e["name"] == row.name).collect();
        assert_eq!(runs.len(), frames, "{}: one event per run", row.name);
        assert_eq!(row.stats.runs, frames as u64);
        for event in runs {
            assert_eq!(event["ph"], "X", "complete events");
            assert_eq!(event["cat"], row.phase);
            assert!(event["ts"].as_f64().is_some_and(|ts| ts >= 0.0));
            assert!(event["dur"].as_f64().is_some_and(|dur| dur >= 0.0));
            assert!(event["pid"].is_u64() && event["tid"].is_u64());
        }
    }
    assert_eq!(events.len(), SYSTEMS * frames);
    // Within one system, runs are in time order and do not overlap.
    for row in &rows {
        let mut last_end = f64::MIN;
        for event in events.iter().filter(|e| e["name"] == row.name) {
            let ts = event["ts"].as_f64().unwrap();
            assert!(ts >= last_end, "{}: runs overlap", row.name);
            last_end = ts + event["dur"].as_f64().unwrap();
        }
    }
}
