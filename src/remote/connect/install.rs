//! runner's own binary on a remote host: named by its sha256, so "present"
//! means "the same build", and copied over the SSH session (no scp/sftp
//! needed) when absent, written to a temporary name, checked against the
//! hash on the far side and only then renamed into place.
use std::fs::File;
use std::io::Read;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

use crate::plan::contract::hosts::SshTarget;
use crate::remote::connect::ssh::{command, quote};
use crate::remote::error::RemoteError;

/// This process's executable and its sha256 (hex), hashed once.
pub struct OwnBinary {
    pub path: PathBuf,
    pub sha256: String,
}

static OWN: OnceLock<Result<OwnBinary, String>> = OnceLock::new();

/// The running binary, hashed on first use.
pub fn own_binary() -> Result<&'static OwnBinary, RemoteError> {
    OWN.get_or_init(|| hash_own().map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|why| RemoteError::OwnBinary {
            path: "(current executable)".into(),
            cause: std::io::Error::other(why.clone()),
        })
}

fn hash_own() -> Result<OwnBinary, RemoteError> {
    let path = std::env::current_exe().map_err(|cause| RemoteError::OwnBinary {
        path: "(current executable)".into(),
        cause,
    })?;
    let own = |cause| RemoteError::OwnBinary {
        path: path.display().to_string(),
        cause,
    };
    let mut file = File::open(&path).map_err(own)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf).map_err(own)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(OwnBinary {
        sha256: hex::encode(hasher.finalize()),
        path,
    })
}

/// Where this build lives on `target` (relative paths: under the login's home).
pub fn remote_path(target: &SshTarget, own: &OwnBinary) -> String {
    format!(
        "{}/runner-{}",
        target.dir.trim_end_matches('/'),
        &own.sha256[..16]
    )
}

/// Copies the binary to `target`; the far side checks the hash before the
/// rename, so a truncated copy never becomes the runner there.
pub fn install(target: &SshTarget, own: &OwnBinary) -> Result<(), RemoteError> {
    let host = target.destination.clone();
    let dest = quote(&remote_path(target, own));
    let dir = quote(&target.dir);
    let script = format!(
        "set -e; umask 077; mkdir -p {dir}; t={dir}/.runner-upload-$$; cat > \"$t\"; \
         h=$(sha256sum \"$t\" | cut -d' ' -f1); \
         if [ \"$h\" != {want} ]; then rm -f \"$t\"; echo \"copy has sha256 $h\" >&2; exit 1; fi; \
         chmod 700 \"$t\"; mv -f \"$t\" {dest}",
        want = own.sha256,
    );
    let file = File::open(&own.path).map_err(|cause| RemoteError::OwnBinary {
        path: own.path.display().to_string(),
        cause,
    })?;
    let out = command(target, &script)
        .stdin(Stdio::from(file))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|cause| RemoteError::SpawnSsh {
            host: host.clone(),
            cause,
        })?;
    if out.status.success() {
        Ok(())
    } else {
        Err(RemoteError::Install {
            host,
            why: format!(
                "{} ({}); check that {} is writable there, or set the host's `dir:`",
                String::from_utf8_lossy(&out.stderr).trim(),
                out.status,
                target.dir
            ),
        })
    }
}
