//! Terminal niceties: colour that respects `NO_COLOR`, a progress line for long inputs.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// `--color` values.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
}

/// Whether text output is coloured.
#[derive(Debug, Clone, Copy)]
pub struct Paint {
    on: bool,
}

impl Paint {
    /// Colour for stdout: `auto` when stdout is a terminal and `NO_COLOR` is unset or
    /// empty (<https://no-color.org>).
    pub fn stdout(when: ColorArg) -> Paint {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let on = match when {
            ColorArg::Always => true,
            ColorArg::Never => false,
            ColorArg::Auto => !no_color && std::io::stdout().is_terminal(),
        };
        Paint { on }
    }

    /// A file and line, in bold.
    pub fn place(&self, text: &str) -> String {
        self.wrap("\x1b[1m", text)
    }

    /// An error message, in red.
    pub fn error(&self, text: &str) -> String {
        self.wrap("\x1b[31m", text)
    }

    fn wrap(&self, code: &str, text: &str) -> String {
        if self.on {
            format!("{code}{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

/// A progress line on stderr, shown only on a terminal and only once the run has taken
/// more than a second.
pub struct Progress {
    enabled: bool,
    start: Instant,
    last: Instant,
    shown: bool,
}

const DELAY: Duration = Duration::from_secs(1);
const EVERY: Duration = Duration::from_millis(200);

impl Progress {
    pub fn new(wanted: bool) -> Progress {
        let now = Instant::now();
        Progress {
            enabled: wanted && std::io::stderr().is_terminal(),
            start: now,
            last: now,
            shown: false,
        }
    }

    pub fn on_terminal(&self) -> bool {
        self.enabled
    }

    pub fn shown(&self) -> bool {
        self.shown
    }

    /// Updates the line with the instances done so far.
    pub fn tick(&mut self, instances: u64, failed: u64) {
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        if now.duration_since(self.start) < DELAY || now.duration_since(self.last) < EVERY {
            return;
        }
        self.last = now;
        let seconds = now.duration_since(self.start).as_secs_f64();
        let rate = instances as f64 / seconds.max(1e-9);
        let _ = write!(
            std::io::stderr(),
            "\r\x1b[K{instances} instances ({failed} failing), {rate:.0}/s"
        );
        self.shown = true;
    }

    /// Erases the line, so that other output starts at the left margin.
    pub fn clear(&mut self) {
        if self.shown {
            let _ = write!(std::io::stderr(), "\r\x1b[K");
            self.shown = false;
        }
    }

    pub fn finish(&mut self) {
        self.clear();
    }
}
