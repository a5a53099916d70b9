//! liftdb's cache folder: `$XDG_CACHE_HOME/liftdb`, else `~/.cache/liftdb`,
//! else `liftdb` in the temporary folder.

use std::path::PathBuf;

/// The folder `name` in liftdb's cache (not created here).
pub fn folder(name: &str) -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir)
        .join("liftdb")
        .join(name)
}
