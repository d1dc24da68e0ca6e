//! rollback (issue: rollback, prediction and undo at the cost of what changed): keeping
//! the last R = 8 frames of N registered entities of which K change per frame, and
//! returning 8 frames.
//!
//! Each frame writes the `Pos` (8 bytes) of K entities chosen at random, the same K every
//! frame with new values (the crossover's movers: the few that move keep moving), so a
//! checkpoint keeps K values and a rollback of 8 frames reads 8K kept values and writes K
//! back. The `_disjoint` workloads write the `f % 8`-th of eight disjoint random sets
//! instead, so 8 frames touch 8K distinct entities (the worst case for a rollback of 8
//! frames). N ∈ {100,000, 1,000,000}, K ∈ {100, 10,000}.
//!
//! Lines:
//! * `ripple`: a [`ripple::rollback::Rollback`] of 8 frames with `Pos` registered;
//!   `checkpoint` and `rollback_to(frame - 8)`.
//! * `snapshot`: what bevy_ggrs does, in its fastest form: a bevy_ecs world whose save
//!   copies every registered value of every entity each frame (one contiguous copy per
//!   frame into a ring of 9 buffers) and whose restore writes every value back (through
//!   `Mut`, as bevy_ggrs's restore does, so `Changed` fires for all).
//! * `floor`: flat arrays; a checkpoint copies just the K changed values, a rollback
//!   copies the 8K saved values back.
//!
//! Every line's state after a rollback is checked equal before anything is timed.

use std::time::{Duration, Instant};

use crate::crossover::random_writes;

/// Entity counts.
pub const SIZES: [usize; 2] = [100_000, 1_000_000];

/// Changed entities per frame.
pub const CHANGED: [usize; 2] = [100, 10_000];

/// Frames kept, and frames returned by the timed rollback.
pub const FRAMES: usize = 8;

/// The registered component.
#[derive(Clone, Copy, Debug, PartialEq, Default, bevy_ecs::component::Component)]
pub struct Pos(pub f32, pub f32);

/// One line of the workload.
pub trait Line {
    /// Writes frame `frame`'s K positions (untimed).
    fn write(&mut self, frame: u64);
    /// Keeps the frame just written (timed).
    fn checkpoint(&mut self);
    /// Returns to the frame `FRAMES` back (timed).
    fn rollback(&mut self);
    /// A sum over every position, to check that lines agree.
    fn checksum(&mut self) -> f64;
}

/// The K entities (spawn indices) frame `frame` writes: the same K every frame, or one
/// of eight disjoint sets when `sets` holds 8K.
fn frame_set(sets: &[usize], k: usize, frame: u64) -> &[usize] {
    let start = if sets.len() > k { (frame as usize % FRAMES) * k } else { 0 };
    &sets[start..start + k]
}

fn value(frame: u64, i: usize) -> Pos {
    Pos(frame as f32, i as f32)
}

/// ripple with a Rollback.
struct Ripple {
    world: ripple::World,
    entities: Vec<ripple::Entity>,
    rollback: ripple::rollback::Rollback,
    sets: Vec<usize>,
    k: usize,
}

impl Line for Ripple {
    fn write(&mut self, frame: u64) {
        for &i in frame_set(&self.sets, self.k, frame) {
            *self.world.get_mut::<Pos>(self.entities[i]).expect("alive") = value(frame, i);
        }
    }

    fn checkpoint(&mut self) {
        self.rollback.checkpoint(&self.world);
    }

    fn rollback(&mut self) {
        let back = self.rollback.frame() - FRAMES as u64;
        self.rollback.rollback_to(&mut self.world, back).expect("a kept frame");
    }

    fn checksum(&mut self) -> f64 {
        let mut query = self.world.query::<&Pos>();
        query.iter(&self.world).map(|p| f64::from(p.0) + f64::from(p.1)).sum()
    }
}

/// bevy_ecs with a full copy per frame.
struct Snapshot {
    world: bevy_ecs::world::World,
    entities: Vec<bevy_ecs::entity::Entity>,
    read: bevy_ecs::query::QueryState<&'static Pos>,
    write: bevy_ecs::query::QueryState<&'static mut Pos>,
    ring: Vec<Vec<Pos>>,
    newest: usize,
    sets: Vec<usize>,
    k: usize,
}

impl Line for Snapshot {
    fn write(&mut self, frame: u64) {
        for &i in frame_set(&self.sets, self.k, frame) {
            *self.write.get_mut(&mut self.world, self.entities[i]).expect("alive") = value(frame, i);
        }
    }

    fn checkpoint(&mut self) {
        self.newest = (self.newest + 1) % self.ring.len();
        let saved = &mut self.ring[self.newest];
        saved.clear();
        saved.extend(self.read.iter(&self.world).copied());
    }

    fn rollback(&mut self) {
        self.newest = (self.newest + self.ring.len() - FRAMES) % self.ring.len();
        let saved = &self.ring[self.newest];
        for (mut place, value) in self.write.iter_mut(&mut self.world).zip(saved) {
            *place = *value;
        }
    }

    fn checksum(&mut self) -> f64 {
        self.read.iter(&self.world).map(|p| f64::from(p.0) + f64::from(p.1)).sum()
    }
}

/// Flat arrays and the K changed values per frame.
struct Floor {
    values: Vec<Pos>,
    /// Per kept frame: `(index, value before)` of what it changed.
    records: std::collections::VecDeque<Vec<(u32, Pos)>>,
    spare: Vec<Vec<(u32, Pos)>>,
    /// The frame being written: its indices and previous values.
    pending: Vec<(u32, Pos)>,
    sets: Vec<usize>,
    k: usize,
}

impl Line for Floor {
    fn write(&mut self, frame: u64) {
        for &i in frame_set(&self.sets, self.k, frame) {
            self.pending.push((i as u32, self.values[i]));
            self.values[i] = value(frame, i);
        }
    }

    fn checkpoint(&mut self) {
        let mut record = self.spare.pop().unwrap_or_default();
        record.extend_from_slice(&self.pending);
        self.pending.clear();
        self.records.push_back(record);
        if self.records.len() > FRAMES {
            let mut oldest = self.records.pop_front().expect("kept");
            oldest.clear();
            self.spare.push(oldest);
        }
    }

    fn rollback(&mut self) {
        for _ in 0..FRAMES {
            let mut record = self.records.pop_back().expect("kept");
            for &(i, before) in record.iter().rev() {
                self.values[i as usize] = before;
            }
            record.clear();
            self.spare.push(record);
        }
    }

    fn checksum(&mut self) -> f64 {
        self.values.iter().map(|p| f64::from(p.0) + f64::from(p.1)).sum()
    }
}

/// The lines at (n, k), in report order, each with 8 frames kept; their states after a
/// rollback checked equal. `disjoint`: each of 8 frames writes its own K entities.
pub fn build_lines(n: usize, k: usize, disjoint: bool) -> Vec<(&'static str, Box<dyn Line>)> {
    let sets = random_writes(n, if disjoint { (FRAMES * k).min(n) } else { k });
    let mut world = ripple::World::new();
    let entities: Vec<ripple::Entity> = world.spawn_batch((0..n).map(|_| (Pos::default(),))).collect();
    let mut rollback = ripple::rollback::Rollback::new(&mut world, FRAMES);
    rollback.register::<Pos>(&mut world);
    let ripple = Ripple { world, entities, rollback, sets: sets.clone(), k };

    let mut world = bevy_ecs::world::World::new();
    let entities: Vec<bevy_ecs::entity::Entity> = world.spawn_batch((0..n).map(|_| (Pos::default(),))).collect();
    let read = world.query::<&Pos>();
    let write = world.query::<&mut Pos>();
    let mut ring: Vec<Vec<Pos>> = (0..=FRAMES).map(|_| Vec::with_capacity(n)).collect();
    ring[0].extend(std::iter::repeat_n(Pos::default(), n));
    let snapshot = Snapshot { world, entities, read, write, ring, newest: 0, sets: sets.clone(), k };

    let floor = Floor {
        values: vec![Pos::default(); n],
        records: Default::default(),
        spare: Vec::new(),
        pending: Vec::new(),
        sets,
        k,
    };
    let mut lines: Vec<(&'static str, Box<dyn Line>)> =
        vec![("ripple", Box::new(ripple)), ("snapshot", Box::new(snapshot)), ("floor", Box::new(floor))];
    for (_, line) in &mut lines {
        prepare(line.as_mut());
        for frame in FRAMES as u64 + 1..=2 * FRAMES as u64 {
            line.write(frame * 7);
            line.checkpoint();
        }
    }
    let sums: Vec<f64> = lines.iter_mut().map(|(_, line)| line.checksum()).collect();
    assert!(sums.iter().all(|&s| s == sums[0]), "rollback lines disagree before a rollback: {sums:?}");
    for (_, line) in &mut lines {
        line.rollback();
    }
    let sums: Vec<f64> = lines.iter_mut().map(|(_, line)| line.checksum()).collect();
    assert!(sums.iter().all(|&s| s == sums[0]), "rollback lines disagree after a rollback: {sums:?}");
    lines
}

/// Fills a line's ring: 8 frames written and kept.
fn prepare(line: &mut dyn Line) {
    for frame in 1..=FRAMES as u64 {
        line.write(frame);
        line.checkpoint();
    }
}

/// One timed checkpoint, after an untimed frame of writes.
pub fn checkpoint_step(line: &mut dyn Line, frame: &mut u64) -> Duration {
    *frame += 1;
    line.write(*frame);
    let start = Instant::now();
    line.checkpoint();
    start.elapsed()
}

/// One timed rollback of 8 frames, after 8 untimed frames of writes and checkpoints.
pub fn rollback_step(line: &mut dyn Line, frame: &mut u64) -> Duration {
    for _ in 0..FRAMES {
        *frame += 1;
        line.write(*frame);
        line.checkpoint();
    }
    let start = Instant::now();
    line.rollback();
    start.elapsed()
}

/// The criterion group of (n, k) and part (`checkpoint`, `restore`, or either with
/// `_disjoint`).
pub fn group_name(part: &str, n: usize, k: usize) -> String {
    format!("rollback_{part}/N={n},K={k}")
}
