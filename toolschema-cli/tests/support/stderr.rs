//! A child's stderr collected on a thread, for tests that wait for what a process says
//! (the address it listens on, a log line).

use std::io::{BufRead, BufReader, Read};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What a child wrote to stderr so far; clones share it.
#[derive(Clone, Default)]
pub struct Stderr(Arc<Mutex<String>>);

impl Stderr {
    /// Reads `stream` line by line on a thread of its own.
    pub fn collect(stream: impl Read + Send + 'static) -> Stderr {
        let s = Stderr::default();
        let text = Arc::clone(&s.0);
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines().map_while(Result::ok) {
                let mut t = text.lock().unwrap();
                t.push_str(&line);
                t.push('\n');
            }
        });
        s
    }

    /// Everything read so far.
    pub fn text(&self) -> String {
        self.0.lock().unwrap().clone()
    }

    /// The first line holding `needle`, waited for up to `timeout`.
    pub fn wait_for(&self, needle: &str, timeout: Duration) -> Option<String> {
        let since = Instant::now();
        while since.elapsed() < timeout {
            if let Some(line) = self.text().lines().find(|l| l.contains(needle)) {
                return Some(line.to_string());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// The first line holding `needle`, waited for up to 30 s; a panic showing what was
    /// read when none comes.
    pub fn line(&self, needle: &str) -> String {
        self.wait_for(needle, Duration::from_secs(30))
            .unwrap_or_else(|| panic!("no {needle:?} on stderr:\n{}", self.text()))
    }
}
