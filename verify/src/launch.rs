//! The CUDA driver side: finding the GPU, device limits, copying tags to
//! and from device memory and launching a check kernel (clusters included).

use crate::VerifyError;
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use std::sync::Arc;
use synth::plan::Analysis;

/// The GPU found.
#[derive(Clone, Debug, serde::Serialize)]
pub struct GpuInfo {
    pub name: String,
    pub sm: (i32, i32),
    pub driver_version: i32,
    pub nvrtc_version: (i32, i32),
}

pub(crate) fn driver_err(e: impl std::fmt::Debug) -> VerifyError {
    VerifyError::Driver(format!("{e:?}"))
}

/// Is there a usable GPU (driver and NVRTC libraries, at least one device)?
pub fn probe_gpu() -> Result<GpuInfo, VerifyError> {
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(VerifyError::NoGpu(
            "the CUDA driver library (libcuda) was not found".into(),
        ));
    }
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err(VerifyError::NoGpu(
            "the NVRTC library (libnvrtc) was not found".into(),
        ));
    }
    cudarc::driver::result::init()
        .map_err(|e| VerifyError::NoGpu(format!("cuInit failed: {e:?}")))?;
    let n = CudaContext::device_count().map_err(|e| VerifyError::NoGpu(format!("{e:?}")))?;
    if n < 1 {
        return Err(VerifyError::NoGpu("no CUDA device".into()));
    }
    let ctx = CudaContext::new(0).map_err(|e| VerifyError::NoGpu(format!("{e:?}")))?;
    let name = ctx.name().map_err(driver_err)?;
    let sm = ctx.compute_capability().map_err(driver_err)?;
    let mut driver_version = 0i32;
    unsafe {
        let _ = cudarc::driver::sys::cuDriverGetVersion(&mut driver_version);
    }
    let mut maj = 0;
    let mut min = 0;
    unsafe {
        cudarc::nvrtc::sys::nvrtcVersion(&mut maj, &mut min);
    }
    Ok(GpuInfo {
        name,
        sm,
        driver_version,
        nvrtc_version: (maj, min),
    })
}

/// Why a helper's kernels cannot launch on `what` (`the device`, or `the
/// target` for [`compile_only`](crate::compile_only)) of compute capability `sm` with
/// `max_smem` bytes of shared memory per block: its `smem` bytes of scratch
/// exceed that, or it runs in clusters of `cluster` CTAs (distributed
/// shared memory) before sm_90. `None`: it can launch.
pub(crate) fn launch_refusal(
    smem: u64,
    max_smem: u64,
    cluster: u32,
    sm: (i32, i32),
    what: &str,
) -> Option<String> {
    if smem > max_smem {
        Some(format!(
            "cannot launch: needs {smem} bytes of shared memory per block, {what} (sm_{}{}) allows {max_smem}",
            sm.0, sm.1
        ))
    } else if cluster > 1 && sm.0 < 9 {
        Some(format!(
            "cannot launch: a cluster of {cluster} CTAs needs sm_90 or later, {what} is sm_{}{}",
            sm.0, sm.1
        ))
    } else {
        None
    }
}

/// The most dynamic shared memory one block may opt in to on the device of
/// `ctx`, in bytes (`CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`).
pub(crate) fn device_smem_optin(ctx: &Arc<CudaContext>) -> Result<u64, VerifyError> {
    let n = ctx
        .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
        .map_err(driver_err)?;
    Ok(n.max(0) as u64)
}

/// How a check kernel is launched: output elements, CTAs, threads per CTA,
/// dynamic shared bytes, CTAs per cluster (1: a plain launch).
pub(crate) struct LaunchShape {
    pub(crate) out_len: usize,
    pub(crate) blocks: u32,
    pub(crate) threads: u32,
    pub(crate) smem_bytes: u32,
    pub(crate) cluster: u32,
}

/// An unsigned element type the check moves tags as.
pub(crate) trait Narrow:
    cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits + Copy + Default + Unpin
{
    /// The low bits of a tag.
    fn narrow(x: u64) -> Self;
    fn widen(self) -> u64;
}

macro_rules! narrow {
    ($($t:ty),*) => {$(
        impl Narrow for $t {
            fn narrow(x: u64) -> Self {
                x as $t
            }
            fn widen(self) -> u64 {
                self as u64
            }
        }
    )*};
}
narrow!(u8, u16, u32, u64);

/// Launch the check kernel `f` on `input` (tags, cut to `T`), the output
/// widened back to 64-bit tags.
pub(crate) fn launch_narrow<T: Narrow>(
    stream: &Arc<cudarc::driver::CudaStream>,
    f: &cudarc::driver::CudaFunction,
    input: &[u64],
    shape: &LaunchShape,
) -> Result<Vec<u64>, VerifyError> {
    let input: Vec<T> = input.iter().map(|&x| T::narrow(x)).collect();
    let LaunchShape {
        out_len,
        blocks,
        threads,
        smem_bytes,
        cluster,
    } = *shape;
    let din = stream.clone_htod(&input).map_err(driver_err)?;
    let mut dout = stream.alloc_zeros::<T>(out_len).map_err(driver_err)?;
    if cluster > 1 {
        use cudarc::driver::{DevicePtr, DevicePtrMut};
        let (mut pin, _gi) = din.device_ptr(stream);
        let (mut pout, _go) = dout.device_ptr_mut(stream);
        let mut params = [
            &mut pin as *mut _ as *mut std::ffi::c_void,
            &mut pout as *mut _ as *mut std::ffi::c_void,
        ];
        unsafe { launch_cluster(stream, f, blocks, threads, smem_bytes, cluster, &mut params) }
            .map_err(driver_err)?;
    } else {
        let cfg = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (threads, 1, 1),
            shared_mem_bytes: smem_bytes,
        };
        let mut b = stream.launch_builder(f);
        b.arg(&din);
        b.arg(&mut dout);
        unsafe { b.launch(cfg) }.map_err(driver_err)?;
    }
    stream.synchronize().map_err(driver_err)?;
    Ok(stream
        .clone_dtoh(&dout)
        .map_err(driver_err)?
        .into_iter()
        .map(T::widen)
        .collect())
}

/// Let `f` launch in clusters of `cluster` CTAs: above the portable 8 it
/// sets `CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED` (CUDA C++
/// Programming Guide, "Thread Block Clusters"); nothing to do up to 8.
/// Call once per function, before [`launch_cluster`].
pub fn allow_cluster_size(
    f: &cudarc::driver::CudaFunction,
    cluster: u32,
) -> Result<(), cudarc::driver::DriverError> {
    if cluster > 8 {
        f.set_attribute(
            cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
            1,
        )?;
    }
    Ok(())
}

/// Launch `f` on `stream` over `grid` CTAs of `block` threads as clusters of
/// `cluster` CTAs along x (`cuLaunchKernelEx` with
/// `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`; CUDA driver API "Launch
/// attributes"; sm_90+). Errors: `grid` not a multiple of `cluster`
/// (`CUDA_ERROR_INVALID_VALUE`, before any launch), and the driver's. A
/// cluster of more than 8 CTAs needs [`allow_cluster_size`] first.
///
/// # Safety
/// `params` must point at the kernel's parameters, in order, each value
/// alive until the launch returns, as for `cuLaunchKernel`.
pub unsafe fn launch_cluster(
    stream: &cudarc::driver::CudaStream,
    f: &cudarc::driver::CudaFunction,
    grid: u32,
    block: u32,
    smem_bytes: u32,
    cluster: u32,
    params: &mut [*mut std::ffi::c_void],
) -> Result<(), cudarc::driver::DriverError> {
    use cudarc::driver::sys;
    if cluster == 0 || !grid.is_multiple_of(cluster) {
        return Err(cudarc::driver::DriverError(
            sys::cudaError_enum::CUDA_ERROR_INVALID_VALUE,
        ));
    }
    stream.context().bind_to_thread()?;
    let mut attr: sys::CUlaunchAttribute = std::mem::zeroed();
    attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = cluster;
    attr.value.clusterDim.y = 1;
    attr.value.clusterDim.z = 1;
    let cfg = sys::CUlaunchConfig {
        gridDimX: grid,
        gridDimY: 1,
        gridDimZ: 1,
        blockDimX: block,
        blockDimY: 1,
        blockDimZ: 1,
        sharedMemBytes: smem_bytes,
        hStream: stream.cu_stream(),
        attrs: &mut attr,
        numAttrs: 1,
    };
    sys::cuLaunchKernelEx(
        &cfg,
        f.cu_function(),
        params.as_mut_ptr(),
        std::ptr::null_mut(),
    )
    .result()
}

/// CTAs per cluster a case must be launched with: the layout's CTAs for a
/// cluster plan (docs/ARCHITECTURE.md 4.7), 1 (no cluster) otherwise.
pub fn cluster_ctas(an: &Analysis) -> u32 {
    if an.class == synth::plan::Kind::Cluster {
        1 << an.src.hw.block
    } else {
        1
    }
}
