//! A contract-checking MCP proxy: [`Contract`] decides, message by message, what a proxy in
//! front of any MCP server forwards, rewrites, answers itself or reports; [`run_stdio`]
//! drives it between a client on stdio and a server child process (`toolschema proxy`),
//! and [`run`] over Streamable HTTP on either side (`--listen`, `--upstream`).
//!
//! Everything passes unchanged except:
//! - `tools/list` results (every page, and again after `notifications/tools/list_changed`):
//!   with `upgrade_schemas` (the default) each tool is shown under the one listing rule
//!   ([`contract::listing_view`](toolschema::mcp::contract::listing_view): older drafts as 2020-12)
//!   and its schemas are compiled as shown, so what is listed is what is enforced; a tool
//!   whose schema does not compile is reported and passed unchecked (or hidden); an output
//!   schema whose root is not an object is wrapped for clients before 2026-07-28;
//! - `tools/call` requests: invalid arguments are refused before they reach the server,
//!   the way the negotiated version expects;
//! - `tools/call` results: `structuredContent` is checked against the output schema
//!   ([`OutputPolicy`] says what a mismatch becomes), mirrored into a text block when there
//!   is none, and wrapped where the schema was.
//!
//! A call for a tool the proxy has not seen listed is held while the proxy lists the
//! server's tools itself (every page), then checked; when the server cannot list, or the
//! tool is still unknown, the call goes through unchecked with a [`Event::Note`].
//!
//! ```
//! use toolschema_http::proxy::{Action, Contract, ContractOptions, Peer};
//! use serde_json::json;
//!
//! let mut contract = Contract::new(ContractOptions::default());
//! // The handshake and the listing pass through; the proxy learns version and schemas.
//! contract.from_client(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
//!     "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}));
//! contract.from_server(&json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25",
//!     "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}}));
//! contract.from_client(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
//! contract.from_server(&json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "echo",
//!     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}]}}));
//!
//! // A valid call is forwarded as it came.
//! let ok = contract.from_client(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
//!     "params": {"name": "echo", "arguments": {"text": "hi"}}}));
//! assert!(matches!(ok[..], [Action::Forward]));
//! // An invalid one never reaches the server: the client gets an `isError` result.
//! let refused = contract.from_client(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
//!     "params": {"name": "echo", "arguments": {}}}));
//! let answer = refused.iter().find_map(|a| match a {
//!     Action::Send(Peer::Client, answer) => Some(answer),
//!     _ => None,
//! });
//! assert_eq!(answer.unwrap()["result"]["isError"], true);
//! assert!(!refused.iter().any(|a| matches!(a, Action::Forward | Action::Send(Peer::Server, _))));
//! ```

mod fast;
mod http;
pub mod pin;
pub mod policy;
mod stdio;

pub use http::{ClientSide, ServerSide, run};
pub use stdio::{ProxyConfig, run_stdio};
/// (Re-exported: the scan lives in the engine, [`toolschema::mcp::transport::MessageHead`].)
pub use toolschema::mcp::transport::MessageHead;

use serde_json::{Map, Value, json};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use toolschema::Options;
use toolschema::mcp::ProtocolVersion;
use toolschema::mcp::contract::{
    CheckedTool, OutputPolicy, SchemaProblem, Violations, adapt_result, check_arguments,
    check_result, failed_call, refuse_arguments, refuse_result, result_needs_adapting, wrap_schema,
};
use toolschema::mcp::jsonrpc;

const META_PREFIX: &str = "io.modelcontextprotocol/";
const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// The prefix of the ids of the proxy's own `tools/list` requests.
const OWN_ID_PREFIX: &str = "toolschema-proxy/list/";
/// How many client paginations the proxy follows at once (an abandoned one is forgotten).
const MAX_PAGINATIONS: usize = 16;
/// How many times the proxy's own listing starts again when the server's tools change
/// under it, before held calls go through unchecked.
const MAX_RELISTS: u32 = 3;

/// What the proxy checks and rewrites.
#[derive(Debug, Clone)]
pub struct ContractOptions {
    /// Leave tools whose schema does not compile out of `tools/list` (default: list them,
    /// unchecked).
    pub hide_broken_tools: bool,
    /// Show a schema declaring draft-04, -06, -07 or 2019-09 as 2020-12, and enforce it as
    /// shown ([`toolschema::upgrade::for_listing`]; default on). Off, every schema is shown and
    /// enforced as declared.
    pub upgrade_schemas: bool,
    /// What a result that breaks its output schema becomes.
    pub on_bad_output: OutputPolicy,
    /// How the listed schemas are compiled (caps, formats).
    pub schema_options: Options,
    /// Pinned tool definitions (`--pin`): a tool whose definition differs from its pin is
    /// hidden and its calls refused; a tool seen for the first time is pinned. Under pins,
    /// a call for a tool the server does not list is refused too (its definition cannot
    /// be checked).
    pub pins: Option<Arc<pin::Pins>>,
    /// Which tools clients may see and call (`--allow`, `--deny`).
    pub policy: policy::ToolPolicy,
}

impl Default for ContractOptions {
    fn default() -> ContractOptions {
        ContractOptions {
            hide_broken_tools: false,
            upgrade_schemas: true,
            on_bad_output: OutputPolicy::default(),
            schema_options: Options::new(),
            pins: None,
            policy: policy::ToolPolicy::default(),
        }
    }
}

/// One side of the proxy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Peer {
    /// The MCP client.
    Client,
    /// The MCP server.
    Server,
}

/// What to do after feeding a message. Actions are to be carried out in order; a message
/// that yields no [`Action::Forward`] is not forwarded.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Send the message just fed, exactly as it came, to the other side.
    Forward,
    /// Send this message to that side (a rewritten message, an answer, a held call).
    Send(Peer, Value),
    /// Something to tell the operator (stderr, audit log).
    Report(Event),
}

/// What the proxy reports.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A call refused before it reached the server.
    RefusedCall(Violations),
    /// A result that broke the tool's output schema (what became of it follows the
    /// [`OutputPolicy`]).
    BadOutput(Violations),
    /// A listed tool whose schema does not compile: passed unchecked, or hidden.
    BrokenSchema {
        /// What does not compile.
        problem: SchemaProblem,
        /// True when the tool is left out of the listing.
        hidden: bool,
    },
    /// A message over the size limit, dropped unread (see [`Contract::oversized_from_server`]).
    Oversized {
        /// Who sent it.
        from: Peer,
        /// Its length in bytes.
        bytes: u64,
        /// The limit it broke.
        limit: usize,
        /// The tool whose call or result it was, when known.
        tool: Option<String>,
        /// The request it was (a `method`), when it was one.
        method: Option<String>,
        /// The id the proxy answered in its place (to the other side for a response, to
        /// the sender for a request); `None` when none could be found.
        answered: Option<Value>,
    },
    /// A call refused because of what the operator decided about its tool (`--allow`,
    /// `--deny`, `--pin`), not because of its arguments.
    Blocked {
        /// The tool called.
        tool: String,
        /// Why: `"policy"` or `"pin"`.
        reason: &'static str,
        /// What the client was told.
        message: String,
    },
    /// A listed tool whose definition differs from its pin: hidden, its calls refused.
    PinChanged {
        /// The tool.
        tool: String,
        /// The pinned digest.
        pinned: String,
        /// The digest of the definition listed now.
        seen: String,
    },
    /// Anything else worth knowing (a call passed unchecked, a malformed message).
    Note(String),
}

enum Pending {
    Initialize,
    List {
        version: ProtocolVersion,
        /// The proxy's own request, never shown to the client.
        own: bool,
        /// The listing this page adds to; `None` for a page whose first page the proxy
        /// did not see (its tools are checked but cannot make a complete listing).
        listing: Option<Listing>,
    },
    Call {
        tool: String,
        version: ProtocolVersion,
    },
}

struct Entry {
    tool: CheckedTool,
    hidden: bool,
    /// Why calls to it are refused (a policy or a pin; `None` for a broken schema).
    blocked: Option<(&'static str, String)>,
}

/// One pagination's tools so far. Each pagination (the client's, however many, and the
/// proxy's own) has its own, so their pages never mix; a complete one replaces the known
/// tools only if the server's list did not change since its first page was asked for.
struct Listing {
    generation: u64,
    tools: HashMap<String, Entry>,
}

/// The proxy's state for one client–server session, fed every message in both directions.
///
/// Transport-free: the caller reads messages, feeds them with [`from_client`](Self::from_client)
/// / [`from_server`](Self::from_server) (or the `_text` forms), and carries out the returned
/// [`Action`]s in order.
pub struct Contract {
    options: ContractOptions,
    session: Option<ProtocolVersion>,
    /// Client requests whose answers the proxy reads, by serialized id.
    pending: HashMap<String, Pending>,
    tools: HashMap<String, Entry>,
    /// Client paginations under way, by the serialized cursor that continues them.
    paginations: Vec<(String, Listing)>,
    /// Counts `notifications/tools/list_changed`: a listing begun under an older count is
    /// not a snapshot of the current tools.
    generation: u64,
    /// True once a listing was seen to its last page (and no `list_changed` since).
    listed: bool,
    /// The server answered the proxy's own `tools/list` with an error.
    cannot_list: bool,
    own_list_in_flight: bool,
    /// How many times the current own listing started again (the tools changed under it).
    relists: u32,
    own_seq: u64,
    /// The protocol `_meta` the proxy's own listing sends (2026-07-28).
    own_meta: Map<String, Value>,
    /// Calls held until the proxy's own listing completes, with their serialized ids.
    held: Vec<(String, Value)>,
    reported: HashSet<String>,
}

impl Contract {
    /// A session with no version negotiated and no tool known yet.
    pub fn new(options: ContractOptions) -> Contract {
        Contract {
            options,
            session: None,
            pending: HashMap::new(),
            tools: HashMap::new(),
            paginations: Vec::new(),
            generation: 0,
            listed: false,
            cannot_list: false,
            own_list_in_flight: false,
            relists: 0,
            own_seq: 0,
            own_meta: Map::new(),
            held: Vec::new(),
            reported: HashSet::new(),
        }
    }

    /// The version negotiated by `initialize`, when there was one.
    pub fn negotiated_version(&self) -> Option<ProtocolVersion> {
        self.session
    }

    /// True while calls are held for the proxy's own listing: a transport should deliver
    /// its answers before closing the server's input.
    pub fn is_holding(&self) -> bool {
        !self.held.is_empty() || self.own_list_in_flight
    }

    /// The tool of that name as last listed.
    pub fn tool(&self, name: &str) -> Option<&CheckedTool> {
        self.tools.get(name).map(|e| &e.tool)
    }

    /// Feeds a message the client sent (one JSON text). What the proxy could read
    /// differently from the server is refused, not forwarded: a member named twice in an
    /// object, a lone surrogate escape, an integer beyond 64 bits (outside the top-level
    /// `id`), nesting past 127 levels, and text that is not one JSON value. A request is
    /// answered under its id (`-32600` or `-32700`, naming the location, never the value;
    /// `null` when no id can be found), an answer to a server's request reaches the server
    /// as `-32603` (each item of a batch on its own).
    pub fn from_client_text(&mut self, message: &str) -> Vec<Action> {
        if let Some(hazard) = jsonrpc::find_hazard(message.as_bytes()) {
            if message.trim_start().starts_with('[')
                && let Some(actions) = self.split_client_batch(message)
            {
                return actions;
            }
            return refuse_client_text(message.as_bytes(), hazard.code(), &hazard.message());
        }
        if let Some(actions) = self.client_fast_path(message) {
            return actions;
        }
        match serde_json::from_str::<Value>(message) {
            Ok(v) => self.from_client(&v),
            Err(_) => refuse_client_text(
                message.as_bytes(),
                jsonrpc::PARSE_ERROR,
                "parse error: the message is not one valid JSON value",
            ),
        }
    }

    /// A batch holding a hazard: each item refused or passed on its own. `None` when the
    /// batch cannot be split into items.
    fn split_client_batch(&mut self, message: &str) -> Option<Vec<Action>> {
        let items: Vec<&serde_json::value::RawValue> = serde_json::from_str(message).ok()?;
        let mut clean = Vec::new();
        let mut refusals = Vec::new();
        let mut to_server = Vec::new();
        let mut out = Vec::new();
        for item in items {
            let text = item.get();
            let hazard = jsonrpc::find_hazard(text.as_bytes());
            let parsed = match &hazard {
                None => serde_json::from_str::<Value>(text).ok(),
                Some(_) => None,
            };
            match parsed {
                Some(v) => clean.push(v),
                None => {
                    let (code, why) = match &hazard {
                        Some(h) => (h.code(), h.message()),
                        None => (jsonrpc::PARSE_ERROR, "parse error: not valid JSON".into()),
                    };
                    for a in refuse_client_text(text.as_bytes(), code, &why) {
                        match a {
                            Action::Send(Peer::Client, m) => refusals.push(m),
                            Action::Send(Peer::Server, m) => to_server.push(m),
                            other => out.push(other),
                        }
                    }
                }
            }
        }
        if !clean.is_empty() {
            let batch = Value::Array(clean);
            for a in self.from_client(&batch) {
                match a {
                    Action::Forward => {
                        to_server.extend(batch.as_array().cloned().unwrap_or_default())
                    }
                    Action::Send(Peer::Server, Value::Array(m)) => to_server.extend(m),
                    Action::Send(Peer::Client, Value::Array(m)) => refusals.extend(m),
                    other => out.push(other),
                }
            }
        }
        if !to_server.is_empty() {
            out.push(Action::Send(Peer::Server, Value::Array(to_server)));
        }
        if !refusals.is_empty() {
            out.push(Action::Send(Peer::Client, Value::Array(refusals)));
        }
        Some(out)
    }

    /// Feeds a message the server sent (one JSON text); malformed JSON, and JSON the
    /// client could read differently from the proxy (a member named twice, a lone
    /// surrogate, nesting past 127 levels), is dropped and reported, so it never corrupts
    /// the client's stream, and the request it answers is answered in its place.
    pub fn from_server_text(&mut self, message: &str) -> Vec<Action> {
        if let Some(hazard) = jsonrpc::find_hazard(message.as_bytes())
            // Integers past 64 bits are read as the nearest float, as the client of a
            // server that writes them expects to; refusing them would drop listings and
            // results that mean no harm (a schema's 128-bit bound).
            && !matches!(hazard, jsonrpc::Hazard::LongInteger(_))
        {
            // What the proxy would check is not what the client would read.
            let why = format!("the server's message: {}", hazard.message());
            return self.unreadable_from_server(message, &why);
        }
        if let Some(actions) = self.server_fast_path(message) {
            return actions;
        }
        match serde_json::from_str::<Value>(message) {
            Ok(v) => self.from_server(&v),
            Err(_) => self.unreadable_from_server(
                message,
                "the server wrote a message that is not one valid JSON value",
            ),
        }
    }

    /// A server message the proxy cannot read as the client would (not JSON, or holding
    /// a [`jsonrpc::Hazard`]): dropped and reported; nobody waits for ever, as for an
    /// oversized one (the request it answers is answered in its place, a request from the
    /// server is answered to it).
    fn unreadable_from_server(&mut self, message: &str, why: &str) -> Vec<Action> {
        let mut head = MessageHead::new();
        head.feed(message.as_bytes());
        let (mut out, _, answered) = self.unrelayable_from_server(&head, why, why);
        let fate = match answered {
            Some(id) => format!("{why}; dropped, answered in its place for id {id}"),
            None => format!("{why}; dropped"),
        };
        out.insert(0, Action::Report(Event::Note(fate)));
        out
    }

    /// A message from the server over `limit` bytes, dropped unread; `head` is what a
    /// [`MessageHead`] scan of it found. Nobody waits for ever: a response's request is
    /// answered in its place (a call with an `isError` result, anything else with
    /// `-32603`; the proxy's own listing counts as failed, so held calls go through
    /// unchecked), and a request from the server is answered with `-32600`. Always
    /// reported; a message with no id found is only reported.
    pub fn oversized_from_server(&mut self, head: &MessageHead, limit: usize) -> Vec<Action> {
        let too_large = format!("the server's message was over {limit} bytes");
        let (mut out, tool, answered) = self.unrelayable_from_server(
            head,
            &format!("{too_large} (the proxy's --max-server-message-bytes)"),
            &format!("message too large: the proxy's limit is {limit} bytes"),
        );
        out.insert(
            0,
            Action::Report(Event::Oversized {
                from: Peer::Server,
                bytes: head.bytes(),
                limit,
                tool,
                method: head.method().map(str::to_string),
                answered,
            }),
        );
        out
    }

    /// What replaces a server message that cannot be relayed (`why` says why to the
    /// client, `to_server` to the server): its request answered in its place, or the
    /// server's request answered. Also the tool whose result it was and the id answered.
    fn unrelayable_from_server(
        &mut self,
        head: &MessageHead,
        why: &str,
        to_server: &str,
    ) -> (Vec<Action>, Option<String>, Option<Value>) {
        let mut tool = None;
        let mut answered = None;
        let mut out = Vec::new();
        match head.id() {
            Some(id) if head.is_response() => {
                answered = Some(id.clone());
                match self.pending.remove(&id.to_string()) {
                    Some(Pending::List { own: true, .. }) => {
                        answered = None;
                        out.extend(self.own_listing_next(
                            false,
                            None,
                            None,
                            ProtocolVersion::LATEST,
                        ));
                    }
                    Some(Pending::Call {
                        tool: name,
                        version,
                    }) => {
                        let text = format!("the result of tool {name} could not be relayed: {why}");
                        out.push(Action::Send(
                            Peer::Client,
                            failed_call(text, version).into_response(id),
                        ));
                        tool = Some(name);
                    }
                    _ => out.push(Action::Send(
                        Peer::Client,
                        jsonrpc::error(
                            id,
                            jsonrpc::INTERNAL_ERROR,
                            &format!("the answer could not be relayed: {why}"),
                        ),
                    )),
                }
            }
            Some(id) if head.method().is_some() => {
                answered = Some(id.clone());
                out.push(Action::Send(
                    Peer::Server,
                    jsonrpc::error(id, jsonrpc::INVALID_REQUEST, to_server),
                ));
            }
            _ => {}
        }
        (out, tool, answered)
    }

    /// A message from the client over `limit` bytes, dropped unread, as `serve` treats
    /// one: a request is answered with `-32600` (under its id when the scan found one, else
    /// `null`). A response to a server's request is answered to the server with `-32603`
    /// in its place, so the server does not wait for ever. Always reported.
    pub fn oversized_from_client(&mut self, head: &MessageHead, limit: usize) -> Vec<Action> {
        let mut answered = head.id().cloned();
        let answer = match head.id() {
            Some(id) if head.is_response() => Action::Send(
                Peer::Server,
                jsonrpc::error(
                    id,
                    jsonrpc::INTERNAL_ERROR,
                    &format!(
                        "the client's answer could not be relayed: it was over the proxy's limit of {limit} bytes"
                    ),
                ),
            ),
            id => {
                let id = id.cloned().unwrap_or(Value::Null);
                answered = Some(id.clone());
                Action::Send(
                    Peer::Client,
                    jsonrpc::error(
                        &id,
                        jsonrpc::INVALID_REQUEST,
                        &format!("message too large: the limit is {limit} bytes"),
                    ),
                )
            }
        };
        let tool = None;
        vec![
            Action::Report(Event::Oversized {
                from: Peer::Client,
                bytes: head.bytes(),
                limit,
                tool,
                method: head.method().map(str::to_string),
                answered,
            }),
            answer,
        ]
    }

    /// Feeds a message (request, notification, response or batch) the client sent.
    pub fn from_client(&mut self, message: &Value) -> Vec<Action> {
        let mut out = Vec::new();
        match message {
            Value::Array(items) => {
                let mut forwarded = Vec::new();
                let mut answers = Vec::new();
                let mut changed = false;
                for item in items {
                    for a in self.client_message(item) {
                        match a {
                            Action::Forward => forwarded.push(item.clone()),
                            Action::Send(Peer::Server, m) => {
                                changed = true;
                                forwarded.push(m);
                            }
                            Action::Send(Peer::Client, m) => {
                                changed = true;
                                answers.push(m);
                            }
                            report => out.push(report),
                        }
                    }
                }
                if forwarded.len() != items.len() {
                    changed = true;
                }
                if !changed {
                    out.push(Action::Forward);
                } else {
                    if !forwarded.is_empty() {
                        out.push(Action::Send(Peer::Server, Value::Array(forwarded)));
                    }
                    if !answers.is_empty() {
                        out.push(Action::Send(Peer::Client, Value::Array(answers)));
                    }
                }
            }
            single => out = self.client_message(single),
        }
        out
    }

    /// Feeds a message (response, request, notification or batch) the server sent.
    pub fn from_server(&mut self, message: &Value) -> Vec<Action> {
        match message {
            Value::Array(items) => {
                let mut out = Vec::new();
                let mut to_client = Vec::new();
                let mut changed = false;
                for item in items {
                    for a in self.server_message(item) {
                        match a {
                            Action::Forward => to_client.push(item.clone()),
                            Action::Send(Peer::Client, m) => {
                                changed = true;
                                to_client.push(m);
                            }
                            Action::Send(Peer::Server, m) => {
                                changed = true;
                                out.push(Action::Send(Peer::Server, m));
                            }
                            report => out.push(report),
                        }
                    }
                }
                if !changed && to_client.len() == items.len() {
                    out.insert(0, Action::Forward);
                } else if !to_client.is_empty() {
                    out.insert(0, Action::Send(Peer::Client, Value::Array(to_client)));
                }
                out
            }
            single => self.server_message(single),
        }
    }

    /// The version a client request speaks: its own `_meta` envelope (2026-07-28), else the
    /// negotiated one.
    fn request_version(&self, params: Option<&Map<String, Value>>) -> ProtocolVersion {
        let meta = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(META_PROTOCOL_VERSION))
            .and_then(Value::as_str);
        match meta {
            Some(v) => ProtocolVersion::parse(v).unwrap_or(ProtocolVersion::LATEST),
            None => self.session.unwrap_or(ProtocolVersion::LATEST_HANDSHAKE),
        }
    }

    fn client_message(&mut self, message: &Value) -> Vec<Action> {
        let Some(obj) = message.as_object() else {
            return vec![Action::Forward];
        };
        let method = obj.get("method").and_then(Value::as_str);
        let id = obj.get("id").filter(|i| !i.is_null());
        let params = obj.get("params").and_then(Value::as_object);
        match (method, id) {
            (Some("initialize"), Some(id)) => {
                self.pending.insert(id.to_string(), Pending::Initialize);
                vec![Action::Forward]
            }
            (Some("tools/list"), Some(id)) => {
                let cursor = params
                    .and_then(|p| p.get("cursor"))
                    .filter(|c| !c.is_null());
                let listing = match cursor {
                    None => Some(self.new_listing()),
                    Some(c) => {
                        let c = c.to_string();
                        self.paginations
                            .iter()
                            .position(|(k, _)| *k == c)
                            .map(|i| self.paginations.remove(i).1)
                    }
                };
                let version = self.request_version(params);
                self.pending.insert(
                    id.to_string(),
                    Pending::List {
                        version,
                        own: false,
                        listing,
                    },
                );
                vec![Action::Forward]
            }
            (Some("tools/call"), Some(id)) => self.call(message, id, params),
            (Some("notifications/cancelled"), None) => {
                // A call still held here is withdrawn here: the server never saw it.
                let target = params
                    .and_then(|p| p.get("requestId"))
                    .map(Value::to_string);
                match target {
                    Some(t) if self.held.iter().any(|(k, _)| *k == t) => {
                        self.held.retain(|(k, _)| *k != t);
                        Vec::new()
                    }
                    _ => vec![Action::Forward],
                }
            }
            _ => vec![Action::Forward],
        }
    }

    fn call(
        &mut self,
        message: &Value,
        id: &Value,
        params: Option<&Map<String, Value>>,
    ) -> Vec<Action> {
        let version = self.request_version(params);
        let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
            // Malformed: the server answers it.
            return vec![Action::Forward];
        };
        let key = id.to_string();
        if !self.options.policy.allows(name) {
            let message = format!(
                "tool {name:?} is not available: the proxy's --allow/--deny policy does not allow it"
            );
            return blocked(id, name, "policy", message);
        }
        let Some(entry) = self.tools.get(name) else {
            if self.options.pins.is_some() && (self.listed || self.cannot_list) {
                let message = format!(
                    "tool {name:?} is refused: the server does not list it, so its definition cannot be checked against the proxy's pins (--pin)"
                );
                return blocked(id, name, "pin", message);
            }
            if self.listed || self.cannot_list {
                self.pending.insert(
                    key,
                    Pending::Call {
                        tool: name.to_string(),
                        version,
                    },
                );
                let why = if self.cannot_list {
                    "the server cannot list its tools"
                } else {
                    "the server does not list it"
                };
                return vec![
                    Action::Report(Event::Note(format!(
                        "tool {name:?}: call forwarded unchecked: {why}"
                    ))),
                    Action::Forward,
                ];
            }
            self.held.push((key, message.clone()));
            let meta = params
                .and_then(|p| p.get("_meta"))
                .and_then(Value::as_object);
            return self.list_for_held(version, meta);
        };
        if let Some((reason, message)) = &entry.blocked {
            return blocked(id, name, reason, message.clone());
        }
        if entry.hidden {
            return vec![Action::Send(
                Peer::Client,
                jsonrpc::error(
                    id,
                    jsonrpc::INVALID_PARAMS,
                    &format!("unknown tool: {name:?} (hidden: its schema does not compile)"),
                ),
            )];
        }
        if let Some(schema) = entry.tool.input_schema()
            && let Err(violations) =
                check_arguments(schema, name, params.and_then(|p| p.get("arguments")))
        {
            let answer = refuse_arguments(&violations, version).into_response(id);
            return vec![
                Action::Report(Event::RefusedCall(violations)),
                Action::Send(Peer::Client, answer),
            ];
        }
        self.pending.insert(
            key,
            Pending::Call {
                tool: name.to_string(),
                version,
            },
        );
        vec![Action::Forward]
    }

    /// Starts the proxy's own listing, unless one is under way.
    fn list_for_held(
        &mut self,
        version: ProtocolVersion,
        meta: Option<&Map<String, Value>>,
    ) -> Vec<Action> {
        if self.own_list_in_flight {
            return Vec::new();
        }
        self.own_list_in_flight = true;
        self.relists = 0;
        // From 2026-07-28 each request says who the client is: the listing speaks for the
        // client whose call it resolves (its protocol `_meta`, not a progress token).
        self.own_meta = meta
            .map(|m| {
                m.iter()
                    .filter(|(k, _)| k.starts_with(META_PREFIX))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
            .unwrap_or_default();
        let listing = self.new_listing();
        vec![Action::Send(
            Peer::Server,
            self.own_list_request(None, listing, version),
        )]
    }

    fn new_listing(&self) -> Listing {
        Listing {
            generation: self.generation,
            tools: HashMap::new(),
        }
    }

    fn own_list_request(
        &mut self,
        cursor: Option<&Value>,
        listing: Listing,
        version: ProtocolVersion,
    ) -> Value {
        self.own_seq += 1;
        let id = Value::from(format!("{OWN_ID_PREFIX}{}", self.own_seq));
        self.pending.insert(
            id.to_string(),
            Pending::List {
                version,
                own: true,
                listing: Some(listing),
            },
        );
        let mut params = Map::new();
        if let Some(c) = cursor {
            params.insert("cursor".into(), c.clone());
        }
        if !version.uses_handshake() {
            let mut meta = self.own_meta.clone();
            meta.insert(META_PROTOCOL_VERSION.into(), version.as_str().into());
            params.insert("_meta".into(), Value::Object(meta));
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params})
    }

    fn server_message(&mut self, message: &Value) -> Vec<Action> {
        let Some(obj) = message.as_object() else {
            return vec![Action::Forward];
        };
        if let Some(method) = obj.get("method").and_then(Value::as_str) {
            if method == "notifications/tools/list_changed" {
                // The schemas may have changed: forget them (and every listing under way,
                // which may mix old and new pages); the next call relists.
                self.tools.clear();
                self.paginations.clear();
                self.generation += 1;
                self.listed = false;
                self.cannot_list = false;
            }
            return vec![Action::Forward];
        }
        let Some(id) = obj.get("id") else {
            return vec![Action::Forward];
        };
        let key = id.to_string();
        let Some(pending) = self.pending.remove(&key) else {
            return vec![Action::Forward];
        };
        let result = obj.get("result");
        match pending {
            Pending::Initialize => {
                if let Some(v) = result
                    .and_then(|r| r.get("protocolVersion"))
                    .and_then(Value::as_str)
                {
                    self.session = Some(
                        ProtocolVersion::parse(v).unwrap_or(ProtocolVersion::LATEST_HANDSHAKE),
                    );
                }
                vec![Action::Forward]
            }
            Pending::List {
                version,
                own,
                mut listing,
            } => {
                let mut out = Vec::new();
                let rewritten = match result {
                    Some(r) => self.absorb_page(r, version, listing.as_mut(), &mut out),
                    None => None,
                };
                let next = result
                    .and_then(|r| r.get("nextCursor"))
                    .filter(|c| !c.is_null());
                let complete = result.is_some() && next.is_none();
                if own {
                    // The proxy's own listing is never shown to the client.
                    let next = next.cloned();
                    out.extend(self.own_listing_next(result.is_some(), next, listing, version));
                    return out;
                }
                match (listing, next) {
                    (Some(l), None) if complete => {
                        self.commit(l);
                    }
                    (Some(l), Some(cursor)) => {
                        if self.paginations.len() >= MAX_PAGINATIONS {
                            self.paginations.remove(0);
                        }
                        self.paginations.push((cursor.to_string(), l));
                    }
                    _ => {}
                }
                match rewritten {
                    Some(r) => {
                        let mut m = obj.clone();
                        m.insert("result".into(), r);
                        out.push(Action::Send(Peer::Client, Value::Object(m)));
                    }
                    None => out.push(Action::Forward),
                }
                out
            }
            Pending::Call { tool, version } => self.call_result(message, result, &tool, version),
        }
    }

    /// A complete listing becomes the known tools, unless the server's tools changed since
    /// it began (then it may mix old and new pages). True when it did.
    fn commit(&mut self, listing: Listing) -> bool {
        if listing.generation != self.generation {
            return false;
        }
        self.tools = listing.tools;
        self.listed = true;
        self.cannot_list = false;
        true
    }

    /// After a page of the proxy's own listing: the next page, or the held calls.
    fn own_listing_next(
        &mut self,
        answered: bool,
        next: Option<Value>,
        listing: Option<Listing>,
        version: ProtocolVersion,
    ) -> Vec<Action> {
        match (answered, next, listing) {
            (true, Some(cursor), Some(l)) => {
                return vec![Action::Send(
                    Peer::Server,
                    self.own_list_request(Some(&cursor), l, version),
                )];
            }
            (true, None, Some(l)) => {
                if !self.commit(l) && self.relists < MAX_RELISTS {
                    // The tools changed mid-listing: list them again from the start.
                    self.relists += 1;
                    let fresh = self.new_listing();
                    return vec![Action::Send(
                        Peer::Server,
                        self.own_list_request(None, fresh, version),
                    )];
                }
            }
            _ => self.cannot_list = true,
        }
        self.release_held()
    }

    /// The calls held for the proxy's own listing, checked now (or forwarded unchecked
    /// when the listing failed or kept changing).
    fn release_held(&mut self) -> Vec<Action> {
        self.own_list_in_flight = false;
        if !self.listed {
            // No complete listing: forward unchecked rather than loop.
            self.cannot_list = true;
        }
        let held = std::mem::take(&mut self.held);
        let mut out = Vec::new();
        for (_, call) in held {
            let id = call.get("id").cloned().unwrap_or(Value::Null);
            let params = call.get("params").and_then(Value::as_object);
            for a in self.call(&call, &id, params) {
                out.push(match a {
                    Action::Forward => Action::Send(Peer::Server, call.clone()),
                    other => other,
                });
            }
        }
        out
    }

    /// Compiles a page's tools into `listing`; answers the page as the client should see
    /// it, or `None` when it goes unchanged. (Each page is rewritten on its own: a tool's
    /// view depends on nothing but the tool and the version.)
    fn absorb_page(
        &mut self,
        result: &Value,
        version: ProtocolVersion,
        mut listing: Option<&mut Listing>,
        out: &mut Vec<Action>,
    ) -> Option<Value> {
        let tools = result.get("tools").and_then(Value::as_array)?;
        let mut shown = Vec::with_capacity(tools.len());
        let mut changed = false;
        for original in tools {
            // The one listing rule: the schemas are checked as they are shown.
            let view = match self.options.upgrade_schemas {
                true => toolschema::mcp::contract::listing_view(original),
                false => None,
            };
            let t = view.as_ref().unwrap_or(original);
            let checked = CheckedTool::from_json(t, &self.options.schema_options);
            let blocked = self.block(checked.name(), original, out);
            let hidden = blocked.is_some()
                || (self.options.hide_broken_tools && !checked.problems().is_empty());
            for p in checked.problems() {
                if self.reported.insert(format!("{p}")) {
                    out.push(Action::Report(Event::BrokenSchema {
                        problem: p.clone(),
                        hidden,
                    }));
                }
            }
            let wrap = checked.output_schema().is_some() && checked.wraps_output(version);
            if hidden {
                changed = true;
            } else {
                match self.client_view(t, wrap) {
                    Some(v) => {
                        changed = true;
                        shown.push(v);
                    }
                    None => {
                        changed |= view.is_some();
                        shown.push(t.clone());
                    }
                }
            }
            if let Some(l) = listing.as_deref_mut() {
                l.tools.insert(
                    checked.name().to_string(),
                    Entry {
                        tool: checked,
                        hidden,
                        blocked,
                    },
                );
            }
        }
        if !changed {
            return None;
        }
        let mut r = result.as_object()?.clone();
        r.insert("tools".into(), Value::Array(shown));
        Some(Value::Object(r))
    }

    /// Why a listed tool (as the server sent it) is kept from clients, when it is: the
    /// policy does not allow it, or its definition differs from its pin (reported once per
    /// definition seen). A tool seen for the first time under pins is pinned.
    fn block(
        &mut self,
        name: &str,
        original: &Value,
        out: &mut Vec<Action>,
    ) -> Option<(&'static str, String)> {
        if !self.options.policy.allows(name) {
            return Some((
                "policy",
                format!(
                    "tool {name:?} is not available: the proxy's --allow/--deny policy does not allow it"
                ),
            ));
        }
        let pins = self.options.pins.as_ref()?;
        let pin::PinCheck::Changed { pinned, seen } = pins.check(name, original) else {
            return None;
        };
        if self.reported.insert(format!("pin {name} {seen}")) {
            out.push(Action::Report(Event::PinChanged {
                tool: name.to_string(),
                pinned: pinned.clone(),
                seen: seen.clone(),
            }));
        }
        Some((
            "pin",
            format!(
                "tool {name:?} is refused: its definition changed since it was pinned ({pinned}, now {seen}); the operator must update the proxy's pin file to accept it"
            ),
        ))
    }

    /// A listed tool as the client should see it; `None` when unchanged.
    fn client_view(&self, tool: &Value, wrap: bool) -> Option<Value> {
        let mut t = tool.as_object()?.clone();
        let mut changed = false;
        if wrap && let Some(Value::Object(o)) = t.get("outputSchema") {
            let mut o = o.clone();
            toolschema::mcp::contract::default_output_root(&mut o);
            t.insert("outputSchema".into(), wrap_schema(&Value::Object(o)));
            changed = true;
        }
        changed.then_some(Value::Object(t))
    }

    fn call_result(
        &mut self,
        message: &Value,
        result: Option<&Value>,
        name: &str,
        version: ProtocolVersion,
    ) -> Vec<Action> {
        let Some(result) = result else {
            return vec![Action::Forward];
        };
        let Some(entry) = self.tools.get(name) else {
            return vec![Action::Forward];
        };
        let tool = &entry.tool;
        let id = message.get("id").cloned().unwrap_or(Value::Null);
        let mut out = Vec::new();
        if self.options.on_bad_output != OutputPolicy::Pass
            && let Err(violations) = check_result(tool.output_schema(), name, result)
        {
            let refusal = refuse_result(&violations, self.options.on_bad_output, version);
            out.push(Action::Report(Event::BadOutput(violations)));
            if let Some(r) = refusal {
                out.push(Action::Send(Peer::Client, r.into_response(&id)));
                return out;
            }
        }
        let wrap = tool.output_schema().is_some() && tool.wraps_output(version);
        if result_needs_adapting(result, wrap, version) {
            let mut m = message.as_object().cloned().unwrap_or_default();
            if let Some(r) = m.get_mut("result") {
                adapt_result(r, wrap, version);
            }
            out.push(Action::Send(Peer::Client, Value::Object(m)));
        } else {
            out.push(Action::Forward);
        }
        out
    }
}

/// A call refused for what the operator decided about its tool: reported, and answered
/// with `-32602` naming the reason.
fn blocked(id: &Value, tool: &str, reason: &'static str, message: String) -> Vec<Action> {
    let answer = jsonrpc::error(id, jsonrpc::INVALID_PARAMS, &message);
    vec![
        Action::Report(Event::Blocked {
            tool: tool.to_string(),
            reason,
            message,
        }),
        Action::Send(Peer::Client, answer),
    ]
}

/// The answer to a client message refused unread (`code`, `why`): a request is answered
/// under the id a [`MessageHead`] scan finds (`null` when none), an answer to a server's
/// request reaches the server as `-32603` so that it does not wait for ever, and a
/// notification is dropped. Always reported.
pub(super) fn refuse_client_text(message: &[u8], code: i64, why: &str) -> Vec<Action> {
    let mut head = MessageHead::new();
    head.feed(message);
    let answer = match head.id() {
        Some(id) if head.is_response() => Some(Action::Send(
            Peer::Server,
            jsonrpc::error(
                id,
                jsonrpc::INTERNAL_ERROR,
                &format!("the client's answer could not be relayed: {why}"),
            ),
        )),
        Some(id) => Some(Action::Send(Peer::Client, jsonrpc::error(id, code, why))),
        None if head.method().is_some() => None,
        None => Some(Action::Send(
            Peer::Client,
            jsonrpc::error(&Value::Null, code, why),
        )),
    };
    let what = match head.method() {
        Some(m) => format!("a {m:?} message"),
        None => "a message".to_string(),
    };
    let mut out = vec![Action::Report(Event::Note(format!(
        "the client sent {what} the proxy refused unread: {why}"
    )))];
    out.extend(answer);
    out
}
