pub mod edivisive;
