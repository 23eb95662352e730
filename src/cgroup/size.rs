//! Memory sizes as a spec writes them (`512MiB`, `1.5GiB`, `64M`, `1000000`)
//! and as the runner prints them back. Binary and decimal suffixes mean
//! what they say (`MB` = 10^6, `MiB` = 2^20); a bare number is bytes.

/// What a memory size must look like, for error help and docs.
pub const SIZE_HELP: &str = "write a whole number of bytes or a number with a unit: KiB, MiB, GiB (or K, M, G, also binary), KB, MB, GB (decimal), e.g. 512MiB";

/// Parses a memory size; `None` when it is not one (or is zero).
pub fn parse_bytes(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number.parse().ok()?;
    let scale: f64 = match unit.trim() {
        "" | "B" => 1.0,
        "K" | "KiB" | "k" => 1024.0,
        "M" | "MiB" => 1024.0 * 1024.0,
        "G" | "GiB" => 1024.0 * 1024.0 * 1024.0,
        "T" | "TiB" => 1024f64.powi(4),
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        _ => return None,
    };
    let bytes = (value * scale).round();
    (bytes.is_finite() && bytes >= 1.0 && bytes < u64::MAX as f64).then_some(bytes as u64)
}

/// `512MiB`, `1.5GiB`, `4096B`: the largest binary unit that keeps a short number.
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [(&str, u64); 4] = [
        ("TiB", 1 << 40),
        ("GiB", 1 << 30),
        ("MiB", 1 << 20),
        ("KiB", 1 << 10),
    ];
    for (unit, size) in UNITS {
        if bytes >= size {
            let value = bytes as f64 / size as f64;
            return if bytes.is_multiple_of(size) {
                format!("{}{unit}", bytes / size)
            } else {
                format!("{value:.2}{unit}")
            };
        }
    }
    format!("{bytes}B")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_in_every_unit() {
        assert_eq!(parse_bytes("512MiB"), Some(512 << 20));
        assert_eq!(parse_bytes("512M"), Some(512 << 20));
        assert_eq!(parse_bytes("1.5GiB"), Some(3 << 29));
        assert_eq!(parse_bytes("64MB"), Some(64_000_000));
        assert_eq!(parse_bytes("4096"), Some(4096));
        assert_eq!(parse_bytes(" 2 GiB "), Some(2 << 30));
        for bad in ["", "MiB", "12 parsecs", "-5M", "0", "1.2.3M"] {
            assert_eq!(parse_bytes(bad), None, "{bad}");
        }
    }

    #[test]
    fn sizes_print_back_short() {
        assert_eq!(format_bytes(512 << 20), "512MiB");
        assert_eq!(format_bytes(3 << 29), "1.50GiB");
        assert_eq!(format_bytes(100), "100B");
    }
}
