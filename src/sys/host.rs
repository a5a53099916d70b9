//! The name of the machine that reads a tree: with the tree's path, the
//! place its runs come from (a folder at the same path on another runner is
//! another tree).

/// `LIFTDB_HOST` when set (a container whose host name changes every start
/// names its place so), else the kernel's host name.
pub fn host_name() -> String {
    if let Some(host) = std::env::var("LIFTDB_HOST")
        .ok()
        .filter(|h| !h.trim().is_empty())
    {
        return host.trim().to_string();
    }
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".into())
}
