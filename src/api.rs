//! System APIs: a system or plugin publishes a typed object on the world whose
//! methods other systems call directly — `health.apply_damage(enemy, 10)`, with
//! go-to-definition landing on the method — through the [`Api`] and [`ApiMut`]
//! parameters. The same methods can be named in [`DataCommands`](crate::data::DataCommands)
//! so data can call them too.
//!
//! An API is stored as a resource of its own type; the names below say what it is for.

use crate::error::MissingResource;
use crate::system::{Res, ResMut};
use crate::world::World;

/// Shared access to a published API `A` (a system parameter; a [`Res`] by another
/// name). Systems holding it may run in parallel.
pub type Api<'w, A> = Res<'w, A>;

/// Exclusive access to a published API `A`, for its `&mut self` methods (a system
/// parameter; a [`ResMut`] by another name).
pub type ApiMut<'w, A> = ResMut<'w, A>;

impl World {
    /// Publishes `api` for systems ([`Api`], [`ApiMut`]) and data commands to call,
    /// replacing (and returning) an earlier one of the same type. A system publishes
    /// its API from its `on_added` callback and withdraws it from `on_removed`.
    ///
    /// ```
    /// use ripple::{ApiMut, World};
    /// use ripple::schedule::{IntoSystemConfig, Schedule};
    /// #[derive(Default)]
    /// struct Score { points: u32 }
    /// impl Score {
    ///     /// Adds `points` to the score.
    ///     fn add(&mut self, points: u32) { self.points += points; }
    /// }
    /// fn collect_coin(mut score: ApiMut<Score>) {
    ///     score.add(10); // go-to-definition lands on `Score::add`
    /// }
    /// let mut world = World::new();
    /// let mut schedule = Schedule::new();
    /// let score = (|| {}).named("score").on_added(|w| {
    ///     w.publish_api(Score::default());
    /// });
    /// schedule.add_system(&mut world, score).unwrap();
    /// schedule.add_system(&mut world, collect_coin).unwrap();
    /// schedule.run(&mut world);
    /// assert_eq!(world.api::<Score>().unwrap().points, 10);
    /// ```
    pub fn publish_api<A: Send + Sync + 'static>(&mut self, api: A) -> Option<A> {
        self.insert_resource(api)
    }

    /// Withdraws the published `A`.
    ///
    /// # Errors
    /// [`MissingResource`] naming `A` if none is published.
    pub fn withdraw_api<A: Send + Sync + 'static>(&mut self) -> Result<A, MissingResource> {
        self.remove_resource::<A>()
    }

    /// The published `A`.
    ///
    /// # Errors
    /// [`MissingResource`] naming `A` if none is published.
    pub fn api<A: Send + Sync + 'static>(&self) -> Result<&A, MissingResource> {
        self.resource::<A>()
    }

    /// The published `A`, for its `&mut self` methods.
    ///
    /// # Errors
    /// [`MissingResource`] naming `A` if none is published.
    pub fn api_mut<A: Send + Sync + 'static>(&mut self) -> Result<&mut A, MissingResource> {
        self.resource_mut::<A>()
    }
}
