//! Provenance of a trained artifact: the sha256 of the files it was trained
//! from and of the files training produced, taken after training and again
//! before every measured start. A log line (`train.evidence`) shows that *a*
//! cache was mapped; only the hashes show it is *this* one: JDK 25 maps an
//! AOT cache made from an older jar without complaint.
use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::results::rows::training::FileHash;

/// Hashes every file of `paths`: a file as itself, a folder as every file
/// under it (recursively, sorted by path). A missing path is an error naming it.
///
/// Walked by hand (std::fs) rather than with a crate: the inputs are a few
/// declared paths, not patterns, and the walk is twenty lines.
pub fn hash_paths(paths: &[PathBuf]) -> std::io::Result<Vec<FileHash>> {
    let mut files = Vec::new();
    for path in paths {
        collect_files(path, &mut files)
            .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    }
    files.sort();
    files.dedup();
    files.iter().map(|f| hash_file(f)).collect()
}

fn collect_files(path: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let meta = std::fs::metadata(path)?;
    if meta.is_dir() {
        for entry in std::fs::read_dir(path)? {
            collect_files(&entry?.path(), out)?;
        }
    } else {
        out.push(path.to_path_buf());
    }
    Ok(())
}

fn hash_file(path: &Path) -> std::io::Result<FileHash> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut bytes = 0u64;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        bytes += n as u64;
        hasher.update(&buf[..n]);
    }
    Ok(FileHash {
        path: path.display().to_string(),
        bytes,
        sha256: hex::encode(hasher.finalize()),
    })
}

/// How the files now differ from those recorded: `None` when they are the
/// same; else every difference, e.g. `target/app.aot changed (sha256
/// 3f2a9c01… at training, 77b0e4d2… now)`. `what` names the side
/// ("input", "trained file").
pub fn differences(what: &str, recorded: &[FileHash], now: &[FileHash]) -> Option<String> {
    let short = |h: &str| h.chars().take(8).collect::<String>();
    let mut out = Vec::new();
    for r in recorded {
        match now.iter().find(|n| n.path == r.path) {
            None => out.push(format!("{what} {} is gone", r.path)),
            Some(n) if n.sha256 != r.sha256 => out.push(format!(
                "{what} {} changed (sha256 {}… at training, {}… now)",
                r.path,
                short(&r.sha256),
                short(&n.sha256)
            )),
            Some(_) => {}
        }
    }
    for n in now
        .iter()
        .filter(|n| !recorded.iter().any(|r| r.path == n.path))
    {
        out.push(format!("{what} {} is new since training", n.path));
    }
    (!out.is_empty()).then(|| out.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_folders_are_hashed_and_every_change_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        let jar = tmp.path().join("service.jar");
        let libs = tmp.path().join("libs");
        std::fs::create_dir(&libs).unwrap();
        std::fs::write(&jar, "jar v1").unwrap();
        std::fs::write(libs.join("a.jar"), "a").unwrap();
        let paths = [jar.clone(), libs.clone()];
        let before = hash_paths(&paths).unwrap();
        assert_eq!(before.len(), 2);
        // sha256("a")
        assert_eq!(
            before
                .iter()
                .find(|h| h.path.ends_with("a.jar"))
                .unwrap()
                .sha256,
            "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"
        );
        assert_eq!(
            differences("input", &before, &hash_paths(&paths).unwrap()),
            None
        );

        std::fs::write(&jar, "jar v2").unwrap();
        std::fs::write(libs.join("b.jar"), "b").unwrap();
        std::fs::remove_file(libs.join("a.jar")).unwrap();
        let why = differences("input", &before, &hash_paths(&paths).unwrap()).unwrap();
        assert!(
            why.contains(&format!("input {} changed (sha256 ", jar.display())),
            "{why}"
        );
        assert!(
            why.contains("a.jar is gone") && why.contains("b.jar is new since training"),
            "{why}"
        );

        let missing = hash_paths(&[tmp.path().join("nope")]).unwrap_err();
        assert!(missing.to_string().contains("nope"), "{missing}");
    }
}
