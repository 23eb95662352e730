//! The generator's own open-file limit (RLIMIT_NOFILE): every connection is
//! a file descriptor, and a default soft limit of 1024 would end a
//! 10,000-connection run with EMFILE in the middle of its connect phase.
//! Before any connection is opened the soft limit is raised to what the run
//! needs, up to the hard limit; above the hard limit the run is refused with
//! the limit, the need and the fix (only root can raise a hard limit).

use crate::load::error::LoadError;

/// Descriptors the generator keeps besides its connections: stdio, an epoll
/// and a timerfd per worker thread, the runner's own logs and CSVs in `exec`.
pub const SPARE_FILES: u64 = 256;

/// The soft and hard RLIMIT_NOFILE of this process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileLimit {
    pub soft: u64,
    pub hard: u64,
}

impl FileLimit {
    /// This process's limits now.
    pub fn current() -> std::io::Result<FileLimit> {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes into the struct we own.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(FileLimit {
            soft: limit.rlim_cur,
            hard: limit.rlim_max,
        })
    }
}

/// Files a run with `connections` connections needs open at once.
pub fn files_needed(connections: usize) -> u64 {
    connections as u64 + SPARE_FILES
}

/// What to do about a limit for a need: nothing, raise the soft limit to
/// `need`, or refuse (the hard limit is below the need).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitAction {
    Enough,
    RaiseSoft { to: u64 },
    Refuse,
}

/// The pure rule behind [`ensure_open_files`].
pub fn action_for(limit: FileLimit, need: u64) -> LimitAction {
    if limit.soft >= need {
        LimitAction::Enough
    } else if limit.hard >= need {
        LimitAction::RaiseSoft { to: need }
    } else {
        LimitAction::Refuse
    }
}

/// Raises this process's soft RLIMIT_NOFILE so that `connections` fit, or
/// says why it cannot. Returns the limits in force afterwards.
pub fn ensure_open_files(connections: usize) -> Result<FileLimit, LoadError> {
    let need = files_needed(connections);
    let limit = FileLimit::current().map_err(LoadError::Runtime)?;
    let refused = |why: String| LoadError::FileLimit {
        connections,
        need,
        soft: limit.soft,
        hard: limit.hard,
        why,
    };
    match action_for(limit, need) {
        LimitAction::Enough => Ok(limit),
        LimitAction::Refuse => Err(refused("the hard limit is below the need".into())),
        LimitAction::RaiseSoft { to } => {
            let raised = libc::rlimit {
                rlim_cur: to,
                rlim_max: limit.hard,
            };
            // SAFETY: setrlimit reads the struct we own; raising the soft
            // limit up to the hard one needs no privilege.
            if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } != 0 {
                let cause = std::io::Error::last_os_error();
                return Err(refused(format!("setrlimit failed: {cause}")));
            }
            Ok(FileLimit {
                soft: to,
                hard: limit.hard,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_soft_limit_is_raised_to_the_need_up_to_the_hard_limit() {
        let limit = FileLimit {
            soft: 1024,
            hard: 20_000,
        };
        assert_eq!(action_for(limit, 500), LimitAction::Enough);
        assert_eq!(
            action_for(limit, files_needed(10_000)),
            LimitAction::RaiseSoft { to: 10_256 }
        );
        assert_eq!(action_for(limit, 20_001), LimitAction::Refuse);
    }

    #[test]
    fn this_process_can_hold_what_its_limits_allow() {
        let before = FileLimit::current().unwrap();
        let fits = before.hard.min(4096).saturating_sub(SPARE_FILES) as usize;
        let after = ensure_open_files(fits).unwrap();
        assert!(after.soft >= files_needed(fits), "{after:?}");
        assert_eq!(after.hard, before.hard);
        if before.hard < u64::MAX - SPARE_FILES {
            let err = ensure_open_files(before.hard as usize)
                .unwrap_err()
                .to_string();
            assert!(err.contains("ulimit -Hn"), "{err}");
        }
    }
}
