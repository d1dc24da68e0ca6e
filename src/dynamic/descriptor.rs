//! [`ComponentDescriptor`]: what the world needs to know about a component that has no
//! Rust type, and [`DynamicError`], what goes wrong reaching one.

use std::alloc::Layout;
use std::collections::HashSet;
use std::error::Error;
use std::fmt;
use std::sync::{Mutex, OnceLock};

use crate::component::{ComponentId, Storage};
use crate::entity::Entity;
use crate::error::{ComponentError, MissingComponent, NoSuchEntity};

/// A component defined at run time: a name, the layout of its values, where they live
/// and, optionally, how one is dropped. Register it with
/// [`World::register_component`](crate::World::register_component).
///
/// Its values are byte strings of the layout's size: inserted from `&[u8]`, read as
/// `&[u8]`, written through [`Mut<[u8]>`](crate::Mut). That suits what scripting
/// layers and editors store (numbers, handles into their own heaps, packed records).
///
/// ```
/// use ripple::World;
/// use ripple::dynamic::ComponentDescriptor;
/// let mut world = World::new();
/// let hp = world.register_component(ComponentDescriptor::new("hp", 4, 4).unwrap());
/// let orc = world.spawn(());
/// world.insert_by_id(orc, hp, &10i32.to_le_bytes()).unwrap();
/// assert_eq!(world.get_by_id(orc, hp).unwrap(), 10i32.to_le_bytes());
/// ```
#[derive(Clone, Debug)]
pub struct ComponentDescriptor {
    pub(crate) name: &'static str,
    pub(crate) layout: Layout,
    pub(crate) storage: Storage,
    pub(crate) drop: Option<unsafe fn(*mut u8)>,
    pub(crate) immutable: bool,
}

impl ComponentDescriptor {
    /// A component named `name` whose values are `size` bytes aligned to `align`
    /// bytes, stored in tables, dropped by forgetting their bytes.
    ///
    /// # Errors
    /// [`DynamicError::BadLayout`] if `align` is not a power of two, or `size` rounded
    /// up to `align` overflows `isize`.
    pub fn new(name: &str, size: usize, align: usize) -> Result<Self, DynamicError> {
        let layout = Layout::from_size_align(size, align).map_err(|_| DynamicError::BadLayout {
            name: name.to_owned(),
            size,
            align,
        })?;
        Ok(ComponentDescriptor::from_layout(name, layout))
    }

    /// A component named `name` whose values have `layout` (its size rounded up to its
    /// alignment, so values can lie back to back).
    pub fn from_layout(name: &str, layout: Layout) -> Self {
        ComponentDescriptor {
            name: intern(name),
            layout: layout.pad_to_align(),
            storage: Storage::Table,
            drop: None,
            immutable: false,
        }
    }

    /// Stores the values in `storage` (see [`Storage`]); tables by default.
    pub fn with_storage(mut self, storage: Storage) -> Self {
        self.storage = storage;
        self
    }

    /// Makes the component immutable (bevy_ecs's immutable components): its values
    /// can be read, replaced ([`insert_by_id`](crate::World::insert_by_id)) or removed,
    /// never written in place, so hooks see every change of them.
    /// [`get_mut_by_id`](crate::World::get_mut_by_id) and a query term that writes it
    /// are refused with [`DynamicError::Immutable`].
    pub fn immutable(mut self) -> Self {
        self.immutable = true;
        self
    }

    /// Calls `drop` with a pointer to each value as it leaves the world (replaced,
    /// removed, despawned or cleared), exactly once per value inserted.
    ///
    /// # Safety
    /// `drop` must be sound to call, from any thread, on every byte string this
    /// program inserts as a value of this component, each value once; and values must
    /// stay sound to copy bytewise (the world moves them with `memcpy`).
    pub unsafe fn with_drop(mut self, drop: unsafe fn(*mut u8)) -> Self {
        self.drop = Some(drop);
        self
    }

    /// The name given at construction.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The values' layout.
    pub fn layout(&self) -> Layout {
        self.layout
    }
}

/// Component names live as long as the program, like a type's name; each distinct
/// name is kept once, however many worlds register it.
fn intern(name: &str) -> &'static str {
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut names = NAMES.get_or_init(Default::default).lock().unwrap_or_else(|poison| poison.into_inner());
    if let Some(&known) = names.get(name) {
        return known;
    }
    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.insert(leaked);
    leaked
}

/// Why an operation on a component reached by id failed. Nothing was changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DynamicError {
    /// The entity does not exist.
    NoSuchEntity(Entity),
    /// No component has this id in this world.
    UnknownComponent(ComponentId),
    /// The component has a Rust type: reach it through its type (`get`, `insert`),
    /// since its bytes need not all be initialised or valid in any order.
    Typed {
        /// The component's type name.
        component: &'static str,
    },
    /// The bytes given are not one value of the component.
    WrongSize {
        /// The component's name.
        component: &'static str,
        /// Its values' size.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// The entity lacks the component.
    MissingComponent {
        /// The entity asked about.
        entity: Entity,
        /// The component's name.
        component: &'static str,
    },
    /// A query names a component in two terms where one writes it, or both requires
    /// and excludes it.
    AccessConflict {
        /// The component's name.
        component: &'static str,
    },
    /// [`DynamicQuery::for_each_table`](crate::dynamic::DynamicQuery::for_each_table) was
    /// asked of a query that selects entities row by row (a sparse component or a
    /// change filter).
    NeedsRows,
    /// The component's values may not be written in place: it was made immutable
    /// ([`ComponentDescriptor::immutable`], [`World::register_immutable`](crate::World::register_immutable))
    /// or is kept by the world (a relation's). Replace or remove the value instead.
    Immutable {
        /// Why, beginning with the component's name.
        refusal: String,
    },
    /// A descriptor's size and alignment form no layout.
    BadLayout {
        /// The name the descriptor was to have.
        name: String,
        /// The size asked for.
        size: usize,
        /// The alignment asked for.
        align: usize,
    },
}

impl fmt::Display for DynamicError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DynamicError::NoSuchEntity(entity) => NoSuchEntity(*entity).fmt(f),
            DynamicError::UnknownComponent(id) => write!(f, "no component has id {} in this world", id.0),
            DynamicError::Typed { component } => {
                write!(f, "component `{component}` has a Rust type; reach it through its type, not as bytes by id")
            }
            DynamicError::WrongSize { component, expected, got } => {
                write!(f, "a value of component `{component}` is {expected} bytes; {got} were given")
            }
            DynamicError::MissingComponent { entity, component } => {
                MissingComponent { entity: *entity, component }.fmt(f)
            }
            DynamicError::AccessConflict { component } => write!(
                f,
                "component `{component}` is written by one term of the query and read, written or excluded by another"
            ),
            DynamicError::NeedsRows => write!(
                f,
                "this query selects entities row by row (a sparse component or a change filter); \
                 iterate it with for_each_mut, not table by table"
            ),
            DynamicError::Immutable { refusal } => f.write_str(refusal),
            DynamicError::BadLayout { name, size, align } => write!(
                f,
                "component `{name}`: size {size} with alignment {align} is no layout (the alignment must be a \
                 power of two, and the size rounded up to it must fit isize)"
            ),
        }
    }
}

impl Error for DynamicError {}

impl From<NoSuchEntity> for DynamicError {
    fn from(e: NoSuchEntity) -> Self {
        DynamicError::NoSuchEntity(e.0)
    }
}

impl From<ComponentError> for DynamicError {
    fn from(e: ComponentError) -> Self {
        match e {
            ComponentError::NoSuchEntity(NoSuchEntity(entity)) => DynamicError::NoSuchEntity(entity),
            ComponentError::MissingComponent(MissingComponent { entity, component }) => {
                DynamicError::MissingComponent { entity, component }
            }
        }
    }
}
