//! MCP protocol revisions and what each one knows about tools.

use std::fmt;

/// An MCP protocol revision this crate speaks.
///
/// The first four are negotiated by the `initialize` handshake; 2026-07-28 is carried in each
/// request's `_meta` (`io.modelcontextprotocol/protocolVersion`) and advertised by
/// `server/discover`. Ordering follows release order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// 2024-11-05: tools with name, description and input schema.
    V2024_11_05,
    /// 2025-03-26: adds tool annotations, audio content and JSON-RPC batches.
    V2025_03_26,
    /// 2025-06-18: adds `title`, `outputSchema`, `structuredContent`, resource links, `_meta`;
    /// removes batches.
    V2025_06_18,
    /// 2025-11-25: adds icons and `execution`; argument errors become tool results.
    V2025_11_25,
    /// 2026-07-28: per-request version envelope, `server/discover`, `resultType`, cache hints,
    /// output schemas of any root type.
    V2026_07_28,
}

impl ProtocolVersion {
    /// Every revision, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];

    /// The newest revision reachable through `initialize`.
    pub const LATEST_HANDSHAKE: ProtocolVersion = ProtocolVersion::V2025_11_25;

    /// The newest revision overall.
    pub const LATEST: ProtocolVersion = ProtocolVersion::V2026_07_28;

    /// The revision's date string, as it appears on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// Parses a date string; `None` for a revision this crate does not know.
    pub fn parse(s: &str) -> Option<ProtocolVersion> {
        ProtocolVersion::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// The revision to speak when a peer names `requested`, never failing: the same
    /// revision when this crate knows it; otherwise the newest revision reachable through
    /// `initialize` ([`LATEST_HANDSHAKE`](Self::LATEST_HANDSHAKE)), as the lifecycle's
    /// version negotiation has the server answer a version it supports (the client then
    /// decides); and 2025-03-26 when no version is known at all (`None`), as the
    /// Streamable HTTP transport assumes without a `MCP-Protocol-Version` header.
    ///
    /// ```
    /// use toolschema::mcp::ProtocolVersion;
    /// assert_eq!(ProtocolVersion::negotiate(Some("2025-06-18")), ProtocolVersion::V2025_06_18);
    /// assert_eq!(ProtocolVersion::negotiate(Some("2099-01-01")), ProtocolVersion::LATEST_HANDSHAKE);
    /// assert_eq!(ProtocolVersion::negotiate(None), ProtocolVersion::V2025_03_26);
    /// ```
    pub fn negotiate(requested: Option<&str>) -> ProtocolVersion {
        match requested {
            None => ProtocolVersion::V2025_03_26,
            Some(s) => ProtocolVersion::parse(s).unwrap_or(ProtocolVersion::LATEST_HANDSHAKE),
        }
    }

    /// True for revisions negotiated by `initialize` (before 2026-07-28).
    pub fn uses_handshake(self) -> bool {
        self < ProtocolVersion::V2026_07_28
    }

    /// True when invalid tool arguments are reported as an `isError` result (2025-11-25 on)
    /// rather than a JSON-RPC `-32602` error.
    pub fn reports_argument_errors_as_results(self) -> bool {
        self >= ProtocolVersion::V2025_11_25
    }

    /// True when clients accept an output schema whose root is not an object (2026-07-28 on).
    pub fn accepts_non_object_output_schema(self) -> bool {
        self >= ProtocolVersion::V2026_07_28
    }

    /// True when JSON-RPC batches are part of the protocol (2025-03-26 only).
    pub fn allows_batches(self) -> bool {
        self == ProtocolVersion::V2025_03_26
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
