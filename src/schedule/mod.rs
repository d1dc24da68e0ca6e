//! The [`Schedule`]: systems in named phases, ordered explicitly, run in parallel
//! where their declared access allows, with a sync point after each phase.

mod add_system;
mod ambiguity;
mod clock;
mod config;
mod error;
mod failures;
mod group;
mod membership;
mod nesting;
mod node;
mod order;
mod plan;
mod profiler;
mod run_lists;
mod run_slot;
mod set_group;
mod set_slot;
mod sets;
mod skipped;
mod system_id;
mod tentative;

use std::borrow::Cow;
use std::sync::atomic::Ordering;

use crate::change::Move;
use crate::change::log::Cursor;
use crate::system::{Condition, System, SystemAccess};
use crate::world::{World, WorldId};

pub use ambiguity::Ambiguity;
pub use config::{IntoSystemConfig, SystemConfig, SystemRef};
pub use error::ScheduleError;
pub use group::{IntoSystemGroup, IntoSystems, ManySystems, OneSystem, SystemGroup};
pub use profiler::{DEFAULT_EVERY as PROFILE_EVERY, ReportRow, SystemStats};
pub use set_group::{IntoSetGroup, SetGroup};
pub use sets::SetConfig;
pub use system_id::SystemId;

use crate::system::SystemError;
use config::{EntityCallback, WorldCallback};
use failures::SystemErrors;
pub use failures::{ErrorHandler, MAX_SYSTEM_ERRORS};
use membership::{Membership, MembershipScratch};
use node::Node;
use plan::{PhaseGraph, Plan};
use profiler::{Profiler, TraceEvent};
use run_lists::{RunLists, StageEstimate};
use run_slot::{SlotPtr, run_exclusive, run_parallel, run_shared};
use set_slot::SetSlot;
use skipped::SkippedRuns;
pub use skipped::{MAX_SKIPPED_RUNS, SkippedRun};

/// The first phase of the default schedule.
pub const PRE_UPDATE: &str = "PreUpdate";
/// The middle phase of the default schedule, where systems go unless told otherwise.
pub const UPDATE: &str = "Update";
/// The last phase of the default schedule.
pub const POST_UPDATE: &str = "PostUpdate";

/// One system and everything the schedule keeps for it.
pub(crate) struct Slot {
    system: Box<dyn System>,
    phase: usize,
    enabled: bool,
    /// The sets it was put in, by index.
    direct_sets: Vec<usize>,
    /// Every set it is in: its own and the sets they are in, directly or not.
    sets: Vec<usize>,
    /// Its own run conditions.
    conditions: Vec<Condition>,
    /// What it conflicts with in an order that does not matter (left out of
    /// ambiguity reports).
    ambiguous_with: Vec<SystemRef>,
    /// What the system and every condition that decides whether it runs (its own and
    /// its sets') touch: what planning keeps apart.
    access: SystemAccess,
    stats: SystemStats,
    /// Runs left before the profiler measures one.
    until_measured: u32,
    trace: Vec<TraceEvent>,
    on_removed: Option<WorldCallback>,
    on_enter: Option<EntityCallback>,
    on_exit: Option<EntityCallback>,
    /// Cursor into the world's structural-change log, for the entity callbacks.
    watch: Option<Cursor>,
    /// Whether its parameters can fail to be made (asked before each run).
    validates: bool,
    /// Whether it can return an error (asked at each sync point).
    can_fail: bool,
    /// Whether it can defer something (called at each sync point).
    defers: bool,
}

struct Phase {
    name: Cow<'static, str>,
    /// Members in insertion order.
    members: Vec<SystemId>,
    plan: Plan,
    /// The plan resolved to slots.
    lists: RunLists,
}

/// Systems in phases, run in order, in parallel where their access allows.
///
/// - **Phases** run in order (by default `PreUpdate`, `Update`, `PostUpdate`). Each
///   ends in a **sync point**: deferred commands are applied in the phase's run
///   order, then entity enter/exit callbacks run, then messages sent since the last
///   sync point are delivered ([`World::deliver_messages`]).
/// - **Messages** a system writes are also delivered as its stage ends, so every system
///   ordered after it in the same run reads them (a message type under a merge policy
///   waits for the phase's sync point, where merging completes); messages written
///   between runs are delivered as the next run starts.
/// - **Order** within a phase comes from `before`/`after` constraints (by name or by
///   handle); a cycle is refused, listing it. Conflicting systems with no order
///   between them run in insertion order; the others run in parallel on rayon. The
///   single-threaded mode runs the same order on the calling thread and gives the
///   same results.
/// - Between runs, systems can be **added, removed, enabled and disabled**. A
///   disabled system's queries do not run, so when it is enabled again its change
///   filters, dirty sets and removal readers report everything it missed, once.
///   Removing a system keeps the order that ran through it.
/// - Each system is **profiled**: last, mean and max duration and the entities its
///   queries matched and processed ([`report`](Self::report)), and optionally a
///   Chrome trace ([`chrome_trace`](Self::chrome_trace)). The profile is a sample: a
///   system's first run and then one run in [`PROFILE_EVERY`]
///   are measured (every run of a system whose runs take 20 µs or more, and every run
///   while a trace is recorded), so that profiling costs a cheap system about 1 ns a
///   run rather than the 50–70 ns of reading the clock twice
///   ([`set_profile_every`](Self::set_profile_every) changes the rate).
///
/// A system that panics makes [`run`](Self::run) panic after the systems running
/// beside it finish; the world and the schedule stay usable, and the panicking
/// phase's commands are applied at the next sync point. The panicking system's
/// queries keep their memory from before the failed run, so it sees again, on its next
/// run, the changes that run had not finished.
///
/// ```
/// use ripple::{Commands, World};
/// use ripple::schedule::{IntoSystemConfig, Schedule};
/// use ripple::system::{Query, Res};
/// struct Gravity(f32);
/// struct Height(f32);
///
/// fn fall(gravity: Res<Gravity>, mut bodies: Query<&mut Height>) {
///     bodies.for_each_mut(|mut h| h.0 -= gravity.0);
/// }
/// fn land(mut commands: Commands, mut bodies: Query<(ripple::Entity, &Height)>) {
///     bodies.for_each(|(e, h)| if h.0 <= 0.0 { commands.despawn(e) });
/// }
///
/// let mut world = World::new();
/// world.insert_resource(Gravity(1.0));
/// world.spawn((Height(2.0),));
/// let mut schedule = Schedule::new();
/// schedule.add_system(&mut world, fall).unwrap();
/// schedule.add_system(&mut world, land.after("fall")).unwrap();
/// schedule.run(&mut world);
/// assert_eq!(world.len(), 1);
/// schedule.run(&mut world);
/// assert_eq!(world.len(), 0);
/// ```
pub struct Schedule {
    phases: Vec<Phase>,
    slots: Vec<Option<Slot>>,
    sets: Vec<SetSlot>,
    /// Explicit order between systems and sets: (first, second).
    edges: Vec<(Node, Node)>,
    plans_stale: bool,
    single_threaded: bool,
    profiler: Profiler,
    world: Option<WorldId>,
    /// Reused per stage: the enabled slots to run.
    scratch: Vec<SlotPtr>,
    /// Reused per sync point: structural changes to judge entity callbacks by.
    moves: Vec<Move>,
    /// Reused to decide which moves an entity callback hears about.
    membership: MembershipScratch,
    /// Runs skipped because a system's parameters could not be made.
    skipped: SkippedRuns,
    /// Errors systems returned.
    errors: SystemErrors,
}

impl Default for Schedule {
    fn default() -> Self {
        Schedule::new()
    }
}

impl std::fmt::Debug for Schedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let phases: Vec<&str> = self.phases.iter().map(|p| &*p.name).collect();
        f.debug_struct("Schedule")
            .field("phases", &phases)
            .field("systems", &self.slots.iter().flatten().count())
            .field("single_threaded", &self.single_threaded)
            .finish_non_exhaustive()
    }
}

impl Schedule {
    /// A schedule with the phases `PreUpdate`, `Update` and `PostUpdate`.
    pub fn new() -> Self {
        Schedule::with_phases([PRE_UPDATE, UPDATE, POST_UPDATE])
    }

    /// A schedule with the given phases, run in this order.
    ///
    /// # Panics
    /// If a phase name repeats.
    pub fn with_phases<P: Into<Cow<'static, str>>>(phases: impl IntoIterator<Item = P>) -> Self {
        let mut names: Vec<Cow<'static, str>> = Vec::new();
        for phase in phases {
            let phase = phase.into();
            assert!(!names.contains(&phase), "phase `{phase}` is listed twice");
            names.push(phase);
        }
        Schedule {
            phases: names
                .into_iter()
                .map(|name| Phase { name, members: Vec::new(), plan: Plan::default(), lists: RunLists::default() })
                .collect(),
            slots: Vec::new(),
            sets: Vec::new(),
            edges: Vec::new(),
            plans_stale: false,
            single_threaded: false,
            profiler: Profiler::default(),
            world: None,
            scratch: Vec::new(),
            moves: Vec::new(),
            membership: MembershipScratch::default(),
            skipped: SkippedRuns::default(),
            errors: SystemErrors::default(),
        }
    }

    /// Takes the errors systems returned since the last call (systems returning
    /// `Result`), oldest first: at most the last [`MAX_SYSTEM_ERRORS`]. A failed run is
    /// like any other: its commands apply, and the system runs again next time. The
    /// errors also end the [`report`](Self::report) until taken. With an
    /// [error handler](Self::set_error_handler) set, errors go to it instead.
    ///
    /// ```
    /// use ripple::World;
    /// use ripple::schedule::Schedule;
    /// use ripple::system::{Res, SystemResult};
    /// struct Input(String);
    /// fn parse(input: Res<Input>) -> SystemResult {
    ///     let _: u32 = input.0.parse()?;
    ///     Ok(())
    /// }
    /// let mut world = World::new();
    /// world.insert_resource(Input("twelve".into()));
    /// let mut schedule = Schedule::new();
    /// schedule.add_system(&mut world, parse).unwrap();
    /// schedule.run(&mut world);
    /// let errors = schedule.take_system_errors();
    /// assert_eq!(errors[0].system, "parse");
    /// assert!(errors[0].error.to_string().contains("invalid digit"));
    /// ```
    pub fn take_system_errors(&mut self) -> Vec<SystemError> {
        std::mem::take(&mut self.errors.kept)
    }

    /// How many errors systems returned in the schedule's lifetime.
    pub fn system_error_count(&self) -> u64 {
        self.errors.count
    }

    /// Sends every error a system returns to `handler` (at the sync point ending the
    /// system's phase, in the phase's run order) instead of keeping it; bevy_ecs's
    /// default, a panic, is `|error| panic!("{error}")`. A handler that panics stops
    /// nothing: the sync point completes (every command applied, events delivered),
    /// then the panic continues from [`run`](Self::run).
    pub fn set_error_handler(&mut self, handler: impl FnMut(SystemError) + Send + 'static) {
        self.errors.handler = Some(Box::new(handler));
    }

    /// Goes back to keeping errors for [`take_system_errors`](Self::take_system_errors).
    pub fn clear_error_handler(&mut self) {
        self.errors.handler = None;
    }

    /// Takes the runs skipped since the last call because a system's parameters could
    /// not be made (a resource it takes as `Res` or `ResMut` was missing), oldest
    /// first: at most the last [`MAX_SKIPPED_RUNS`]. A skipped system is treated like
    /// one whose run condition failed: its queries keep their memory.
    ///
    /// ```
    /// use ripple::World;
    /// use ripple::schedule::Schedule;
    /// use ripple::system::Res;
    /// struct Config(u32);
    /// let mut world = World::new();
    /// let mut schedule = Schedule::new();
    /// schedule.add_system(&mut world, |config: Res<Config>| println!("{}", config.0)).unwrap();
    /// schedule.run(&mut world); // no Config yet: skipped, not a panic
    /// let skipped = schedule.take_skipped_runs();
    /// assert!(skipped[0].reason.contains("Config"));
    /// ```
    pub fn take_skipped_runs(&mut self) -> Vec<SkippedRun> {
        std::mem::take(&mut self.skipped.runs)
    }

    /// How many runs were skipped in the schedule's lifetime (see
    /// [`take_skipped_runs`](Self::take_skipped_runs)).
    pub fn skipped_run_count(&self) -> u64 {
        self.skipped.count
    }

    /// Panic when a system's parameters cannot be made (`true`), naming the system and
    /// what is missing, instead of skipping it (`false`, the default, as bevy_ecs's
    /// parameter validation does).
    pub fn set_panic_on_invalid_params(&mut self, panic: bool) {
        self.skipped.panic = panic;
    }

    /// Runs every system on the calling thread, in the same order a parallel run
    /// respects (`true`), or lets non-conflicting systems run in parallel (`false`,
    /// the default).
    pub fn set_single_threaded(&mut self, single_threaded: bool) {
        self.single_threaded = single_threaded;
    }

    /// Turns timing and entity counting on (the default) or off. On
    /// `wasm32-unknown-unknown`, which has no clock, profiling is off and stays off.
    pub fn set_profiling(&mut self, enabled: bool) {
        self.profiler.set_enabled(enabled);
    }

    /// Measures one run in `every` of each system ([`PROFILE_EVERY`], 64, by default;
    /// 1 measures every run, 0 is taken as 1). A system's first run is always
    /// measured, and so is every run after a measured run of 20 µs or more and every
    /// run while a trace is recorded. A measured run costs about 50–70 ns (two clock
    /// reads and the entity counts), an unmeasured one a counter.
    pub fn set_profile_every(&mut self, every: u32) {
        self.profiler.set_every(every);
        // Each system's next run is measured and starts the new rate.
        for slot in self.slots.iter_mut().flatten() {
            slot.until_measured = 0;
        }
    }

    /// Starts (or stops) recording one trace event per system run for
    /// [`chrome_trace`](Self::chrome_trace). Recording allocates as events accumulate.
    /// Event times count from the first call that turns recording on.
    pub fn record_trace(&mut self, enabled: bool) {
        self.profiler.set_tracing(enabled);
    }

    /// Removes a system: applies the commands it still has queued, then calls its
    /// `on_removed` callback.
    ///
    /// Every order that ran through the removed system is kept: the systems it had to
    /// follow still run before the systems that had to follow it (with `a`, `b` after
    /// `a` and `c` after `b`, removing `b` leaves `c` after `a`).
    ///
    /// # Errors
    /// [`ScheduleError::NoSuchSystem`] if it was already removed (or never added);
    /// [`ScheduleError::WrongWorld`] for another world.
    pub fn remove_system(&mut self, world: &mut World, id: SystemId) -> Result<(), ScheduleError> {
        self.check_world(world)?;
        let slot = self.slots.get_mut(id.0 as usize).and_then(Option::take).ok_or(ScheduleError::NoSuchSystem(id))?;
        self.phases[slot.phase].members.retain(|&m| m != id);
        self.bridge_edges_through(id);
        self.plans_stale = true;
        let mut slot = slot;
        slot.system.apply_deferred(world);
        if let Some(on_removed) = slot.on_removed.take() {
            on_removed(world);
        }
        Ok(())
    }

    /// The handle of the system called `name`.
    pub fn system_id(&self, name: &str) -> Option<SystemId> {
        self.find(name)
    }

    /// A system's profile.
    ///
    /// # Errors
    /// [`ScheduleError::NoSuchSystem`] if it was removed.
    pub fn stats(&self, id: SystemId) -> Result<SystemStats, ScheduleError> {
        Ok(self.slot(id)?.stats)
    }

    /// The systems in run order (phase by phase), with their profiles.
    pub fn report_rows(&mut self) -> Vec<ReportRow<'_>> {
        self.refresh_plans();
        let mut rows = Vec::new();
        for phase in &self.phases {
            for &pos in &phase.plan.order {
                let slot = self.slots[phase.members[pos].0 as usize].as_ref().expect("members exist");
                rows.push(ReportRow {
                    name: slot.system.name(),
                    phase: &phase.name,
                    enabled: slot.enabled,
                    stats: slot.stats,
                });
            }
        }
        rows
    }

    /// The profile as a table: per system, runs, last, mean and max duration, and the
    /// entities matched and processed in the last run.
    pub fn report(&mut self) -> String {
        let mut report = profiler::format_report(&self.report_rows());
        for skipped in &self.skipped.runs {
            report.push_str(&format!("{skipped}\n"));
        }
        for error in &self.errors.kept {
            report.push_str(&format!("{error}\n"));
        }
        report
    }

    /// The recorded system runs as a Chrome trace-event JSON document (one complete
    /// event per run; opens in Perfetto). Start recording with
    /// [`record_trace`](Self::record_trace).
    pub fn chrome_trace(&self) -> String {
        profiler::format_trace(self.phases.iter().flat_map(|phase| {
            phase.members.iter().map(|&id| {
                let slot = self.slots[id.0 as usize].as_ref().expect("members exist");
                (slot.system.name(), &*phase.name, &slot.trace[..])
            })
        }))
    }

    /// Forgets the recorded trace events (keeping their buffers).
    pub fn clear_trace(&mut self) {
        self.slots.iter_mut().flatten().for_each(|slot| slot.trace.clear());
    }

    /// Runs every enabled system once, phase by phase, applying each phase's deferred
    /// commands at its sync point.
    ///
    /// Steady runs allocate nothing, with one exception outside ripple's control: a
    /// stage that runs in parallel, started from a thread outside rayon's pool, enters
    /// the pool through rayon's global queue, which allocates a block per 63 entries.
    /// Run the game loop inside `rayon::ThreadPool::install` to avoid even that.
    ///
    /// # Panics
    /// If a system panics (after the systems running beside it finish), or if
    /// `world` is not the world the schedule's systems were added with.
    pub fn run(&mut self, world: &mut World) {
        if let Err(error) = self.check_world(world) {
            panic!("{error}");
        }
        world.flush_reserved();
        world.maintain_ticks();
        world.deliver_messages_sent_between_runs();
        self.refresh_plans();
        for set in &mut self.sets {
            set.verdict = None;
        }
        for phase in 0..self.phases.len() {
            let stages = self.phases[phase].plan.stages.len();
            for stage in 0..stages {
                self.run_stage(world, phase, stage);
                if stage + 1 < stages {
                    // Systems ordered after this stage's writers read what they sent.
                    world.deliver_stage_messages();
                }
            }
            self.sync_point(world, phase);
        }
    }

    /// Runs one stage: its systems never conflict. On the calling thread when its
    /// last run said other threads are not worth it (the systems then run one after
    /// another as their conditions pass), else in parallel.
    fn run_stage(&mut self, world: &mut World, phase: usize, stage: usize) {
        let Schedule { phases, slots, sets, scratch, profiler, single_threaded, skipped, .. } = self;
        let Phase { plan, lists, .. } = &mut phases[phase];
        let stage_slots = &lists.staged[plan.stages[stage].clone()];
        let profiler = &*profiler;
        let mut estimate = StageEstimate::default();
        if *single_threaded || stage_slots.len() < 2 || !lists.parallel[stage] {
            for &index in stage_slots {
                let slot = slots[index as usize].as_mut().expect("members exist");
                if !slot.enabled {
                    continue;
                }
                estimate.enabled(slot.stats.runs);
                if !should_run(slot, sets, world) || !validated(slot, skipped, world) {
                    continue;
                }
                // The access the plan was made with (the system's, and its conditions'),
                // kept in the slot: no call into the system to ask.
                if slot.access.is_exclusive() {
                    run_exclusive(slot, world, profiler);
                } else {
                    run_shared(slot, world, profiler);
                }
                estimate.ran(slot.stats.last);
            }
        } else {
            scratch.clear();
            let mut exclusive = false;
            for &index in stage_slots {
                let slot = slots[index as usize].as_mut().expect("members exist");
                if !slot.enabled {
                    continue;
                }
                estimate.enabled(slot.stats.runs);
                if should_run(slot, sets, world) && validated(slot, skipped, world) {
                    exclusive |= slot.access.is_exclusive();
                    scratch.push(SlotPtr(slot));
                }
            }
            if exclusive {
                debug_assert_eq!(scratch.len(), 1, "an exclusive system has a stage of its own");
                for &SlotPtr(slot) in scratch.iter() {
                    // SAFETY: `slot` points into `slots`, borrowed mutably here; each slot
                    // of the stage is listed once.
                    let slot = unsafe { &mut *slot };
                    run_exclusive(slot, world, profiler);
                }
            } else {
                run_parallel(scratch, world, profiler);
            }
            for &SlotPtr(slot) in scratch.iter() {
                // SAFETY: as above; the tasks that ran the slots have finished.
                estimate.ran(unsafe { (*slot).stats.last });
            }
        }
        lists.parallel[stage] = estimate.parallel(profiler);
    }

    /// The end of a phase: applies deferred commands in run order, then entity
    /// callbacks.
    fn sync_point(&mut self, world: &mut World, phase: usize) {
        let Schedule { phases, slots, moves, membership, errors, .. } = self;
        let lists = &phases[phase].lists;
        for &index in &lists.sync {
            let slot = slots[index as usize].as_mut().expect("members exist");
            if slot.can_fail
                && let Some(error) = slot.system.take_error()
            {
                errors.record(error);
            }
            if slot.defers {
                slot.system.apply_deferred(world);
            }
        }
        world.flush();
        for &index in &lists.watchers {
            let slot = slots[index as usize].as_mut().expect("members exist");
            let Some(cursor) = &slot.watch else { continue };
            moves.clear();
            moves.extend(world.moves.read(cursor).entries);
            // The cursor stays at the first operation not yet handed to a callback, so
            // that if a callback panics the operations after its own wait for the next
            // sync point (and no append by a callback trims them meanwhile).
            let first = cursor.load(Ordering::Relaxed) - moves.len() as u64;
            // Decided before any callback changes the world.
            membership.decide(&mut *slot.system, world, moves);
            let mut next = 0;
            // One operation's moves: the first, then those joined to it.
            for operation in moves.chunk_by(|_, later| later.joined()) {
                let at = next;
                next += operation.len();
                cursor.store(first + next as u64, Ordering::Relaxed);
                match (membership.decisions[at], &mut slot.on_enter, &mut slot.on_exit) {
                    (Membership::Enter, Some(enter), _) => enter(world, operation[0].entity),
                    (Membership::Exit, _, Some(exit)) => exit(world, operation[0].entity),
                    _ => {}
                }
            }
        }
        // Last, so events sent by commands and entity callbacks are delivered too.
        world.deliver_messages();
        if let Some(panic) = self.errors.panic.take() {
            std::panic::resume_unwind(panic);
        }
    }

    fn refresh_plans(&mut self) {
        if !self.plans_stale {
            return;
        }
        let accesses: Vec<Option<SystemAccess>> =
            self.slots.iter().map(|slot| slot.as_ref().map(|slot| self.planning_access(slot))).collect();
        for (slot, access) in self.slots.iter_mut().zip(accesses) {
            if let (Some(slot), Some(access)) = (slot, access) {
                slot.access = access;
            }
        }
        for phase in 0..self.phases.len() {
            let after = self.phase_after_lists(phase);
            let members = &self.phases[phase].members;
            let slots = &self.slots;
            let access = |pos: usize| &slots[members[pos].0 as usize].as_ref().expect("members exist").access;
            let conflicts = |i: usize, j: usize| access(i).conflicts_with(access(j));
            let plan = plan::plan(&PhaseGraph { after: &after, conflicts: &conflicts });
            let slot_of = |pos: &usize| members[*pos].0;
            let slot = |index: u32| slots[index as usize].as_ref().expect("members exist");
            let lists = RunLists {
                staged: plan.staged.iter().map(slot_of).collect(),
                sync: plan.order.iter().map(slot_of).filter(|&i| slot(i).defers || slot(i).can_fail).collect(),
                watchers: plan.order.iter().map(slot_of).filter(|&i| slot(i).watch.is_some()).collect(),
                parallel: vec![true; plan.stages.len()],
            };
            self.phases[phase].plan = plan;
            self.phases[phase].lists = lists;
        }
        self.plans_stale = false;
    }

    /// After a system or set is enabled: a system may run that never ran, so every
    /// stage runs in parallel again until a run measures it.
    fn forget_stage_estimates(&mut self) {
        for phase in &mut self.phases {
            phase.lists.forget_estimates();
        }
    }

    fn check_world(&mut self, world: &World) -> Result<(), ScheduleError> {
        match self.world {
            Some(id) if id != world.id() => Err(ScheduleError::WrongWorld),
            _ => {
                self.world = Some(world.id());
                Ok(())
            }
        }
    }

    fn slot(&self, id: SystemId) -> Result<&Slot, ScheduleError> {
        self.slots.get(id.0 as usize).and_then(Option::as_ref).ok_or(ScheduleError::NoSuchSystem(id))
    }

    fn slot_mut(&mut self, id: SystemId) -> Result<&mut Slot, ScheduleError> {
        self.slots.get_mut(id.0 as usize).and_then(Option::as_mut).ok_or(ScheduleError::NoSuchSystem(id))
    }

    fn find(&self, name: &str) -> Option<SystemId> {
        self.slots
            .iter()
            .enumerate()
            .find(|(_, slot)| slot.as_ref().is_some_and(|s| s.system.name() == name))
            .map(|(index, _)| SystemId(index as u32))
    }

    fn name_of(&self, id: SystemId) -> String {
        self.slot(id).map_or_else(|_| format!("{id:?}"), |slot| slot.system.name().to_string())
    }

    /// `base`, or `base#2`, `base#3`, … if taken (by a system or a set).
    fn free_name(&self, base: &str) -> Cow<'static, str> {
        let free =
            |name: &str| self.find(name).is_none() && self.find_set(name).is_none_or(|set| self.is_placeholder(set));
        if free(base) {
            return Cow::Owned(base.to_string());
        }
        (2..).map(|n| format!("{base}#{n}")).find(|name| free(name)).expect("some name is free").into()
    }
}

/// Whether an enabled system runs now: its sets are enabled and their conditions
/// hold (evaluated once per schedule run), and its own conditions hold. Every
/// condition is evaluated, even after one failed (as bevy_ecs does), so a condition
/// that watches for a change never keeps one it saw while another condition failed
/// to report it later.
#[inline]
fn should_run(slot: &mut Slot, sets: &mut [SetSlot], world: &World) -> bool {
    let mut run = true;
    for &index in &slot.sets {
        let set = &mut sets[index];
        if !set.enabled {
            return false;
        }
        let verdict = match set.verdict {
            Some(verdict) => verdict,
            None => {
                // SAFETY: the set's conditions were initialized with this world (the
                // schedule's), and no system runs while a stage is being prepared.
                let verdict = unsafe { evaluate_all(&mut set.conditions, world) };
                set.verdict = Some(verdict);
                verdict
            }
        };
        run &= verdict;
    }
    // SAFETY: as above, for the system's own conditions.
    let own = unsafe { evaluate_all(&mut slot.conditions, world) };
    run && own
}

/// Whether a system about to run can make its parameters; if not, the run is
/// recorded as skipped.
#[inline]
fn validated(slot: &mut Slot, skipped: &mut SkippedRuns, world: &World) -> bool {
    if slot.validates
        && let Err(reason) = slot.system.validate(world)
    {
        skipped.skip(slot.system.name(), reason);
        return false;
    }
    true
}

/// Prepares `conditions` for `world`; names `target` (made only on a refusal) and the
/// first condition whose parameters conflict.
fn initialize_conditions(
    conditions: &mut [Condition],
    world: &mut World,
    target: impl FnOnce() -> String,
) -> Result<(), ScheduleError> {
    for condition in conditions {
        if let Err(conflicts) = condition.initialize(world) {
            return Err(ScheduleError::ConflictingConditionParams {
                target: target(),
                condition: condition.name().into_owned(),
                conflicts,
            });
        }
    }
    Ok(())
}

/// Evaluates every one of `conditions` (none is skipped after one fails); whether all
/// hold.
///
/// # Safety
/// As [`Condition::evaluate`], for each.
#[inline]
unsafe fn evaluate_all(conditions: &mut [Condition], world: &World) -> bool {
    let mut all = true;
    for condition in conditions {
        // SAFETY: per the caller.
        all &= unsafe { condition.evaluate(world) };
    }
    all
}
