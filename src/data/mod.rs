//! Data commands: the world's published APIs, callable by name from data such as a
//! level file, with typed, descriptive errors and all-or-nothing batches.

mod error;
mod method;
mod parse;
mod registry;

pub use error::{BatchError, DataCommandError};
pub use method::DataMethod;
#[doc(hidden)]
pub use method::MethodBox;
pub(crate) use method::without_position;
pub use registry::{DataCommands, TargetBuilder};
