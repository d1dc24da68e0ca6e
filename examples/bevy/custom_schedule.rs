//! bevy's `custom_schedule`: schedules of one's own, run in the order of the main
//! schedule beside bevy's built-in ones: a single-threaded one after `Update`, and a
//! startup one after `PreStartup`.
//!
//! bevy: an `App`'s `Main` schedule runs the schedules `MainScheduleOrder` lists
//! (`First`, `PreUpdate`, `Update`, ..., `Last`; the startup ones before, once), and
//! the `App`, with no runner plugin, updates once. ripple has no `App`: the port keeps
//! its schedules by label in a map and runs them in the order of a list of labels,
//! with bevy's `insert_after` and `insert_startup_after`.

use std::collections::HashMap;

use ripple::prelude::*;

/// bevy: `MainScheduleOrder`, which `Main` reads to run the schedules in order.
struct MainScheduleOrder {
    startup_labels: Vec<&'static str>,
    labels: Vec<&'static str>,
}

impl Default for MainScheduleOrder {
    fn default() -> Self {
        MainScheduleOrder {
            startup_labels: vec!["PreStartup", "Startup", "PostStartup"],
            labels: vec!["First", "PreUpdate", "Update", "PostUpdate", "Last"],
        }
    }
}

impl MainScheduleOrder {
    /// Runs `schedule` right after `after`, every frame.
    fn insert_after(&mut self, after: &'static str, schedule: &'static str) {
        let at = self.labels.iter().position(|label| *label == after).expect("a known schedule");
        self.labels.insert(at + 1, schedule);
    }

    /// Runs `schedule` right after `after`, once, at startup.
    fn insert_startup_after(&mut self, after: &'static str, schedule: &'static str) {
        let at = self.startup_labels.iter().position(|label| *label == after).expect("a known schedule");
        self.startup_labels.insert(at + 1, schedule);
    }
}

/// bevy: the `Schedules` resource, schedules by label.
#[derive(Default)]
struct Schedules(HashMap<&'static str, Schedule>);

impl Schedules {
    fn add_schedule(&mut self, label: &'static str, schedule: Schedule) {
        self.0.insert(label, schedule);
    }

    fn add_systems<M>(
        &mut self,
        world: &mut World,
        label: &'static str,
        systems: impl ripple::schedule::IntoSystems<M>,
    ) {
        self.0.entry(label).or_default().add_systems(world, systems).unwrap();
    }

    /// Runs the schedules `labels` names, in that order (bevy's `Main` skips a label
    /// with no schedule).
    fn run(&mut self, world: &mut World, labels: &[&'static str]) {
        for label in labels {
            if let Some(schedule) = self.0.get_mut(label) {
                schedule.run(world);
            }
        }
    }
}

fn pre_startup_system() {
    say!("Pre Startup");
}

fn startup_system() {
    say!("Startup");
}

fn custom_startup_system() {
    say!("Custom Startup");
}

fn first_system() {
    say!("First");
}

fn update_system() {
    say!("Update");
}

fn single_threaded_update_system() {
    say!("Single Threaded Update");
}

fn last_system() {
    say!("Last");
}

/// Runs the startup schedules, then one frame of the main ones.
pub fn main() {
    let mut world = World::new();
    let mut schedules = Schedules::default();
    let mut order = MainScheduleOrder::default();

    // A new schedule, set to run its systems on one thread (bevy:
    // `set_executor(SingleThreadedExecutor::new())`). Adding it does not run it...
    let mut custom_update_schedule = Schedule::new();
    custom_update_schedule.set_single_threaded(true);
    schedules.add_schedule("SingleThreadedUpdate", custom_update_schedule);
    // ... the main schedule order does, where it says.
    order.insert_after("Update", "SingleThreadedUpdate");

    // A startup schedule of one's own, likewise.
    schedules.add_schedule("CustomStartup", Schedule::new());
    order.insert_startup_after("PreStartup", "CustomStartup");

    // bevy: schedules are labelled by types (`#[derive(ScheduleLabel)]`); here by
    // strings, as ripple names systems and sets.
    schedules.add_systems(&mut world, "SingleThreadedUpdate", single_threaded_update_system);
    schedules.add_systems(&mut world, "CustomStartup", custom_startup_system);
    schedules.add_systems(&mut world, "PreStartup", pre_startup_system);
    schedules.add_systems(&mut world, "Startup", startup_system);
    schedules.add_systems(&mut world, "First", first_system);
    schedules.add_systems(&mut world, "Update", update_system);
    schedules.add_systems(&mut world, "Last", last_system);

    // bevy: `App::run`: the startup schedules once, then (no runner plugin) one update.
    schedules.run(&mut world, &order.startup_labels);
    schedules.run(&mut world, &order.labels);
}
