//! [`Res`] and [`ResMut`]: resources as system parameters, with change detection
//! relative to the system's own previous run.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::change::Tick;
use crate::world::World;

use super::param::{SystemMeta, SystemParam};

/// What a resource parameter keeps between runs: when its system last looked,
/// registered with the world so tick maintenance keeps it comparable.
#[doc(hidden)]
pub struct ResState {
    /// The resource's index in the world's resources, kept so a run need not hash its
    /// type.
    index: usize,
    last_run: Arc<AtomicU32>,
    has_run: bool,
    /// Inside a [`ParamSet`](super::ParamSet): the look before this run began, which
    /// every look in the run answers with.
    run_base: Option<Option<Tick>>,
}

impl ResState {
    fn new<T: Send + Sync + 'static>(world: &mut World) -> Self {
        let index = world.resources.index_of::<T>();
        ResState { index, last_run: world.register_change_reader(), has_run: false, run_base: None }
    }

    /// Records a look at `this_run`; returns the previous one (`None` on the first), or,
    /// in a run begun with [`begin_shared_run`](Self::begin_shared_run), the last one
    /// before that run.
    #[inline]
    fn look(&mut self, this_run: Tick) -> Option<Tick> {
        let last = match self.run_base {
            Some(base) => base,
            None => self.has_run.then(|| Tick(self.last_run.load(Ordering::Relaxed))),
        };
        self.last_run.store(this_run.get(), Ordering::Relaxed);
        self.has_run = true;
        last
    }

    /// Starts a run in which the parameter may be made several times.
    fn begin_shared_run(&mut self) {
        self.run_base = Some(self.has_run.then(|| Tick(self.last_run.load(Ordering::Relaxed))));
    }
}

/// Whether `tick` is newer than the system's previous look (always, on its first).
fn is_newer(tick: Tick, last_run: Option<Tick>, this_run: Tick) -> bool {
    last_run.is_none_or(|last| tick.is_newer_than(last, this_run))
}

/// Shared access to resource `T` (a system parameter), knowing whether it was added or
/// changed since this system last ran.
///
/// # Panics
/// The system panics, naming the resource, if the world has no `T` when it runs; take
/// `Option<Res<T>>` for a resource that may be absent.
///
/// ```
/// use ripple::World;
/// use ripple::schedule::Schedule;
/// use ripple::system::{Res, ResMut};
/// struct Volume(u8);
/// #[derive(Default)]
/// struct Applied(u32);
///
/// fn apply_volume(volume: Res<Volume>, mut applied: ResMut<Applied>) {
///     if volume.is_changed() {
///         applied.0 += 1;
///     }
/// }
///
/// let mut world = World::new();
/// world.insert_resource(Volume(5));
/// world.insert_resource(Applied::default());
/// let mut schedule = Schedule::new();
/// schedule.add_system(&mut world, apply_volume).unwrap();
/// schedule.run(&mut world); // first run: everything is new
/// schedule.run(&mut world); // nothing changed
/// world.resource_mut::<Volume>().unwrap().0 = 7;
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Applied>().unwrap().0, 2);
/// ```
pub struct Res<'w, T: Send + Sync + 'static> {
    value: &'w T,
    added: Tick,
    changed: Tick,
    last_run: Option<Tick>,
    this_run: Tick,
}

impl<'w, T: Send + Sync + 'static> Res<'w, T> {
    /// Whether the resource was inserted since this system last ran (or this is the
    /// system's first run).
    pub fn is_added(&self) -> bool {
        is_newer(self.added, self.last_run, self.this_run)
    }

    /// Whether the resource was inserted or written since this system last ran (or
    /// this is the system's first run). A write is a [`ResMut`] dereferenced mutably,
    /// [`World::resource_mut`] or [`World::insert_resource`].
    pub fn is_changed(&self) -> bool {
        is_newer(self.changed, self.last_run, self.this_run)
    }

    /// The reference, for the whole of the world's borrow.
    pub fn into_inner(self) -> &'w T {
        self.value
    }
}

impl<T: Send + Sync + 'static> Deref for Res<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.value
    }
}

/// Whether the world has a `T`, for [`SystemParam::validate`]: the reason if not.
fn require<T: Send + Sync + 'static>(state: &ResState, world: &World) -> Result<(), String> {
    if world.resources.contains_at(state.index) {
        Ok(())
    } else {
        Err(format!("the world has no resource `{}`", std::any::type_name::<T>()))
    }
}

#[inline]
fn get_res<'w, T: Send + Sync + 'static>(state: &mut ResState, world: &'w World) -> Option<Res<'w, T>> {
    let resource = world.resources.get_at::<T>(state.index).ok()?;
    // A reader takes the current tick without advancing it: every write takes a fresh
    // one (`World::fresh_tick`), so it is newer than any look before it.
    let this_run = world.change_tick();
    let last_run = state.look(this_run);
    Some(Res { value: resource.value, added: resource.added, changed: resource.changed, last_run, this_run })
}

// SAFETY: declares a read of `T` and only reads it (and its ticks).
unsafe impl<T: Send + Sync + 'static> SystemParam for Res<'_, T> {
    type State = ResState;
    type Item<'w, 's> = Res<'w, T>;

    /// Only reads (or writes in place): nothing to apply at a sync point.
    const DEFERS: bool = false;
    fn init(world: &mut World, meta: &mut SystemMeta) -> ResState {
        meta.add_resource_access::<T>(false, std::any::type_name::<Self>());
        ResState::new::<T>(world)
    }
    const FALLIBLE: bool = true;
    fn validate(state: &mut ResState, world: &World) -> Result<(), String> {
        require::<T>(state, world)
    }
    fn begin_shared_run(state: &mut ResState) {
        state.begin_shared_run();
    }
    unsafe fn get<'w>(state: &mut ResState, world: &'w World, meta: &SystemMeta) -> Res<'w, T> {
        match get_res(state, world) {
            Some(res) => res,
            None => panic!("system `{}`: the world has no resource `{}`", meta.name, std::any::type_name::<T>()),
        }
    }
}

/// A resource that may be absent: `None` while the world has no `T`, instead of a
/// panic. Declares the same read as [`Res<T>`].
// SAFETY: declares a read of `T` and only reads it.
unsafe impl<T: Send + Sync + 'static> SystemParam for Option<Res<'_, T>> {
    type State = ResState;
    type Item<'w, 's> = Option<Res<'w, T>>;

    /// Only reads (or writes in place): nothing to apply at a sync point.
    const DEFERS: bool = false;
    fn init(world: &mut World, meta: &mut SystemMeta) -> ResState {
        meta.add_resource_access::<T>(false, std::any::type_name::<Self>());
        ResState::new::<T>(world)
    }
    fn begin_shared_run(state: &mut ResState) {
        state.begin_shared_run();
    }
    unsafe fn get<'w>(state: &mut ResState, world: &'w World, _: &SystemMeta) -> Option<Res<'w, T>> {
        get_res(state, world)
    }
}

/// Exclusive access to resource `T` (a system parameter). Dereferencing it mutably
/// counts as a change for [`Res::is_changed`] in other systems.
///
/// # Panics
/// The system panics, naming the resource, if the world has no `T` when it runs; take
/// `Option<ResMut<T>>` for a resource that may be absent.
pub struct ResMut<'w, T: Send + Sync + 'static> {
    value: &'w mut T,
    added: Tick,
    changed: &'w mut Tick,
    last_run: Option<Tick>,
    this_run: Tick,
}

impl<T: Send + Sync + 'static> ResMut<'_, T> {
    /// Whether the resource was inserted since this system last ran (or this is the
    /// system's first run).
    pub fn is_added(&self) -> bool {
        is_newer(self.added, self.last_run, self.this_run)
    }

    /// Whether the resource was written since this system last ran, by anyone else
    /// or by this run (or this is the system's first run). This system's writes in
    /// earlier runs do not count.
    pub fn is_changed(&self) -> bool {
        is_newer(*self.changed, self.last_run, self.this_run)
    }

    /// Writes `value` only if it differs from the current one, so that an unchanged
    /// value is not reported as changed. Returns whether it wrote.
    pub fn set_if_neq(&mut self, value: T) -> bool
    where
        T: PartialEq,
    {
        if *self.value == value {
            return false;
        }
        **self = value;
        true
    }
}

impl<T: Send + Sync + 'static> Deref for ResMut<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.value
    }
}

impl<T: Send + Sync + 'static> DerefMut for ResMut<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        *self.changed = self.this_run;
        self.value
    }
}

/// # Safety
/// The caller holds the declared write of `T` for `'w`.
unsafe fn get_res_mut<'w, T: Send + Sync + 'static>(state: &mut ResState, world: &'w World) -> Option<ResMut<'w, T>> {
    // SAFETY: the declared write of `T` excludes every other access to it for `'w`
    // (caller).
    let resource = unsafe { world.resources.get_mut_unchecked_at::<T>(state.index) }.ok()?;
    // A writer's run takes a fresh tick: its writes are newer than every reader's
    // previous look, and not newer than its own next look.
    let this_run = world.fresh_tick();
    let last_run = state.look(this_run);
    Some(ResMut { value: resource.value, added: resource.added, changed: resource.changed, last_run, this_run })
}

// SAFETY: declares a write of `T` and only touches `T` and its ticks.
unsafe impl<T: Send + Sync + 'static> SystemParam for ResMut<'_, T> {
    type State = ResState;
    type Item<'w, 's> = ResMut<'w, T>;

    /// Only reads (or writes in place): nothing to apply at a sync point.
    const DEFERS: bool = false;
    fn init(world: &mut World, meta: &mut SystemMeta) -> ResState {
        meta.add_resource_access::<T>(true, std::any::type_name::<Self>());
        ResState::new::<T>(world)
    }
    const FALLIBLE: bool = true;
    fn validate(state: &mut ResState, world: &World) -> Result<(), String> {
        require::<T>(state, world)
    }
    fn begin_shared_run(state: &mut ResState) {
        state.begin_shared_run();
    }
    unsafe fn get<'w>(state: &mut ResState, world: &'w World, meta: &SystemMeta) -> ResMut<'w, T> {
        // SAFETY: the caller holds the declared write.
        match unsafe { get_res_mut(state, world) } {
            Some(res) => res,
            None => panic!("system `{}`: the world has no resource `{}`", meta.name, std::any::type_name::<T>()),
        }
    }
}

/// A resource that may be absent, written: `None` while the world has no `T`, instead
/// of a panic. Declares the same write as [`ResMut<T>`].
// SAFETY: declares a write of `T` and only touches `T` and its ticks.
unsafe impl<T: Send + Sync + 'static> SystemParam for Option<ResMut<'_, T>> {
    type State = ResState;
    type Item<'w, 's> = Option<ResMut<'w, T>>;

    /// Only reads (or writes in place): nothing to apply at a sync point.
    const DEFERS: bool = false;
    fn init(world: &mut World, meta: &mut SystemMeta) -> ResState {
        meta.add_resource_access::<T>(true, std::any::type_name::<Self>());
        ResState::new::<T>(world)
    }
    fn begin_shared_run(state: &mut ResState) {
        state.begin_shared_run();
    }
    unsafe fn get<'w>(state: &mut ResState, world: &'w World, _: &SystemMeta) -> Option<ResMut<'w, T>> {
        // SAFETY: the caller holds the declared write.
        unsafe { get_res_mut(state, world) }
    }
}
