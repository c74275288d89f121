//! NVRTC: CUDA source to CUBIN or PTX, and ptxas's verbose report per
//! kernel (registers, spill bytes) read from the program log.

use crate::VerifyError;
use std::collections::BTreeMap;
use std::ffi::{CStr, CString};

/// The CUDA include directories NVRTC is given: `$CUDA_HOME/include`,
/// `$CUDA_PATH/include` and `/usr/local/cuda/include`, those that hold
/// `cuda_fp16.h` (so `__half` and `__half2` compile).
pub fn cuda_include_dirs() -> Vec<String> {
    let mut v = Vec::new();
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Ok(p) = std::env::var(var) {
            v.push(format!("{p}/include"));
        }
    }
    v.push("/usr/local/cuda/include".into());
    v.into_iter()
        .filter(|p| std::path::Path::new(p).join("cuda_fp16.h").exists())
        .collect()
}

/// NVRTC-compile `src` to CUBIN for `sm_{major}{minor}` (one compile: a
/// cubin the CUDA compute cache serves is the same cubin, and no log is
/// read, unlike [`compile_cubin_logged`]).
pub fn compile_cubin(
    src: &str,
    sm: (i32, i32),
    includes: &[String],
) -> Result<Vec<u8>, VerifyError> {
    nvrtc_cubin(src, sm, includes).map(|(c, _)| c)
}

/// [`compile_cubin`] with ptxas's verbose report (`--ptxas-options=-v`):
/// the CUBIN and NVRTC's program log, which holds ptxas's lines per kernel
/// ([`ptxas_resources`]). Needs only libnvrtc, no GPU or driver.
///
/// NVRTC can take the SASS of a PTX module it saw before from the CUDA
/// compute cache (`~/.nv/ComputeCache`) instead of running ptxas, and then
/// its log is empty. Measured on an H100 machine with CUDA 13 (issue 23):
/// every module compiled again in a later process, or
/// with only a define added, gave an empty log, and `warpforge bench`'s
/// occupancy recheck failed a check that had passed in the first run.
/// Where the source has a kernel and the log has no ptxas line for any, the
/// program is compiled once more with one unused `__device__` variable more
/// (`warpforge_ptxas_report_<process>_<count>_<nanoseconds>`): new PTX,
/// which no cached SASS matches, the kernels unchanged.
pub fn compile_cubin_logged(
    src: &str,
    sm: (i32, i32),
    includes: &[String],
) -> Result<(Vec<u8>, String), VerifyError> {
    let (cubin, log) = nvrtc_cubin(src, sm, includes)?;
    if log.contains("Compiling entry function '") || !src.contains("__global__") {
        return Ok((cubin, log));
    }
    static COMPILES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nonce = format!(
        "{}_{}_{}",
        std::process::id(),
        COMPILES.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    );
    let fresh = format!("{src}\n__device__ unsigned warpforge_ptxas_report_{nonce};\n");
    nvrtc_cubin(&fresh, sm, includes)
}

/// One NVRTC compile of `src` for `sm` with ptxas's verbose report
/// ([`compile_cubin_logged`]): the CUBIN and the program log.
fn nvrtc_cubin(
    src: &str,
    sm: (i32, i32),
    includes: &[String],
) -> Result<(Vec<u8>, String), VerifyError> {
    let arch = format!("--gpu-architecture=sm_{}{}", sm.0, sm.1);
    nvrtc_compile(src, &arch, &["--ptxas-options=-v"], includes, Output::Cubin)
}

/// NVRTC-compile `src` to PTX for `compute_{major}{minor}` (which a newer
/// GPU's driver compiles at load).
pub(crate) fn nvrtc_ptx(
    src: &str,
    sm: (i32, i32),
    includes: &[String],
) -> Result<String, VerifyError> {
    let arch = format!("--gpu-architecture=compute_{}{}", sm.0, sm.1);
    let (ptx, _) = nvrtc_compile(src, &arch, &[], includes, Output::Ptx)?;
    let end = ptx.iter().position(|&b| b == 0).unwrap_or(ptx.len());
    Ok(String::from_utf8_lossy(&ptx[..end]).into_owned())
}

/// What [`nvrtc_compile`] returns.
#[derive(Clone, Copy)]
enum Output {
    Cubin,
    Ptx,
}

/// One NVRTC program: `src` compiled with `arch` (`--gpu-architecture=...`),
/// C++17, line info, `extra` options and `includes`; the CUBIN or PTX bytes
/// and the program log.
fn nvrtc_compile(
    src: &str,
    arch: &str,
    extra: &[&str],
    includes: &[String],
    out: Output,
) -> Result<(Vec<u8>, String), VerifyError> {
    use cudarc::nvrtc::{result, sys};
    if !unsafe { sys::is_culib_present() } {
        return Err(VerifyError::Compile(
            "the NVRTC library (libnvrtc) was not found".into(),
        ));
    }
    let mut opts = vec![
        arch.to_string(),
        "-std=c++17".to_string(),
        "-lineinfo".to_string(),
    ];
    opts.extend(extra.iter().map(|o| o.to_string()));
    for i in includes {
        opts.push(format!("--include-path={i}"));
    }
    let cache = NvrtcCache::from_env(src, &opts, out);
    if let Some(hit) = cache.as_ref().and_then(NvrtcCache::get) {
        return Ok(hit);
    }
    let csrc = CString::new(src).map_err(|e| VerifyError::Compile(e.to_string()))?;
    let name = CString::new("warpforge_verify.cu").unwrap();
    let prog = result::create_program(&csrc, Some(&name))
        .map_err(|e| VerifyError::Compile(format!("{e:?}")))?;
    let res = unsafe { result::compile_program(prog, &opts) };
    let log = unsafe { result::get_program_log(prog) }
        .map(|l| {
            unsafe { CStr::from_ptr(l.as_ptr()) }
                .to_string_lossy()
                .into_owned()
        })
        .unwrap_or_default();
    if let Err(e) = res {
        unsafe {
            let _ = result::destroy_program(prog);
        }
        return Err(VerifyError::Compile(format!("{e:?}\n{log}")));
    }
    let mut size = 0usize;
    let bytes = unsafe {
        match out {
            Output::Cubin => sys::nvrtcGetCUBINSize(prog, &mut size),
            Output::Ptx => sys::nvrtcGetPTXSize(prog, &mut size),
        }
        .result()
        .map_err(|e| VerifyError::Compile(format!("{e:?}")))?;
        let mut buf = vec![0u8; size];
        match out {
            Output::Cubin => sys::nvrtcGetCUBIN(prog, buf.as_mut_ptr() as *mut _),
            Output::Ptx => sys::nvrtcGetPTX(prog, buf.as_mut_ptr() as *mut _),
        }
        .result()
        .map_err(|e| VerifyError::Compile(format!("{e:?}")))?;
        let _ = result::destroy_program(prog);
        buf
    };
    if let Some(c) = &cache {
        c.put(&bytes, &log);
    }
    Ok((bytes, log))
}

/// A directory of NVRTC results (`WARPFORGE_NVRTC_CACHE`, which
/// `scripts/verify_resources.sh` sets to `<out>/nvrtc-cache`), so that a
/// rerun recompiles only the modules whose source, options, output kind or
/// NVRTC version changed. One entry is one file named by a 64-bit hash of
/// the key, holding the whole key (NVRTC version, output kind, options,
/// source), the compile log (which carries ptxas's registers and spills) and
/// the CUBIN or PTX, each preceded by its length (8 bytes, little endian). A
/// hit needs the stored key to equal this compile's byte for byte, so a hash
/// collision is a miss, never a wrong result; failed compiles are not
/// stored; an entry is written to a temporary name and renamed, so parallel
/// processes never read half of one. Unset or empty: no cache.
struct NvrtcCache {
    path: std::path::PathBuf,
    key: String,
}

impl NvrtcCache {
    fn from_env(src: &str, opts: &[String], out: Output) -> Option<NvrtcCache> {
        let dir = std::env::var_os("WARPFORGE_NVRTC_CACHE").filter(|d| !d.is_empty())?;
        let (mut major, mut minor) = (0, 0);
        unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) };
        let key = format!(
            "nvrtc {major}.{minor}\n{}\n{}\n\0\n{src}",
            match out {
                Output::Cubin => "cubin",
                Output::Ptx => "ptx",
            },
            opts.join("\n")
        );
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        key.hash(&mut h);
        let dir = std::path::PathBuf::from(dir);
        std::fs::create_dir_all(&dir).ok()?;
        Some(NvrtcCache {
            path: dir.join(format!("{:016x}.nvrtc", h.finish())),
            key,
        })
    }
    fn get(&self) -> Option<(Vec<u8>, String)> {
        let data = std::fs::read(&self.path).ok()?;
        let mut rest = &data[..];
        let mut field = || -> Option<&[u8]> {
            let n = u64::from_le_bytes(rest.get(..8)?.try_into().ok()?) as usize;
            let f = rest.get(8..8usize.checked_add(n)?)?;
            rest = &rest[8 + n..];
            Some(f)
        };
        if field()? != self.key.as_bytes() {
            return None;
        }
        let log = String::from_utf8(field()?.to_vec()).ok()?;
        let bin = field()?.to_vec();
        Some((bin, log))
    }
    fn put(&self, bin: &[u8], log: &str) {
        let mut data = Vec::with_capacity(self.key.len() + log.len() + bin.len() + 24);
        for f in [self.key.as_bytes(), log.as_bytes(), bin] {
            data.extend_from_slice(&(f.len() as u64).to_le_bytes());
            data.extend_from_slice(f);
        }
        let tmp = self
            .path
            .with_extension(format!("{}.tmp", std::process::id()));
        if std::fs::write(&tmp, &data).is_err() || std::fs::rename(&tmp, &self.path).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

/// What ptxas reports for one kernel (`--ptxas-options=-v`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PtxasResources {
    /// `Used N registers`.
    pub registers: u32,
    /// `N bytes spill stores`, `N bytes spill loads`.
    pub spill_store_bytes: u32,
    pub spill_load_bytes: u32,
}

/// Per kernel, ptxas's verbose report in an NVRTC log: the
/// `Compiling entry function 'NAME'` line opens a kernel, its `bytes spill
/// stores, ... spill loads` and `Used N registers` lines fill it. Lines
/// that do not parse are skipped (a kernel missing from the map had none).
pub fn ptxas_resources(log: &str) -> BTreeMap<String, PtxasResources> {
    let mut out: BTreeMap<String, PtxasResources> = BTreeMap::new();
    let mut cur: Option<String> = None;
    let num_before = |line: &str, word: &str| -> Option<u32> {
        let i = line.find(word)?;
        line[..i].split_whitespace().last()?.parse().ok()
    };
    for line in log.lines() {
        if let Some(i) = line.find("Compiling entry function '") {
            let rest = &line[i + "Compiling entry function '".len()..];
            cur = rest.split('\'').next().map(str::to_string);
            if let Some(k) = &cur {
                out.entry(k.clone()).or_default();
            }
            continue;
        }
        let Some(r) = cur.as_ref().and_then(|k| out.get_mut(k)) else {
            continue;
        };
        if let Some(n) = num_before(line, "bytes spill stores") {
            r.spill_store_bytes = n;
        }
        if let Some(n) = num_before(line, "bytes spill loads") {
            r.spill_load_bytes = n;
        }
        if let Some(i) = line.find("Used ") {
            if let Some(n) = line[i + 5..]
                .split_whitespace()
                .next()
                .and_then(|t| t.parse().ok())
            {
                r.registers = n;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn nvrtc_cache_entries_hit_only_on_the_same_key() {
        let dir = tempfile::tempdir().unwrap();
        let entry = |key: &str| super::NvrtcCache {
            path: dir.path().join("0000000000000000.nvrtc"),
            key: key.to_string(),
        };
        let a = entry("nvrtc 13.0\ncubin\n-arch\n\0\nsource a");
        assert!(a.get().is_none());
        a.put(b"\x7fELF cubin", "ptxas info: Used 32 registers");
        assert_eq!(
            a.get(),
            Some((
                b"\x7fELF cubin".to_vec(),
                "ptxas info: Used 32 registers".into()
            ))
        );
        // the same file name (a hash collision) with another key is a miss
        assert!(entry("nvrtc 13.0\ncubin\n-arch\n\0\nsource b")
            .get()
            .is_none());
        // a cut entry is a miss, not an error or a wrong result
        let data = std::fs::read(&a.path).unwrap();
        std::fs::write(&a.path, &data[..data.len() - 3]).unwrap();
        assert!(a.get().is_none());
    }

    use super::*;

    #[test]
    fn reads_ptxas_registers_and_spills_per_kernel() {
        // NVRTC 13.0's log with --ptxas-options=-v, two kernels
        let log = "ptxas info    : 0 bytes gmem\n\
ptxas info    : Compiling entry function 'wf_loop_a' for 'sm_90'\n\
ptxas info    : Function properties for wf_loop_a\n\
ptxas         .     80 bytes stack frame, 72 bytes spill stores, 88 bytes spill loads\n\
ptxas info    : Used 64 registers, used 1 barriers\n\
ptxas info    : Compiling entry function 'wf_check_b' for 'sm_90'\n\
ptxas info    : Function properties for wf_check_b\n\
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
ptxas info    : Used 32 registers, used 0 barriers, 4 bytes cmem[0]\n";
        let r = ptxas_resources(log);
        assert_eq!(r.len(), 2);
        assert_eq!(
            r["wf_loop_a"],
            PtxasResources {
                registers: 64,
                spill_store_bytes: 72,
                spill_load_bytes: 88
            }
        );
        assert_eq!(r["wf_check_b"].registers, 32);
        assert_eq!(r["wf_check_b"].spill_store_bytes, 0);
        // a log without ptxas lines names no kernel
        assert!(ptxas_resources("nvrtc: warning: something").is_empty());
    }
}
