//! Minimal /proc reading: one `/proc/<pid>/stat` per process.
use std::fs;
use std::sync::OnceLock;

/// The fields of `/proc/<pid>/stat` that the runner uses.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcStat {
    pub pid: i32,
    /// The command name (`comm`, at most 15 bytes), e.g. `sh`, `java`.
    pub comm: String,
    pub state: char,
    pub ppid: i32,
    pub pgrp: i32,
    pub session: i32,
    /// Clock ticks.
    pub utime: u64,
    pub stime: u64,
    pub num_threads: u32,
    /// Pages.
    pub rss_pages: u64,
}

impl ProcStat {
    /// Parses one stat line. The command name sits in parentheses and may
    /// itself contain spaces and parentheses, so fields are counted from the
    /// last `)`.
    pub fn parse(line: &str) -> Option<ProcStat> {
        let open = line.find('(')?;
        let close = line.rfind(')')?;
        let pid = line[..open].trim().parse().ok()?;
        let rest: Vec<&str> = line.get(close + 1..)?.split_whitespace().collect();
        // rest[0] is field 3 (state); field N is rest[N - 3].
        let field = |n: usize| rest.get(n - 3).copied();
        Some(ProcStat {
            pid,
            comm: line.get(open + 1..close)?.to_owned(),
            state: field(3)?.chars().next()?,
            ppid: field(4)?.parse().ok()?,
            pgrp: field(5)?.parse().ok()?,
            session: field(6)?.parse().ok()?,
            utime: field(14)?.parse().ok()?,
            stime: field(15)?.parse().ok()?,
            num_threads: field(20)?.parse().ok()?,
            rss_pages: field(24)?.parse().ok()?,
        })
    }

    /// A zombie or dead process holds no resources and does not count as alive.
    pub fn is_live(&self) -> bool {
        !matches!(self.state, 'Z' | 'X' | 'x')
    }
}

/// Whether the process `pid` (a service's start shell, its session
/// leader) is still live: one small read. The start shell exits when the
/// service dies, whether it forked or exec'd it.
pub fn leader_live(pid: i32) -> bool {
    read_stat(pid).is_some_and(|p| p.is_live())
}

/// Reads `/proc/<pid>/stat`; `None` when the process is gone.
pub fn read_stat(pid: i32) -> Option<ProcStat> {
    let text = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    ProcStat::parse(&text)
}

/// Every live process whose session id is `sid`.
pub fn session_members(sid: i32) -> Vec<ProcStat> {
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<i32>().ok()))
        .filter_map(read_stat)
        .filter(|s| s.session == sid && s.is_live())
        .collect()
}

/// The pids of the live processes of session `sid`.
pub fn session_pids(sid: i32) -> Vec<i32> {
    session_members(sid).into_iter().map(|s| s.pid).collect()
}

/// True while any live process of session `sid` exists.
pub fn session_alive(sid: i32) -> bool {
    !session_members(sid).is_empty()
}

/// Command names of the shells a `start` may run through.
const SHELLS: &[&str] = &["sh", "dash", "bash", "ash", "zsh"];

/// The resident memory of the shells among session `sid`'s processes now:
/// what a `start` run through `sh -c` adds to the service's RSS (0 when the
/// server was started directly, or the shell exec'd into it).
pub fn session_shell_rss_bytes(sid: i32) -> u64 {
    session_members(sid)
        .iter()
        .filter(|s| SHELLS.contains(&s.comm.as_str()))
        .map(|s| s.rss_pages * page_size())
        .sum()
}

/// Summed resources of a set of processes at one instant.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TreeUsage {
    pub rss_bytes: u64,
    pub cpu_user_s: f64,
    pub cpu_system_s: f64,
    pub threads: u32,
    pub processes: u32,
}

impl TreeUsage {
    pub fn of(stats: &[ProcStat]) -> TreeUsage {
        let tick = clock_ticks_per_second() as f64;
        let page = page_size();
        stats.iter().fold(TreeUsage::default(), |acc, s| TreeUsage {
            rss_bytes: acc.rss_bytes + s.rss_pages * page,
            cpu_user_s: acc.cpu_user_s + s.utime as f64 / tick,
            cpu_system_s: acc.cpu_system_s + s.stime as f64 / tick,
            threads: acc.threads + s.num_threads,
            processes: acc.processes + 1,
        })
    }
}

/// Resources of session `sid` now.
pub fn session_usage(sid: i32) -> TreeUsage {
    TreeUsage::of(&session_members(sid))
}

pub fn clock_ticks_per_second() -> u64 {
    static TICKS: OnceLock<u64> = OnceLock::new();
    // SAFETY: sysconf has no preconditions.
    *TICKS.get_or_init(|| match unsafe { libc::sysconf(libc::_SC_CLK_TCK) } {
        n if n > 0 => n as u64,
        _ => 100,
    })
}

pub fn page_size() -> u64 {
    static PAGE: OnceLock<u64> = OnceLock::new();
    // SAFETY: sysconf has no preconditions.
    *PAGE.get_or_init(|| match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
        n if n > 0 => n as u64,
        _ => 4096,
    })
}

/// CPU seconds used so far by the calling thread (for the sampler's own cost).
pub fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid timespec to write into.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_name_with_spaces_and_parens() {
        let line = "4242 (my (odd) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 \
                    250 30 0 0 20 0 7 0 123456 1000000 512 18446744073709551615";
        let s = ProcStat::parse(line).unwrap();
        assert_eq!(s.pid, 4242);
        assert_eq!(s.state, 'S');
        assert_eq!((s.ppid, s.pgrp, s.session), (1, 4242, 4242));
        assert_eq!((s.utime, s.stime), (250, 30));
        assert_eq!(s.num_threads, 7);
        assert_eq!(s.rss_pages, 512);
        assert!(s.is_live());
    }

    #[test]
    fn zombie_is_not_live() {
        let line = "7 (z) Z 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 0 0 0";
        assert!(!ProcStat::parse(line).unwrap().is_live());
    }

    #[test]
    fn reads_own_process() {
        let me = std::process::id() as i32;
        let s = read_stat(me).unwrap();
        assert_eq!(s.pid, me);
        assert!(s.rss_pages > 0);
        let usage = session_usage(s.session);
        assert!(usage.processes >= 1 && usage.rss_bytes > 0);
    }
}
