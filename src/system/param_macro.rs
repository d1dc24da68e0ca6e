//! [`system_param!`](crate::system_param): a struct of system parameters that is a
//! system parameter itself, bevy_ecs's `#[derive(SystemParam)]` written as a macro
//! (ripple has no procedural macros).

/// Declares a struct whose fields are system parameters and makes it a system
/// parameter: bevy_ecs's `#[derive(SystemParam)]`. Write the struct as bevy_ecs
/// does, with lifetimes `<'w, 's>` (or `<'w>`), inside the macro:
///
/// ```
/// use ripple::World;
/// use ripple::schedule::Schedule;
/// use ripple::system::{Query, ResMut};
/// struct Player;
/// #[derive(Default)]
/// struct PlayerCount(usize);
///
/// ripple::system_param! {
///     /// Counts players.
///     struct PlayerCounter<'w, 's> {
///         players: Query<'w, 's, &'static Player>,
///         count: ResMut<'w, PlayerCount>,
///     }
/// }
///
/// impl PlayerCounter<'_, '_> {
///     fn count(&mut self) {
///         self.count.0 = self.players.iter().len();
///     }
/// }
///
/// let mut world = World::new();
/// world.init_resource::<PlayerCount>();
/// world.spawn((Player,));
/// world.spawn((Player,));
/// let mut schedule = Schedule::new();
/// schedule.add_systems(&mut world, |mut counter: PlayerCounter| counter.count()).unwrap();
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<PlayerCount>().unwrap().0, 2);
/// ```
///
/// The struct's access is its fields' together (a conflict among them is refused as
/// a system's own would be); it validates, defers and applies as its fields do. Each
/// field's type must be a parameter whose item for other lifetimes is itself with
/// those lifetimes, as every ripple parameter is. Up to 12 fields.
#[macro_export]
macro_rules! system_param {
    (
        $(#[$meta:meta])* $vis:vis struct $name:ident<$w:lifetime, $s:lifetime> {
            $($(#[$field_meta:meta])* $field_vis:vis $field:ident : $ty:ty),* $(,)?
        }
    ) => {
        $(#[$meta])* $vis struct $name<$w, $s> { $($(#[$field_meta])* $field_vis $field: $ty),* }
        const _: () = {
            type Fields<$w, $s> = ($($ty,)*);
            $crate::system_param!(@impl $name, Fields<'static, 'static>, [$($field),*], <'__w, '__s>);
        };
    };
    (
        $(#[$meta:meta])* $vis:vis struct $name:ident<$w:lifetime> {
            $($(#[$field_meta:meta])* $field_vis:vis $field:ident : $ty:ty),* $(,)?
        }
    ) => {
        $(#[$meta])* $vis struct $name<$w> { $($(#[$field_meta])* $field_vis $field: $ty),* }
        const _: () = {
            type Fields<$w> = ($($ty,)*);
            $crate::system_param!(@impl $name, Fields<'static>, [$($field),*], <'__w>);
        };
    };
    (@impl $name:ident, $fields:ty, [$($field:ident),*], <$($lt:lifetime),*>) => {
        // SAFETY: declares, makes, validates and applies exactly what the tuple of its
        // fields' types does, and hands its items out as the fields.
        unsafe impl<$($lt),*> $crate::system::SystemParam for $name<$($lt),*> {
            type State = <$fields as $crate::system::SystemParam>::State;
            type Item<'__iw, '__is> = $crate::system_param!(@item $name, <$($lt),*>, '__iw, '__is);

            fn init(world: &mut $crate::World, meta: &mut $crate::system::SystemMeta) -> Self::State {
                <$fields as $crate::system::SystemParam>::init(world, meta)
            }
            unsafe fn get<'__iw, '__is>(
                state: &'__is mut Self::State,
                world: &'__iw $crate::World,
                meta: &$crate::system::SystemMeta,
            ) -> Self::Item<'__iw, '__is> {
                // SAFETY: forwarded to the fields' tuple, which declared this access.
                let ($($field,)*) = unsafe { <$fields as $crate::system::SystemParam>::get(state, world, meta) };
                $name { $($field),* }
            }
            fn apply(state: &mut Self::State, world: &mut $crate::World) {
                <$fields as $crate::system::SystemParam>::apply(state, world)
            }
            const FALLIBLE: bool = <$fields as $crate::system::SystemParam>::FALLIBLE;
            const DEFERS: bool = <$fields as $crate::system::SystemParam>::DEFERS;
            fn validate(state: &mut Self::State, world: &$crate::World) -> Result<(), String> {
                <$fields as $crate::system::SystemParam>::validate(state, world)
            }
            fn begin_shared_run(state: &mut Self::State) {
                <$fields as $crate::system::SystemParam>::begin_shared_run(state)
            }
            fn queue(state: &mut Self::State, queue: &mut $crate::CommandQueue) {
                <$fields as $crate::system::SystemParam>::queue(state, queue)
            }
            fn count(state: &mut Self::State, world: &$crate::World, counts: &mut $crate::system::EntityCounts) {
                <$fields as $crate::system::SystemParam>::count(state, world, counts)
            }
            fn matches(
                state: &mut Self::State,
                world: &$crate::World,
                archetype: $crate::ArchetypeId,
                has_sparse: &dyn Fn($crate::ComponentId) -> bool,
            ) -> bool {
                <$fields as $crate::system::SystemParam>::matches(state, world, archetype, has_sparse)
            }
        }
    };
    (@item $name:ident, <$w:lifetime, $s:lifetime>, $iw:lifetime, $is:lifetime) => { $name<$iw, $is> };
    (@item $name:ident, <$w:lifetime>, $iw:lifetime, $is:lifetime) => { $name<$iw> };
}
