//! A pseudo-terminal, for tests of what a command does at a terminal
//! (prompts on stdin, colour on stdout).

use std::fs::File;
use std::os::fd::FromRawFd;

/// A new pseudo-terminal: `(master, slave)`. Give the slave to the child as
/// stdin or stdout; read or write the other side through the master.
pub fn open() -> (File, File) {
    let (mut master, mut slave) = (-1, -1);
    // SAFETY: openpty writes two new descriptors, which the Files below own.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors are open and owned by nothing else.
    unsafe { (File::from_raw_fd(master), File::from_raw_fd(slave)) }
}
