//! Tasks (SEP-1686, protocol 2025-11-25): a task-augmented `tools/call` runs in the
//! background; the client polls `tasks/get`, waits on `tasks/result`, lists and cancels.
//!
//! The table is per connection (a task belongs to the session that created it), bounded in
//! number, and forgets finished tasks once their time to live has passed.

use super::jsonrpc::{self, Id, error_line, result_line};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// `_meta` key tying a message to its task.
pub(crate) const META_RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// How many `tasks/result` requests may wait on one task.
const MAX_WAITERS: usize = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::InputRequired => "input_required",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }

    fn terminal(self) -> bool {
        matches!(self, Status::Completed | Status::Failed | Status::Cancelled)
    }
}

/// What the underlying request answered: a result object or a JSON-RPC error.
pub(crate) enum Outcome {
    Result(Value),
    Error(i64, String),
}

struct Task {
    id: String,
    status: Status,
    message: Option<String>,
    created: SystemTime,
    updated: SystemTime,
    ttl: Duration,
    outcome: Option<Outcome>,
    cancel: Arc<AtomicBool>,
    waiters: Vec<Id>,
}

/// The limits of a connection's task table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TaskLimits {
    pub(crate) max_tasks: usize,
    pub(crate) max_ttl: Duration,
    pub(crate) poll_interval: Duration,
}

pub(crate) struct TaskTable {
    limits: TaskLimits,
    nonce: u64,
    seq: u64,
    by_id: HashMap<String, u64>,
    tasks: BTreeMap<u64, Task>,
}

/// Lines to send once the table's lock is released.
pub(crate) type Lines = Vec<String>;

impl TaskTable {
    pub(crate) fn new(limits: TaskLimits) -> TaskTable {
        use std::hash::{BuildHasher, Hasher};
        // A per-connection random prefix: ids of one session say nothing about another's.
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        TaskTable {
            limits,
            nonce: h.finish(),
            seq: 0,
            by_id: HashMap::new(),
            tasks: BTreeMap::new(),
        }
    }

    /// Drops finished tasks whose time to live has passed.
    fn sweep(&mut self) {
        let now = SystemTime::now();
        let expired: Vec<u64> = self
            .tasks
            .iter()
            .filter(|(_, t)| {
                t.status.terminal() && t.created + t.ttl <= now && t.waiters.is_empty()
            })
            .map(|(&k, _)| k)
            .collect();
        for k in expired {
            if let Some(t) = self.tasks.remove(&k) {
                self.by_id.remove(&t.id);
            }
        }
    }

    /// Creates a task in `working`; `None` when the table is full of live tasks.
    pub(crate) fn create(
        &mut self,
        ttl_ms: Option<u64>,
    ) -> Option<(String, Arc<AtomicBool>, Value)> {
        self.sweep();
        if self.tasks.len() >= self.limits.max_tasks {
            // Make room from the oldest finished task, if any.
            let oldest = self
                .tasks
                .iter()
                .find(|(_, t)| t.status.terminal() && t.waiters.is_empty())
                .map(|(&k, _)| k)?;
            if let Some(t) = self.tasks.remove(&oldest) {
                self.by_id.remove(&t.id);
            }
        }
        self.seq += 1;
        let id = format!("{:016x}-{}", self.nonce, self.seq);
        let ttl = ttl_ms
            .map(Duration::from_millis)
            .unwrap_or(self.limits.max_ttl)
            .min(self.limits.max_ttl);
        let now = SystemTime::now();
        let cancel = Arc::new(AtomicBool::new(false));
        let task = Task {
            id: id.clone(),
            status: Status::Working,
            message: None,
            created: now,
            updated: now,
            ttl,
            outcome: None,
            cancel: Arc::clone(&cancel),
            waiters: Vec::new(),
        };
        let json = self.describe(&task);
        self.by_id.insert(id.clone(), self.seq);
        self.tasks.insert(self.seq, task);
        Some((id, cancel, json))
    }

    fn describe(&self, t: &Task) -> Value {
        let mut v = json!({
            "taskId": t.id,
            "status": t.status.as_str(),
            "createdAt": iso8601(t.created),
            "lastUpdatedAt": iso8601(t.updated),
            "ttl": u64::try_from(t.ttl.as_millis()).unwrap_or(u64::MAX),
            "pollInterval": u64::try_from(self.limits.poll_interval.as_millis()).unwrap_or(u64::MAX),
        });
        if let (Some(m), Some(obj)) = (&t.message, v.as_object_mut()) {
            obj.insert("statusMessage".into(), Value::from(m.as_str()));
        }
        v
    }

    fn get_mut(&mut self, id: &str) -> Option<&mut Task> {
        let seq = self.by_id.get(id)?;
        self.tasks.get_mut(seq)
    }

    /// `tasks/get`.
    pub(crate) fn get(&mut self, id: &str) -> Option<Value> {
        self.sweep();
        let seq = self.by_id.get(id)?;
        let t = self.tasks.get(seq)?;
        Some(self.describe(t))
    }

    /// `tasks/list`: the tasks after `cursor` (a sequence number), up to `page`.
    pub(crate) fn list(&mut self, after: u64, page: usize) -> (Vec<Value>, Option<u64>) {
        self.sweep();
        let mut out = Vec::new();
        let mut last = after;
        for (&seq, t) in self.tasks.range(after.saturating_add(1)..) {
            if out.len() == page {
                return (out, Some(last));
            }
            out.push(self.describe(t));
            last = seq;
        }
        (out, None)
    }

    /// True when a list cursor names a position in this table's sequence.
    pub(crate) fn knows_position(&self, after: u64) -> bool {
        after <= self.seq
    }

    /// A status change while running (`working` ⇄ `input_required`); the status
    /// notification to send, if any.
    pub(crate) fn set_running_status(&mut self, id: &str, status: Status) -> Option<String> {
        let t = self.get_mut(id)?;
        if t.status.terminal() || t.status == status {
            return None;
        }
        t.status = status;
        t.updated = SystemTime::now();
        let seq = self.by_id.get(id)?;
        let t = self.tasks.get(seq)?;
        Some(status_notification(self.describe(t)))
    }

    /// The handler finished: records the outcome (unless the task was cancelled) and
    /// answers the waiting `tasks/result` requests.
    pub(crate) fn finish(&mut self, id: &str, outcome: Outcome) -> Lines {
        let Some(t) = self.get_mut(id) else {
            return Vec::new();
        };
        if t.status.terminal() {
            return Vec::new();
        }
        t.status = match &outcome {
            Outcome::Result(r) if r.get("isError") == Some(&Value::Bool(true)) => Status::Failed,
            Outcome::Result(_) => Status::Completed,
            Outcome::Error(..) => Status::Failed,
        };
        t.updated = SystemTime::now();
        t.outcome = Some(outcome);
        self.settle(id)
    }

    /// `tasks/cancel`: `Err` for a task already finished.
    pub(crate) fn cancel(&mut self, id: &str) -> Option<Result<(Value, Lines), ()>> {
        let t = self.get_mut(id)?;
        if t.status.terminal() {
            return Some(Err(()));
        }
        t.cancel.store(true, Ordering::Relaxed);
        t.status = Status::Cancelled;
        t.message = Some("The task was cancelled by request.".into());
        t.updated = SystemTime::now();
        let lines = self.settle(id);
        let seq = *self.by_id.get(id)?;
        let t = self.tasks.get(&seq)?;
        Some(Ok((self.describe(t), lines)))
    }

    /// The answers to the waiters of a task that just reached a terminal status, and its
    /// status notification.
    fn settle(&mut self, id: &str) -> Lines {
        let Some(&seq) = self.by_id.get(id) else {
            return Vec::new();
        };
        let Some(t) = self.tasks.get_mut(&seq) else {
            return Vec::new();
        };
        let waiters = std::mem::take(&mut t.waiters);
        let t = &self.tasks[&seq];
        let mut lines: Lines = waiters.iter().map(|w| answer(w, t)).collect();
        lines.push(status_notification(self.describe(t)));
        lines
    }

    /// `tasks/result`: the answer now for a finished task, else the request waits (`Ok(None)`).
    pub(crate) fn result(&mut self, id: &str, waiter: &Id) -> Result<Option<String>, &'static str> {
        self.sweep();
        let Some(t) = self.get_mut(id) else {
            return Err("unknown task");
        };
        if t.status.terminal() {
            return Ok(Some(answer(waiter, t)));
        }
        if t.waiters.len() >= MAX_WAITERS {
            return Err("too many requests wait on this task");
        }
        t.waiters.push(waiter.clone());
        Ok(None)
    }

    /// The connection closes: every running task is cancelled.
    pub(crate) fn cancel_all(&mut self) {
        for t in self.tasks.values_mut() {
            if !t.status.terminal() {
                t.cancel.store(true, Ordering::Relaxed);
            }
        }
    }
}

/// What `tasks/result` returns for a finished task: exactly the underlying answer, with the
/// related-task `_meta` on a result.
fn answer(waiter: &Id, t: &Task) -> String {
    match &t.outcome {
        Some(Outcome::Result(r)) => {
            let mut r = r.clone();
            if let Some(obj) = r.as_object_mut() {
                let meta = obj.entry("_meta").or_insert_with(|| json!({}));
                if let Some(meta) = meta.as_object_mut() {
                    meta.insert(META_RELATED_TASK.into(), json!({"taskId": t.id}));
                }
            }
            result_line(waiter, &r)
        }
        Some(Outcome::Error(code, message)) => error_line(waiter, *code, message, None),
        // Cancelled before an outcome: the request has no answer of its own.
        None => error_line(
            waiter,
            jsonrpc::INTERNAL_ERROR,
            "the task was cancelled before it finished",
            None,
        ),
    }
}

fn status_notification(task: Value) -> String {
    json!({"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": task}).to_string()
}

/// An RFC 3339 UTC timestamp with milliseconds.
pub(crate) fn iso8601(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        d.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_rfc3339() {
        assert_eq!(iso8601(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(1_709_210_096_789);
        assert_eq!(iso8601(t), "2024-02-29T12:34:56.789Z");
    }
}
