//! Writing a peer's delta body, in two steps: [`Encoder::encode`] decides which record
//! each touched entity gets ([`Decide`]) and writes each record's values, naming
//! entities by the server's handles; [`Encoded::emit`] writes the body for one peer,
//! each entity named by the peer's own handle. Peers that see every entity and share a
//! window share the first step (one encoding per update), and pay for the second
//! alone: a handle lookup and a copy per record.
//!
//! What the bytes reveal to a peer: records only for entities in its view, and, for
//! entities it held that left the view, that they left (hidden) or are gone; children
//! orders listing only children in its view. An entity outside the view appears only
//! where a value in view refers to it, as an opaque peer handle (the same for every
//! such reference, so references compare equal); its values, its server handle and
//! how many other entities exist are never sent.

use std::ops::Range;

use crate::entity::Entity;
use crate::entity_serde::rename::{Lent, Rename};
use crate::hierarchy::ChildOf;
use crate::scene::SceneRegistry;
use crate::util::hash::IdMap;
use crate::world::World;

use super::error::ReplicateError;
use super::journal::Touch;
use super::peer_handles::PeerHandles;
use super::server::Replicated;
use super::wire::{self, DESPAWN, FLAG_BITS, FULL, HIDE, REMOVED, put_varint};

/// How a touched entity is sent to one peer.
pub(crate) enum Decide<'a> {
    /// Every replicated entity.
    All,
    /// The entities `visible` accepts; `shown` is what the peer holds, `in_flight`
    /// what deltas in flight may have shown or hidden besides, `changes` the view
    /// changes this delta makes.
    Filtered {
        visible: &'a (dyn Fn(&World, Entity) -> bool + Send + Sync),
        shown: &'a IdMap<u64, ()>,
        in_flight: &'a IdMap<u64, [u32; 2]>,
        changes: &'a mut Vec<(Entity, bool)>,
    },
}

/// A record's kind.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Skip,
    /// Every replicated component.
    Full,
    /// The components set and removed.
    Diff,
    /// Out of the peer's view but alive: the receiver keeps it as an empty stand-in,
    /// so references to it stay valid.
    Hide,
    /// Despawned.
    Gone,
}

impl Decide<'_> {
    /// Whether the peer sees `entity` now.
    fn sees(&self, world: &World, entity: Entity) -> bool {
        world.get::<Replicated>(entity).is_ok()
            && match self {
                Decide::All => true,
                Decide::Filtered { visible, .. } => visible(world, entity),
            }
    }

    /// The record `touch` gets. With `handles` (one peer's), exact; without (an
    /// encoding shared by peers that see everything), as for a peer that knows every
    /// entity, which [`Encoded::emit`] then checks per peer.
    fn kind(&mut self, world: &World, touch: &Touch, handles: Option<&PeerHandles>) -> Kind {
        let entity = touch.entity;
        let alive = world.contains(entity);
        // Whether the peer was ever given a handle for it: it may hold a replica or a
        // stand-in. A despawn is sent only then (to nobody else, it is nothing).
        let known = handles.is_none_or(|handles| handles.get(entity).is_some());
        // Whether it may hold a replica, not only a stand-in: a hide is sent only then.
        let replica = handles.is_none_or(|handles| handles.sent_whole(entity));
        let now = alive && self.sees(world, entity);
        match self {
            // A re-sent touch keeps its flags: an entity that left the replicated set
            // in the lost window is hidden again.
            Decide::All => match now {
                true if touch.entered || touch.resend || !known => Kind::Full,
                true => Kind::Diff,
                false if !alive => gone_if(known),
                false if replica && (touch.left || touch.hide) => Kind::Hide,
                false => Kind::Skip,
            },
            Decide::Filtered { shown, in_flight, changes, .. } => {
                let was = shown.contains_key(&entity.to_bits());
                let [showing, hiding] = in_flight.get(&entity.to_bits()).copied().unwrap_or([0; 2]);
                // Surely held: shown, and no delta in flight may have hidden it.
                let sure = was && hiding == 0;
                // Perhaps held: shown, or a delta in flight may have shown it.
                let held = replica && (was || showing > 0 || touch.hide);
                let kind = match (now, sure) {
                    (true, false) => Kind::Full,
                    (true, true) if touch.entered || touch.resend => Kind::Full,
                    (true, true) => Kind::Diff,
                    (false, _) if !alive => gone_if(known),
                    (false, _) if held => Kind::Hide,
                    (false, _) => Kind::Skip,
                };
                // Every view a record sets is recorded, as the view once the delta is
                // acknowledged (whatever was acknowledged between), or to set again
                // if the delta is lost.
                if now != was || matches!(kind, Kind::Full | Kind::Hide | Kind::Gone) {
                    changes.push((entity, now));
                }
                kind
            }
        }
    }
}

fn gone_if(known: bool) -> Kind {
    if known { Kind::Gone } else { Kind::Skip }
}

/// One record, its entity still the server's.
struct Record {
    entity: Entity,
    kind: Kind,
    /// The header (values' set and flags) and the removed set of a full or a diff
    /// record (0 for a hide or a despawn, whose headers are fixed).
    header: u64,
    removed: u64,
    /// Its values in [`Encoded::bytes`].
    values: Range<usize>,
}

/// A body's records and orders, entities still the server's: written once, emitted per
/// peer.
#[derive(Default)]
pub(crate) struct Encoded {
    records: Vec<Record>,
    bytes: Vec<u8>,
    /// Children orders: the parent, and its children's range in `children`.
    orders: Vec<(Entity, Range<usize>)>,
    children: Vec<Entity>,
    /// Whether a value refers to an entity by the server's handle (an encoding shared
    /// by several peers, whose handles differ): such a body cannot be emitted as it is.
    refers: bool,
}

impl Encoded {
    fn clear(&mut self) {
        self.records.clear();
        self.bytes.clear();
        self.orders.clear();
        self.children.clear();
        self.refers = false;
    }

    /// Bytes held.
    pub(crate) fn capacity(&self) -> usize {
        self.bytes.capacity()
            + self.records.capacity() * size_of::<Record>()
            + self.children.capacity() * size_of::<Entity>()
    }

    /// Appends the body for the peer whose handles are `handles`: the record count, the
    /// records, the orders. Collects in `gone` the entities it says are gone. Returns the
    /// record count, or `None` (nothing appended or changed) if this encoding does not
    /// fit the peer: a diff of an entity the peer has no handle for, or values that
    /// name entities by the server's handles (the peer's body is encoded for it then).
    pub(crate) fn emit(&self, handles: &mut PeerHandles, gone: &mut Vec<Entity>, out: &mut Vec<u8>) -> Option<usize> {
        if self.refers {
            return None;
        }
        // First what goes out, changing nothing; then the bytes.
        let mut records = 0usize;
        for record in &self.records {
            let sent = match record.kind {
                Kind::Skip => false,
                Kind::Full => true,
                Kind::Diff if handles.get(record.entity).is_none() => return None,
                Kind::Diff => true,
                Kind::Gone => handles.get(record.entity).is_some(),
                Kind::Hide => handles.sent_whole(record.entity),
            };
            records += usize::from(sent);
        }
        put_varint(out, records as u64);
        for record in &self.records {
            let handle = match record.kind {
                Kind::Skip => continue,
                Kind::Gone | Kind::Diff => match handles.get(record.entity) {
                    Some(handle) => handle,
                    None => continue,
                },
                Kind::Hide if !handles.sent_whole(record.entity) => continue,
                Kind::Hide => handles.get_or_assign(record.entity),
                Kind::Full => {
                    let handle = handles.get_or_assign(record.entity);
                    handles.mark_sent_whole(handle);
                    handle
                }
            };
            put_varint(out, handle.to_bits());
            match record.kind {
                Kind::Gone => {
                    put_varint(out, DESPAWN);
                    gone.push(record.entity);
                }
                Kind::Hide => put_varint(out, HIDE),
                _ => {
                    put_varint(out, record.header);
                    if record.removed != 0 {
                        put_varint(out, record.removed);
                    }
                    out.extend_from_slice(&self.bytes[record.values.clone()]);
                }
            }
        }
        // A parent the peer has no handle for holds none of the children it sees.
        let orders = self.orders.iter().filter(|(parent, _)| handles.get(*parent).is_some()).count();
        put_varint(out, orders as u64);
        for (parent, children) in &self.orders {
            let Some(parent) = handles.get(*parent) else { continue };
            put_varint(out, parent.to_bits());
            put_varint(out, children.len() as u64);
            for &child in &self.children[children.clone()] {
                put_varint(out, handles.get_or_assign(child).to_bits());
            }
        }
        Some(records)
    }
}

/// What one encoding is written from and for.
pub(crate) struct EncodeFor<'a> {
    pub(crate) registry: &'a SceneRegistry,
    /// The registry index of `ChildOf`, if registered.
    pub(crate) child_of: Option<usize>,
    pub(crate) decide: Decide<'a>,
    /// The peer's handles, for an encoding of one peer's (its values name entities by
    /// them); `None` for an encoding shared by peers that see every entity.
    pub(crate) handles: Option<&'a mut Option<Box<PeerHandles>>>,
}

/// Notes whether a value named an entity, for a shared encoding (whose entities are
/// the server's).
#[derive(Default)]
struct Refers(bool);

impl Rename for Refers {
    fn rename(&mut self, entity: Entity) -> Entity {
        self.0 = true;
        entity
    }
}

/// Scratch space for encoding.
#[derive(Default)]
pub(crate) struct Encoder {
    /// The parents whose children orders the body carries.
    parents: IdMap<u64, ()>,
    parent_list: Vec<Entity>,
    /// Home of the shared encoding's [`Refers`] between records.
    refers: Option<Box<Refers>>,
}

impl Encoder {
    /// Writes into `encoded` the records of `touches` as `how.decide` sends them, then
    /// the children orders of the parents whose children's `ChildOf` they carry or
    /// whose children were reordered (nothing on an error).
    pub(crate) fn encode(
        &mut self,
        world: &World,
        touches: &[Touch],
        mut how: EncodeFor<'_>,
        encoded: &mut Encoded,
    ) -> Result<(), ReplicateError> {
        encoded.clear();
        self.parents.clear();
        self.parent_list.clear();
        let entries = &how.registry.components;
        let child_of_bit = how.child_of.map_or(0, |c| 1u64 << c);
        for touch in touches {
            let entity = touch.entity;
            let handles =
                how.handles.as_deref().map(|home| &**home.as_ref().expect("ripple: a peer's handles are home"));
            if touch.reordered && world.contains(entity) && handles.is_none_or(|h| h.get(entity).is_some()) {
                add_parent(&mut self.parents, &mut self.parent_list, entity);
            }
            let kind = how.decide.kind(world, touch, handles);
            let (mut set, mut removed, flags) = match kind {
                Kind::Skip => continue,
                Kind::Gone | Kind::Hide => {
                    encoded.records.push(Record { entity, kind, header: 0, removed: 0, values: 0..0 });
                    continue;
                }
                Kind::Full => (wire::component_mask(entries.len()), 0, FULL),
                Kind::Diff => (touch.set, touch.removed, 0),
            };
            if set == 0 && removed == 0 && flags == 0 {
                continue;
            }
            let values_at = encoded.bytes.len();
            self.write_values(world, entity, &mut how, &mut set, &mut removed, flags, &mut encoded.bytes)?;
            if flags == 0 && set == 0 && removed == 0 {
                encoded.bytes.truncate(values_at);
                continue;
            }
            if let Some(refers) = self.refers.as_deref_mut() {
                encoded.refers |= std::mem::take(&mut refers.0);
            }
            let header = (set << FLAG_BITS) | flags | if removed != 0 { REMOVED } else { 0 };
            encoded.records.push(Record { entity, kind, header, removed, values: values_at..encoded.bytes.len() });
            if set & child_of_bit != 0
                && let Ok(&ChildOf(parent)) = world.get::<ChildOf>(entity)
            {
                add_parent(&mut self.parents, &mut self.parent_list, parent);
            }
        }
        for &parent in &self.parent_list {
            let Ok(children) = world.children(parent) else { continue };
            let start = encoded.children.len();
            encoded.children.extend(children.iter().copied().filter(|&child| how.decide.sees(world, child)));
            if encoded.children.len() > start {
                encoded.orders.push((parent, start..encoded.children.len()));
            }
        }
        Ok(())
    }

    /// Appends `entity`'s values of the components in `set` to `bytes`, naming entities
    /// by the peer's handles (or noting that they are named, for a shared encoding);
    /// components it turns out not to have leave `set` (and, in a diff, join
    /// `removed`).
    #[expect(clippy::too_many_arguments, reason = "one record's state, threaded through")]
    fn write_values(
        &mut self,
        world: &World,
        entity: Entity,
        how: &mut EncodeFor<'_>,
        set: &mut u64,
        removed: &mut u64,
        flags: u64,
        bytes: &mut Vec<u8>,
    ) -> Result<(), ReplicateError> {
        let entries = &how.registry.components;
        let _loan = match how.handles.as_deref_mut() {
            Some(home) => Loan::Peer(Lent::new(home)),
            None => {
                self.refers.get_or_insert_with(Box::default);
                Loan::Shared(Lent::new(&mut self.refers))
            }
        };
        let mut bits = *set;
        while bits != 0 {
            let c = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let entry = &entries[c];
            match entry.write_binary_of(world, entity, bytes) {
                Ok(true) => {}
                Ok(false) => {
                    *set &= !(1 << c);
                    if flags == 0 {
                        *removed |= 1 << c;
                    }
                }
                Err(error) => {
                    return Err(ReplicateError::Value {
                        component: entry.name.to_string(),
                        entity,
                        message: error.to_string(),
                    });
                }
            }
        }
        Ok(())
    }
}

/// Whose rename the values are written under (held for its drop, which gives it back).
enum Loan<'a> {
    /// A peer's handles.
    Peer(#[expect(dead_code, reason = "held for its drop")] Lent<'a, PeerHandles>),
    /// The shared encoding's note of references.
    Shared(#[expect(dead_code, reason = "held for its drop")] Lent<'a, Refers>),
}

fn add_parent(set: &mut IdMap<u64, ()>, list: &mut Vec<Entity>, parent: Entity) {
    if set.insert(parent.to_bits(), ()).is_none() {
        list.push(parent);
    }
}
