//! Shared fixtures of the tests, the bench and the quality example: the IK workloads of
//! `sinew_testkit::ik` (shared with `sinew bench` and the peer harness) and proptest strategies.
#![allow(dead_code, unused_imports)]

pub use sinew_testkit::ik::*;

pub mod strategies;
