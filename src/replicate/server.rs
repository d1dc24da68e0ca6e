//! [`Replicator`]: the sending side. It follows the replicated components' change
//! lists once per [`update`](Replicator::update) into a journal shared by every peer,
//! and writes each peer's delta from the journal ticks its window covers.

use crate::change::log::Cursor;
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::hierarchy::{ChildOf, Children};
use crate::query::{ChangeSource, Changes, QueryState, With};
use crate::scene::SceneRegistry;
use crate::util::hash::IdMap;
use crate::world::{World, WorldId};

use super::encode::{Decide, EncodeFor, Encoded, Encoder};
use super::error::ReplicateError;
use super::journal::{Journal, Merger, TickBuilder, Touch};
use super::peer::{AckMode, Peer, PeerConfig, PeerId, PeerView, Sent, View};
use super::peer_handles::PeerHandles;
use super::wire::{self, MAX_REPLICATED_COMPONENTS, put_varint};

/// Marks an entity as replicated: the [`Replicator`] sends it, with every component
/// its registry names, to the peers that see it. Removing the marker (or despawning
/// the entity) sends it to them as despawned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Replicated;

/// How many touches (entity changes over all kept ticks) the journal holds for peers
/// that fall behind, unless told otherwise: past it the oldest ticks go and a peer
/// whose window needed them gets a snapshot instead.
pub const DEFAULT_JOURNAL_LIMIT: usize = 1 << 20;

/// What [`Replicator::write_delta`] wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeltaInfo {
    /// The delta's sequence number (the peer acknowledges it by this number).
    pub seq: u64,
    /// Bytes appended.
    pub bytes: usize,
    /// Entity records in it.
    pub records: usize,
    /// Whether it is a snapshot (everything the peer sees).
    pub snapshot: bool,
}

/// Change sources and removal cursors of one followed component.
struct Followed {
    id: ComponentId,
    changes: Box<dyn ChangeSource>,
    removals: Cursor,
}

impl Followed {
    fn new(world: &mut World, id: ComponentId, changes: Box<dyn ChangeSource>) -> Followed {
        let removals = world.removal_cursor(id);
        Followed { id, changes, removals }
    }
}

/// The sending side of replication: per-peer deltas of the entities marked
/// [`Replicated`], at the cost of what changed.
///
/// Call [`update`](Self::update) once per frame, at a point where the frame's writes
/// are done, then [`write_delta`](Self::write_delta) for each peer, and pass the peer's
/// acknowledgements to [`ack`](Self::ack) (and, in
/// [`AckMode::SinceLastSendWithNack`], its losses to [`nack`](Self::nack)). The bytes
/// travel however the caller likes; [`DeltaReceiver::apply_delta`](super::DeltaReceiver::apply_delta)
/// applies them on the other side.
///
/// # What a peer learns
/// A peer never sees this world's entity handles. Each peer knows entities by *peer
/// handles* of its own, numbered from 0 in the order it first hears of them
/// ([`peer_handle`](Self::peer_handle) and [`entity_of`](Self::entity_of) translate),
/// so the handles tell it how many entities it was told of, not how many exist. It
/// gets records only for the entities in its view, and for the ones it held that left
/// the view or were despawned; children orders list only children in its view. An
/// entity outside the view shows up only where a value in view refers to it, as an
/// opaque peer handle (the same for every such reference); its values never do.
///
/// # Cost
/// `update` costs what changed since the last update: it reads the `Changed<T>`
/// lists and removal streams of the registered components (tracking them from
/// [`new`](Self::new) on). A delta costs the entities its window touched: peers that
/// see every entity and whose windows start at the same tick share one encoding per
/// update, and each pays for its own handles (a lookup and a copy per record). A
/// snapshot, O(replicated entities),
/// goes to a new peer (in [`AckMode::SinceLastAck`], every delta until one is
/// acknowledged), to one that fell further behind than the journal keeps, to one
/// [`resync`](Self::resync)ed, and to all after a removal stream dropped removals the
/// replicator had not read. Per peer, the replicator keeps its handles: O(entities the
/// peer was told of and not yet told the end of).
///
/// ```
/// use ripple::World;
/// use ripple::replicate::{DeltaReceiver, PeerConfig, Replicated, Replicator};
/// use ripple::scene::SceneRegistry;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
/// struct Position(f32, f32);
///
/// fn registry() -> SceneRegistry {
///     let mut registry = SceneRegistry::new();
///     registry.component::<Position>("position").unwrap();
///     registry
/// }
///
/// let mut server = World::new();
/// let mut replicator = Replicator::new(&mut server, registry())?;
/// let peer = replicator.add_peer(&mut server, PeerConfig::default());
/// let crate_ = server.spawn((Position(0.0, 0.0), Replicated));
///
/// let mut client = World::new();
/// let mut receiver = DeltaReceiver::new(registry())?;
///
/// for frame in 1..=3 {
///     server.get_mut::<Position>(crate_)?.0 = frame as f32;
///     replicator.update(&server);
///     let mut bytes = Vec::new();
///     let info = replicator.write_delta(&server, peer, &mut bytes)?;
///     receiver.apply_delta(&mut client, &bytes)?;
///     replicator.ack(peer, info.seq)?;
/// }
/// // The peer knows the crate by a handle of its own.
/// let handle = replicator.peer_handle(peer, crate_)?.unwrap();
/// let local = receiver.entity_map().get(handle).unwrap();
/// assert_eq!(client.get::<Position>(local)?, &Position(3.0, 0.0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Replicator {
    world: WorldId,
    components: Vec<Followed>,
    marker: Followed,
    /// Markers peers' views depend on (a change touches the entity).
    view_markers: Vec<Followed>,
    /// Parents' children lists, when `ChildOf` is registered: a change (a reorder in
    /// place included) sends the new order.
    children: Option<Followed>,
    tick: u64,
    journal_limit: usize,
    builder: TickBuilder,
    peers: Vec<PeerSlot>,
    writer: Writer,
}

/// A peer's place: its generation (bumped when it is removed) and the peer, if any.
struct PeerSlot {
    generation: u32,
    peer: Option<Peer>,
}

/// What writing a delta reads and scratches, apart from the peers.
struct Writer {
    registry: SceneRegistry,
    replicated: QueryState<Entity, With<Replicated>>,
    schema: u32,
    /// The registry index of `ChildOf`, if registered: its records carry the order
    /// of their parents' children.
    child_of: Option<usize>,
    journal: Journal,
    merger: Merger,
    changed: Vec<Entity>,
    encoder: Encoder,
    /// Encodings shared by the peers that see every entity, one per window start,
    /// valid until the next update (kept for their capacity after).
    shared: Vec<SharedBody>,
    /// One peer's own encoding.
    own: Encoded,
}

/// An encoding for the peers that see every entity and whose windows start at `base`.
struct SharedBody {
    base: u64,
    valid: bool,
    encoded: Encoded,
}

/// How many peer handle slots each delta looks at for despawned entities that no
/// journal touch reported (entities only ever referred to).
const SWEEP_PER_DELTA: usize = 64;

impl Replicator {
    /// A replicator of `world`'s entities marked [`Replicated`], with the components
    /// `registry` names (in the registry's order, which the receiver's registry must
    /// share: deltas carry a fingerprint of the names and the types' shapes, and a
    /// receiver refuses others).
    ///
    /// # Errors
    /// [`ReplicateError::TooManyComponents`] past
    /// [`MAX_REPLICATED_COMPONENTS`](super::MAX_REPLICATED_COMPONENTS).
    pub fn new(world: &mut World, registry: SceneRegistry) -> Result<Replicator, ReplicateError> {
        if registry.components.len() > MAX_REPLICATED_COMPONENTS {
            return Err(ReplicateError::TooManyComponents { registered: registry.components.len() });
        }
        world.flush_reserved();
        let components = registry
            .components
            .iter()
            .map(|entry| {
                let id = entry.register_in(world);
                let changes = entry.changes_from_now(world);
                Followed::new(world, id, changes)
            })
            .collect();
        let marker_id = world.components.id_or_register::<Replicated>();
        let marker_changes = Box::new(Changes::<Replicated>::from_now(world));
        let marker = Followed::new(world, marker_id, marker_changes);
        let child_of = registry.component_index_of(std::any::TypeId::of::<ChildOf>());
        let children = child_of.map(|_| {
            let id = world.components.id_or_register::<Children>();
            let changes = Box::new(Changes::<Children>::from_now(world));
            Followed::new(world, id, changes)
        });
        let schema = wire::fingerprint(&registry);
        Ok(Replicator {
            world: world.id(),
            components,
            marker,
            view_markers: Vec::new(),
            children,
            tick: 0,
            journal_limit: DEFAULT_JOURNAL_LIMIT,
            builder: TickBuilder::default(),
            peers: Vec::new(),
            writer: Writer {
                replicated: QueryState::including_disabled(world),
                schema,
                child_of,
                journal: Journal::default(),
                merger: Merger::default(),
                changed: Vec::new(),
                encoder: Encoder::default(),
                shared: Vec::new(),
                own: Encoded::default(),
                registry,
            },
        })
    }

    /// The registry the replicator sends by.
    pub fn registry(&self) -> &SceneRegistry {
        &self.writer.registry
    }

    /// Sets how many touches the journal keeps for peers that fall behind (see
    /// [`DEFAULT_JOURNAL_LIMIT`]); at least 1,024.
    pub fn set_journal_limit(&mut self, limit: usize) {
        self.journal_limit = limit.max(1024);
    }

    /// Adds a peer. Its first delta is a snapshot of what it sees.
    ///
    /// # Panics
    /// If `world` is not the world the replicator was made for.
    pub fn add_peer(&mut self, world: &mut World, config: PeerConfig) -> PeerId {
        self.check_world(world);
        let view = match config.visibility.0 {
            View::All => PeerView::All,
            View::Marker { register, has } => {
                let (id, changes) = register(world);
                if !self.view_markers.iter().any(|followed| followed.id == id) {
                    self.view_markers.push(Followed::new(world, id, changes));
                }
                PeerView::Filtered { visible: Box::new(has), shown: IdMap::default() }
            }
            View::Filter(filter) => PeerView::Filtered { visible: filter, shown: IdMap::default() },
        };
        let peer = Peer::new(config.mode, view, self.tick);
        let slot = match self.peers.iter().position(|slot| slot.peer.is_none()) {
            Some(slot) => slot,
            None => {
                self.peers.push(PeerSlot { generation: 0, peer: None });
                self.peers.len() - 1
            }
        };
        self.peers[slot].peer = Some(peer);
        PeerId { slot: slot as u32, generation: self.peers[slot].generation }
    }

    /// Forgets a peer; returns whether it was one. Its id names nothing from now on.
    pub fn remove_peer(&mut self, peer: PeerId) -> bool {
        match self.peers.get_mut(peer.slot as usize) {
            Some(slot) if slot.generation == peer.generation && slot.peer.is_some() => {
                slot.peer = None;
                // The slot's next peer gets a new id; a slot whose ids are spent
                // stays empty.
                match slot.generation.checked_add(1) {
                    Some(next) => slot.generation = next,
                    None => slot.generation = u32::MAX,
                }
                true
            }
            _ => false,
        }
    }

    /// How many peers there are.
    pub fn peer_count(&self) -> usize {
        self.peers.iter().filter(|slot| slot.peer.is_some()).count()
    }

    fn peer_mut(&mut self, peer: PeerId) -> Result<&mut Peer, ReplicateError> {
        peer_in(&mut self.peers, peer)
    }

    fn peer(&self, peer: PeerId) -> Result<&Peer, ReplicateError> {
        match self.peers.get(peer.slot as usize) {
            Some(PeerSlot { generation, peer: Some(state) }) if *generation == peer.generation => Ok(state),
            _ => Err(ReplicateError::NoSuchPeer { peer: peer.slot }),
        }
    }

    /// The peer acknowledged delta `seq`: in [`AckMode::SinceLastAck`] its next
    /// delta starts after what `seq` carried; in
    /// [`AckMode::SinceLastSendWithNack`], deltas sent before `seq` and not
    /// acknowledged count as lost (the receiver ignores them once it applied a later
    /// one). Acknowledgements that arrive late, twice or for unknown deltas change
    /// nothing.
    ///
    /// # Errors
    /// [`ReplicateError::NoSuchPeer`] if `peer` was removed (or never added).
    pub fn ack(&mut self, peer: PeerId, seq: u64) -> Result<(), ReplicateError> {
        self.peer_mut(peer)?.ack(seq);
        Ok(())
    }

    /// The peer did not receive delta `seq`: in
    /// [`AckMode::SinceLastSendWithNack`] the next delta re-sends every entity it
    /// named and makes its view changes again; in [`AckMode::SinceLastAck`] nothing
    /// is needed and this does nothing (the next delta carries it anyway).
    ///
    /// # Errors
    /// [`ReplicateError::NoSuchPeer`] if `peer` was removed (or never added).
    pub fn nack(&mut self, peer: PeerId, seq: u64) -> Result<(), ReplicateError> {
        self.peer_mut(peer)?.nack(seq);
        Ok(())
    }

    /// Re-asks the peer's visibility filter about every replicated entity at its
    /// next delta (for a filter that reads more than the entity it is asked about).
    /// O(replicated entities) at that delta.
    ///
    /// # Errors
    /// [`ReplicateError::NoSuchPeer`] if `peer` was removed (or never added).
    pub fn refresh_visibility(&mut self, peer: PeerId) -> Result<(), ReplicateError> {
        let peer = self.peer_mut(peer)?;
        peer.refresh = true;
        peer.refresh_from = peer.next_seq;
        Ok(())
    }

    /// Starts the peer over: its next delta is a snapshot, and nothing in flight counts
    /// any more. The way back for a peer whose receiver was
    /// [`reset`](super::DeltaReceiver::reset) (after it lost track of the sender, or
    /// on a reconnect). The peer keeps its handles, so deltas written before still
    /// name the same entities.
    ///
    /// # Errors
    /// [`ReplicateError::NoSuchPeer`] if `peer` was removed (or never added).
    pub fn resync(&mut self, peer: PeerId) -> Result<(), ReplicateError> {
        let peer = self.peer_mut(peer)?;
        force_snapshot(peer);
        peer.refresh = false;
        peer.reshow.clear();
        if let PeerView::Filtered { shown, .. } = &mut peer.view {
            shown.clear();
        }
        Ok(())
    }

    /// The handle `peer` knows `entity` by, if the replicator has told it of `entity`
    /// (see [What a peer learns](Self#what-a-peer-learns)). The receiver's
    /// [`entity_map`](super::DeltaReceiver::entity_map) maps it to the local entity.
    ///
    /// # Errors
    /// [`ReplicateError::NoSuchPeer`] if `peer` was removed (or never added).
    pub fn peer_handle(&self, peer: PeerId, entity: Entity) -> Result<Option<Entity>, ReplicateError> {
        Ok(self.peer(peer)?.handles.as_deref().and_then(|handles| handles.get(entity)))
    }

    /// The entity of this world that `handle`, a handle `peer` knows an entity by,
    /// names: how a message from the peer that names an entity is read. `None` if
    /// the handle names nothing (any more).
    ///
    /// # Errors
    /// [`ReplicateError::NoSuchPeer`] if `peer` was removed (or never added).
    pub fn entity_of(&self, peer: PeerId, handle: Entity) -> Result<Option<Entity>, ReplicateError> {
        Ok(self.peer(peer)?.handles.as_deref().and_then(|handles| handles.entity_of(handle)))
    }

    /// Bytes the replicator's journal, encoding buffers and peers' handles hold (not
    /// counting the per-peer bookkeeping of deltas in flight and filtered views).
    pub fn memory(&self) -> usize {
        let handles: usize =
            self.peers.iter().filter_map(|slot| slot.peer.as_ref()?.handles.as_deref().map(PeerHandles::bytes)).sum();
        let shared: usize = self.writer.shared.iter().map(|body| body.encoded.capacity()).sum();
        self.writer.journal.bytes() + self.writer.own.capacity() + shared + handles
    }

    fn check_world(&self, world: &World) {
        assert!(self.world == world.id(), "Replicator used with a World other than the one it was made for");
    }

    /// Reads what changed since the last update into the journal, as one tick.
    /// Call it once per frame, before the peers' deltas.
    ///
    /// # Complexity
    /// O(entities changed, added or removed since the last update), plus one check
    /// per registered component and per table with changes.
    ///
    /// # Panics
    /// If `world` is not the world the replicator was made for.
    pub fn update(&mut self, world: &World) {
        self.check_world(world);
        self.tick += 1;
        for body in &mut self.writer.shared {
            body.valid = false;
        }
        let mut changed = std::mem::take(&mut self.writer.changed);
        let mut missed = false;
        // The marker first: a touch records entering before any value.
        changed.clear();
        self.marker.changes.gather(world, &mut changed);
        for &entity in &changed {
            self.builder.touch(entity).entered = true;
        }
        missed |= read_removals(world, &self.marker, &mut self.builder, |touch| touch.left = true);
        for (c, followed) in self.components.iter_mut().enumerate() {
            let bit = 1u64 << c;
            changed.clear();
            followed.changes.gather(world, &mut changed);
            for &entity in &changed {
                self.builder.touch(entity).set |= bit;
            }
            missed |= read_removals(world, followed, &mut self.builder, |touch| touch.removed |= bit);
        }
        for followed in &mut self.view_markers {
            changed.clear();
            followed.changes.gather(world, &mut changed);
            for &entity in &changed {
                self.builder.touch(entity);
            }
            missed |= read_removals(world, followed, &mut self.builder, |_| {});
        }
        if let Some(followed) = &mut self.children {
            changed.clear();
            followed.changes.gather(world, &mut changed);
            for &parent in &changed {
                self.builder.touch(parent).reordered = true;
            }
            // A parent whose list went away has no order to send.
            let _ = read_removals(world, followed, &mut self.builder, |_| {});
        }
        self.writer.changed = changed;
        self.writer.journal.push(self.tick, &mut self.builder);
        if missed {
            // A removal stream shed entries this replicator had not read: no window
            // is complete any more.
            for peer in self.peers.iter_mut().filter_map(|slot| slot.peer.as_mut()) {
                force_snapshot(peer);
            }
        }
        self.trim();
    }

    /// Drops the journal ticks no peer needs; past the limit, the oldest ticks too,
    /// and the peers that needed them get snapshots.
    fn trim(&mut self) {
        let now = self.tick;
        let journal = &mut self.writer.journal;
        let peers = || self.peers.iter().filter_map(|slot| slot.peer.as_ref());
        let needed = peers().map(|peer| oldest_needed(peer, now)).min().unwrap_or(now);
        journal.drop_through(needed);
        if journal.held() > self.journal_limit {
            while journal.held() > self.journal_limit / 2 {
                let Some(oldest) = journal.oldest() else { break };
                journal.drop_through(oldest);
            }
            let dropped = journal.dropped_through;
            for peer in self.peers.iter_mut().filter_map(|slot| slot.peer.as_mut()) {
                if oldest_needed(peer, now) < dropped {
                    force_snapshot(peer);
                }
            }
        }
    }

    /// Appends the peer's next delta to `out`: what changed since its window starts,
    /// for the entities it sees (see [`AckMode`]), or a snapshot of them all when it
    /// has none yet. Binary (postcard values); [`delta_to_json`](super::delta_to_json)
    /// shows one as JSON.
    ///
    /// # Errors
    /// [`ReplicateError::NoSuchPeer`]; [`ReplicateError::Value`] if a value's
    /// `Serialize` fails (nothing is appended, and the peer's state is unchanged but
    /// for handles given to entities the failed delta named).
    ///
    /// # Panics
    /// If `world` is not the world the replicator was made for. A `Serialize` that
    /// panics leaves the peer in place, as it was before the call but for handles.
    pub fn write_delta(&mut self, world: &World, peer: PeerId, out: &mut Vec<u8>) -> Result<DeltaInfo, ReplicateError> {
        self.check_world(world);
        let now = self.tick;
        let state = peer_in(&mut self.peers, peer)?;
        self.writer.write_for(world, state, now, out)
    }
}

/// The peer `peer` names in `peers`.
fn peer_in(peers: &mut [PeerSlot], peer: PeerId) -> Result<&mut Peer, ReplicateError> {
    match peers.get_mut(peer.slot as usize) {
        Some(PeerSlot { generation, peer: Some(state) }) if *generation == peer.generation => Ok(state),
        _ => Err(ReplicateError::NoSuchPeer { peer: peer.slot }),
    }
}

impl Writer {
    fn write_for(
        &mut self,
        world: &World,
        peer: &mut Peer,
        now: u64,
        out: &mut Vec<u8>,
    ) -> Result<DeltaInfo, ReplicateError> {
        let seq = peer.next_seq;
        let snapshot = peer.needs_snapshot;
        let start = out.len();
        out.extend_from_slice(&[wire::MAGIC, wire::VERSION]);
        out.extend_from_slice(&self.schema.to_le_bytes());
        put_varint(out, seq);
        out.push(if snapshot { wire::SNAPSHOT } else { 0 });
        // Entities the peer has handles for that died unreported (a snapshot looks at
        // them all): sent as gone until the peer acknowledges it.
        if let Some(handles) = peer.handles.as_deref_mut() {
            let budget = if snapshot { handles.len() + SWEEP_PER_DELTA } else { SWEEP_PER_DELTA };
            handles.sweep(world, budget, &mut peer.dead);
        }
        let mut sent = peer.start_sent(seq, now, snapshot);
        let written = self.write_body(world, peer, now, snapshot, &mut sent, out);
        let records = match written {
            Ok(records) => records,
            Err(error) => {
                out.truncate(start);
                peer.spare.push(sent);
                return Err(error);
            }
        };
        // Written: the peer's state moves on.
        peer.next_seq += 1;
        sent.refresh = peer.refresh;
        if peer.mode == AckMode::SinceLastSendWithNack {
            // Asked again if the delta is lost; acknowledged mode asks in every delta
            // until one that asked is acknowledged.
            peer.refresh = false;
            peer.hide.clear();
            peer.reshow.clear();
            if snapshot {
                peer.needs_snapshot = false;
                peer.resend.clear();
            } else {
                // The window it covered and the lost ones it re-sent, as one.
                let from = peer.resend.iter().map(|w| w.0).fold(peer.base, u64::min);
                sent.windows.push((from, now));
                peer.resend.clear();
            }
            peer.base = now;
            peer.view.record(snapshot, &sent.shown);
        }
        peer.push_sent(sent);
        Ok(DeltaInfo { seq, bytes: out.len() - start, records, snapshot })
    }

    /// The records of a delta: the touches of the peer's window (or, for a snapshot,
    /// every replicated entity), with what it must hear again, through its view.
    fn write_body(
        &mut self,
        world: &World,
        peer: &mut Peer,
        now: u64,
        snapshot: bool,
        sent: &mut Sent,
        out: &mut Vec<u8>,
    ) -> Result<usize, ReplicateError> {
        // Acknowledged mode: entities whose view a delta in flight changed are settled
        // in every delta, so that whichever is acknowledged, the view it records is
        // the receiver's.
        let unsettled = match (&peer.view, peer.mode) {
            (PeerView::Filtered { .. }, AckMode::SinceLastAck) => peer.in_flight_view.len(),
            _ => 0,
        };
        let extra = peer.resend.len() + peer.hide.len() + peer.reshow.len() + peer.dead.len() + unsettled;
        let plain = !snapshot && !peer.refresh && extra == 0;
        if plain && matches!(peer.view, PeerView::All) {
            // The encoding every such peer with this window shares.
            let at = self.shared_body(world, peer.base, now)?;
            let handles = peer.handles.as_deref_mut().expect("ripple: a peer's handles are home");
            if let Some(records) = self.shared[at].encoded.emit(handles, &mut sent.gone, out) {
                return Ok(records);
            }
        }
        self.merger.clear();
        if snapshot || peer.refresh {
            let mut all = std::mem::take(&mut self.changed);
            all.clear();
            self.replicated.for_each(world, |entity| all.push(entity));
            for &entity in &all {
                self.merger.add(&Touch { resend: snapshot, ..Touch::new(entity) });
            }
            self.changed = all;
        }
        let from = if snapshot { now } else { peer.base };
        let single = window_touches(&self.journal, &mut self.merger, from, now, !plain);
        if single.is_none() {
            for &(from, to) in &peer.resend {
                for touches in self.journal.window(from, to) {
                    for touch in touches {
                        self.merger.add(&Touch { resend: true, ..*touch });
                    }
                }
            }
            for &entity in &peer.hide {
                self.merger.add(&Touch { hide: true, ..Touch::new(entity) });
            }
            for &entity in &peer.reshow {
                self.merger.add(&Touch { resend: true, ..Touch::new(entity) });
            }
            for &entity in &peer.dead {
                self.merger.add(&Touch::new(entity));
            }
            if unsettled > 0 {
                for &bits in peer.in_flight_view.keys() {
                    if let Some(entity) = Entity::from_bits(bits) {
                        self.merger.add(&Touch::new(entity));
                    }
                }
            }
        }
        let touches = single.unwrap_or_else(|| self.merger.touches());
        let empty = IdMap::default();
        let decide = match &peer.view {
            PeerView::All => Decide::All,
            PeerView::Filtered { visible, shown } => Decide::Filtered {
                visible: &**visible,
                // A snapshot is all the peer will hold.
                shown: if snapshot { &empty } else { shown },
                in_flight: &peer.in_flight_view,
                changes: &mut sent.shown,
            },
        };
        let how =
            EncodeFor { registry: &self.registry, child_of: self.child_of, decide, handles: Some(&mut peer.handles) };
        self.encoder.encode(world, touches, how, &mut self.own)?;
        let handles = peer.handles.as_deref_mut().expect("ripple: a peer's handles are home");
        Ok(self.own.emit(handles, &mut sent.gone, out).expect("ripple: a peer's own encoding fits it"))
    }

    /// The index in `shared` of the encoding of the window `(base, now]` for peers that
    /// see every entity, encoded now if no peer asked for it since the last update.
    fn shared_body(&mut self, world: &World, base: u64, now: u64) -> Result<usize, ReplicateError> {
        if let Some(at) = self.shared.iter().position(|body| body.valid && body.base == base) {
            return Ok(at);
        }
        let at = match self.shared.iter().position(|body| !body.valid) {
            Some(at) => at,
            None => {
                self.shared.push(SharedBody { base, valid: false, encoded: Encoded::default() });
                self.shared.len() - 1
            }
        };
        self.merger.clear();
        let touches = match window_touches(&self.journal, &mut self.merger, base, now, false) {
            Some(single) => single,
            None => self.merger.touches(),
        };
        let how = EncodeFor { registry: &self.registry, child_of: self.child_of, decide: Decide::All, handles: None };
        let body = &mut self.shared[at];
        self.encoder.encode(world, touches, how, &mut body.encoded)?;
        body.base = base;
        body.valid = true;
        Ok(at)
    }
}

impl std::fmt::Debug for Replicator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replicator")
            .field("components", &self.writer.registry.component_names().collect::<Vec<_>>())
            .field("peers", &self.peer_count())
            .field("tick", &self.tick)
            .finish_non_exhaustive()
    }
}

/// The touches of the journal ticks in `(from, to]`: one tick's as the journal holds
/// them (`Some`), or, over several ticks or when `merge` asks, added to `merger` (`None`).
fn window_touches<'j>(
    journal: &'j Journal,
    merger: &mut Merger,
    from: u64,
    to: u64,
    merge: bool,
) -> Option<&'j [Touch]> {
    let mut window = journal.window(from, to);
    match (merge, window.next(), window.next()) {
        (false, None, _) => Some(&[]),
        (false, Some(one), None) => Some(one),
        (_, first, second) => {
            for touches in first.into_iter().chain(second).chain(window) {
                touches.iter().for_each(|touch| merger.add(touch));
            }
            None
        }
    }
}

/// The oldest journal tick `peer` may still need, `now` when it needs none.
fn oldest_needed(peer: &Peer, now: u64) -> u64 {
    if peer.needs_snapshot {
        // A snapshot in flight (acknowledged mode) becomes the window's start.
        return peer.in_flight.iter().filter(|sent| sent.snapshot).map(|sent| sent.tick).min().unwrap_or(now);
    }
    peer.oldest_needed()
}

/// The peer's next delta is a snapshot; nothing in flight counts any more.
fn force_snapshot(peer: &mut Peer) {
    peer.needs_snapshot = true;
    peer.resend.clear();
    peer.hide.clear();
    peer.reshow.clear();
    while let Some(sent) = peer.in_flight.pop_front() {
        peer.retire(sent);
    }
}

/// Reads `followed`'s removals into `builder`; whether the stream had shed some.
fn read_removals(world: &World, followed: &Followed, builder: &mut TickBuilder, mark: impl Fn(&mut Touch)) -> bool {
    let read = world.removal_log(followed.id).read(&followed.removals);
    for (entity, _) in read.entries {
        mark(builder.touch(entity));
    }
    read.missed > 0
}
