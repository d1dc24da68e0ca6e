//! Adding a system: [`Schedule::add_system`] resolves its name, orders, sets and phase,
//! and initializes it and its conditions, as one tentative edit (see `tentative.rs`).

use std::borrow::Cow;

use crate::system::SystemAccess;
use crate::world::World;

use super::node::Node;
use super::{
    IntoSystemConfig, Schedule, ScheduleError, Slot, SystemConfig, SystemId, SystemStats, UPDATE, initialize_conditions,
};

impl Schedule {
    /// Adds a system (or a configured one) and prepares it for `world`; the schedule
    /// runs with this world from then on. Calls its `on_added` callback.
    ///
    /// # Errors
    /// [`ScheduleError`] if its phase or an ordering target is unknown, its phase
    /// differs from one of its sets', its name is taken, an ordering would close a
    /// cycle (listed) or contradict the phase order, its parameters or its conditions'
    /// conflict (named), or `world` is not the schedule's world. Nothing is changed
    /// then.
    pub fn add_system<M>(
        &mut self,
        world: &mut World,
        system: impl IntoSystemConfig<M>,
    ) -> Result<SystemId, ScheduleError> {
        self.check_world(world)?;
        let mut config = system.into_config();
        let name = match config.name.take() {
            Some(name) => {
                if self.find(&name).is_some() || self.find_set(&name).is_some_and(|set| !self.is_placeholder(set)) {
                    return Err(ScheduleError::DuplicateName(name.to_string()));
                }
                name
            }
            None => self.free_name(config.system.name()),
        };
        if config.sets.contains(&name) {
            return Err(ScheduleError::DuplicateName(name.to_string()));
        }
        config.system.set_name(name.clone());
        let on_added = config.on_added.take();
        let mut edit = self.tentatively();
        let id = edit.add_slot(world, name, config)?;
        edit.plans_stale = true;
        edit.commit();
        if let Some(on_added) = on_added {
            on_added(world);
        }
        Ok(id)
    }

    /// [`add_system`](Self::add_system)'s changes, made on a tentative edit (undone if
    /// this returns an error): resolves the system's orders, sets and phase, adds its
    /// slot, checks the order, and initializes the system and its conditions.
    fn add_slot(
        &mut self,
        world: &mut World,
        name: Cow<'static, str>,
        config: SystemConfig,
    ) -> Result<SystemId, ScheduleError> {
        let mut targets = Vec::new();
        for (target, before) in config.before.iter().map(|t| (t, true)).chain(config.after.iter().map(|t| (t, false))) {
            targets.push((self.order_target(target)?, before));
        }
        let own_phase = match &config.phase {
            Some(phase) => Some(
                self.phases
                    .iter()
                    .position(|p| p.name == *phase)
                    .ok_or_else(|| ScheduleError::UnknownPhase(phase.to_string()))?,
            ),
            None => None,
        };
        let mut direct_sets = Vec::new();
        for set_name in &config.sets {
            let set = self.set_or_create(set_name.clone())?;
            if !direct_sets.contains(&set) {
                direct_sets.push(set);
            }
        }
        let sets = self.sets_closure(&direct_sets);
        let phase = self.system_phase(&name, own_phase, &sets)?;
        let id = SystemId(u32::try_from(self.slots.len()).expect("fewer than 2^32 systems added"));
        for (target, before) in targets {
            let node = Node::System(id);
            self.edges.push(if before { (node, target) } else { (target, node) });
        }
        self.slots.push(Some(Slot {
            validates: config.system.validates(),
            can_fail: config.system.can_fail(),
            defers: config.system.defers(),
            system: config.system,
            phase,
            enabled: config.enabled,
            direct_sets,
            sets,
            conditions: Vec::new(),
            ambiguous_with: config.ambiguous_with,
            access: SystemAccess::default(),
            stats: SystemStats::default(),
            until_measured: 0,
            trace: Vec::new(),
            on_removed: config.on_removed,
            on_enter: config.on_enter,
            on_exit: config.on_exit,
            watch: None,
        }));
        self.phases[phase].members.push(id);
        // A placeholder set of this name (made by an order given before the system
        // existed) is replaced by the system.
        if let Some(set) = self.find_set(&name) {
            self.adopt_placeholder(set, id);
        }
        self.check_redundancy()?;
        self.check_order()?;
        let slot = self.slots[id.0 as usize].as_mut().expect("just added");
        if let Err(conflicts) = slot.system.initialize(world) {
            return Err(ScheduleError::ConflictingParams { system: name.to_string(), conflicts });
        }
        let mut conditions = config.conditions;
        initialize_conditions(&mut conditions, world, || format!("system `{name}`"))?;
        slot.conditions = conditions;
        if slot.on_enter.is_some() || slot.on_exit.is_some() {
            slot.watch = Some(world.moves.register_exact());
        }
        Ok(id)
    }

    /// The phase of a system named `name` that asked for `own_phase` and is in `sets`
    /// (with their ancestors): its own, or its sets' (which must agree), or `UPDATE`.
    fn system_phase(&self, name: &str, own_phase: Option<usize>, sets: &[usize]) -> Result<usize, ScheduleError> {
        let mut phase = own_phase;
        let mut phase_from: Option<usize> = None;
        for &set in sets {
            let Some(set_phase) = self.sets[set].phase else { continue };
            match phase {
                Some(phase) if phase != set_phase => {
                    let other = match phase_from {
                        Some(other) => format!("set `{}`", self.sets[other].name),
                        None => format!("system `{name}`"),
                    };
                    return Err(ScheduleError::SetPhase {
                        set: self.sets[set].name.to_string(),
                        phase: self.phases[set_phase].name.to_string(),
                        other,
                        other_phase: self.phases[phase].name.to_string(),
                    });
                }
                Some(_) => {}
                None => {
                    phase = Some(set_phase);
                    phase_from = Some(set);
                }
            }
        }
        phase
            .or_else(|| self.phases.iter().position(|p| p.name == UPDATE))
            .ok_or_else(|| ScheduleError::UnknownPhase(UPDATE.to_string()))
    }
}
