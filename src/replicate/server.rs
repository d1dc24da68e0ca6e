//! [`Replicator`]: the sending side. It follows the replicated components' change
//! lists once per [`update`](Replicator::update) into a journal shared by every peer,
//! and writes each peer's delta from the journal ticks its window covers.

use std::ops::Range;

use crate::change::log::Cursor;
use crate::component::ComponentId;
use crate::entity::Entity;
use crate::hash::IdMap;
use crate::hierarchy::ChildOf;
use crate::query::{ChangeSource, Changes, QueryState, With};
use crate::scene::SceneRegistry;
use crate::world::{World, WorldId};

use super::error::ReplicateError;
use super::journal::{Journal, Merger, TickBuilder, Touch};
use super::peer::{AckMode, Peer, PeerConfig, PeerId, PeerView, Sent, View};
use super::wire::{self, DESPAWN, FLAG_BITS, FULL, MAX_REPLICATED_COMPONENTS, REMOVED, put_varint};

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

/// A body written for the peers whose windows start at `base`, with no view filter
/// and nothing to re-send: they all get the same bytes.
struct CachedBody {
    base: u64,
    bytes: Range<usize>,
    records: usize,
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
/// # Cost
/// `update` costs what changed since the last update: it reads the `Changed<T>`
/// lists and removal streams of the registered components (tracking them from
/// [`new`](Self::new) on). A delta costs the entities its window touched: peers that
/// see every entity and whose windows start at the same tick share one encoding, so
/// sixteen peers acknowledging every frame cost one encoding and sixteen copies. A
/// snapshot, O(replicated entities), goes to a new peer (in
/// [`AckMode::SinceLastAck`], every delta until one is acknowledged), to one that fell
/// further behind than the journal keeps, and to all after a removal stream dropped
/// removals the replicator had not read.
///
/// ```
/// use ripple::{DeltaReceiver, PeerConfig, Replicated, Replicator, SceneRegistry, World};
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
///     replicator.ack(peer, info.seq);
/// }
/// let local = receiver.entity_map().get(crate_).unwrap();
/// assert_eq!(client.get::<Position>(local)?, &Position(3.0, 0.0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Replicator {
    registry: SceneRegistry,
    world: WorldId,
    components: Vec<Followed>,
    marker: Followed,
    /// Markers peers' views depend on (a change touches the entity).
    view_markers: Vec<Followed>,
    replicated: QueryState<Entity, With<Replicated>>,
    schema: u32,
    /// The registry index of `ChildOf`, if registered: its records carry the order
    /// of their parents' children.
    child_of: Option<usize>,
    tick: u64,
    journal: Journal,
    journal_limit: usize,
    builder: TickBuilder,
    merger: Merger,
    peers: Vec<Option<Peer>>,
    cache: Vec<CachedBody>,
    cache_bytes: Vec<u8>,
    changed: Vec<Entity>,
    encoder: Encoder,
}

impl Replicator {
    /// A replicator of `world`'s entities marked [`Replicated`], with the components
    /// `registry` names (in the registry's order, which the receiver's registry must
    /// share: deltas carry a fingerprint of the names and a receiver refuses others).
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
        let schema = wire::fingerprint(registry.component_names());
        Ok(Replicator {
            world: world.id(),
            components,
            marker,
            view_markers: Vec::new(),
            replicated: QueryState::new(world),
            schema,
            child_of,
            tick: 0,
            journal: Journal::default(),
            journal_limit: DEFAULT_JOURNAL_LIMIT,
            builder: TickBuilder::default(),
            merger: Merger::default(),
            peers: Vec::new(),
            cache: Vec::new(),
            cache_bytes: Vec::new(),
            changed: Vec::new(),
            encoder: Encoder::default(),
            registry,
        })
    }

    /// The registry the replicator sends by.
    pub fn registry(&self) -> &SceneRegistry {
        &self.registry
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
        let slot = self.peers.iter().position(Option::is_none).unwrap_or(self.peers.len());
        if slot == self.peers.len() {
            self.peers.push(None);
        }
        self.peers[slot] = Some(peer);
        PeerId(slot as u32)
    }

    /// Forgets a peer; returns whether it was one.
    pub fn remove_peer(&mut self, peer: PeerId) -> bool {
        self.peers.get_mut(peer.0 as usize).and_then(Option::take).is_some()
    }

    /// How many peers there are.
    pub fn peer_count(&self) -> usize {
        self.peers.iter().flatten().count()
    }

    /// The peer acknowledged delta `seq`: in [`AckMode::SinceLastAck`] its next
    /// delta starts after what `seq` carried; in
    /// [`AckMode::SinceLastSendWithNack`], deltas sent before `seq` and not
    /// acknowledged count as lost (the receiver ignores them once it applied a later
    /// one). Acknowledgements that arrive late, twice or for unknown deltas change
    /// nothing.
    pub fn ack(&mut self, peer: PeerId, seq: u64) {
        if let Some(Some(peer)) = self.peers.get_mut(peer.0 as usize) {
            peer.ack(seq);
        }
    }

    /// The peer did not receive delta `seq`: in
    /// [`AckMode::SinceLastSendWithNack`] the next delta re-sends every entity it
    /// named; in [`AckMode::SinceLastAck`] nothing is needed and this does nothing
    /// (the next delta carries it anyway).
    pub fn nack(&mut self, peer: PeerId, seq: u64) {
        if let Some(Some(peer)) = self.peers.get_mut(peer.0 as usize) {
            peer.nack(seq);
        }
    }

    /// Re-asks the peer's visibility filter about every replicated entity at its
    /// next delta (for a filter that reads more than the entity it is asked about).
    /// O(replicated entities) at that delta.
    pub fn refresh_visibility(&mut self, peer: PeerId) {
        if let Some(Some(peer)) = self.peers.get_mut(peer.0 as usize) {
            peer.refresh = true;
        }
    }

    /// Bytes the replicator's journal and encoding buffers hold (not counting the
    /// per-peer bookkeeping of deltas in flight and filtered views).
    pub fn memory(&self) -> usize {
        self.journal.bytes()
            + self.cache_bytes.capacity()
            + self.encoder.body.capacity()
            + self.encoder.values.capacity()
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
        self.cache.clear();
        self.cache_bytes.clear();
        let mut changed = std::mem::take(&mut self.changed);
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
        self.changed = changed;
        self.journal.push(self.tick, &mut self.builder);
        if missed {
            // A removal stream shed entries this replicator had not read: no window
            // is complete any more.
            for peer in self.peers.iter_mut().flatten() {
                force_snapshot(peer);
            }
        }
        self.trim();
    }

    /// Drops the journal ticks no peer needs; past the limit, the oldest ticks too,
    /// and the peers that needed them get snapshots.
    fn trim(&mut self) {
        let now = self.tick;
        let needed = self.peers.iter().flatten().map(|peer| oldest_needed(peer, now)).min().unwrap_or(now);
        self.journal.drop_through(needed);
        if self.journal.held() > self.journal_limit {
            while self.journal.held() > self.journal_limit / 2 {
                let Some(oldest) = self.journal.oldest() else { break };
                self.journal.drop_through(oldest);
            }
            let dropped = self.journal.dropped_through;
            for peer in self.peers.iter_mut().flatten() {
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
    /// `Serialize` fails (nothing is appended and the peer's state is unchanged).
    ///
    /// # Panics
    /// If `world` is not the world the replicator was made for.
    pub fn write_delta(&mut self, world: &World, peer: PeerId, out: &mut Vec<u8>) -> Result<DeltaInfo, ReplicateError> {
        self.check_world(world);
        let now = self.tick;
        let mut state = self
            .peers
            .get_mut(peer.0 as usize)
            .and_then(Option::take)
            .ok_or(ReplicateError::NoSuchPeer { peer: peer.0 })?;
        let result = self.write_for(world, &mut state, now, out);
        self.peers[peer.0 as usize] = Some(state);
        result
    }

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
        let mut sent = peer.start_sent(seq, now, snapshot);
        let written = if snapshot {
            self.write_snapshot(world, peer, &mut sent, out)
        } else if matches!(peer.view, PeerView::All) && peer.resend.is_empty() && !peer.refresh {
            self.write_shared(world, peer.base, now, out)
        } else {
            self.write_own(world, peer, now, &mut sent, out)
        };
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
        }
        if peer.mode == AckMode::SinceLastSendWithNack {
            peer.hide.clear();
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

    /// The body shared by peers that see everything and whose window starts at
    /// `base`, encoded once per update.
    fn write_shared(&mut self, world: &World, base: u64, now: u64, out: &mut Vec<u8>) -> Result<usize, ReplicateError> {
        if let Some(cached) = self.cache.iter().find(|cached| cached.base == base) {
            out.extend_from_slice(&self.cache_bytes[cached.bytes.clone()]);
            return Ok(cached.records);
        }
        let mut window = self.journal.window(base, now);
        let (touches, merged): (&[Touch], bool) = match (window.next(), window.next()) {
            (None, _) => (&[], false),
            (Some(one), None) => (one, false),
            (Some(first), Some(second)) => {
                self.merger.clear();
                for touches in [first, second].into_iter().chain(window) {
                    touches.iter().for_each(|touch| self.merger.add(touch));
                }
                (&[], true)
            }
        };
        let touches = if merged { self.merger.touches() } else { touches };
        let start = self.cache_bytes.len();
        let records = self.encoder.encode(
            world,
            &self.registry,
            self.child_of,
            touches,
            &mut Decide::All,
            &mut self.cache_bytes,
        )?;
        self.cache.push(CachedBody { base, bytes: start..self.cache_bytes.len(), records });
        out.extend_from_slice(&self.cache_bytes[start..]);
        Ok(records)
    }

    /// A body for one peer: its window and re-sends merged, through its view.
    fn write_own(
        &mut self,
        world: &World,
        peer: &mut Peer,
        now: u64,
        sent: &mut Sent,
        out: &mut Vec<u8>,
    ) -> Result<usize, ReplicateError> {
        self.merger.clear();
        if peer.refresh {
            let mut all = std::mem::take(&mut self.changed);
            all.clear();
            self.replicated.for_each(world, |entity| all.push(entity));
            for &entity in &all {
                self.merger.add(&Touch::new(entity));
            }
            self.changed = all;
        }
        for touches in self.journal.window(peer.base, now) {
            touches.iter().for_each(|touch| self.merger.add(touch));
        }
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
        let mut decide = match &peer.view {
            PeerView::All => Decide::All,
            PeerView::Filtered { visible, shown } => Decide::Filtered {
                visible: &**visible,
                shown,
                in_flight: &peer.in_flight_view,
                changes: &mut sent.shown,
            },
        };
        self.encoder.encode(world, &self.registry, self.child_of, self.merger.touches(), &mut decide, out)
    }

    /// Every replicated entity the peer sees, whole.
    fn write_snapshot(
        &mut self,
        world: &World,
        peer: &mut Peer,
        sent: &mut Sent,
        out: &mut Vec<u8>,
    ) -> Result<usize, ReplicateError> {
        let mut all = std::mem::take(&mut self.changed);
        all.clear();
        self.replicated.for_each(world, |entity| all.push(entity));
        self.merger.clear();
        for &entity in &all {
            self.merger.add(&Touch { resend: true, ..Touch::new(entity) });
        }
        self.changed = all;
        let empty = IdMap::default();
        let mut decide = match &peer.view {
            PeerView::All => Decide::All,
            PeerView::Filtered { visible, .. } => Decide::Filtered {
                visible: &**visible,
                shown: &empty,
                in_flight: &peer.in_flight_view,
                changes: &mut sent.shown,
            },
        };
        self.encoder.encode(world, &self.registry, self.child_of, self.merger.touches(), &mut decide, out)
    }
}

impl std::fmt::Debug for Replicator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replicator")
            .field("components", &self.registry.component_names().collect::<Vec<_>>())
            .field("peers", &self.peer_count())
            .field("tick", &self.tick)
            .finish_non_exhaustive()
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

/// Scratch space for writing bodies.
#[derive(Default)]
struct Encoder {
    /// The body written last.
    body: Vec<u8>,
    /// One record's values.
    values: Vec<u8>,
    /// The parents whose children orders the body carries.
    parents: IdMap<u64, ()>,
    parent_list: Vec<Entity>,
}

/// How a touched entity is sent to one peer.
enum Decide<'a> {
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
    fn kind(&mut self, world: &World, touch: &Touch) -> Kind {
        let entity = touch.entity;
        let alive = world.contains(entity);
        let replicated = alive && world.get::<Replicated>(entity).is_ok();
        // A despawned entity the receiver may hold (a replica or a stand-in: it had a
        // marker or a replicated component) is sent as gone.
        let gone = if touch.left || touch.removed != 0 { Kind::Gone } else { Kind::Skip };
        match self {
            // A re-sent touch keeps its flags: an entity that left the replicated set
            // in the lost window is hidden again.
            Decide::All => match (replicated, touch.entered || touch.resend) {
                (true, true) => Kind::Full,
                (true, false) => Kind::Diff,
                (false, _) if !alive => gone,
                (false, _) if touch.left => Kind::Hide,
                (false, _) => Kind::Skip,
            },
            Decide::Filtered { visible, shown, in_flight, changes } => {
                let now = replicated && visible(world, entity);
                let was = shown.contains_key(&entity.to_bits());
                let [showing, hiding] = in_flight.get(&entity.to_bits()).copied().unwrap_or([0; 2]);
                // Surely held: shown, and no delta in flight may have hidden it.
                let sure = was && hiding == 0;
                // Perhaps held: shown, or a delta in flight may have shown it.
                let held = was || showing > 0 || touch.hide;
                let kind = match (now, sure) {
                    (true, false) => Kind::Full,
                    (true, true) if touch.entered || touch.resend => Kind::Full,
                    (true, true) => Kind::Diff,
                    (false, _) if !alive && held => Kind::Gone,
                    (false, _) if !alive => gone,
                    (false, _) if held => Kind::Hide,
                    (false, _) => Kind::Skip,
                };
                // Every view a record sets is recorded, as the view once the delta is
                // acknowledged (whatever was acknowledged between), or to hide again
                // if the delta is lost.
                if now != was || matches!(kind, Kind::Full | Kind::Hide | Kind::Gone) {
                    changes.push((entity, now));
                }
                kind
            }
        }
    }
}

/// Writes the records of `touches` as `decide` sends them, then the order records of
/// the parents whose children's `ChildOf` they carry, and appends them to `out`
/// behind their count (nothing on an error); returns the record count.
impl Encoder {
    fn encode(
        &mut self,
        world: &World,
        registry: &SceneRegistry,
        child_of: Option<usize>,
        touches: &[Touch],
        decide: &mut Decide<'_>,
        out: &mut Vec<u8>,
    ) -> Result<usize, ReplicateError> {
        let Encoder { body, values, parents: parent_set, parent_list } = self;
        body.clear();
        let entries = &registry.components;
        let child_of_bit = child_of.map_or(0, |c| 1u64 << c);
        let mut records = 0;
        let mut parents = 0usize;
        parent_set.clear();
        parent_list.clear();
        for touch in touches {
            let entity = touch.entity;
            let (mut set, mut removed, flags) = match decide.kind(world, touch) {
                Kind::Skip => continue,
                kind @ (Kind::Gone | Kind::Hide) => {
                    put_varint(body, entity.to_bits());
                    put_varint(body, if matches!(kind, Kind::Gone) { DESPAWN } else { FULL });
                    records += 1;
                    continue;
                }
                Kind::Full => (wire::component_mask(entries.len()), 0, FULL),
                Kind::Diff => (touch.set, touch.removed, 0),
            };
            if set == 0 && removed == 0 && flags == 0 {
                continue;
            }
            values.clear();
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
            if flags == 0 && set == 0 && removed == 0 {
                continue;
            }
            let header = (set << FLAG_BITS) | flags | if removed != 0 { REMOVED } else { 0 };
            put_varint(body, entity.to_bits());
            put_varint(body, header);
            if removed != 0 {
                put_varint(body, removed);
            }
            body.extend_from_slice(values);
            records += 1;
            if set & child_of_bit != 0
                && let Ok(&ChildOf(parent)) = world.get::<ChildOf>(entity)
                && parent_set.insert(parent.to_bits(), ()).is_none()
            {
                parent_list.push(parent);
                parents += 1;
            }
        }
        put_varint(body, parents as u64);
        for &parent in parent_list.iter() {
            let children = world.children(parent).unwrap_or(&[]);
            put_varint(body, parent.to_bits());
            put_varint(body, children.len() as u64);
            for child in children {
                put_varint(body, child.to_bits());
            }
        }
        put_varint(out, records as u64);
        out.extend_from_slice(body);
        Ok(records)
    }
}
