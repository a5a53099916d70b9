//! Long output for a reader, paged as git pages it: on a terminal through
//! `$PAGER` (`less` when unset: quit when it fits one screen, keep colours,
//! leave the text on the screen), never when piped; `PAGER=cat` (or empty)
//! writes it straight.

use std::io::{IsTerminal, Write};
use std::process::{Command, Stdio};

/// Write `text` to stdout, through the pager when stdout is a terminal.
pub fn show(text: &[u8]) -> std::io::Result<()> {
    let mut stdout = std::io::stdout();
    if !stdout.is_terminal() {
        return stdout.write_all(text);
    }
    let pager = std::env::var("PAGER").unwrap_or_else(|_| "less".into());
    if pager.trim().is_empty() || pager.trim() == "cat" {
        return stdout.write_all(text);
    }
    let child = Command::new("sh")
        .arg("-c")
        .arg(&pager)
        .env(
            "LESS",
            std::env::var("LESS").unwrap_or_else(|_| "FRX".into()),
        )
        .stdin(Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        // No pager to be had: the text, whole.
        return stdout.write_all(text);
    };
    if let Some(mut input) = child.stdin.take() {
        // A reader who quits early closes the pipe: not an error.
        match input.write_all(text) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            other => other?,
        }
    }
    child.wait()?;
    Ok(())
}
