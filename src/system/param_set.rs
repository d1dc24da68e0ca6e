//! [`ParamSet`]: parameters that may conflict with each other, handed out one at a
//! time.

use crate::component::ComponentId;
use crate::storage::ArchetypeId;
use crate::world::World;

use super::access::SystemAccess;
use super::param::{EntityCounts, SystemMeta, SystemParam, SystemParamItem};

/// Up to eight system parameters that conflict with each other (two queries writing
/// the same component over entities that may overlap), of which the system uses one
/// at a time: [`p0`](ParamSet::p0), [`p1`](ParamSet::p1), … each borrow the set
/// mutably, so one member's items are gone before another member is taken.
///
/// The members must not conflict with the system's other parameters; among
/// themselves they may. The schedule treats the set as touching everything its
/// members touch.
///
/// Each `pN()` call makes its member afresh; a `Res` or `ResMut` member's `is_changed`,
/// and a `Query` member's change filters, are still relative to the system's previous
/// run, however many times it is handed out in one run (as in bevy_ecs).
///
/// Member types must be `'static`: spell a query's references with `'static`
/// (`Query<&'static mut Health>`); the items still borrow only for the member's use.
///
/// ```
/// use ripple::World;
/// use ripple::query::With;
/// use ripple::schedule::Schedule;
/// use ripple::system::{ParamSet, Query};
/// struct Health(i32);
/// struct Shielded;
///
/// fn regenerate(mut set: ParamSet<(Query<&'static mut Health>, Query<&'static Health, With<Shielded>>)>) {
///     set.p0().for_each_mut(|mut health| health.0 += 1);
///     let shielded_total: i32 = set.p1().iter().map(|health| health.0).sum();
///     assert_eq!(shielded_total, 11);
/// }
///
/// let mut world = World::new();
/// world.spawn((Health(10), Shielded));
/// world.spawn((Health(5),));
/// let mut schedule = Schedule::new();
/// schedule.add_system(&mut world, regenerate).unwrap();
/// schedule.run(&mut world);
/// ```
pub struct ParamSet<'w, 's, T: SystemParam> {
    state: &'s mut ParamSetState<T::State>,
    world: &'w World,
}

/// What a [`ParamSet`] keeps between runs: each member's state.
#[doc(hidden)]
pub struct ParamSetState<S> {
    params: S,
    /// The system's name, for members' messages.
    meta: SystemMeta,
}

macro_rules! impl_param_set {
    ($($param:ident $index:tt $method:ident),*) => {
        impl<$($param: SystemParam),*> ParamSet<'_, '_, ($($param,)*)> {
            $(
                #[doc = concat!("The member at position ", stringify!($index), ", borrowing the set until it is dropped.")]
                pub fn $method(&mut self) -> SystemParamItem<'_, '_, $param> {
                    // SAFETY: the system holds the union of the members' accesses for
                    // the world's borrow (declared in `init`), and the item borrows the
                    // set mutably, so no other member's item is alive beside it.
                    unsafe { $param::get(&mut self.state.params.$index, self.world, &self.state.meta) }
                }
            )*
        }

        // SAFETY: declares the union of the members' accesses (checked against the
        // system's other parameters) and makes one member at a time through it.
        unsafe impl<$($param: SystemParam),*> SystemParam for ParamSet<'_, '_, ($($param,)*)> {
            type State = ParamSetState<($($param::State,)*)>;
            type Item<'w, 's> = ParamSet<'w, 's, ($($param,)*)>;

            fn init(world: &mut World, meta: &mut SystemMeta) -> Self::State {
                let mut union = SystemAccess::default();
                let params = ($({
                    let mut own = SystemMeta::new(meta.name.clone());
                    let state = $param::init(world, &mut own);
                    for conflict in own.conflicts {
                        meta.refuse(conflict);
                    }
                    union.extend(&own.access);
                    state
                },)*);
                if let Err(conflict) = meta.access.check(&union, std::any::type_name::<Self>()) {
                    meta.refuse(conflict);
                }
                meta.access.extend(&union);
                ParamSetState { params, meta: SystemMeta::new(meta.name.clone()) }
            }
            unsafe fn get<'w, 's>(state: &'s mut Self::State, world: &'w World, _: &SystemMeta) -> Self::Item<'w, 's> {
                $($param::begin_shared_run(&mut state.params.$index);)*
                ParamSet { state, world }
            }
            fn begin_shared_run(state: &mut Self::State) {
                $($param::begin_shared_run(&mut state.params.$index);)*
            }
            const FALLIBLE: bool = false $(|| $param::FALLIBLE)*;
            const DEFERS: bool = false $(|| $param::DEFERS)*;
            fn validate(state: &mut Self::State, world: &World) -> Result<(), String> {
                $($param::validate(&mut state.params.$index, world)?;)*
                Ok(())
            }
            fn apply(state: &mut Self::State, world: &mut World) {
                $($param::apply(&mut state.params.$index, world);)*
            }
            fn queue(state: &mut Self::State, queue: &mut crate::commands::CommandQueue) {
                $($param::queue(&mut state.params.$index, queue);)*
            }
            fn count(state: &mut Self::State, world: &World, counts: &mut EntityCounts) {
                $($param::count(&mut state.params.$index, world, counts);)*
            }
            fn matches(
                state: &mut Self::State,
                world: &World,
                archetype: ArchetypeId,
                has_sparse: &dyn Fn(ComponentId) -> bool,
            ) -> bool {
                false $(|| $param::matches(&mut state.params.$index, world, archetype, has_sparse))*
            }
        }
    };
}

impl_param_set!(P0 0 p0, P1 1 p1);
impl_param_set!(P0 0 p0, P1 1 p1, P2 2 p2);
impl_param_set!(P0 0 p0, P1 1 p1, P2 2 p2, P3 3 p3);
impl_param_set!(P0 0 p0, P1 1 p1, P2 2 p2, P3 3 p3, P4 4 p4);
impl_param_set!(P0 0 p0, P1 1 p1, P2 2 p2, P3 3 p3, P4 4 p4, P5 5 p5);
impl_param_set!(P0 0 p0, P1 1 p1, P2 2 p2, P3 3 p3, P4 4 p4, P5 5 p5, P6 6 p6);
impl_param_set!(P0 0 p0, P1 1 p1, P2 2 p2, P3 3 p3, P4 4 p4, P5 5 p5, P6 6 p6, P7 7 p7);
