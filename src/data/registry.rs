//! [`DataCommands`]: named targets and their methods, run from JSON.

use std::any::{TypeId, type_name};
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::{Mutex, MutexGuard, TryLockError};

use crate::world::World;

use super::error::{BatchError, DataCommandError};
use super::method::{DataMethod, ErasedMethod, PreparedCall, RunFailure};
use super::parse::{MAX_ARGS, RawCommand, for_each_in_batch, parse_command};

/// One registered method.
struct Method {
    params: Vec<&'static str>,
    imp: Box<dyn ErasedMethod>,
}

/// One registered target: an API type published on the world as a resource.
struct Target {
    api: &'static str,
    api_type: TypeId,
    methods: HashMap<String, Method>,
}

/// A registry of named targets and methods that data — a level file, a console, a
/// network message — can call: `["gui", "set_level_complete", true]` or
/// `["health", "apply_damage", "3v1", 10]`.
///
/// A target is an API type published on the world (see
/// [`World::publish_api`](crate::World::publish_api)); its methods are plain Rust
/// functions `fn(&mut Api, T1, .., Tn)` whose parameters serde reads from the JSON
/// arguments. Entities are written as their bits or as `"<index>v<generation>"`; a
/// parameter of type `Entity` must name a live one (entities nested in other types —
/// `Option<Entity>`, `Vec<Entity>` — are read but not checked).
///
/// A batch is all-or-nothing as long as methods do not panic: every command's
/// arguments are read and checked once, before the first command runs, and each runs
/// with the values that were checked.
///
/// Bad data is refused with a [`DataCommandError`] that says what was expected, and
/// changes nothing; a batch either applies entirely or reports its first bad command.
///
/// ```
/// use ripple::World;
/// use ripple::data::DataCommands;
/// #[derive(Default)]
/// struct Gui { level_complete: bool }
/// impl Gui {
///     fn set_level_complete(&mut self, complete: bool) { self.level_complete = complete; }
/// }
///
/// let mut registry = DataCommands::new();
/// registry.target::<Gui>("gui").method("set_level_complete", Gui::set_level_complete);
/// let mut world = World::new();
/// world.publish_api(Gui::default());
/// registry.run(&mut world, r#"["gui", "set_level_complete", true]"#).unwrap();
/// assert!(world.api::<Gui>().unwrap().level_complete);
///
/// let error = registry.run(&mut world, r#"["gui", "set_level_complete", "yes"]"#).unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "argument 0 of `gui.set_level_complete` should be bool: invalid type: string \"yes\", expected a boolean"
/// );
/// ```
#[derive(Default)]
pub struct DataCommands {
    targets: HashMap<String, Target>,
    /// Held by the batch whose values wait in the methods' queues of staged calls.
    batch: Mutex<()>,
}

/// A batch's hold on the methods' queues of staged calls (see
/// [`DataCommands::run_batch`]); empties them when dropped, so a refused batch or a
/// panicking method leaves no values behind for the next batch.
struct StagedQueues<'r> {
    registry: &'r DataCommands,
    /// Set when the batch ran every call it staged, leaving the queues empty.
    emptied: bool,
    _guard: MutexGuard<'r, ()>,
}

impl Drop for StagedQueues<'_> {
    fn drop(&mut self) {
        if self.emptied {
            return;
        }
        for target in self.registry.targets.values() {
            for method in target.methods.values() {
                method.imp.clear_staged();
            }
        }
    }
}

impl std::fmt::Debug for DataCommands {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DataCommands").field("targets", &self.target_names()).finish()
    }
}

/// Adds methods to one target (made by [`DataCommands::target`]).
pub struct TargetBuilder<'r, A> {
    target: &'r mut Target,
    _api: PhantomData<fn(A)>,
}

impl<A: Send + Sync + 'static> TargetBuilder<'_, A> {
    /// Registers `function` under `name`; a method of that name is replaced.
    ///
    /// # Panics
    /// If `function` takes more than 8 parameters after the API.
    pub fn method<P>(&mut self, name: &str, function: impl DataMethod<A, P>) -> &mut Self {
        fn params<A, P, F: DataMethod<A, P>>(_: &F) -> Vec<&'static str> {
            F::param_types()
        }
        let params = params(&function);
        assert!(params.len() <= MAX_ARGS, "data methods take at most {MAX_ARGS} parameters");
        self.target.methods.insert(name.to_owned(), Method { params, imp: function.into_method().0 });
        self
    }
}

impl DataCommands {
    /// An empty registry.
    pub fn new() -> Self {
        DataCommands::default()
    }

    /// The target `name`, calling methods of the API `A`; registers it if new.
    ///
    /// # Panics
    /// If `name` is already registered for another API type.
    pub fn target<A: Send + Sync + 'static>(&mut self, name: &str) -> TargetBuilder<'_, A> {
        let target = self.targets.entry(name.to_owned()).or_insert_with(|| Target {
            api: type_name::<A>(),
            api_type: TypeId::of::<A>(),
            methods: HashMap::new(),
        });
        assert!(
            target.api_type == TypeId::of::<A>(),
            "target `{name}` is registered for `{}`, not `{}`",
            target.api,
            type_name::<A>()
        );
        TargetBuilder { target, _api: PhantomData }
    }

    /// The registered target names, sorted.
    pub fn target_names(&self) -> Vec<String> {
        let mut names: Vec<_> = self.targets.keys().cloned().collect();
        names.sort();
        names
    }

    /// Runs one command, such as `["health", "apply_damage", "3v1", 10]`.
    ///
    /// # Errors
    /// A [`DataCommandError`] saying what was expected; the world is unchanged.
    pub fn run(&self, world: &mut World, json: impl AsRef<[u8]>) -> Result<(), DataCommandError> {
        let command = parse_command(json.as_ref())?;
        let method = self.resolve(&command)?;
        method.imp.run(world, &command).map_err(|failure| self.explain(&command, failure))
    }

    /// Checks one command as [`run`](Self::run) would, changing nothing.
    ///
    /// # Errors
    /// What `run` would return.
    pub fn check(&self, world: &World, json: impl AsRef<[u8]>) -> Result<(), DataCommandError> {
        let command = parse_command(json.as_ref())?;
        let method = self.resolve(&command)?;
        method.imp.check(world, &command).map_err(|failure| self.explain(&command, failure))
    }

    /// Runs a batch — a JSON array of commands, as a level file holds — in order, all
    /// or none: every command's arguments are read and checked, once, before the first
    /// runs, and each runs with the values checked. Returns how many ran. If a method
    /// panics, the commands before it have run and the rest have not; the registry is
    /// left ready for the next batch. Steady batches allocate nothing.
    ///
    /// # Errors
    /// A [`BatchError`] with the index of the first bad command (or none, if the batch
    /// itself is malformed); no command was run.
    pub fn run_batch(&self, world: &mut World, json: impl AsRef<[u8]>) -> Result<usize, BatchError> {
        let json = json.as_ref();
        let Some(mut queues) = self.take_queues() else {
            // A batch already runs on this registry (a method ran another, or another
            // thread): keep this one's values apart, in calls of their own.
            return self.run_batch_prepared(world, json);
        };
        let mut count = 0;
        for_each_in_batch(json, |_, command| {
            count += 1;
            let method = self.resolve(&command)?;
            method.imp.stage(world, &command).map_err(|failure| self.explain(&command, failure))
        })
        .map_err(|(index, error)| BatchError { index, error })?;
        // Methods reach only their API, never the world's entities or resources, so
        // what was checked above still holds for every command below. Only the names
        // are read again (to find each command's method); arguments are not.
        for_each_in_batch(json, |_, command| {
            let method = self.resolve(&command)?;
            method.imp.run_staged(world).map_err(|failure| self.explain(&command, failure))
        })
        .map_err(|(index, error)| BatchError { index, error })?;
        queues.emptied = true;
        Ok(count)
    }

    /// Checks a batch as [`run_batch`](Self::run_batch) would, running nothing;
    /// returns how many commands it holds.
    ///
    /// # Errors
    /// What `run_batch` would return.
    pub fn check_batch(&self, world: &World, json: impl AsRef<[u8]>) -> Result<usize, BatchError> {
        let mut count = 0;
        for_each_in_batch(json.as_ref(), |_, command| {
            count += 1;
            let method = self.resolve(&command)?;
            method.imp.check(world, &command).map_err(|failure| self.explain(&command, failure))
        })
        .map_err(|(index, error)| BatchError { index, error })?;
        Ok(count)
    }

    /// `run_batch` with each command's values kept in a call of its own (allocated):
    /// for a batch run while another holds the registry's queues.
    fn run_batch_prepared(&self, world: &mut World, json: &[u8]) -> Result<usize, BatchError> {
        let mut calls = Vec::new();
        for_each_in_batch(json, |_, command| {
            let call = self.prepare(world, &command)?;
            calls.push((command.target, command.method, call));
            Ok(())
        })
        .map_err(|(index, error)| BatchError { index, error })?;
        let count = calls.len();
        for (index, (target, method, call)) in calls.into_iter().enumerate() {
            call(world).map_err(|failure| BatchError {
                index: Some(index),
                error: self.explain_names(&target, &method, failure),
            })?;
        }
        Ok(count)
    }

    /// The right to stage calls in the methods' queues, for one batch; `None` while
    /// another batch holds it. Released (and every queue emptied) when dropped, also
    /// when a method panics or the batch is refused part-way.
    fn take_queues(&self) -> Option<StagedQueues<'_>> {
        let guard = match self.batch.try_lock() {
            Ok(guard) => guard,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => return None,
        };
        Some(StagedQueues { registry: self, emptied: false, _guard: guard })
    }

    /// Resolves a command and reads its arguments, once: the call runs the method with
    /// the values read.
    fn prepare<'m>(&'m self, world: &World, command: &RawCommand<'_>) -> Result<PreparedCall<'m>, DataCommandError> {
        let method = self.resolve(command)?;
        method.imp.prepare(world, command).map_err(|failure| self.explain(command, failure))
    }

    /// The method a command names, with the right number of arguments.
    fn resolve(&self, command: &RawCommand<'_>) -> Result<&Method, DataCommandError> {
        let target = self.targets.get(&*command.target).ok_or_else(|| DataCommandError::UnknownTarget {
            target: command.target.clone().into_owned(),
            known: self.target_names(),
        })?;
        let method = target.methods.get(&*command.method).ok_or_else(|| {
            let mut known: Vec<_> = target.methods.keys().cloned().collect();
            known.sort();
            DataCommandError::UnknownMethod {
                target: command.target.clone().into_owned(),
                method: command.method.clone().into_owned(),
                known,
            }
        })?;
        if method.params.len() != command.arg_count {
            return Err(DataCommandError::WrongArity {
                target: command.target.clone().into_owned(),
                method: command.method.clone().into_owned(),
                expected: method.params.clone(),
                got: command.arg_count,
            });
        }
        Ok(method)
    }

    fn explain(&self, command: &RawCommand<'_>, failure: RunFailure) -> DataCommandError {
        self.explain_names(&command.target, &command.method, failure)
    }

    fn explain_names(&self, target: &str, method: &str, failure: RunFailure) -> DataCommandError {
        match failure {
            RunFailure::Argument(arg) => DataCommandError::BadArgument {
                target: target.to_owned(),
                method: method.to_owned(),
                index: arg.index,
                expected: arg.expected,
                message: arg.message,
            },
            RunFailure::NotPublished => DataCommandError::NotPublished {
                api: self.targets.get(target).map_or("(unknown)", |t| t.api),
                target: target.to_owned(),
            },
        }
    }
}
