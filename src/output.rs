//! Writing what the CLI produces without losing data: output files that are
//! never an input, written through a temporary file in the same directory
//! (renamed over the target only once complete; symlinks keep pointing at
//! the replaced file; FIFOs and devices are written in place), and standard
//! output whose errors are reported (a closed pipe ends the program quietly,
//! see [`is_broken_pipe`]).

use anyhow::{bail, Context, Result};
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Are `a` and `b` the same file (same device and inode, through symlinks
/// and hard links)? Paths that do not exist are compared by their
/// canonical parent directory and file name.
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    match (canonical_or_lexical(a), canonical_or_lexical(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

fn canonical_or_lexical(p: &Path) -> Option<PathBuf> {
    if let Ok(c) = std::fs::canonicalize(p) {
        return Some(c);
    }
    let parent = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some(std::fs::canonicalize(parent).ok()?.join(p.file_name()?))
}

/// Refuse outputs that are one of the inputs, or one another (FIFOs and
/// devices aside). Each entry is (what the user wrote it as, e.g. `-o` or
/// `--ttgir`, the path).
pub fn check_outputs(outputs: &[(&str, &Path)], inputs: &[(&str, &Path)]) -> Result<()> {
    for (oflag, o) in outputs {
        check_dir(o).map_err(|e| anyhow::anyhow!("{oflag} {e}"))?;
    }
    for (i, (oflag, o)) in outputs.iter().enumerate() {
        // writing to a FIFO or device (`/dev/stdout`) replaces no file, even
        // when the input was read from the same one
        if std::fs::metadata(o).is_ok_and(|m| !m.is_file()) {
            continue;
        }
        for (iflag, p) in inputs {
            if same_file(o, p) {
                bail!(
                    "{oflag} {}: this is the input file {iflag} {}; refusing to overwrite it (choose another output path)",
                    o.display(),
                    p.display()
                );
            }
        }
        for (oflag2, o2) in &outputs[..i] {
            if same_file(o, o2) {
                bail!(
                    "{oflag} {} and {oflag2} {} are the same file; give each output its own path",
                    o.display(),
                    o2.display()
                );
            }
        }
    }
    Ok(())
}

/// The file a write to `path` should replace: `path` itself, or the final
/// target of a chain of symlinks (relative links resolve against the link's
/// directory; the target need not exist yet).
fn final_target(path: &Path) -> Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let t = std::fs::read_link(&p)
                    .with_context(|| format!("{}: cannot read the symlink", path.display()))?;
                p = match p.parent() {
                    Some(d) if t.is_relative() => d.join(t),
                    _ => t,
                };
            }
            _ => return Ok(p),
        }
    }
    bail!("{}: too many levels of symbolic links", path.display())
}

/// Write `text` to `path` so that readers never see half of it and nothing
/// is lost on failure: through a temporary file in the target's directory
/// (same extension), renamed over the target once complete. A symlink keeps
/// pointing where it did (its target is replaced), an existing file keeps
/// its permissions, a FIFO or device (`/dev/stdout`, `/dev/null`) is written
/// in place. The temporary file never stays behind; errors name `path`.
pub fn write_file(path: &Path, text: &str) -> Result<()> {
    // what the path names, through symlinks (the kernel resolves /proc's
    // magic links such as /dev/stdout -> /proc/self/fd/1 -> pipe:[...])
    if let Ok(m) = std::fs::metadata(path) {
        if m.is_dir() {
            bail!("{}: is a directory", path.display());
        }
        if !m.is_file() {
            // FIFO, character device, socket: a rename would replace it.
            let mut f = OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(path)
                .with_context(|| format!("{}: cannot open for writing", path.display()))?;
            f.write_all(text.as_bytes())
                .and_then(|_| f.flush())
                .with_context(|| format!("{}: cannot write", path.display()))?;
            return Ok(());
        }
    }
    let target = final_target(path)?;
    let existing = std::fs::metadata(&target).ok();
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    check_dir(path)?;
    let stem = target
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let suffix = target
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    let prefix = format!(".{stem}.");
    let mut b = tempfile::Builder::new();
    b.prefix(&prefix).suffix(&suffix);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // a new file gets the usual 0666 & !umask; an existing one keeps its mode
        let mode = existing
            .as_ref()
            .map(|m| m.permissions().mode() & 0o7777)
            .unwrap_or(0o666);
        b.permissions(std::fs::Permissions::from_mode(mode));
    }
    let mut tmp = b.tempfile_in(&dir).with_context(|| {
        format!(
            "{}: cannot create a file in {}",
            path.display(),
            dir.display()
        )
    })?;
    // through the std::fs::File: NamedTempFile's own errors name the temp path
    let f = tmp.as_file_mut();
    f.write_all(text.as_bytes())
        .and_then(|_| f.sync_all())
        .with_context(|| format!("{}: cannot write", path.display()))?;
    // on error the NamedTempFile inside PersistError is dropped: removed
    tmp.persist(&target)
        .map_err(|e| e.error)
        .with_context(|| format!("{}: cannot write", path.display()))?;
    Ok(())
}

/// Refuse an output path whose directory does not exist: warpforge
/// creates no directories (a mistyped `-o a/b/c.cuh` is an error, not a
/// new tree).
pub fn check_dir(path: &Path) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => return Ok(()),
    };
    if !dir.is_dir() {
        bail!(
            "{}: the directory {} does not exist (warpforge creates no directories: make it first)",
            path.display(),
            dir.display()
        );
    }
    Ok(())
}

/// Is `e` (or what caused it) a write to a closed pipe?
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Standard output, buffered; [`Stdout::finish`] flushes it and reports
/// errors (a full disk) that a buffered writer would drop at exit.
pub struct Stdout(std::io::BufWriter<std::io::StdoutLock<'static>>);

impl Stdout {
    /// Lock standard output for the rest of the program.
    pub fn new() -> Stdout {
        Stdout(std::io::BufWriter::new(std::io::stdout().lock()))
    }
    /// Flush, reporting an error as one of standard output.
    pub fn finish(mut self) -> Result<()> {
        self.0.flush().map_err(named)?;
        Ok(())
    }
}

/// Name standard output in an error, keeping its kind (a closed pipe stays
/// [`std::io::ErrorKind::BrokenPipe`]).
fn named(e: std::io::Error) -> std::io::Error {
    std::io::Error::new(e.kind(), format!("standard output: cannot write: {e}"))
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf).map_err(named)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush().map_err(named)
    }
}

/// Write `text` to standard output and flush it, reporting errors.
pub fn print_all(text: &str) -> Result<()> {
    let mut out = Stdout::new();
    out.write_all(text.as_bytes())?;
    out.finish()
}
