//! bevy's `system_piping`: one system made of several functions run in sequence, the
//! output of each the input of the next. Systems parse a message resource, or copy
//! it, or read a warning, and hand the result on to a handler or a logging closure.
//!
//! bevy: its `App` has no runner plugin, so it runs its schedule once, and logs with
//! `info!`, `debug!` and `error!` (every level shown: the `LogPlugin` is set to
//! `TRACE`); here one run, and `say!` prints the messages without level or time.

use std::num::ParseIntError;

use ripple::prelude::*;

/// bevy: `#[derive(Resource, Deref)] struct Message(String)`, so `message.parse()`
/// reaches the string; the port names the field.
struct Message(String);

/// bevy: derefs to its `Result` as well.
struct OptionalWarning(Result<(), String>);

/// Produces a `Result<usize>` by parsing the message.
fn parse_message_system(message: Res<Message>) -> Result<usize, ParseIntError> {
    message.0.parse::<usize>()
}

/// Produces a `Result<()>` by parsing the message.
fn parse_error_message_system(message: Res<Message>) -> Result<(), ParseIntError> {
    message.0.parse::<usize>()?;
    Ok(())
}

/// Takes a `Result<usize>` and prints the value or the error.
fn handler_system(In(result): In<Result<usize, ParseIntError>>) {
    match result {
        Ok(value) => say!("parsed message: {value}"),
        Err(err) => say!("encountered an error: {err:?}"),
    }
}

/// Produces a `String`: a copy of the message.
fn data_pipe_system(message: Res<Message>) -> String {
    message.0.clone()
}

/// Produces a `Result<(), String>` from the warning resource.
fn warning_pipe_system(message: Res<OptionalWarning>) -> Result<(), String> {
    message.0.clone()
}

/// Runs the schedule once, as bevy's `App` without a runner does.
pub fn main() {
    let mut world = World::new();
    world.insert_resource(Message("42".to_string()));
    world.insert_resource(OptionalWarning(Err("Got to rusty?".to_string())));

    // bevy: `system.map(f)` pipes a system into a plain function; ripple has `pipe`
    // only, into a system taking `In<T>`. Each such pipe is named here, as a ripple
    // schedule wants a name per system and a closure's is its type's.
    let mut update = Schedule::new();
    update
        .add_systems(
            &mut world,
            (
                parse_message_system.pipe(handler_system),
                data_pipe_system.pipe(|In(out): In<String>| say!("{out}")).named("data_pipe_system | info"),
                parse_message_system
                    .pipe(|In(out): In<Result<usize, ParseIntError>>| say!("{out:?}"))
                    .named("parse_message_system | debug"),
                warning_pipe_system
                    .pipe(|In(out): In<Result<(), String>>| {
                        if let Err(err) = out {
                            say!("{err}");
                        }
                    })
                    .named("warning_pipe_system | error"),
                parse_error_message_system
                    .pipe(|In(out): In<Result<(), ParseIntError>>| {
                        if let Err(err) = out {
                            say!("{err}");
                        }
                    })
                    .named("parse_error_message_system | error"),
                parse_message_system
                    .pipe(|In(out): In<Result<usize, ParseIntError>>| drop(out))
                    .named("parse_message_system | drop"),
            ),
        )
        .unwrap();
    // bevy: the six run in parallel, in an order that varies; one thread runs them
    // here, in the order they were added, so that `say!` captures each line.
    update.set_single_threaded(true);
    update.run(&mut world);
}
