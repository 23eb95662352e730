//! Durations as people write them, one rule set for the spec and the command
//! line (docs/spec.md "General rules", docs/load.md "Use").
//!
//! Below every stage: `spec` (durations in YAML) and `load` (`runner load -d`)
//! both parse with [`parse_duration`], and `load` stays free of the other
//! stages.
use std::time::Duration;

/// What a duration must look like, for error help and docs.
pub const DURATION_HELP: &str =
    "write a number followed by us, ms, s, m or h, e.g. 250ms, 5s, 2m, 1.5s";

/// The longest duration accepted: anything longer is a typo, not a benchmark.
pub const MAX_DURATION: Duration = Duration::from_secs(30 * 24 * 3600);

/// Why a text is not a duration; `Display` is a short reason naming the text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    #[error("`{0}` does not start with a number")]
    NoNumber(String),
    #[error("`{0}` is not a number")]
    NotANumber(String),
    #[error("unknown unit `{0}`")]
    UnknownUnit(String),
    #[error("`{0}` is longer than 30 days")]
    TooLong(String),
}

/// Parses a duration. The rules:
///
/// - a decimal number (`5`, `1.5`, `.5`) then a unit: `us` or `µs`
///   (microseconds), `ms`, `s`, `m` (minutes), `h`; no space between;
/// - a bare number is seconds (`10` is `10s`), as in wrk and oha;
/// - surrounding whitespace is ignored; negative values do not exist;
/// - at most 30 days ([`MAX_DURATION`]).
pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    if number.is_empty() {
        return Err(DurationError::NoNumber(text.into()));
    }
    let value: f64 = number
        .parse()
        .map_err(|_| DurationError::NotANumber(number.into()))?;
    let scale = match unit {
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "" | "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        other => return Err(DurationError::UnknownUnit(other.into())),
    };
    let seconds = value * scale;
    if !seconds.is_finite() || seconds > MAX_DURATION.as_secs_f64() {
        return Err(DurationError::TooLong(text.into()));
    }
    Ok(Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Duration {
        parse_duration(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn every_unit_scales_its_number() {
        assert_eq!(ok("250us"), Duration::from_micros(250));
        assert_eq!(ok("250µs"), Duration::from_micros(250));
        assert_eq!(ok("250ms"), Duration::from_millis(250));
        assert_eq!(ok("5s"), Duration::from_secs(5));
        assert_eq!(ok("2m"), Duration::from_secs(120));
        assert_eq!(ok("1h"), Duration::from_secs(3600));
    }

    #[test]
    fn fractions_and_bare_numbers_are_accepted() {
        assert_eq!(ok("1.5s"), Duration::from_millis(1500));
        assert_eq!(ok(".5s"), Duration::from_millis(500));
        assert_eq!(ok("10"), Duration::from_secs(10));
        assert_eq!(ok("0.25"), Duration::from_millis(250));
        assert_eq!(ok(" 3s "), Duration::from_secs(3));
        assert_eq!(ok("0s"), Duration::ZERO);
    }

    #[test]
    fn text_that_is_not_a_duration_says_why() {
        let err = |text: &str| parse_duration(text).unwrap_err().to_string();
        assert_eq!(err("5 sec"), "unknown unit ` sec`");
        assert_eq!(err("10parsecs"), "unknown unit `parsecs`");
        assert_eq!(err("5S"), "unknown unit `S`");
        assert_eq!(err("ms"), "`ms` does not start with a number");
        assert_eq!(err("-5s"), "`-5s` does not start with a number");
        assert_eq!(err(""), "`` does not start with a number");
        assert_eq!(err("1.2.3s"), "`1.2.3` is not a number");
    }

    #[test]
    fn thirty_days_is_the_limit() {
        assert_eq!(ok("720h"), MAX_DURATION);
        assert_eq!(
            parse_duration("721h"),
            Err(DurationError::TooLong("721h".into()))
        );
        assert!(parse_duration("99999999999999999999999h").is_err());
    }
}
