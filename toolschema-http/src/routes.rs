//! A session's streams: which stream each outgoing message goes on, the replay buffers, and
//! the SSE body that reads a stream.

use bytes::Bytes;
use hyper::body::{Body, Frame};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::fmt::Write as _;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};
use toolschema::mcp::jsonrpc::Id;
use toolschema::mcp::transport::{self, Outgoing, Sink};
use toolschema::mcp::{Connection, ProtocolVersion, SecurityScheme, Server};

/// What answers one session's messages: a [`Server`]'s [`Connection`], or the contract
/// proxy's relay to a server behind it.
pub(crate) trait Backend: Send + Sync {
    /// Takes one message (or batch) from the client.
    fn handle(&self, message: &str);
    /// Ends the session; what runs gets `grace` to finish.
    fn finish(&self, grace: Duration);
}

impl Backend for Connection {
    fn handle(&self, message: &str) {
        Connection::handle(self, message);
    }

    fn finish(&self, grace: Duration) {
        Connection::finish(self, grace);
    }
}

/// What the endpoint serves: one [`Backend`] per session (and per 2026-07-28 request).
pub(crate) trait Endpoint: Send + Sync {
    /// A backend whose outgoing messages go to `sink`; an error (the operator's words) when
    /// none can be had, e.g. a server process that does not start.
    fn connect(&self, sink: Sink, stateless: bool) -> Result<Box<dyn Backend>, String>;

    /// A tool's input schema, for the 2026-07-28 `Mcp-Param-*` header check; `None` when
    /// unknown (then nothing is checked).
    fn input_schema(&self, tool: &str) -> Option<Cow<'_, Value>>;

    /// True when messages related to no open request must not be dropped while no GET
    /// stream is open: they go on the newest open request stream, or wait for the GET
    /// stream (a relay cannot tell which request a server's notification belongs to).
    fn keeps_unrelated(&self) -> bool {
        false
    }

    /// The security schemes `tool` declares; `None` when unknown or not declared (a relay).
    fn security_schemes(&self, _tool: &str) -> Option<Vec<SecurityScheme>> {
        None
    }

    /// [`connect`](Self::connect) for a transport that has checked each caller's token and
    /// each call's scopes before handing messages on.
    fn connect_verified(&self, sink: Sink, stateless: bool) -> Result<Box<dyn Backend>, String> {
        self.connect(sink, stateless)
    }
    /// The metrics served at `path` of the listener, when they are (`GET`, no MCP checks).
    fn metrics_at(&self, _path: &str) -> Option<&crate::metrics::Metrics> {
        None
    }
}

impl Endpoint for Server {
    fn connect(&self, sink: Sink, _stateless: bool) -> Result<Box<dyn Backend>, String> {
        Ok(Box::new(transport::connect(self, sink)))
    }

    fn connect_verified(&self, sink: Sink, _stateless: bool) -> Result<Box<dyn Backend>, String> {
        Ok(Box::new(transport::connect_verified(self, sink)))
    }

    fn security_schemes(&self, tool: &str) -> Option<Vec<SecurityScheme>> {
        self.tool(tool).map(|t| t.security_schemes().to_vec())
    }

    fn input_schema(&self, tool: &str) -> Option<Cow<'_, Value>> {
        transport::declared_input_schema(self, tool).map(Cow::Borrowed)
    }
}

/// A session (handshake eras) or the one-request context of a 2026-07-28 request: one
/// [`Backend`] and the streams its messages go on.
pub(crate) struct HttpSession {
    pub(crate) conn: Box<dyn Backend>,
    pub(crate) routes: Mutex<Routes>,
    /// Stateless (2026-07-28): closing the stream cancels the request.
    pub(crate) stateless: bool,
    pub(crate) last_used: Mutex<Instant>,
    replay_events: usize,
    keep_unrelated: bool,
    /// With authorization: the subject of the token that opened the session (`None`: the
    /// token named none); requests with another subject's token are refused.
    pub(crate) owner: OnceLock<Option<String>>,
    /// Answers to rewrite before they are sent, by request id key (`tools/list` answers
    /// whose tools the caller may not call are left out).
    rewrites: Mutex<HashMap<String, Rewrite>>,
}

/// Rewrites one answer line.
pub(crate) type Rewrite = Box<dyn FnOnce(String) -> String + Send>;

#[derive(Default)]
pub(crate) struct Routes {
    next_stream: u64,
    /// The stream of each request still unanswered, by id key.
    by_request: HashMap<String, u64>,
    pub(crate) streams: HashMap<u64, Stream>,
    /// The GET stream, for messages related to no request.
    pub(crate) standalone: Option<u64>,
    /// The protocol version negotiated (sessions) or requested (stateless).
    pub(crate) version: Option<ProtocolVersion>,
    pub(crate) closed: bool,
}

struct Event {
    seq: u64,
    text: String,
    answer: bool,
}

pub(crate) struct Stream {
    events: VecDeque<Event>,
    next_seq: u64,
    /// The answer is in `events`: nothing more comes.
    done: bool,
    waker: Option<Waker>,
    pub(crate) attached: bool,
    /// Answered as one JSON body: notifications are dropped, the answer goes here.
    json: Option<tokio::sync::oneshot::Sender<String>>,
    keys: Vec<String>,
    standalone: bool,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl HttpSession {
    pub(crate) fn new(
        endpoint: &dyn Endpoint,
        stateless: bool,
        replay_events: usize,
        verified: bool,
    ) -> Result<Arc<HttpSession>, String> {
        // The sink reaches the session once it exists; a backend says nothing before its
        // first message.
        let slot: Arc<OnceLock<Weak<HttpSession>>> = Arc::default();
        let target = Arc::clone(&slot);
        let sink: Sink = Arc::new(move |line, kind, related| {
            if let Some(session) = target.get().and_then(Weak::upgrade) {
                session.deliver(line, kind, related);
            }
        });
        let conn = if verified {
            endpoint.connect_verified(sink, stateless)?
        } else {
            endpoint.connect(sink, stateless)?
        };
        let session = Arc::new(HttpSession {
            conn,
            routes: Mutex::new(Routes::default()),
            stateless,
            last_used: Mutex::new(Instant::now()),
            replay_events,
            keep_unrelated: endpoint.keeps_unrelated(),
            owner: OnceLock::new(),
            rewrites: Mutex::new(HashMap::new()),
        });
        let _ = slot.set(Arc::downgrade(&session));
        Ok(session)
    }

    /// Opens a stream for the requests with these id keys (several for a batch); `None`
    /// when one of them is still awaited on another stream of the session: two streams
    /// under one key would leave one of them without its answer.
    pub(crate) fn try_open_stream(&self, keys: Vec<String>) -> Option<u64> {
        let mut routes = lock(&self.routes);
        if keys.iter().any(|k| routes.by_request.contains_key(k)) {
            return None;
        }
        Some(open(&mut routes, keys))
    }

    /// Opens a stream for these keys, which nothing else awaits (a GET stream has none).
    fn open_stream(&self, keys: Vec<String>) -> u64 {
        open(&mut lock(&self.routes), keys)
    }

    /// Opens the GET stream, or returns the existing one.
    pub(crate) fn standalone_stream(&self) -> u64 {
        if let Some(no) = lock(&self.routes).standalone {
            return no;
        }
        let no = self.open_stream(Vec::new());
        let mut routes = lock(&self.routes);
        if let Some(s) = routes.streams.get_mut(&no) {
            s.standalone = true;
        }
        routes.standalone = Some(no);
        no
    }

    /// Streams kept (live, or waiting to be resumed).
    pub(crate) fn stream_count(&self) -> usize {
        lock(&self.routes).streams.len()
    }

    /// Drops the oldest stream that nobody reads and that is finished, to make room.
    pub(crate) fn evict_one(&self) -> bool {
        let mut routes = lock(&self.routes);
        let victim = routes
            .streams
            .iter()
            .filter(|(_, s)| !s.attached && !s.standalone && s.done)
            .map(|(no, _)| *no)
            .min();
        match victim {
            Some(no) => {
                remove_stream(&mut routes, no);
                true
            }
            None => false,
        }
    }

    /// The stream's answer when it is all the stream holds (then the stream is gone).
    pub(crate) fn take_ready_answer(&self, no: u64) -> Option<String> {
        let mut routes = lock(&self.routes);
        let s = routes.streams.get_mut(&no)?;
        if !s.done || s.events.len() != 1 {
            return None;
        }
        let text = s.events.pop_front().map(|e| e.text);
        remove_stream(&mut routes, no);
        text
    }

    /// Makes the stream a JSON one: its answer comes on the receiver.
    pub(crate) fn json_answer(&self, no: u64) -> tokio::sync::oneshot::Receiver<String> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let mut routes = lock(&self.routes);
        if let Some(s) = routes.streams.get_mut(&no) {
            let answer = s.events.iter().position(|e| e.answer);
            if let Some(i) = answer {
                let text = s.events.remove(i).map(|e| e.text).unwrap_or_default();
                let _ = tx.send(text);
                remove_stream(&mut routes, no);
            } else {
                s.events.clear();
                s.json = Some(tx);
            }
        }
        rx
    }

    /// Forgets a stream (a JSON answer the client stopped waiting for).
    pub(crate) fn drop_stream(&self, no: u64) {
        remove_stream(&mut lock(&self.routes), no);
    }

    /// Parses `STREAM-SEQ`: the stream, when this session has it, and the last event seen.
    pub(crate) fn resume_point(&self, last_event_id: &str) -> Option<(u64, u64)> {
        let (s, n) = last_event_id.trim().split_once('-')?;
        let (s, n) = (s.parse().ok()?, n.parse().ok()?);
        lock(&self.routes)
            .streams
            .contains_key(&s)
            .then_some((s, n))
    }

    /// Ends the session: every stream ends, running calls get `grace` to finish.
    pub(crate) fn close(&self, grace: Duration) {
        let wakers: Vec<Waker> = {
            let mut routes = lock(&self.routes);
            routes.closed = true;
            routes
                .streams
                .values_mut()
                .filter_map(|s| s.waker.take())
                .collect()
        };
        for w in wakers {
            w.wake();
        }
        self.conn.finish(grace);
    }

    pub(crate) fn touch(&self) {
        *lock(&self.last_used) = Instant::now();
    }

    /// True while a client reads one of the session's streams.
    pub(crate) fn has_reader(&self) -> bool {
        lock(&self.routes).streams.values().any(|s| s.attached)
    }

    /// True while a request of the session waits for its answer.
    pub(crate) fn awaits_answer(&self) -> bool {
        !lock(&self.routes).by_request.is_empty()
    }

    pub(crate) fn idle_for(&self) -> Duration {
        lock(&self.last_used).elapsed()
    }

    /// The connection's sink: puts the message on the stream of the request it relates to.
    /// Rewrites the answer to the request with id key `key` before it is sent.
    pub(crate) fn rewrite_answer(&self, key: String, rewrite: Rewrite) {
        lock(&self.rewrites).insert(key, rewrite);
    }

    fn deliver(&self, line: String, kind: Outgoing, related: Option<&Id>) {
        let key = match related {
            Some(id) => id.key().to_string(),
            None => answer_key(&line),
        };
        // A response ends its stream; a notification or a request to the client that must
        // not be dropped (the acknowledgement of `subscriptions/listen`, sampling) does not.
        let answer = kind == Outgoing::Answer && !has_method(&line);
        let line = if !answer {
            line
        } else if line.trim_start().starts_with('[') {
            // A batch's answer: the rewrites of each of its members (a `tools/list` in a
            // batch is filtered as one sent alone).
            let rewrites: Vec<Rewrite> = {
                let mut all = lock(&self.rewrites);
                member_keys(&line)
                    .iter()
                    .filter_map(|k| all.remove(k))
                    .collect()
            };
            rewrites.into_iter().fold(line, |line, f| f(line))
        } else {
            let rewrite = lock(&self.rewrites).remove(&key);
            match rewrite {
                Some(f) => f(line),
                None => line,
            }
        };
        let mut routes = lock(&self.routes);
        if answer && routes.version.is_none() && !self.stateless {
            routes.version = negotiated(&line);
        }
        let no = match routes.by_request.get(&key) {
            Some(&no) => no,
            // Not related to a request still open (a task's status, a request of a call
            // that runs as a task): the GET stream carries it, but never a response.
            None => match Some(routes.standalone).flatten() {
                Some(no) if !answer => no,
                None if !answer && self.keep_unrelated => match newest_live(&routes) {
                    Some(no) => no,
                    None => {
                        drop(routes);
                        let no = self.standalone_stream();
                        routes = lock(&self.routes);
                        no
                    }
                },
                _ => return,
            },
        };
        let Some(stream) = routes.streams.get_mut(&no) else {
            return;
        };
        if stream.json.is_some() {
            if answer && let Some(tx) = stream.json.take() {
                let _ = tx.send(line);
                remove_stream(&mut routes, no);
            }
            return;
        }
        if !answer {
            let notes = stream.events.iter().filter(|e| !e.answer).count();
            if notes >= self.replay_events {
                // The client reads slowly or is away: the oldest notification goes.
                if let Some(i) = stream.events.iter().position(|e| !e.answer) {
                    stream.events.remove(i);
                }
            }
        }
        let seq = stream.next_seq;
        stream.next_seq += 1;
        stream.events.push_back(Event {
            seq,
            text: line,
            answer,
        });
        let waker = stream.waker.take();
        if answer && !stream.standalone {
            stream.done = true;
            let keys = std::mem::take(&mut stream.keys);
            for k in keys {
                routes.by_request.remove(&k);
            }
        }
        drop(routes);
        if let Some(w) = waker {
            w.wake();
        }
    }
}

fn open(routes: &mut Routes, keys: Vec<String>) -> u64 {
    let no = routes.next_stream;
    routes.next_stream += 1;
    for k in &keys {
        routes.by_request.insert(k.clone(), no);
    }
    routes.streams.insert(
        no,
        Stream {
            events: VecDeque::new(),
            next_seq: 1,
            done: false,
            waker: None,
            attached: false,
            json: None,
            keys,
            standalone: false,
        },
    );
    no
}

/// The newest request stream still waiting for its answer, read as SSE.
fn newest_live(routes: &Routes) -> Option<u64> {
    routes
        .streams
        .iter()
        .filter(|(_, s)| !s.done && !s.standalone && s.json.is_none())
        .map(|(no, _)| *no)
        .max()
}

fn remove_stream(routes: &mut Routes, no: u64) {
    if let Some(s) = routes.streams.remove(&no) {
        for k in s.keys {
            routes.by_request.remove(&k);
        }
        if routes.standalone == Some(no) {
            routes.standalone = None;
        }
    }
}

/// True for a notification or a request (not a response). A batch's answer (an array,
/// which serde would read as a struct's members in order) is responses.
fn has_method(line: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Method {
        method: Option<serde::de::IgnoredAny>,
    }
    line.trim_start().starts_with('{')
        && serde_json::from_str::<Method>(line).is_ok_and(|m| m.method.is_some())
}

/// The version an `initialize` answer negotiated.
fn negotiated(line: &str) -> Option<ProtocolVersion> {
    #[derive(serde::Deserialize)]
    struct Init<'a> {
        #[serde(borrow)]
        result: InitResult<'a>,
    }
    #[derive(serde::Deserialize)]
    struct InitResult<'a> {
        #[serde(rename = "protocolVersion")]
        protocol_version: &'a str,
    }
    let init: Init<'_> = serde_json::from_str(line).ok()?;
    ProtocolVersion::parse(init.result.protocol_version)
}

/// The id key of an answer line (the first answer's, for a batch); `null` when unreadable.
/// The id keys of a batch answer's members (unreadable ids left out).
fn member_keys(line: &str) -> Vec<String> {
    #[derive(serde::Deserialize)]
    struct WithId<'a> {
        #[serde(borrow)]
        id: Option<&'a serde_json::value::RawValue>,
    }
    serde_json::from_str::<Vec<WithId<'_>>>(line)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|w| w.id.and_then(Id::parse))
        .map(|id| id.key().to_string())
        .collect()
}

fn answer_key(line: &str) -> String {
    #[derive(serde::Deserialize)]
    struct WithId<'a> {
        #[serde(borrow)]
        id: Option<&'a serde_json::value::RawValue>,
    }
    let first: Option<WithId<'_>> = if line.trim_start().starts_with('[') {
        serde_json::from_str::<Vec<WithId<'_>>>(line)
            .ok()
            .and_then(|v| v.into_iter().next())
    } else {
        serde_json::from_str(line).ok()
    };
    first
        .and_then(|w| w.id)
        .and_then(Id::parse)
        .map_or_else(|| "null".to_string(), |id| id.key().to_string())
}

/// An SSE response body reading one stream of a session.
pub(crate) struct SseBody {
    session: Arc<HttpSession>,
    stream: u64,
    /// The last event sent.
    sent: u64,
    /// The priming event (id and empty data, with the `retry` delay), sent first.
    priming: Option<Bytes>,
    poll: Option<Pin<Box<tokio::time::Sleep>>>,
    /// When a quiet stream next gets a comment line.
    keep_alive: (Duration, Pin<Box<tokio::time::Sleep>>),
    finished: bool,
}

impl SseBody {
    /// Attaches a reader to the stream, from event `after` on; `None` when another reader
    /// has it.
    pub(crate) fn attach(
        session: Arc<HttpSession>,
        stream: u64,
        after: u64,
        prime: Option<Duration>,
        poll_after: Option<Duration>,
        keep_alive: Duration,
    ) -> Option<SseBody> {
        {
            let mut routes = lock(&session.routes);
            let s = routes.streams.get_mut(&stream)?;
            if s.attached {
                return None;
            }
            s.attached = true;
        }
        let priming = prime.map(|retry| {
            Bytes::from(format!(
                "id: {stream}-0\nretry: {}\ndata: \n\n",
                retry.as_millis()
            ))
        });
        // Polling only applies when the client was told how to come back.
        let poll = poll_after
            .filter(|_| priming.is_some())
            .map(|d| Box::pin(tokio::time::sleep(d)));
        Some(SseBody {
            session,
            stream,
            sent: after,
            priming,
            poll,
            keep_alive: (keep_alive, Box::pin(tokio::time::sleep(keep_alive))),
            finished: false,
        })
    }
}

impl Body for SseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        if this.finished {
            return Poll::Ready(None);
        }
        if let Some(p) = this.priming.take() {
            return Poll::Ready(Some(Ok(Frame::data(p))));
        }
        let mut routes = lock(&this.session.routes);
        let closed = routes.closed;
        let Some(s) = routes.streams.get_mut(&this.stream) else {
            this.finished = true;
            return Poll::Ready(None);
        };
        let mut out = String::new();
        let from = this.sent;
        for e in s.events.iter().filter(|e| e.seq > from) {
            let _ = write!(out, "id: {}-{}\nevent: message\n", this.stream, e.seq);
            for line in e.text.split('\n') {
                let _ = writeln!(out, "data: {line}");
            }
            out.push('\n');
            this.sent = e.seq;
        }
        if !s.standalone {
            // Delivered events of a request's stream need not be kept.
            let sent = this.sent;
            s.events.retain(|e| e.seq > sent || e.answer);
        }
        if !out.is_empty() {
            return Poll::Ready(Some(Ok(Frame::data(Bytes::from(out)))));
        }
        if s.done || closed {
            this.finished = true;
            if s.done {
                remove_stream(&mut routes, this.stream);
            }
            return Poll::Ready(None);
        }
        if let Some(sleep) = this.poll.as_mut()
            && sleep.as_mut().poll(cx).is_ready()
        {
            // SSE polling: the connection closes, the stream stays for the client's return.
            this.finished = true;
            s.attached = false;
            this.poll = None;
            return Poll::Ready(None);
        }
        let (every, sleep) = &mut this.keep_alive;
        if sleep.as_mut().poll(cx).is_ready() {
            sleep.as_mut().reset(tokio::time::Instant::now() + *every);
            return Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(b":\n\n")))));
        }
        s.waker = Some(cx.waker().clone());
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.finished
    }
}

impl Drop for SseBody {
    fn drop(&mut self) {
        let cancel = {
            let mut routes = lock(&self.session.routes);
            let Some(s) = routes.streams.get_mut(&self.stream) else {
                return;
            };
            s.attached = false;
            s.waker = None;
            !s.done
        };
        // At 2026-07-28 closing the stream is the cancellation of its request.
        if cancel && self.session.stateless {
            self.session.conn.finish(Duration::ZERO);
        }
    }
}
