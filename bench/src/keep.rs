//! `warpforge bench --keep DIR`: what was timed, for reading the SASS of
//! both sides of a ratio. Per case `<id>.cu` (the source: header and
//! one timing kernel per candidate and per limit kernel; NVRTC compiled each
//! kernel with its own helpers' header alone), `<kernel>.cubin` per timing
//! kernel, `<id>.sass` (every kernel's), Triton's
//! `<id>_triton_{loop,once}.{cubin,sass}`, and `index.json` naming each id's
//! file, conversion and candidate kernels.

use crate::cases::BenchCase;
use crate::gpu::Compiled;
use anyhow::{Context, Result};
use serde_json::{json, Value};
use std::path::Path;

fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    std::fs::write(path, bytes).with_context(|| format!("{}: cannot write", path.display()))
}

/// warpforge's side of every case (a case whose module did not compile gets
/// its source only), and `index.json`.
pub fn cases(dir: &Path, cases: &[BenchCase], compiled: &[Result<Compiled>]) -> Result<()> {
    let mut index = Vec::new();
    for (c, m) in cases.iter().zip(compiled) {
        write(&dir.join(format!("{}.cu", c.id)), c.source.as_bytes())?;
        if let Ok(m) = m {
            // one module per timing kernel, named by it (a case without
            // timing kernels: its whole source, `<id>.cubin`)
            let mut named: Vec<(String, usize)> =
                m.module_of.iter().map(|(k, &i)| (k.clone(), i)).collect();
            if named.is_empty() && !m.cubins.is_empty() {
                named.push((c.id.clone(), 0));
            }
            for (name, i) in named {
                write(&dir.join(format!("{name}.cubin")), &m.cubins[i])?;
            }
            if !m.sass_text.is_empty() {
                write(&dir.join(format!("{}.sass", c.id)), m.sass_text.as_bytes())?;
            }
        }
        let cands: Vec<Value> = c
            .candidates
            .iter()
            .map(|k| json!({"strategy": k.strategy, "form": k.form, "kernel": k.kernel}))
            .collect();
        let limits: Vec<Value> = c
            .limits
            .iter()
            .map(|k| json!({"label": k.label(), "kernel": k.name, "fwd": k.fwd, "bwd": k.bwd}))
            .collect();
        index.push(json!({"id": c.id, "file": c.file, "name": c.name,
            "bits": c.bits, "bwd": c.bwd_strategy, "candidates": cands, "limits": limits}));
    }
    write(
        &dir.join("index.json"),
        (serde_json::to_string_pretty(&index)? + "\n").as_bytes(),
    )
}

/// Triton's side of case `id`: the `loop_cubin`/`once_cubin` its result line
/// names, copied with their SASS. A cubin the line does not name (Triton
/// failed on the case), or that is gone, is skipped: keeping is a
/// diagnostic and does not stop the timing.
pub fn triton_cubins(dir: &Path, id: &str, v: &Value) -> Result<()> {
    for which in ["loop", "once"] {
        let Some(src) = v[format!("{which}_cubin")].as_str() else {
            continue;
        };
        let Ok(bytes) = std::fs::read(src) else {
            continue;
        };
        let dst = dir.join(format!("{id}_triton_{which}.cubin"));
        write(&dst, &bytes)?;
        if let Some((text, _)) = verify::sass_of(&bytes) {
            write(&dst.with_extension("sass"), text.as_bytes())?;
        }
    }
    Ok(())
}
