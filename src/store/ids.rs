//! Ids a writer takes without reading the store: writers of one lake at
//! once would otherwise take the same `max + 1`.

use std::hash::{BuildHasher, Hasher};
use std::time::{SystemTime, UNIX_EPOCH};

/// A new id: the microseconds since the epoch times 1,000, plus a random
/// part below 1,000. Ids sort by the time they were taken (to the
/// microsecond), and two writers of one microsecond collide once in a
/// thousand; a BIGINT holds them for centuries.
pub fn new_id() -> i64 {
    let micros = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64);
    micros * 1000 + (random() % 1000) as i64
}

/// A random u64 from the standard library's per-process hash keys.
pub fn random() -> u64 {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    hasher.finish()
}

#[cfg(test)]
mod tests {
    #[test]
    fn ids_grow_with_time_and_differ() {
        let a = super::new_id();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = super::new_id();
        assert!(b > a, "{a} then {b}");
    }
}
