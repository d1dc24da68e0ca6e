//! Deferred commands: [`Commands`] queues structural changes (spawn, despawn, insert,
//! remove, closures over the world) that are applied in order at a sync point.
//!
//! A [`CommandQueue`] stores commands of any type back to back in one byte buffer,
//! each with the function that applies it, so a queue whose capacity has grown to a
//! frame's worth of commands never allocates again.

mod deferred;
mod entity_commands;
mod queue;

pub use deferred::Commands;
pub use entity_commands::EntityCommands;
pub use queue::{Command, CommandQueue};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::World;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct Counted(Arc<AtomicUsize>, [u8; 3]);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[test]
    fn commands_apply_in_order_and_unapplied_ones_drop_once() {
        let drops = Arc::new(AtomicUsize::new(0));
        let mut world = World::new();
        let mut queue = CommandQueue::default();
        let order = Arc::new(std::sync::Mutex::new(Vec::new()));
        for i in 0..5u8 {
            let order = order.clone();
            let counted = Counted(drops.clone(), [i; 3]);
            queue.push(move |_: &mut World| order.lock().unwrap().push(counted.1[0]));
        }
        queue.apply(&mut world);
        assert_eq!(*order.lock().unwrap(), [0, 1, 2, 3, 4]);
        assert_eq!(drops.load(Ordering::Relaxed), 5);
        let counted = Counted(drops.clone(), [9; 3]);
        queue.push(move |_: &mut World| drop(counted));
        drop(queue);
        assert_eq!(drops.load(Ordering::Relaxed), 6);
    }

    #[test]
    fn an_appended_queue_moves_its_commands_behind_the_others_and_each_drops_once() {
        let drops = Arc::new(AtomicUsize::new(0));
        let order = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (mut first, mut second) = (CommandQueue::default(), CommandQueue::default());
        for (queue, range) in [(&mut first, 0..2u8), (&mut second, 2..5u8)] {
            for i in range {
                let (order, counted) = (order.clone(), Counted(drops.clone(), [i; 3]));
                queue.push(move |_: &mut World| {
                    let counted = counted; // the whole value, not the copied field
                    order.lock().unwrap().push(counted.1[0]);
                });
            }
        }
        first.append(&mut second);
        assert_eq!((first.len(), second.len()), (5, 0));
        drop(second);
        assert_eq!(drops.load(Ordering::Relaxed), 0, "the moved commands belong to `first` now");
        first.apply(&mut World::new());
        assert_eq!(*order.lock().unwrap(), [0, 1, 2, 3, 4]);
        assert_eq!(drops.load(Ordering::Relaxed), 5);
    }

    #[test]
    fn a_panicking_command_drops_the_rest_once() {
        let drops = Arc::new(AtomicUsize::new(0));
        let mut world = World::new();
        let mut queue = CommandQueue::default();
        queue.push(|_: &mut World| panic!("boom"));
        for _ in 0..3 {
            let counted = Counted(drops.clone(), [0; 3]);
            queue.push(move |_: &mut World| drop(counted));
        }
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| queue.apply(&mut world)));
        assert!(result.is_err());
        assert_eq!(drops.load(Ordering::Relaxed), 3);
        assert!(queue.is_empty());
        drop(queue);
        assert_eq!(drops.load(Ordering::Relaxed), 3);
    }
}
