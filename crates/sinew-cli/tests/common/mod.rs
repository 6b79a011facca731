//! Helpers the window's tests share: a virtual X server for as long as a test holds it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A child process killed when dropped.
pub struct Guard(pub Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `xvfb` (the Xvfb binary) on a free display from `first` on (1024×768×24); returns
/// it and the display's name (`:N`).
pub fn xvfb(xvfb: &Path, first: u32) -> (Guard, String) {
    let n = (first..first + 50)
        .find(|n| !Path::new(&format!("/tmp/.X{n}-lock")).exists())
        .expect("a free X display");
    let child = Command::new(xvfb)
        .arg(format!(":{n}"))
        .args(["-screen", "0", "1024x768x24", "-nolisten", "tcp"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start Xvfb");
    let socket = PathBuf::from(format!("/tmp/.X11-unix/X{n}"));
    let start = Instant::now();
    while !socket.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "Xvfb did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    (Guard(child), format!(":{n}"))
}
