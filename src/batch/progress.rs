//! The progress bar on stderr (hidden with --quiet or off a terminal).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Units are run directories or report files: the rate shown is runs (and files) per second.
pub(super) fn progress_bar(enabled: bool, len: usize, message: &'static str) -> ProgressBar {
    if !enabled {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{msg:>8} [{bar:30}] {pos}/{len} {per_sec} eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(message);
    bar
}
