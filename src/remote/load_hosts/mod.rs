//! A load across the declared load hosts: connections and rate split per
//! host, one coordinated start instant from clock offsets, their
//! histograms merged exactly.
pub mod drive;
pub mod merge;
pub mod split;
