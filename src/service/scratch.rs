//! A start's scratch folder (a dependency's PostgreSQL data directory and
//! socket; a runtime's rendered `files:`): created fresh for one start,
//! owned by the user its server runs as, and
//! removed after the stop, or, if the runner dies first (even by SIGKILL),
//! by a small guard process, like the service guard ([`super::guard`]) that
//! kills the dependency's process group and cgroup at the same moment.
use std::ffi::CString;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Child;

/// Blocks on a pipe only the runner writes; at its end (the runner gone, or
/// disarmed) removes the folder if it is still there. The wait first gives
/// the service guard time to kill the processes that write into it.
const SCRIPT: &str = r#"read _ignored
i=0
while [ -e "$1" ] && [ "$i" -lt 20 ]; do
  sleep 0.25
  rm -rf -- "$1" 2>/dev/null
  i=$((i+1))
done
exit 0"#;

/// A scratch folder that is removed however the run ends.
pub struct Scratch {
    path: PathBuf,
    guard: Option<Child>,
}

/// The uid and gid of system user `name`, if it exists.
pub fn system_user(name: &str) -> Option<(u32, u32)> {
    let name = CString::new(name).ok()?;
    // SAFETY: getpwnam reads the passwd database; the pointer it returns is
    // only read here, before any other passwd call on this thread.
    let entry = unsafe { libc::getpwnam(name.as_ptr()) };
    if entry.is_null() {
        return None;
    }
    // SAFETY: non-null, pointing at libc's static passwd entry.
    let entry = unsafe { &*entry };
    Some((entry.pw_uid, entry.pw_gid))
}

impl Scratch {
    /// Creates `path` afresh (mode 0700; owned by `owner` when given) and
    /// arms its guard.
    pub fn create(path: PathBuf, owner: Option<(u32, u32)>) -> io::Result<Scratch> {
        if path.exists() {
            std::fs::remove_dir_all(&path)?;
        }
        std::fs::create_dir_all(&path)?;
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o700))?;
        if let Some((uid, gid)) = owner {
            std::os::unix::fs::chown(&path, Some(uid), Some(gid))?;
        }
        let guard =
            super::guard::spawn_watchdog(SCRIPT, "runner-scratch-guard", &[path.as_os_str()])?;
        Ok(Scratch {
            path,
            guard: Some(guard),
        })
    }

    /// A fresh folder for one start with the files the plan rendered for it
    /// (mode 0600 files in a 0700 folder: a config may hold a secret), and
    /// for a TLS start (`plan.tls`) the run's certificate, key and CA
    /// (`tls`). Owned by `owner` when given (a server that runs as its own
    /// user reads them).
    pub fn with_files(
        plan: &crate::plan::ScratchPlan,
        owner: Option<(u32, u32)>,
        tls: Option<&crate::certs::ServerFiles>,
    ) -> io::Result<Scratch> {
        use crate::plan::contract::scratch_plan::{TLS_CA, TLS_CERT, TLS_KEY};
        let tls_files = match (plan.tls, tls) {
            (false, _) => Vec::new(),
            (true, Some(t)) => vec![
                (TLS_CERT, &t.cert_pem),
                (TLS_KEY, &t.key_pem),
                (TLS_CA, &t.ca_pem),
            ],
            (true, None) => {
                return Err(io::Error::other(
                    "this start serves TLS but the run made no certificate for it",
                ));
            }
        };
        let scratch = Scratch::create(plan.path.clone(), owner)?;
        let rendered = plan.files.iter().map(|f| (f.name.as_str(), &f.content));
        for (name, content) in rendered.chain(tls_files) {
            let path = scratch.path.join(name);
            std::fs::write(&path, content)?;
            std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
            if let Some((uid, gid)) = owner {
                std::os::unix::fs::chown(&path, Some(uid), Some(gid))?;
            }
        }
        Ok(scratch)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the folder now (after its processes stopped) and releases the guard.
    pub fn remove(mut self) -> io::Result<()> {
        let removed = match std::fs::remove_dir_all(&self.path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        };
        self.disarm();
        removed
    }

    fn disarm(&mut self) {
        if let Some(mut guard) = self.guard.take() {
            drop(guard.stdin.take());
            let _ = guard.wait();
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
        self.disarm();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guard_removes_the_folder_once_its_pipe_closes() {
        let base = tempfile::tempdir().unwrap();
        let path = base.path().join("scratch");
        let mut scratch = Scratch::create(path.clone(), None).unwrap();
        std::fs::write(path.join("file"), "x").unwrap();
        // What the runner's death does: the pipe closes, the guard removes it.
        let mut guard = scratch.guard.take().unwrap();
        drop(guard.stdin.take());
        guard.wait().unwrap();
        assert!(!path.exists());
        drop(scratch);
    }

    fn tls_plan(path: PathBuf) -> crate::plan::ScratchPlan {
        crate::plan::ScratchPlan {
            path,
            files: Vec::new(),
            tls: true,
        }
    }

    #[test]
    fn a_tls_start_gets_the_run_certificate_key_and_ca_readable_by_its_owner_alone() {
        use std::os::unix::fs::PermissionsExt;
        let base = tempfile::tempdir().unwrap();
        let path = base.path().join("scratch");
        let files = crate::certs::ServerFiles {
            ca_pem: "ca".into(),
            cert_pem: "cert".into(),
            key_pem: "key".into(),
        };
        let scratch = Scratch::with_files(&tls_plan(path.clone()), None, Some(&files)).unwrap();
        for (name, content) in [
            ("tls-cert.pem", "cert"),
            ("tls-key.pem", "key"),
            ("tls-ca.pem", "ca"),
        ] {
            let file = path.join(name);
            assert_eq!(std::fs::read_to_string(&file).unwrap(), content);
            let mode = std::fs::metadata(&file).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "{name}");
        }
        scratch.remove().unwrap();
        assert!(!path.exists(), "the key goes with the folder");
    }

    #[test]
    fn a_tls_start_without_the_run_certificate_is_refused_before_its_folder_exists() {
        let base = tempfile::tempdir().unwrap();
        let path = base.path().join("scratch");
        let error = Scratch::with_files(&tls_plan(path.clone()), None, None)
            .err()
            .unwrap();
        assert!(error.to_string().contains("no certificate"), "{error}");
        assert!(!path.exists());
    }
}
