//! Two thousand idle connections and a held-back body against the inspector, while a
//! client polls as the page does: every poll is answered while the crowd is held
//! (before the change, none was), and the inspector's threads stay few. No clock is
//! read: how promptly the polls are answered is measured by
//! `cargo run --release -p ripple-inspector --example crates -- --crowd`. One test in
//! its own binary, so that the process's thread count is the inspector's and this
//! test's alone.

mod common;

use std::io::Write;
use std::net::TcpStream;
use std::time::Duration;

use common::{Game, play};
use ripple::World;
use ripple_inspector::InspectorConfig;

/// Idle connections held open.
const IDLE: usize = 2000;
/// Descriptors the test needs: the idle connections, the server's side of those it
/// keeps, and some to spare.
const DESCRIPTORS: u64 = IDLE as u64 + 512;
/// Set in the child this test re-runs itself in with a higher descriptor limit.
const RAISED: &str = "RIPPLE_INSPECTOR_TEST_RAISED_NOFILE";

/// The soft and hard limits on open files, where the platform says.
fn open_file_limits() -> Option<(u64, u64)> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    let mut numbers = line.split_whitespace().skip(3).map(|n| n.parse().unwrap_or(u64::MAX));
    Some((numbers.next()?, numbers.next()?))
}

/// Threads in this process now (Linux).
fn threads() -> Option<usize> {
    Some(std::fs::read_dir("/proc/self/task").ok()?.count())
}

#[test]
fn idle_connections_and_a_held_back_body_do_not_delay_a_polling_client() {
    // With a soft descriptor limit below what the test needs (1,024 is common), the
    // test runs again in a child whose shell raised it to the hard limit; no libc.
    let limits = open_file_limits().filter(|&(soft, _)| soft < DESCRIPTORS && std::env::var_os(RAISED).is_none());
    if let Some((_, hard)) = limits {
        assert!(
            hard >= DESCRIPTORS,
            "the hard limit on open files ({hard}) is below the {DESCRIPTORS} this test needs"
        );
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -S -n {DESCRIPTORS} && exec \"$0\" \"$@\""))
            .arg(std::env::current_exe().unwrap())
            .args(["--exact", "idle_connections_and_a_held_back_body_do_not_delay_a_polling_client", "--nocapture"])
            .env(RAISED, "1")
            .status()
            .expect("sh runs");
        assert!(status.success(), "the test failed in the child with the raised limit");
        return;
    }
    let threads_before = threads();
    let played = play(
        Game::new(World::new()),
        InspectorConfig::default(),
        Some(Duration::from_millis(2)),
        |_, _| {},
        |client| {
            let idle: Vec<TcpStream> =
                (0..IDLE).map(|_| TcpStream::connect(("127.0.0.1", client.port)).expect("a connection")).collect();
            let mut slow = TcpStream::connect(("127.0.0.1", client.port)).unwrap();
            write!(
                slow,
                "POST /api/edit?token={} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
                 Content-Length: 65536\r\n\r\n{{",
                client.token,
                client.host()
            )
            .unwrap();
            let threads_held = threads();
            // Each poll is answered (the client's reads give up only after a patience
            // no server that answers at all comes near) while the crowd is held: the
            // idle connections and the held-back body are dropped only after the last.
            let statuses: Vec<u16> = (0..40)
                .map(|_| {
                    let status = client.get("/api/live").status;
                    std::thread::sleep(Duration::from_millis(25));
                    status
                })
                .collect();
            drop((idle, slow));
            (statuses, threads_held)
        },
    );
    let (statuses, threads_held) = played.result;
    assert_eq!(statuses, [200; 40], "every poll answered beside {IDLE} idle connections and a held-back body");
    if let (Some(before), Some(held)) = (threads_before, threads_held) {
        // The game's thread, the client's, and the inspector's few.
        assert!(held <= before + 20, "{held} threads with {IDLE} connections held ({before} before)");
    }
}
