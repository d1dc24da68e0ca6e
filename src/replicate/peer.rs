//! A peer's configuration (how it acknowledges, what it sees) and the state the
//! replicator keeps for it.

use std::collections::VecDeque;
use std::fmt;

use crate::component::{Component, ComponentId};
use crate::entity::Entity;
use crate::query::{ChangeSource, Changes};
use crate::util::hash::IdMap;
use crate::world::World;

use super::peer_handles::PeerHandles;

/// How a peer tells the replicator what arrived, and so what its next delta holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AckMode {
    /// Each delta holds everything that changed since the last delta the peer
    /// acknowledged ([`Replicator::ack`](super::Replicator::ack)), so a lost delta
    /// needs nothing: the next one carries its contents again, with the values of
    /// then. Deltas grow while acknowledgements are missing. The default.
    #[default]
    SinceLastAck,
    /// Each delta holds what changed since the last delta sent. A delta the peer did
    /// not receive is reported with [`Replicator::nack`](super::Replicator::nack), or
    /// found when a later one is acknowledged first; what it carried is sent again
    /// (each entity it named, whole) in the next delta. Deltas stay small under
    /// loss, at the price of a round trip before a loss is repaired.
    SinceLastSendWithNack,
}

/// Which replicated entities a peer sees.
///
/// An entity that leaves a peer's view is sent to that peer as despawned, and one
/// that enters it is sent whole.
pub struct Visibility(pub(crate) View);

/// A visibility filter: whether the peer sees the entity.
pub(crate) type VisibleFn = Box<dyn Fn(&World, Entity) -> bool + Send + Sync>;

pub(crate) enum View {
    All,
    Marker { register: fn(&mut World) -> (ComponentId, Box<dyn ChangeSource>), has: fn(&World, Entity) -> bool },
    Filter(VisibleFn),
}

impl Visibility {
    /// Every replicated entity (the default).
    pub fn all() -> Visibility {
        Visibility(View::All)
    }

    /// The replicated entities that have an `M`. Adding or removing `M` moves an
    /// entity into or out of the view at the next [`update`](super::Replicator::update).
    pub fn with<M: Component>() -> Visibility {
        Visibility(View::Marker {
            register: |world| {
                let id = world.components.id_or_register::<M>();
                (id, Box::new(Changes::<M>::from_now(world)))
            },
            has: |world, entity| world.get::<M>(entity).is_ok(),
        })
    }

    /// The replicated entities for which `filter` holds. It is asked about the
    /// entities touched since the peer's last delta (and about every replicated
    /// entity after [`refresh_visibility`](super::Replicator::refresh_visibility),
    /// which a filter that reads other entities needs when those change).
    pub fn filter(filter: impl Fn(&World, Entity) -> bool + Send + Sync + 'static) -> Visibility {
        Visibility(View::Filter(Box::new(filter)))
    }
}

impl Default for Visibility {
    fn default() -> Self {
        Visibility::all()
    }
}

impl fmt::Debug for Visibility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.0 {
            View::All => "Visibility::all()",
            View::Marker { .. } => "Visibility::with::<_>()",
            View::Filter(_) => "Visibility::filter(_)",
        })
    }
}

/// How a peer is served: [`AckMode`] and [`Visibility`].
#[derive(Debug, Default)]
pub struct PeerConfig {
    /// How the peer acknowledges.
    pub mode: AckMode,
    /// What the peer sees.
    pub visibility: Visibility,
}

/// Names a peer of one [`Replicator`](super::Replicator). Ids carry a generation: once
/// the peer is removed, its id names nothing, even after another peer takes its slot
/// (the replicator answers it with [`ReplicateError::NoSuchPeer`](super::ReplicateError::NoSuchPeer)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PeerId {
    pub(crate) slot: u32,
    pub(crate) generation: u32,
}

/// A delta sent and not yet acknowledged.
pub(crate) struct Sent {
    pub(crate) seq: u64,
    /// The journal tick it was written at.
    pub(crate) tick: u64,
    pub(crate) snapshot: bool,
    /// It asked the filter about every replicated entity (`refresh_visibility`):
    /// asked again if it is lost.
    pub(crate) refresh: bool,
    /// The windows of ticks it covered (`SinceLastSendWithNack`), to re-send if lost.
    pub(crate) windows: Vec<(u64, u64)>,
    /// Entities whose view it changed, and to what (peers with a filter): the peer's
    /// view once it is acknowledged (`SinceLastAck`); the entities to show or hide
    /// again if it is lost (`SinceLastSendWithNack`).
    pub(crate) shown: Vec<(Entity, bool)>,
    /// Entities it told the peer are gone: their peer handles are freed once it is
    /// acknowledged.
    pub(crate) gone: Vec<Entity>,
}

/// The most deltas a peer may have unacknowledged: past it the oldest is forgotten
/// (in `SinceLastSendWithNack`, counted as lost).
pub(crate) const MAX_IN_FLIGHT: usize = 256;

/// The replicator's state for one peer.
pub(crate) struct Peer {
    pub(crate) mode: AckMode,
    pub(crate) view: PeerView,
    /// The journal tick the next delta's window starts after.
    pub(crate) base: u64,
    /// The next delta must be a snapshot (a new peer, or one whose window was dropped).
    pub(crate) needs_snapshot: bool,
    pub(crate) next_seq: u64,
    pub(crate) acked: Option<u64>,
    pub(crate) in_flight: VecDeque<Sent>,
    /// Windows of lost deltas, to re-send (`SinceLastSendWithNack`).
    pub(crate) resend: Vec<(u64, u64)>,
    /// Entities lost deltas hid from the peer, to hide again (`SinceLastSendWithNack`).
    pub(crate) hide: Vec<Entity>,
    /// Entities lost deltas showed the peer, to send whole again
    /// (`SinceLastSendWithNack`).
    pub(crate) reshow: Vec<Entity>,
    /// Re-ask the filter about every replicated entity at the next delta (in
    /// `SinceLastAck`, at every delta until one that asked is acknowledged).
    pub(crate) refresh: bool,
    /// The first delta written after the latest refresh request: only a delta from it
    /// on answers the request.
    pub(crate) refresh_from: u64,
    /// The handles the peer knows entities by (home between the loans that write
    /// values).
    pub(crate) handles: Option<Box<PeerHandles>>,
    /// Entities with handles found despawned by a sweep: sent as gone in every delta
    /// until one that did is acknowledged.
    pub(crate) dead: Vec<Entity>,
    /// Buffers of acknowledged deltas, for reuse.
    pub(crate) spare: Vec<Sent>,
    /// Filtered peers, `SinceLastAck`: how many deltas in flight show (`[0]`) and
    /// hide (`[1]`) each entity: the receiver may hold the first though the
    /// acknowledged view does not, and may have hidden the second though it does.
    pub(crate) in_flight_view: IdMap<u64, [u32; 2]>,
}

/// A peer's view, resolved against the world.
pub(crate) enum PeerView {
    All,
    /// A filter (or a marker): the entities the peer holds, as acknowledged
    /// (`SinceLastAck`) or as sent (`SinceLastSendWithNack`).
    Filtered {
        visible: VisibleFn,
        shown: IdMap<u64, ()>,
    },
}

impl PeerView {
    /// Takes in the view changes of a delta (`snapshot`: everything it shows is all
    /// the peer holds).
    pub(crate) fn record(&mut self, snapshot: bool, changes: &[(Entity, bool)]) {
        let PeerView::Filtered { shown, .. } = self else { return };
        if snapshot {
            shown.clear();
        }
        for &(entity, visible) in changes {
            if visible {
                shown.insert(entity.to_bits(), ());
            } else {
                shown.remove(&entity.to_bits());
            }
        }
    }
}

impl Peer {
    pub(crate) fn new(mode: AckMode, view: PeerView, now: u64) -> Peer {
        Peer {
            mode,
            view,
            base: now,
            needs_snapshot: true,
            next_seq: 1,
            acked: None,
            in_flight: VecDeque::new(),
            resend: Vec::new(),
            hide: Vec::new(),
            reshow: Vec::new(),
            refresh: false,
            refresh_from: 0,
            handles: Some(Box::default()),
            dead: Vec::new(),
            spare: Vec::new(),
            in_flight_view: IdMap::default(),
        }
    }

    /// The oldest journal tick the peer may still need.
    pub(crate) fn oldest_needed(&self) -> u64 {
        let mut oldest = self.base;
        if self.mode == AckMode::SinceLastSendWithNack {
            for sent in &self.in_flight {
                oldest = oldest.min(sent.windows.iter().map(|w| w.0).min().unwrap_or(u64::MAX));
            }
            oldest = oldest.min(self.resend.iter().map(|w| w.0).min().unwrap_or(u64::MAX));
        }
        oldest
    }

    /// A record for a delta about to be written.
    pub(crate) fn start_sent(&mut self, seq: u64, tick: u64, snapshot: bool) -> Sent {
        let mut sent = self.spare.pop().unwrap_or(Sent {
            seq,
            tick,
            snapshot,
            refresh: false,
            windows: Vec::new(),
            shown: Vec::new(),
            gone: Vec::new(),
        });
        sent.seq = seq;
        sent.tick = tick;
        sent.snapshot = snapshot;
        sent.refresh = false;
        sent.windows.clear();
        sent.shown.clear();
        sent.gone.clear();
        sent
    }

    /// Keeps `sent` until acknowledged (forgetting the oldest past [`MAX_IN_FLIGHT`]).
    pub(crate) fn push_sent(&mut self, sent: Sent) {
        if self.mode == AckMode::SinceLastAck {
            for &(entity, shown) in &sent.shown {
                self.in_flight_view.entry(entity.to_bits()).or_insert([0; 2])[usize::from(!shown)] += 1;
            }
        }
        if self.in_flight.len() == MAX_IN_FLIGHT
            && let Some(oldest) = self.in_flight.pop_front()
        {
            self.lost(oldest);
        }
        self.in_flight.push_back(sent);
    }

    /// `sent` leaves the deltas in flight.
    pub(crate) fn retire(&mut self, sent: Sent) {
        if self.mode == AckMode::SinceLastAck {
            for &(entity, shown) in &sent.shown {
                if let Some(counts) = self.in_flight_view.get_mut(&entity.to_bits()) {
                    counts[usize::from(!shown)] -= 1;
                    if *counts == [0; 2] {
                        self.in_flight_view.remove(&entity.to_bits());
                    }
                }
            }
        }
        self.spare.push(sent);
    }

    /// `sent` did not arrive.
    pub(crate) fn lost(&mut self, sent: Sent) {
        self.refresh |= sent.refresh;
        if self.mode == AckMode::SinceLastSendWithNack {
            if sent.snapshot {
                self.needs_snapshot = true;
            }
            // One window covering every lost one: re-sending an entity the lost
            // deltas did not name costs bytes, never correctness, and the windows stay
            // bounded however many deltas are lost.
            for &window in &sent.windows {
                self.resend_window(window);
            }
            // The view as sent counted the lost delta's view changes: each is made
            // again (shown whole, or hidden) in the next delta.
            for &(entity, shown) in &sent.shown {
                if shown { self.reshow.push(entity) } else { self.hide.push(entity) }
            }
        }
        self.retire(sent);
    }

    /// Adds `window` to the ticks to re-send, kept as one window.
    pub(crate) fn resend_window(&mut self, (from, to): (u64, u64)) {
        match self.resend.first_mut() {
            Some(window) => *window = (window.0.min(from), window.1.max(to)),
            None => self.resend.push((from, to)),
        }
    }

    /// The peer acknowledged delta `seq`.
    pub(crate) fn ack(&mut self, seq: u64) {
        if self.acked.is_some_and(|acked| seq <= acked) || seq >= self.next_seq {
            return;
        }
        while let Some(sent) = self.in_flight.pop_front() {
            if sent.seq < seq {
                // Older and not acknowledged: the receiver ignores it from now on.
                self.lost(sent);
                continue;
            }
            if sent.seq == seq {
                self.acked = Some(seq);
                self.acknowledged(sent);
            } else {
                self.in_flight.push_front(sent);
            }
            return;
        }
    }

    fn acknowledged(&mut self, sent: Sent) {
        // The peer heard that these are gone: their handles may name others now.
        if let Some(handles) = self.handles.as_mut() {
            for &entity in &sent.gone {
                handles.release(entity);
            }
        }
        if !sent.gone.is_empty() {
            let handles = self.handles.as_deref();
            self.dead.retain(|&entity| handles.is_some_and(|h| h.get(entity).is_some()));
        }
        if self.mode == AckMode::SinceLastAck {
            self.base = self.base.max(sent.tick);
            // A request made after this delta was written waits for a later one.
            if sent.refresh && sent.seq >= self.refresh_from {
                self.refresh = false;
            }
            if sent.snapshot {
                self.needs_snapshot = false;
            }
            self.view.record(sent.snapshot, &sent.shown);
        }
        self.retire(sent);
    }

    /// The peer reports delta `seq` lost.
    pub(crate) fn nack(&mut self, seq: u64) {
        if self.mode == AckMode::SinceLastAck {
            return;
        }
        if let Some(at) = self.in_flight.iter().position(|sent| sent.seq == seq)
            && let Some(sent) = self.in_flight.remove(at)
        {
            self.lost(sent);
        }
    }
}
