//! What a scheduled system may return: `()`, or a `Result` whose error goes to the
//! schedule's error handler.

use std::fmt;

/// The error a system returns: any error type, boxed (`?` converts into it).
///
/// ```
/// use ripple::system::{Res, SystemResult};
/// struct Level(String);
/// fn parse_level(level: Res<Level>) -> SystemResult {
///     let number: u32 = level.0.parse()?; // a ParseIntError becomes a BoxError
///     println!("level {number}");
///     Ok(())
/// }
/// ```
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// What a fallible system returns (bevy_ecs's `Result`).
pub type SystemResult = Result<(), BoxError>;

/// A system's failed run as the schedule reports it: the system and its error.
#[derive(Debug)]
pub struct SystemError {
    /// The system that returned the error.
    pub system: String,
    /// The error it returned.
    pub error: BoxError,
}

impl fmt::Display for SystemError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "system `{}` failed: {}", self.system, self.error)
    }
}

impl std::error::Error for SystemError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.error)
    }
}

/// What a scheduled system may return: `()` or `Result<(), E>` for an error type that
/// converts into [`BoxError`], or `!` for a system that never returns (under edition
/// 2024 a closure that only panics, `|| panic!("must not run")`, returns `!`).
pub trait SystemOutput: 'static {
    /// Whether a value can be an error (false for `()`: the schedule never asks).
    const CAN_FAIL: bool;
    /// The value as a result.
    ///
    /// # Errors
    /// The error the system returned.
    fn into_result(self) -> Result<(), BoxError>;
}

impl SystemOutput for () {
    const CAN_FAIL: bool = false;
    #[inline]
    fn into_result(self) -> Result<(), BoxError> {
        Ok(())
    }
}

impl<E: Into<BoxError> + 'static> SystemOutput for Result<(), E> {
    const CAN_FAIL: bool = true;
    #[inline]
    fn into_result(self) -> Result<(), BoxError> {
        self.map_err(Into::into)
    }
}

/// A system that never returns, as bevy_ecs accepts one.
impl SystemOutput for Never {
    const CAN_FAIL: bool = false;
    #[inline]
    fn into_result(self) -> Result<(), BoxError> {
        self
    }
}

/// The never type `!`, named on stable Rust, where `!` can be written only as a
/// function's return type: the output of a `fn() -> !`, through a trait (the
/// workaround bevy_ecs and the `never_say_never` crate use). Rust's stability promise
/// does not cover naming `!` this way; it is kept to this one impl.
type Never = <fn() -> ! as never::FnOutput>::Output;

mod never {
    /// Names a function pointer's return type (see [`Never`](super::Never)).
    pub trait FnOutput {
        /// The return type.
        type Output;
    }

    impl<R> FnOutput for fn() -> R {
        type Output = R;
    }
}
