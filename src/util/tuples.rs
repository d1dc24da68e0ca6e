//! Implementing a trait for tuples of every arity up to a limit.

/// Invokes the macro `$m` once per prefix of the listed type parameters, from the
/// empty one to the whole list: `for_each_tuple_prefix!(m; A, B)` expands to `m!();`,
/// `m!(A);` and `m!(A, B);`.
macro_rules! for_each_tuple_prefix {
    ($m:ident; $($t:ident),*) => {
        $crate::util::tuples::for_each_tuple_prefix!(@ $m; []; $($t),*);
    };
    (@ $m:ident; [$($done:ident),*]; ) => {
        $m!($($done),*);
    };
    (@ $m:ident; [$($done:ident),*]; $t:ident $(, $rest:ident)*) => {
        $m!($($done),*);
        $crate::util::tuples::for_each_tuple_prefix!(@ $m; [$($done,)* $t]; $($rest),*);
    };
}

pub(crate) use for_each_tuple_prefix;

/// As [`for_each_tuple_prefix`], for macros that also take each element's index:
/// `for_each_indexed_tuple_prefix!(m; A 0, B 1)` expands to `m!();`, `m!(A 0);` and
/// `m!(A 0, B 1);`.
macro_rules! for_each_indexed_tuple_prefix {
    ($m:ident; $($t:ident $i:tt),*) => {
        $crate::util::tuples::for_each_indexed_tuple_prefix!(@ $m; []; $($t $i),*);
    };
    (@ $m:ident; [$($done:ident $done_i:tt),*]; ) => {
        $m!($($done $done_i),*);
    };
    (@ $m:ident; [$($done:ident $done_i:tt),*]; $t:ident $i:tt $(, $rest:ident $rest_i:tt)*) => {
        $m!($($done $done_i),*);
        $crate::util::tuples::for_each_indexed_tuple_prefix!(@ $m; [$($done $done_i,)* $t $i]; $($rest $rest_i),*);
    };
}

pub(crate) use for_each_indexed_tuple_prefix;
