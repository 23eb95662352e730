//! The generator's own memory, from /proc/self/status: VmRSS (resident
//! now) and VmHWM (the most resident since the process started). A
//! 10,000-connection run costs the generator memory per connection (its
//! read buffer, the socket's kernel side is not in RSS), and the run should
//! say how much; `getrusage`'s ru_maxrss is the same figure as VmHWM, but
//! only /proc gives the current one too.

use serde::Serialize;

/// The generator process's resident memory, in bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct GeneratorMemory {
    /// VmRSS before the connect phase: what the connections added is
    /// `rss_bytes - rss_before_bytes`.
    pub rss_before_bytes: u64,
    /// VmRSS at the end of the measured window, every connection still open.
    pub rss_bytes: u64,
    /// VmHWM: the process's peak so far (in `runner exec` that includes
    /// everything the runner did before, not only this load run).
    pub peak_rss_bytes: u64,
}

impl GeneratorMemory {
    /// Resident bytes each open connection added (0 with none open).
    pub fn per_connection_bytes(&self, connections: usize) -> f64 {
        if connections == 0 {
            return 0.0;
        }
        self.rss_bytes.saturating_sub(self.rss_before_bytes) as f64 / connections as f64
    }

    /// This process now; zeros where /proc is not readable.
    pub fn now() -> GeneratorMemory {
        std::fs::read_to_string("/proc/self/status")
            .map(|text| parse_status(&text))
            .unwrap_or_default()
    }
}

/// VmRSS and VmHWM of a /proc/<pid>/status text (lines like `VmRSS:  1234 kB`).
pub fn parse_status(text: &str) -> GeneratorMemory {
    let field = |name: &str| -> u64 {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| {
                rest.trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse::<u64>()
                    .ok()
            })
            .map_or(0, |kib| kib * 1024)
    };
    GeneratorMemory {
        rss_before_bytes: 0,
        rss_bytes: field("VmRSS:"),
        peak_rss_bytes: field("VmHWM:"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_rss_and_its_high_water_mark() {
        let text = "Name:\trunner\nVmHWM:\t   20480 kB\nVmRSS:\t   10240 kB\nThreads:\t3\n";
        assert_eq!(
            parse_status(text),
            GeneratorMemory {
                rss_before_bytes: 0,
                rss_bytes: 10 << 20,
                peak_rss_bytes: 20 << 20
            }
        );
        let me = GeneratorMemory::now();
        assert!(
            me.rss_bytes > 0 && me.peak_rss_bytes >= me.rss_bytes,
            "{me:?}"
        );
    }
}
