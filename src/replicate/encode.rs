//! Writing one peer's delta body: which record each touched entity gets ([`Decide`]),
//! and the records themselves ([`Encoder`]), with every entity named by the peer's own
//! handles.
//!
//! What the bytes reveal to a peer: records only for entities in its view, and, for
//! entities it held that left the view, that they left (hidden) or are gone; children
//! orders listing only children in its view. An entity outside the view appears only
//! where a value in view refers to it, as an opaque peer handle (the same for every
//! such reference, so references compare equal); its values, its server handle and
//! how many other entities exist are never sent.

use crate::entity::Entity;
use crate::hash::IdMap;
use crate::hierarchy::ChildOf;
use crate::scene::SceneRegistry;
use crate::world::World;

use super::error::ReplicateError;
use super::journal::Touch;
use super::peer_handles::{Lent, PeerHandles};
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
enum Kind {
    Skip,
    /// Every replicated component.
    Full,
    /// The components set and removed.
    Diff,
    /// Out of the peer's view but alive: the receiver keeps it as an empty stand-in
    /// (a full record with no component), so references to it stay valid.
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

    fn kind(&mut self, world: &World, touch: &Touch, handles: &PeerHandles) -> Kind {
        let entity = touch.entity;
        let alive = world.contains(entity);
        // Whether the peer was ever given a handle for it: it may hold a replica or a
        // stand-in. A despawn is sent only then (to nobody else, it is nothing).
        let known = handles.get(entity).is_some();
        let now = alive && self.sees(world, entity);
        match self {
            // A re-sent touch keeps its flags: an entity that left the replicated set
            // in the lost window is hidden again.
            Decide::All => match now {
                true if touch.entered || touch.resend || !known => Kind::Full,
                true => Kind::Diff,
                false if !alive => gone_if(known),
                false if handles.sent_whole(entity) && (touch.left || touch.hide) => Kind::Hide,
                false => Kind::Skip,
            },
            Decide::Filtered { shown, in_flight, changes, .. } => {
                let was = shown.contains_key(&entity.to_bits());
                let [showing, hiding] = in_flight.get(&entity.to_bits()).copied().unwrap_or([0; 2]);
                // Surely held: shown, and no delta in flight may have hidden it.
                let sure = was && hiding == 0;
                // Perhaps held: shown, or a delta in flight may have shown it.
                let held = handles.sent_whole(entity) && (was || showing > 0 || touch.hide);
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

/// Scratch space for writing bodies.
#[derive(Default)]
pub(crate) struct Encoder {
    /// The body written last.
    pub(crate) body: Vec<u8>,
    /// One record's values.
    pub(crate) values: Vec<u8>,
    /// The parents whose children orders the body carries.
    parents: IdMap<u64, ()>,
    parent_list: Vec<Entity>,
}

/// What one body is written from and for.
pub(crate) struct BodyFor<'a> {
    pub(crate) registry: &'a SceneRegistry,
    /// The registry index of `ChildOf`, if registered.
    pub(crate) child_of: Option<usize>,
    pub(crate) decide: Decide<'a>,
    /// The peer's handles.
    pub(crate) handles: &'a mut Option<Box<PeerHandles>>,
    /// Collects the entities the body says are gone.
    pub(crate) gone: &'a mut Vec<Entity>,
}

impl Encoder {
    /// Writes the records of `touches` as `body.decide` sends them, then the order
    /// records of the parents whose children's `ChildOf` they carry or whose children
    /// were reordered, and appends them to `out` behind their count (nothing on an
    /// error); returns the record count.
    pub(crate) fn encode(
        &mut self,
        world: &World,
        touches: &[Touch],
        mut body_for: BodyFor<'_>,
        out: &mut Vec<u8>,
    ) -> Result<usize, ReplicateError> {
        let Encoder { body, values, parents: parent_set, parent_list } = self;
        body.clear();
        parent_set.clear();
        parent_list.clear();
        let entries = &body_for.registry.components;
        let child_of_bit = body_for.child_of.map_or(0, |c| 1u64 << c);
        let mut records = 0;
        for touch in touches {
            let entity = touch.entity;
            let handles = body_for.handles.as_deref_mut().expect("ripple: a peer's handles are home");
            if touch.reordered && world.contains(entity) && handles.get(entity).is_some() {
                add_parent(parent_set, parent_list, entity);
            }
            let (mut set, mut removed, flags) = match body_for.decide.kind(world, touch, handles) {
                Kind::Skip => continue,
                kind @ (Kind::Gone | Kind::Hide) => {
                    let handle = handles.get_or_assign(entity);
                    put_varint(body, handle.to_bits());
                    if matches!(kind, Kind::Gone) {
                        put_varint(body, DESPAWN);
                        body_for.gone.push(entity);
                    } else {
                        put_varint(body, HIDE);
                    }
                    records += 1;
                    continue;
                }
                Kind::Full => (wire::component_mask(entries.len()), 0, FULL),
                Kind::Diff => (touch.set, touch.removed, 0),
            };
            if set == 0 && removed == 0 && flags == 0 {
                continue;
            }
            let handle = handles.get_or_assign(entity);
            if flags == FULL {
                handles.mark_sent_whole(handle);
            }
            values.clear();
            let lent = Lent::new(body_for.handles);
            let mut bits = set;
            while bits != 0 {
                let c = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let entry = &entries[c];
                match entry.write_binary_of(world, entity, values) {
                    Ok(true) => {}
                    Ok(false) => {
                        set &= !(1 << c);
                        if flags == 0 {
                            removed |= 1 << c;
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
            drop(lent);
            if flags == 0 && set == 0 && removed == 0 {
                continue;
            }
            let header = (set << FLAG_BITS) | flags | if removed != 0 { REMOVED } else { 0 };
            put_varint(body, handle.to_bits());
            put_varint(body, header);
            if removed != 0 {
                put_varint(body, removed);
            }
            body.extend_from_slice(values);
            records += 1;
            if set & child_of_bit != 0
                && let Ok(&ChildOf(parent)) = world.get::<ChildOf>(entity)
            {
                add_parent(parent_set, parent_list, parent);
            }
        }
        let mut orders = 0usize;
        let handles = body_for.handles.as_deref_mut().expect("ripple: a peer's handles are home");
        // The orders follow the records; their count goes before them once known.
        let mut orders_body = std::mem::take(values);
        orders_body.clear();
        for &parent in parent_list.iter() {
            let Ok(children) = world.children(parent) else { continue };
            let seen = children.iter().filter(|&&child| body_for.decide.sees(world, child)).count();
            if seen == 0 {
                continue;
            }
            put_varint(&mut orders_body, handles.get_or_assign(parent).to_bits());
            put_varint(&mut orders_body, seen as u64);
            for &child in children.iter().filter(|&&child| body_for.decide.sees(world, child)) {
                put_varint(&mut orders_body, handles.get_or_assign(child).to_bits());
            }
            orders += 1;
        }
        put_varint(body, orders as u64);
        body.extend_from_slice(&orders_body);
        *values = orders_body;
        put_varint(out, records as u64);
        out.extend_from_slice(body);
        Ok(records)
    }
}

fn add_parent(set: &mut IdMap<u64, ()>, list: &mut Vec<Entity>, parent: Entity) {
    if set.insert(parent.to_bits(), ()).is_none() {
        list.push(parent);
    }
}
