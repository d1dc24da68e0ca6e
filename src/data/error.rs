//! What can go wrong running a data command, said in terms of what was expected.

use std::fmt;

use crate::util::type_name::short_type_name;

/// Why a data command was refused. Nothing in the world changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DataCommandError {
    /// The input is not a command: not JSON, or not `[target, method, arguments...]`.
    Malformed {
        /// What was wrong, and what a command looks like.
        message: String,
    },
    /// No target is registered under this name.
    UnknownTarget {
        /// The name given.
        target: String,
        /// The registered names, sorted.
        known: Vec<String>,
    },
    /// The target has no method of this name.
    UnknownMethod {
        /// The target.
        target: String,
        /// The name given.
        method: String,
        /// The target's methods, sorted.
        known: Vec<String>,
    },
    /// The method takes a different number of arguments.
    WrongArity {
        /// The target.
        target: String,
        /// The method.
        method: String,
        /// The method's parameter types, in order.
        expected: Vec<&'static str>,
        /// How many arguments were given.
        got: usize,
    },
    /// An argument could not be read as the parameter's type, or names a dead entity.
    BadArgument {
        /// The target.
        target: String,
        /// The method.
        method: String,
        /// The argument's position, from 0.
        index: usize,
        /// The parameter's type.
        expected: &'static str,
        /// What was wrong with it.
        message: String,
    },
    /// The target is registered but the world has no such API published.
    NotPublished {
        /// The target.
        target: String,
        /// The API type that should be a resource of the world.
        api: &'static str,
    },
}

impl fmt::Display for DataCommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataCommandError::Malformed { message } => write!(f, "malformed command: {message}"),
            DataCommandError::UnknownTarget { target, known } if known.is_empty() => {
                write!(f, "unknown target `{target}`; no targets are registered")
            }
            DataCommandError::UnknownTarget { target, known } => {
                write!(f, "unknown target `{target}`; known targets: {}", known.join(", "))
            }
            DataCommandError::UnknownMethod { target, method, known } => {
                write!(f, "target `{target}` has no method `{method}`; its methods: {}", known.join(", "))
            }
            DataCommandError::WrongArity { target, method, expected, got } if expected.is_empty() => {
                write!(f, "`{target}.{method}` takes no arguments, got {got}")
            }
            DataCommandError::WrongArity { target, method, expected, got } => write!(
                f,
                "`{target}.{method}` takes {} argument{} ({}), got {got}",
                expected.len(),
                if expected.len() == 1 { "" } else { "s" },
                expected.iter().map(|t| short_type_name(t)).collect::<Vec<_>>().join(", ")
            ),
            DataCommandError::BadArgument { target, method, index, expected, message } => {
                write!(f, "argument {index} of `{target}.{method}` should be {}: {message}", short_type_name(expected))
            }
            DataCommandError::NotPublished { target, api } => {
                write!(f, "target `{target}` needs the API `{api}`, which is not published on this world")
            }
        }
    }
}

impl std::error::Error for DataCommandError {}

/// A batch of data commands was refused because of one of them; none was applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchError {
    /// The failing command's position in the batch, from 0 (`None`: the batch itself
    /// is malformed).
    pub index: Option<usize>,
    /// What was wrong with it.
    pub error: DataCommandError,
}

impl fmt::Display for BatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.index {
            Some(index) => write!(f, "command {index} of the batch: {}; nothing was applied", self.error),
            None => write!(f, "{}; nothing was applied", self.error),
        }
    }
}

impl std::error::Error for BatchError {}
