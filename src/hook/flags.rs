//! Which hook moments a component, bundle or table has: flags that let structural
//! operations skip hook lookups entirely when there are none.

/// The moments a hook (or a reactor) can run at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum HookKind {
    /// The type became present on an entity (spawn, or insert of a type it lacked).
    Add,
    /// A value of the type was written by spawn or insert (after `Add`, or replacing).
    Insert,
    /// The type is about to leave the entity (remove or despawn).
    Remove,
    /// A value of the type is about to be overwritten by insert, or to leave the
    /// entity (before `Remove`). No hook runs at this moment; a reactor may watch it.
    Replace,
}

/// Which kinds of hook a set of components has: a table's flags let structural
/// operations skip hook lookups entirely when there are none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct HookFlags(u8);

impl HookFlags {
    pub(crate) const NONE: HookFlags = HookFlags(0);

    const fn bit(kind: HookKind) -> u8 {
        match kind {
            HookKind::Add => 1,
            HookKind::Insert => 2,
            HookKind::Remove => 4,
            HookKind::Replace => 8,
        }
    }

    /// The flags with only `kind` set.
    pub(crate) const fn of(kind: HookKind) -> HookFlags {
        HookFlags(Self::bit(kind))
    }

    #[inline]
    pub(crate) fn has(self, kind: HookKind) -> bool {
        self.0 & Self::bit(kind) != 0
    }

    #[inline]
    pub(crate) fn adds_or_inserts(self) -> bool {
        self.has(HookKind::Add) || self.has(HookKind::Insert)
    }

    pub(crate) fn union(self, other: HookFlags) -> HookFlags {
        HookFlags(self.0 | other.0)
    }
}

/// Which moments of one component type have hooks, and which a reactor (an observer)
/// watches.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ComponentHookFlags {
    /// Kinds with at least one hook registered.
    hooked: HookFlags,
    /// Moments a reactor watches for this type, with no hook of its own.
    watched: HookFlags,
}

impl ComponentHookFlags {
    /// Whether a hook of `kind` is registered.
    #[inline]
    pub(crate) fn has(self, kind: HookKind) -> bool {
        self.hooked.has(kind)
    }

    /// Whether a reactor (an observer) watches moment `kind` of this type. Never
    /// cleared: a type once watched stays watched when its observers go, which costs
    /// a look that finds no observer, never a missed one.
    #[inline]
    pub(crate) fn watches(self, kind: HookKind) -> bool {
        self.watched.has(kind)
    }

    /// Every moment something waits for: hooked or watched.
    pub(crate) fn flags(self) -> HookFlags {
        self.hooked.union(self.watched)
    }

    /// Records that a hook of `kind` was registered.
    pub(crate) fn hook(&mut self, kind: HookKind) {
        self.hooked = self.hooked.union(HookFlags::of(kind));
    }

    /// Records that a reactor watches the moments `flags` names.
    pub(crate) fn watch(&mut self, flags: HookFlags) {
        self.watched = self.watched.union(flags);
    }
}
