//! [`SetSlot`]: a system set as the schedule keeps it.

use std::borrow::Cow;

use crate::system::Condition;

/// A set as the schedule keeps it.
pub(crate) struct SetSlot {
    pub(crate) name: Cow<'static, str>,
    /// The phase its members run in, if it names one.
    pub(crate) phase: Option<usize>,
    pub(crate) enabled: bool,
    pub(crate) conditions: Vec<Condition>,
    /// This run's verdict of its conditions, once evaluated.
    pub(crate) verdict: Option<bool>,
    /// The sets it is directly in.
    pub(crate) parents: Vec<usize>,
    /// Made by an order against a name nothing had yet: a system added later under
    /// this name takes its place (see `Schedule::adopt_placeholder`).
    pub(crate) placeholder: bool,
    /// A placeholder a system took the place of: no longer a set (its index stays).
    pub(crate) gone: bool,
}

impl SetSlot {
    pub(crate) fn new(name: Cow<'static, str>) -> Self {
        SetSlot {
            name,
            phase: None,
            enabled: true,
            conditions: Vec::new(),
            verdict: None,
            parents: Vec::new(),
            placeholder: false,
            gone: false,
        }
    }
}
