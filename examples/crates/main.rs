//! Crate-topia: does a frame cost what changed, or what exists?
//!
//! A level full of crates that mostly rest, a player who pushes them and four enemies
//! who smash them (they flash when hit, explode, and are despawned through commands
//! with an event). The same game is played twice, frame for frame: once with every
//! system visiting everything every frame (brute force), once change-driven (`Dirty`,
//! a removal stream, a sparse `Playing` marker); see `game.rs`. After every frame the
//! example checks that both drew exactly the same thing, and exits non-zero if not.
//!
//! It does so at 1,000, 10,000, 100,000 and 1,000,000 crates with the same five movers
//! and the same frames, and prints the update time per frame of each, the speed-up, and
//! what each system visited per frame; then the profiler's
//! per-system tables for the largest level and a headline. It draws the times against
//! the crate count in `target/crates.png` and writes the change-driven run's Chrome
//! trace to `target/crates-trace.json` (open it in <https://ui.perfetto.dev>).
//!
//! The times are medians over the timed frames of each way played alone, as a game
//! would run one of them (played in lockstep, the brute-force run's million-entity
//! sweeps would evict the change-driven run's data from the caches between its
//! frames); the first frames are not timed, as a change-driven system's first run sees
//! everything as new. The equality check plays both ways in lockstep.
//!
//! Run with `cargo run --release --example crates`; add `-- --write-docs-chart` to
//! also write the chart to `docs/crates.png`, or `-- --quick` for the two smallest
//! levels only.

mod game;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use game::{Game, Mode, Work, compare};

/// Crates in each level, and how many frames of it are timed.
const LEVELS: [(usize, usize); 4] = [(1_000, 200), (10_000, 200), (100_000, 200), (1_000_000, 200)];
/// Frames played before timing starts.
const WARM_UP: usize = 2;

/// What one level measured.
struct Measured {
    crates: usize,
    brute: Duration,
    driven: Duration,
    /// Entities each system visited, summed over the timed frames.
    brute_work: Work,
    driven_work: Work,
    frames: usize,
    exploded: u64,
}

impl Measured {
    fn speed_up(&self) -> f64 {
        self.brute.as_secs_f64() / self.driven.as_secs_f64().max(1e-9)
    }
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}

/// Plays a level both ways in lockstep, comparing what they drew after every frame;
/// returns what each system visited over the timed frames, both ways, and the crates
/// exploded.
fn check(crates: usize, frames: usize) -> Result<(Work, Work, u64), String> {
    let mut brute = Game::new(crates, Mode::BruteForce);
    let mut driven = Game::new(crates, Mode::ChangeDriven);
    let (mut brute_work, mut driven_work) = (Work::default(), Work::default());
    for frame in 0..WARM_UP + frames {
        brute.step();
        driven.step();
        compare(&brute, &driven).map_err(|e| format!("{crates} crates, frame {frame}: {e}"))?;
        if brute.score() != driven.score() {
            return Err(format!(
                "{crates} crates, frame {frame}: {} explosions against {}",
                brute.score(),
                driven.score()
            ));
        }
        if frame >= WARM_UP {
            brute_work.add(&brute.work());
            driven_work.add(&driven.work());
        }
    }
    Ok((brute_work, driven_work, driven.score()))
}

/// Plays a level one way alone, as a game would (so that the other way's data does not
/// crowd it out of the caches), and returns the median update time of the timed
/// frames, with the game as it ends.
fn time(crates: usize, frames: usize, mode: Mode, trace: bool) -> (Duration, Game) {
    let mut game = Game::new(crates, mode);
    game.schedule.record_trace(trace);
    for _ in 0..WARM_UP {
        game.step();
    }
    let mut times = Vec::with_capacity(frames);
    for _ in 0..frames {
        let started = Instant::now();
        game.step();
        times.push(started.elapsed());
    }
    (median(times), game)
}

/// Checks a level, then times it both ways.
fn play(crates: usize, frames: usize, trace: bool) -> Result<(Measured, Game, Game), String> {
    let (brute_work, driven_work, exploded) = check(crates, frames)?;
    let (brute_time, brute) = time(crates, frames, Mode::BruteForce, false);
    let (driven_time, driven) = time(crates, frames, Mode::ChangeDriven, trace);
    // The timed runs are the same game: they end drawing the same thing.
    compare(&brute, &driven).map_err(|e| format!("{crates} crates, timed runs, last frame: {e}"))?;
    let measured =
        Measured { crates, brute: brute_time, driven: driven_time, brute_work, driven_work, frames, exploded };
    Ok((measured, brute, driven))
}

/// `1234567` as `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn ms(time: Duration) -> String {
    let ms = time.as_secs_f64() * 1e3;
    if ms >= 10.0 {
        format!("{ms:.1}")
    } else if ms >= 0.1 {
        format!("{ms:.2}")
    } else {
        format!("{ms:.3}")
    }
}

fn speed_up(x: f64) -> String {
    if x >= 10.0 { thousands(x.round() as u64) } else { format!("{x:.1}") }
}

fn table(levels: &[Measured]) -> String {
    let mut out = String::from("| crates | brute force (ms/frame) | change-driven (ms/frame) | speed-up |");
    for system in Work::SYSTEMS {
        out += &format!(" {system} |");
    }
    out += "\n|---:|---:|---:|---:|";
    for _ in Work::SYSTEMS {
        out += "---:|";
    }
    for level in levels {
        out += &format!(
            "\n| {} | {} | {} | {}× |",
            thousands(level.crates as u64),
            ms(level.brute),
            ms(level.driven),
            speed_up(level.speed_up())
        );
        for system in Work::SYSTEMS {
            let per_frame = |work: &Work| work.get(system) as f64 / level.frames as f64;
            out += &format!(
                " {} → {} |",
                thousands(per_frame(&level.brute_work).round() as u64),
                thousands(per_frame(&level.driven_work).round() as u64)
            );
        }
    }
    out
}

/// Update time per frame against crate count, log-log, both ways.
fn chart(levels: &[Measured], path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    use plotters::prelude::*;
    use plotters::style::{FontStyle, register_font};

    register_font("sans-serif", FontStyle::Normal, include_bytes!("DejaVuSans.ttf"))
        .map_err(|_| "the bundled font does not load")?;
    let root = BitMapBackend::new(path, (900, 600)).into_drawing_area();
    root.fill(&WHITE)?;
    let millis = |t: Duration| t.as_secs_f64() * 1e3;
    let all = levels.iter().flat_map(|l| [millis(l.brute), millis(l.driven)]);
    let (low, high) = all.fold((f64::MAX, f64::MIN), |(lo, hi), t| (lo.min(t), hi.max(t)));
    let crates = levels.iter().map(|l| l.crates as f64);
    let (first, last) = crates.fold((f64::MAX, f64::MIN), |(lo, hi), c| (lo.min(c), hi.max(c)));
    let mut chart = ChartBuilder::on(&root)
        .caption("Crate-topia: update time per frame", ("sans-serif", 28))
        .margin(20)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d((first / 1.5..last * 1.5).log_scale(), (low / 2.0..high * 2.0).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("crates in the level")
        .y_desc("update per frame (ms)")
        .x_label_formatter(&|x| thousands(x.round() as u64))
        .y_label_formatter(&|y| format!("{y}"))
        .label_style(("sans-serif", 16))
        .axis_desc_style(("sans-serif", 18))
        .draw()?;
    let series = [
        ("brute force", RED, levels.iter().map(|l| millis(l.brute)).collect::<Vec<_>>()),
        ("change-driven", BLUE, levels.iter().map(|l| millis(l.driven)).collect()),
    ];
    for (label, color, times) in series {
        let points: Vec<(f64, f64)> = levels.iter().map(|l| l.crates as f64).zip(times).collect();
        chart
            .draw_series(LineSeries::new(points.iter().copied(), color.stroke_width(3)))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(3)));
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 5, color.filled())))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font(("sans-serif", 18))
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}

fn write(path: &Path, what: &str, contents: impl FnOnce(&Path) -> Result<(), Box<dyn std::error::Error>>) {
    let made =
        std::fs::create_dir_all(path.parent().expect("has a parent")).map_err(Into::into).and_then(|()| contents(path));
    match made {
        Ok(()) => println!("{what}: {}", path.display()),
        Err(error) => println!("could not write {what} to {}: {error}", path.display()),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let docs_chart = args.iter().any(|a| a == "--write-docs-chart");
    let levels = if quick { &LEVELS[..2] } else { &LEVELS[..] };
    let started = Instant::now();
    let mut measured = Vec::new();
    let mut largest = None;
    for (at, &(crates, frames)) in levels.iter().enumerate() {
        let last = at + 1 == levels.len();
        match play(crates, frames, last) {
            Ok((level, brute, driven)) => {
                println!(
                    "{} crates: {} frames, both runs drew the same every frame; {} crates exploded",
                    thousands(crates as u64),
                    WARM_UP + frames,
                    level.exploded
                );
                measured.push(level);
                if last {
                    largest = Some((brute, driven));
                }
            }
            Err(mismatch) => {
                eprintln!("the two runs differ: {mismatch}");
                return ExitCode::FAILURE;
            }
        }
    }

    println!(
        "\nupdate time per frame (median), and entities each system visited per frame (brute force → change-driven):\n"
    );
    println!("{}", table(&measured));
    let (mut brute, mut driven) = largest.expect("at least one level");
    let top = measured.last().expect("at least one level");
    println!("\nprofile, {} crates, brute force:\n{}", thousands(top.crates as u64), brute.schedule.report());
    println!("profile, {} crates, change-driven:\n{}", thousands(top.crates as u64), driven.schedule.report());
    println!(
        "headline: {} crates: update {} ms brute force → {} ms change-driven, {}×",
        thousands(top.crates as u64),
        ms(top.brute),
        ms(top.driven),
        // A plain number, for whoever reads the line by machine.
        if top.speed_up() >= 10.0 { format!("{:.0}", top.speed_up()) } else { format!("{:.1}", top.speed_up()) }
    );

    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut charts: Vec<PathBuf> = vec![root.join("target").join("crates.png")];
    if docs_chart {
        charts.push(root.join("docs").join("crates.png"));
    }
    for path in charts {
        write(&path, "chart", |path| chart(&measured, path));
    }
    write(
        &root.join("target").join("crates-trace.json"),
        "Chrome trace of the change-driven run (open in https://ui.perfetto.dev)",
        |path| std::fs::write(path, driven.schedule.chrome_trace()).map_err(Into::into),
    );
    println!("done in {:.1} s", started.elapsed().as_secs_f64());
    ExitCode::SUCCESS
}
