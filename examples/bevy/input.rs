//! Scripted input, standing in for bevy's `ButtonInput<KeyCode>` (which `bevy_input`
//! fills from the window's events): the ports replay a fixed list of the keys held in
//! each frame, so that they need no window and print the same thing every time.

/// The keys the ports press (bevy's `KeyCode` has one per key of a keyboard).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeyCode {
    /// The A key.
    KeyA,
    /// The B key.
    KeyB,
    /// The R key.
    KeyR,
    /// The space bar.
    Space,
    /// The enter key.
    Enter,
}

/// The mouse's buttons (bevy's `MouseButton`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MouseButton {
    /// The left button.
    Left,
    /// The right button.
    Right,
}

/// Which buttons are held, and which went down this frame, as bevy's `ButtonInput`.
#[derive(Debug)]
pub struct ButtonInput<T> {
    pressed: Vec<T>,
    just_pressed: Vec<T>,
}

impl<T> Default for ButtonInput<T> {
    fn default() -> Self {
        ButtonInput { pressed: Vec::new(), just_pressed: Vec::new() }
    }
}

impl<T: Copy + PartialEq> ButtonInput<T> {
    /// Starts a frame in which exactly `held` are held: those not held the frame
    /// before were just pressed.
    pub fn hold(&mut self, held: &[T]) {
        self.just_pressed = held.iter().copied().filter(|button| !self.pressed.contains(button)).collect();
        self.pressed = held.to_vec();
    }

    /// Whether `button` is held.
    pub fn pressed(&self, button: T) -> bool {
        self.pressed.contains(&button)
    }

    /// Whether `button` went down this frame.
    pub fn just_pressed(&self, button: T) -> bool {
        self.just_pressed.contains(&button)
    }

    /// The buttons that went down this frame.
    pub fn get_just_pressed(&self) -> impl Iterator<Item = &T> {
        self.just_pressed.iter()
    }
}
