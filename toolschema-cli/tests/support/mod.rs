//! The root crate's shared test support (tests/support), the parts this crate's tests use:
//! one copy of each rule (what is installed, which Python, the in-memory MCP client).

#![allow(dead_code)]

#[path = "../../../tests/support/example.rs"]
pub mod example;
#[path = "../../../tests/support/installed.rs"]
pub mod installed;
#[path = "../../../tests/support/mcp.rs"]
pub mod mcp;
#[path = "../../../tests/support/python.rs"]
pub mod python;
pub mod stderr;
