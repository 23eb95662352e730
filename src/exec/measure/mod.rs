//! Measuring one cell against a running service: what a cell needs from
//! the run (`context`: the context, the guarded load), the load's
//! configuration (here or across the load hosts), the warmup (fixed,
//! counted or automatic), the measured window with the service sampled
//! over exactly that window, a search cell's steps, a profiled window,
//! NMT after a Java cell, and the row with its files, judged by the rules.
pub mod cell;
pub mod cell_facts;
pub mod connections;
pub mod context;
pub mod load_config;
pub mod nmt;
pub mod profiling;
pub mod remote_load;
pub mod request_mix;
pub mod row;
pub mod search;
pub mod warmup;
pub mod window;
