//! [`DataCommands`]: named targets and their methods, run from JSON.

use std::any::{TypeId, type_name};
use std::collections::HashMap;
use std::marker::PhantomData;

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
/// use ripple::{DataCommands, World};
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
        let call = self.prepare(world, &command)?;
        call(world).map_err(|failure| self.explain(&command, failure))
    }

    /// Checks one command as [`run`](Self::run) would, changing nothing.
    ///
    /// # Errors
    /// What `run` would return.
    pub fn check(&self, world: &World, json: impl AsRef<[u8]>) -> Result<(), DataCommandError> {
        let command = parse_command(json.as_ref())?;
        self.prepare(world, &command).map(drop)
    }

    /// Runs a batch — a JSON array of commands, as a level file holds — in order, all
    /// or none: every command is checked before the first runs. Returns how many ran.
    ///
    /// # Errors
    /// A [`BatchError`] with the index of the first bad command (or none, if the batch
    /// itself is malformed); no command was run.
    pub fn run_batch(&self, world: &mut World, json: impl AsRef<[u8]>) -> Result<usize, BatchError> {
        let json = json.as_ref();
        let mut calls = Vec::new();
        for_each_in_batch(json, |_, command| {
            let call = self.prepare(world, &command)?;
            calls.push((command.target, command.method, call));
            Ok(())
        })
        .map_err(|(index, error)| BatchError { index, error })?;
        // Methods reach only their API, never the world's entities or resources, so
        // what was checked above still holds for every call below.
        let count = calls.len();
        for (index, (target, method, call)) in calls.into_iter().enumerate() {
            call(world).map_err(|failure| BatchError {
                index: Some(index),
                error: self.explain_names(&target, &method, failure),
            })?;
        }
        Ok(count)
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
