//! Run ids and timestamps.
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;

/// A run id for `now`: the UTC time to the second, e.g. `20261130T091500Z`.
/// Sorts chronologically as text, and is a safe directory name.
pub fn run_id_at(now: OffsetDateTime) -> String {
    let fmt = format_description!("[year][month][day]T[hour][minute][second]Z");
    now.to_offset(time::UtcOffset::UTC)
        .format(&fmt)
        .expect("the run-id format has only numeric components")
}

/// The run id for the current time.
pub fn new_run_id() -> String {
    run_id_at(OffsetDateTime::now_utc())
}

/// The current UTC time as RFC 3339 (`2026-11-30T09:15:00.123Z`).
pub fn rfc3339_now() -> String {
    rfc3339(OffsetDateTime::now_utc())
}

pub fn rfc3339(t: OffsetDateTime) -> String {
    t.format(&Rfc3339)
        .expect("RFC 3339 formatting of a valid UTC time")
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn run_id_is_compact_utc() {
        assert_eq!(
            run_id_at(datetime!(2026-11-30 09:15:00 UTC)),
            "20261130T091500Z"
        );
        assert_eq!(
            run_id_at(datetime!(2026-11-30 10:15:07 +01:00)),
            "20261130T091507Z"
        );
    }
}
