//! Rollback netcode: two peers play one deterministic game, each simulating both
//! players. A peer knows its own input at once and the other's only when it arrives,
//! 2 to 8 frames late and out of order; until then it predicts (the last input it
//! had). When an input arrives that differs from the prediction, the peer rolls back to
//! the frame before it and simulates again to the present, with up to 8 frames of
//! rollback. Once every input of a frame is known, each peer's checksum of that frame
//! must be the same: the peers agree, although their histories (and the handles of
//! crates spawned during re-simulations) differ.
//!
//! The game: crates slide and bounce in an arena; a player near a crate pushes it
//! (pushes from both players add up, so the order of iteration never matters); a crate
//! that reaches the goal corner is despawned and scores; a new crate spawns every 30
//! frames. Positions are integers: the same on every machine.
//!
//! Run with `cargo run --example rollback`.
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]

use std::collections::BTreeMap;

use ripple::prelude::*;
use ripple::rollback::{Frame, Rollback, stable_hash};

/// The arena's size, in position units.
const ARENA: i32 = 1024;
/// Frames of rollback the peers keep: the latest input arrives 8 frames late.
const KEPT: usize = 8;

/// Where a crate or player is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pos(pub i32, pub i32);

/// A crate's velocity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Vel(pub i32, pub i32);

/// A player, by number (0 or 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Player(pub usize);

/// One player's input for one frame: a direction, each axis -1, 0 or 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Input(pub i8, pub i8);

/// The inputs of the frame being simulated (set before each frame; not rolled back).
#[derive(Clone, Copy, Default)]
pub struct FrameInputs {
    /// The frame.
    pub frame: Frame,
    /// Both players' inputs.
    pub inputs: [Input; 2],
}

/// Crates scored by each player.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Score(pub [u32; 2]);

fn move_players(inputs: Res<FrameInputs>, mut players: Query<(&Player, &mut Pos)>) {
    for (player, mut pos) in &mut players {
        let Input(dx, dy) = inputs.inputs[player.0];
        pos.0 = (pos.0 + 12 * i32::from(dx)).clamp(0, ARENA);
        pos.1 = (pos.1 + 12 * i32::from(dy)).clamp(0, ARENA);
    }
}

fn push_crates(inputs: Res<FrameInputs>, players: Query<(&Player, &Pos)>, mut crates: Query<(&Pos, &mut Vel)>) {
    let players: Vec<(usize, Pos)> = players.iter().map(|(p, pos)| (p.0, *pos)).collect();
    for (pos, mut vel) in &mut crates {
        for &(player, at) in &players {
            if (pos.0 - at.0).abs() + (pos.1 - at.1).abs() <= 48 {
                let Input(dx, dy) = inputs.inputs[player];
                vel.0 = (vel.0 + 3 * i32::from(dx)).clamp(-16, 16);
                vel.1 = (vel.1 + 3 * i32::from(dy)).clamp(-16, 16);
            }
        }
    }
}

fn slide_crates(mut crates: Query<(&mut Pos, &mut Vel)>) {
    for (mut pos, mut vel) in &mut crates {
        if *vel == Vel(0, 0) {
            continue; // resting crates are not written: they cost the rollback nothing
        }
        let (mut x, mut y) = (pos.0 + vel.0, pos.1 + vel.1);
        if !(0..=ARENA).contains(&x) {
            vel.0 = -vel.0;
            x = x.clamp(0, ARENA);
        }
        if !(0..=ARENA).contains(&y) {
            vel.1 = -vel.1;
            y = y.clamp(0, ARENA);
        }
        *pos = Pos(x, y);
    }
}

fn score_and_spawn(
    mut commands: Commands,
    inputs: Res<FrameInputs>,
    mut score: ResMut<Score>,
    crates: Query<(Entity, &Pos, &Vel)>,
) {
    for (crate_, pos, vel) in &crates {
        if pos.0 < 64 && pos.1 < 64 {
            // The pusher is whoever the crate moves away from: decided by its velocity.
            score.0[usize::from(vel.0 + vel.1 > 0)] += 1;
            commands.despawn(crate_);
        }
    }
    if inputs.frame % 30 == 0 {
        let f = inputs.frame as i32;
        commands.spawn((Pos((f * 37) % ARENA, (f * 91) % ARENA), Vel(0, 0)));
    }
}

/// A player's input at a frame: a function of both, as a real player's would be of
/// their hands (the same on both peers; a peer only learns the other's late).
pub fn input_of(seed: u64, player: usize, frame: Frame) -> Input {
    let h = stable_hash(&(seed, player, frame / 6)); // a decision lasts 6 frames
    Input((h % 3) as i8 - 1, ((h >> 8) % 3) as i8 - 1)
}

/// One peer: its world, schedule, rollback, and the inputs it has.
pub struct Peer {
    world: World,
    schedule: Schedule,
    rollback: Rollback,
    me: usize,
    /// Inputs known, by player and frame.
    known: [BTreeMap<Frame, Input>; 2],
    /// The inputs each simulated frame used (predictions included).
    used: BTreeMap<Frame, [Input; 2]>,
    /// Checksums of the frames whose inputs are all known, as this peer computed them.
    pub settled: BTreeMap<Frame, u64>,
    /// Rollbacks done, frames simulated again, and the deepest rollback.
    pub rollbacks: usize,
    /// Frames simulated again after rollbacks.
    pub resimulated: u64,
    /// The most frames one rollback went back.
    pub deepest: u64,
}

impl Peer {
    /// A peer of player `me`, with the starting arena.
    pub fn new(me: usize) -> Peer {
        let mut world = World::new();
        world.insert_resource(FrameInputs::default());
        world.insert_resource(Score::default());
        world.spawn((Player(0), Pos(200, 200)));
        world.spawn((Player(1), Pos(800, 800)));
        world.spawn_batch((0..200).map(|i| (Pos((i * 53) % ARENA, (i * 97) % ARENA), Vel(0, 0))));
        let mut schedule = Schedule::new();
        schedule
            .add_systems(&mut world, (move_players, push_crates, slide_crates, score_and_spawn).chain())
            .expect("the systems' parameters do not conflict");
        let mut rollback = Rollback::new(&mut world, KEPT);
        rollback
            .register_hashed::<Pos>(&mut world)
            .register_hashed::<Vel>(&mut world)
            .register_hashed::<Player>(&mut world)
            .register_resource_with_checksum::<Score>(&mut world, stable_hash);
        Peer {
            world,
            schedule,
            rollback,
            me,
            known: [BTreeMap::new(), BTreeMap::new()],
            used: BTreeMap::new(),
            settled: BTreeMap::new(),
            rollbacks: 0,
            resimulated: 0,
            deepest: 0,
        }
    }

    /// The inputs frame `frame` runs with: those known, else the last known (a
    /// prediction).
    fn inputs_for(&self, frame: Frame) -> [Input; 2] {
        [0, 1].map(|player| {
            let known = &self.known[player];
            known.get(&frame).or_else(|| known.range(..frame).next_back().map(|(_, i)| i)).copied().unwrap_or_default()
        })
    }

    fn simulate(world: &mut World, schedule: &mut Schedule, frame: Frame, inputs: [Input; 2]) {
        *world.resource_mut::<FrameInputs>().unwrap() = FrameInputs { frame, inputs };
        schedule.run(world);
    }

    /// Receives the other player's input for `frame`; rolls back and simulates again
    /// if the frame ran with another prediction.
    pub fn receive(&mut self, frame: Frame, input: Input) {
        let other = 1 - self.me;
        self.known[other].insert(frame, input);
        let Some(used) = self.used.get(&frame) else { return };
        if used[other] == input {
            self.settle();
            return;
        }
        // Frames from `frame` on ran with a wrong prediction: back to the one before.
        let back = frame - 1;
        self.rollbacks += 1;
        self.deepest = self.deepest.max(self.rollback.frame() - back);
        self.resimulated += self.rollback.frame() - back;
        let Peer { world, schedule, rollback, known, used, .. } = self;
        rollback
            .resimulate(world, back, |world, f| {
                let inputs = [0, 1].map(|p| {
                    let k = &known[p];
                    k.get(&f).or_else(|| k.range(..f).next_back().map(|(_, i)| i)).copied().unwrap_or_default()
                });
                used.insert(f, inputs);
                Self::simulate(world, schedule, f, inputs);
            })
            .expect("inputs arrive at most 8 frames late");
        self.settle();
    }

    /// Simulates the next frame with its own input `mine`.
    pub fn advance(&mut self, mine: Input) {
        let frame = self.rollback.frame() + 1;
        self.known[self.me].insert(frame, mine);
        let inputs = self.inputs_for(frame);
        self.used.insert(frame, inputs);
        Self::simulate(&mut self.world, &mut self.schedule, frame, inputs);
        assert_eq!(self.rollback.checkpoint(&self.world), frame);
        self.settle();
    }

    /// Records the checksum of every kept frame whose inputs, and all inputs before
    /// them, are now known: its state can no longer change.
    fn settle(&mut self) {
        for frame in self.rollback.oldest_frame().max(1)..=self.rollback.frame() {
            if !self.known.iter().all(|k| k.contains_key(&frame)) {
                return;
            }
            if !self.settled.contains_key(&frame) {
                self.settled.insert(frame, self.rollback.checksum(frame).expect("a kept frame"));
            }
        }
    }

    /// The score as this peer sees it now.
    pub fn score(&self) -> Score {
        *self.world.resource::<Score>().unwrap()
    }
}

/// What a session of two peers did.
#[derive(Debug)]
pub struct Session {
    /// The two peers, at the end.
    pub peers: [Peer; 2],
    /// Frames both peers settled (every input known) and compared.
    pub compared: usize,
}

/// Plays `frames` frames on two peers whose inputs reach each other 2 to 8 frames
/// late, in random order; panics if the peers' checksums of a settled frame differ.
pub fn play(seed: u64, frames: Frame) -> Session {
    let mut peers = [Peer::new(0), Peer::new(1)];
    // In flight: (arrival tick, to peer, frame, input).
    let mut in_flight: Vec<(Frame, usize, Frame, Input)> = Vec::new();
    let mut lateness = seed | 1;
    for tick in 1..=frames + KEPT as Frame {
        // Deliver what arrives now, in the order it was shuffled into.
        let (now, later): (Vec<_>, Vec<_>) = in_flight.into_iter().partition(|m| m.0 <= tick);
        in_flight = later;
        for (_, to, frame, input) in now {
            peers[to].receive(frame, input);
        }
        if tick > frames {
            continue;
        }
        for (me, peer) in peers.iter_mut().enumerate() {
            let mine = input_of(seed, me, tick);
            peer.advance(mine);
            lateness = lateness.wrapping_mul(0x2545_F491_4F6C_DD1D).rotate_left(17);
            let delay = 2 + lateness % 7; // 2..=8 frames
            let at = in_flight.len().min((lateness >> 32) as usize % (in_flight.len() + 1));
            in_flight.insert(at, (tick + delay, 1 - me, tick, mine));
        }
    }
    let mut compared = 0;
    for (frame, sum) in &peers[0].settled {
        if let Some(other) = peers[1].settled.get(frame) {
            assert_eq!(sum, other, "seed {seed}: the peers disagree at frame {frame}");
            compared += 1;
        }
    }
    Session { peers, compared }
}

impl std::fmt::Debug for Peer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Peer").field("me", &self.me).field("frame", &self.rollback.frame()).finish()
    }
}

fn main() {
    let session = play(7, 600);
    for peer in &session.peers {
        println!(
            "peer {}: {} rollbacks, {} frames simulated again, deepest {} frames; score {:?}; {} entities",
            peer.me,
            peer.rollbacks,
            peer.resimulated,
            peer.deepest,
            peer.score().0,
            peer.world.len()
        );
    }
    println!("{} settled frames compared: every checksum equal", session.compared);
}
