//! CPU affinity, below every stage: the load generator pins its worker
//! threads, `service::spawn` pins a service before it execs, preflight checks
//! the spec's CPUs exist. One `cpu_set_t` builder, one `sched_setaffinity`.
use std::io;

/// A set of CPUs, built before it is applied so that applying it is one
/// system call on ready data (what a `pre_exec` hook between fork and exec
/// may do).
#[derive(Clone, Copy)]
pub struct CpuSet(libc::cpu_set_t);

impl CpuSet {
    /// The set of `cpus`; `EINVAL` for a CPU number the kernel's set cannot
    /// hold (1024 and up), as `sched_setaffinity` itself would say.
    pub fn of(cpus: &[usize]) -> io::Result<CpuSet> {
        // SAFETY: cpu_set_t is a plain bit array; all zeroes is the empty set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        for &cpu in cpus {
            if cpu >= libc::CPU_SETSIZE as usize {
                return Err(io::Error::from_raw_os_error(libc::EINVAL));
            }
            // SAFETY: cpu is below CPU_SETSIZE, inside the set.
            unsafe { libc::CPU_SET(cpu, &mut set) };
        }
        Ok(CpuSet(set))
    }

    /// Pins the calling thread (and what it later creates) to this set.
    /// Async-signal-safe: no allocation, no lock, one system call.
    pub fn apply_to_current_thread(&self) -> io::Result<()> {
        // SAFETY: self.0 is a valid cpu_set_t of the size passed.
        let rc =
            unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &self.0) };
        if rc == -1 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        }
    }
}

/// Pins the calling thread to `cpus`.
pub fn pin_current_thread(cpus: &[usize]) -> io::Result<()> {
    CpuSet::of(cpus)?.apply_to_current_thread()
}

/// The CPUs this process may run on (sched_getaffinity); empty if unknown.
pub fn allowed_cpus() -> Vec<usize> {
    // SAFETY: cpu_set_t is a plain bit array; all zeroes is a valid empty set,
    // and sched_getaffinity writes at most its size.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<libc::cpu_set_t>();
    if unsafe { libc::sched_getaffinity(0, size, &mut set) } != 0 {
        return Vec::new();
    }
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: cpu is below CPU_SETSIZE.
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_may_use_some_cpus() {
        let cpus = allowed_cpus();
        assert!(!cpus.is_empty() && cpus.len() <= 1024, "{cpus:?}");
    }

    #[test]
    fn a_thread_pinned_to_one_allowed_cpu_runs_only_there() {
        let cpu = *allowed_cpus().last().expect("an allowed CPU");
        let seen = std::thread::spawn(move || {
            pin_current_thread(&[cpu]).unwrap();
            allowed_cpus()
        })
        .join()
        .unwrap();
        assert_eq!(seen, vec![cpu]);
    }

    #[test]
    fn a_cpu_beyond_the_set_is_invalid_not_a_panic() {
        let err = CpuSet::of(&[0, 5000]).err().expect("5000 does not fit");
        assert_eq!(err.raw_os_error(), Some(libc::EINVAL));
    }
}
