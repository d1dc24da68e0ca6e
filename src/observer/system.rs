//! Observer systems: a function whose first parameter is a [`Trigger`] and whose others
//! are ordinary [`SystemParam`]s, prepared once and run per trigger.

use std::any::Any;
use std::marker::PhantomData;

use crate::component::ComponentId;
use crate::entity::Entity;
use crate::system::{SystemMeta, SystemParam, SystemParamItem};
use crate::world::World;

use super::event::{ObserverEvent, Trigger, TriggerData};

/// A function that can observe `E`: `fn(Trigger<E>, P1, P2, ...)` with up to 11
/// [`SystemParam`]s after the trigger. `Marker` is the function's signature type.
pub trait ObserverFunction<E: ObserverEvent, Marker>: Send + 'static {
    /// The parameters after the trigger, as a tuple.
    type Param: SystemParam;
    /// Calls the function.
    fn call(&mut self, trigger: Trigger<'_, E>, params: SystemParamItem<'_, '_, Self::Param>);
}

macro_rules! impl_observer_function {
    ($($param:ident),*) => {
        impl<E: ObserverEvent, Func, $($param: SystemParam),*> ObserverFunction<E, fn(E, $($param,)*)> for Func
        where
            Func: Send + 'static,
            for<'a> &'a mut Func: FnMut(Trigger<'_, E>, $($param),*)
                + FnMut(Trigger<'_, E>, $(SystemParamItem<'_, '_, $param>),*),
        {
            type Param = ($($param,)*);
            #[allow(non_snake_case, clippy::too_many_arguments, reason = "parameters named after their types")]
            fn call(&mut self, trigger: Trigger<'_, E>, params: SystemParamItem<'_, '_, ($($param,)*)>) {
                // As for systems: a generic function pins the argument types to the
                // items, which lets the compiler pick the right `FnMut` impl.
                fn call_inner<E, $($param),*>(mut f: impl FnMut(Trigger<'_, E>, $($param),*), trigger: Trigger<'_, E>, $($param: $param),*) {
                    f(trigger, $($param),*)
                }
                let ($($param,)*) = params;
                call_inner(self, trigger, $($param),*)
            }
        }
    };
}

crate::util::tuples::for_each_tuple_prefix!(impl_observer_function; A, B, C, D, E1, F, G, H, I, J, K);

/// An observer with its event type erased, as the registry keeps it.
pub(crate) trait AnyObserver: Send + 'static {
    fn name(&self) -> &str;

    /// Runs the observer once. `event` is the sent value for events sent with one.
    fn run(&mut self, world: &mut World, data: &mut TriggerData, event: Option<&dyn Any>);

    /// Runs the observer of a marker event once for each of `entities`, in order, with
    /// `component`; `done` counts the runs that returned (so that after a panic the
    /// caller knows where to go on from).
    fn run_each(&mut self, world: &mut World, entities: &[Entity], component: ComponentId, done: &mut usize);

    /// Moves the commands it queued to the world's hook queue, applied once the
    /// operation under way completes. (A parameter's [`SystemParam::apply`] is not
    /// called: in the middle of an operation it could change the world's structure.
    /// Commands are the only deferred work of ripple's own parameters.)
    fn defer(&mut self, world: &mut World);
}

/// An observer made from an [`ObserverFunction`].
pub(crate) struct ObserverSystem<E, Marker, F: ObserverFunction<E, Marker>>
where
    E: ObserverEvent,
{
    function: F,
    state: <F::Param as SystemParam>::State,
    meta: SystemMeta,
    _marker: PhantomData<fn() -> (E, Marker)>,
}

impl<E: ObserverEvent, Marker: 'static, F: ObserverFunction<E, Marker>> ObserverSystem<E, Marker, F> {
    /// Prepares `function`'s parameters for `world`.
    ///
    /// # Errors
    /// The conflicts between its parameters, each naming the type.
    pub(crate) fn new(function: F, world: &mut World) -> Result<Self, (String, Vec<String>)> {
        let mut meta = SystemMeta::new(crate::system::short_name::<F>());
        let mut state = None;
        if let Err(conflicts) = crate::system::init_params::<F::Param>(&mut state, world, &mut meta) {
            return Err((meta.name().to_string(), conflicts));
        }
        let state = state.expect("initialized");
        Ok(ObserverSystem { function, state, meta, _marker: PhantomData })
    }
}

impl<E: ObserverEvent, Marker: 'static, F: ObserverFunction<E, Marker>> AnyObserver for ObserverSystem<E, Marker, F> {
    fn name(&self) -> &str {
        self.meta.name()
    }

    fn run(&mut self, world: &mut World, data: &mut TriggerData, event: Option<&dyn Any>) {
        let event = match event {
            Some(event) => event.downcast_ref::<E>().expect("ripple: an observer is only sent its own event type"),
            None => E::MARKER.expect("ripple: only marker events are sent without a value"),
        };
        // SAFETY: the world is borrowed exclusively, which covers any access the
        // parameters declared.
        let params = unsafe { F::Param::get(&mut self.state, world, &self.meta) };
        self.function.call(Trigger { event, data }, params);
    }

    fn run_each(&mut self, world: &mut World, entities: &[Entity], component: ComponentId, done: &mut usize) {
        let event = E::MARKER.expect("ripple: only marker events are sent without a value");
        for &entity in entities {
            let mut data = TriggerData::at(Some(entity), Some(component));
            // SAFETY: as in `run`.
            let params = unsafe { F::Param::get(&mut self.state, world, &self.meta) };
            self.function.call(Trigger { event, data: &mut data }, params);
            *done += 1;
        }
    }

    fn defer(&mut self, world: &mut World) {
        F::Param::queue(&mut self.state, &mut world.hook_queue);
    }
}
