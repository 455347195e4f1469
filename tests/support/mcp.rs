//! The in-memory MCP client of the test files that drive a [`Server`] with exact messages:
//! each line the server writes lands in a channel, read back with a timeout, so that a
//! missing answer fails the test instead of hanging it.

use serde_json::{Value, json};
use std::sync::{Mutex, mpsc};
use std::time::Duration;
use toolschema::mcp::{Connection, Server};

/// How long a test waits for a message it expects (generous: debug builds on a shared
/// machine; a passing test never waits it out).
pub const WAIT: Duration = Duration::from_secs(60);

/// How long a test waits before it concludes that no message comes ([`Client::quiet`]).
pub const QUIET: Duration = Duration::from_millis(300);

/// A connection to a [`Server`] whose output lines a test reads one by one.
pub struct Client {
    pub conn: Connection,
    rx: mpsc::Receiver<String>,
}

impl Client {
    /// A connection to `server`, not initialized.
    pub fn new(server: &Server) -> Client {
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        let conn = server.connect(move |line| {
            let _ = tx.lock().unwrap().send(line);
        });
        Client { conn, rx }
    }

    /// A connection initialized at protocol `version` with `capabilities` (and
    /// `notifications/initialized` sent).
    #[track_caller]
    pub fn at(server: &Server, version: &str, capabilities: Value) -> Client {
        let c = Client::new(server);
        c.init(version, capabilities);
        c
    }

    /// Initializes the connection at protocol `version` with `capabilities`, checking the
    /// server agrees on the version, then sends `notifications/initialized`.
    #[track_caller]
    pub fn init(&self, version: &str, capabilities: Value) {
        let init = self.ask(
            &json!({"jsonrpc": "2.0", "id": "init", "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": capabilities,
                "clientInfo": {"name": "c", "version": "1"}}}),
        );
        assert_eq!(init["result"]["protocolVersion"], version, "{init}");
        self.send_text(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }

    /// Hands `text` to the server as one incoming line, as it is.
    pub fn send_text(&self, text: &str) {
        self.conn.handle(text);
    }

    /// Hands `message` to the server.
    pub fn send(&self, message: &Value) {
        self.send_text(&message.to_string());
    }

    /// The next line the server writes, as written.
    ///
    /// # Panics
    /// When none comes within [`WAIT`].
    #[track_caller]
    pub fn line(&self) -> String {
        self.rx
            .recv_timeout(WAIT)
            .expect("no message from the server")
    }

    /// The next message the server writes.
    ///
    /// # Panics
    /// When none comes within [`WAIT`], or it is not one line of JSON.
    #[track_caller]
    pub fn next(&self) -> Value {
        let line = self.line();
        assert!(!line.contains('\n'), "a message must be one line: {line}");
        serde_json::from_str(&line).expect("the server wrote malformed JSON")
    }

    /// Sends `message` and returns the next message (its answer, when nothing else is
    /// pending).
    #[track_caller]
    pub fn ask(&self, message: &Value) -> Value {
        self.send(message);
        self.next()
    }

    /// Sends the request `message` and returns its answer, skipping whatever comes first.
    #[track_caller]
    pub fn request(&self, message: &Value) -> Value {
        self.send(message);
        self.answer_to(&message["id"])
    }

    /// Calls tool `name` with `arguments` (request id 7) and returns the answer.
    #[track_caller]
    pub fn call(&self, name: &str, arguments: Value) -> Value {
        self.request(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}))
    }

    /// The answer to request `id`, skipping whatever comes first.
    #[track_caller]
    pub fn answer_to(&self, id: &Value) -> Value {
        loop {
            let m = self.next();
            if m.get("method").is_none() && m.get("id") == Some(id) {
                return m;
            }
        }
    }

    /// The next answer (notifications and requests from the server skipped).
    #[track_caller]
    pub fn answer(&self) -> Value {
        loop {
            let m = self.next();
            if m.get("method").is_none() {
                return m;
            }
        }
    }

    /// Whether the server writes nothing for [`QUIET`].
    pub fn quiet(&self) -> bool {
        self.quiet_for(QUIET)
    }

    /// Whether the server writes nothing for `wait`.
    pub fn quiet_for(&self, wait: Duration) -> bool {
        self.try_line(wait).is_none()
    }

    /// The next line the server writes within `wait`, if one comes.
    pub fn try_line(&self, wait: Duration) -> Option<String> {
        self.rx.recv_timeout(wait).ok()
    }
}
