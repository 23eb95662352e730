//! The pure rules of a run, unit-tested on their own: what a cell's verdict
//! is based on (`facts`), the gates (error rate, generator CPU wait,
//! latency floor, Little's law) and the verdict over them, when an
//! automatic warmup has ended, whether a search step held and the next
//! rate, and when a dependency is started, reset or kept.
pub mod dependency_schedule;
pub mod facts;
pub mod gates;
pub mod search_rule;
pub mod verdict;
pub mod warmup_rule;
