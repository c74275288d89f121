//! What a check found: the result of one helper with one element type
//! ([`CaseResult`]), the register budget its kernels are judged against
//! (spills, [`LoopCost`]), and the report of a whole run ([`GpuReport`]).

use crate::occupancy::{MinBlocksRecheck, OCCUPANCY_SLACK};
use crate::{register_limit, DType, GpuInfo, SassCounts};

/// How a report names a [`CaseResult::form`] after the dtype: nothing for
/// the element form, ` packed`, ` in place`, ` packed in place`,
/// ` words::src` (and the other `warpforge::words` choices).
pub fn form_suffix(form: &str) -> String {
    match form {
        "elements" => String::new(),
        "elements in place" => " in place".into(),
        f if f.starts_with("elements words::") => format!(" {}", &f["elements ".len()..]),
        f => format!(" {f}"),
    }
}

/// Result of one helper with one element type.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CaseResult {
    pub name: String,
    pub ident: String,
    pub dtype: DType,
    /// `elements` (the templated helper, one element per array entry),
    /// `packed` (its `_packed8`/`_packed16` form on 32-bit words), or either
    /// `... in place` (its `_inplace` form: one array, source on entry,
    /// destination on return).
    pub form: &'static str,
    /// Element type used in CUDA (`int`, `__half`, `signed char`, ...).
    pub ctype: String,
    pub passes: u32,
    pub slots_checked: u64,
    pub mismatches: u64,
    /// First mismatch, described.
    pub first_error: Option<String>,
    pub sass: Option<SassCounts>,
    /// Registers per thread of the one-shot check kernel.
    pub registers: Option<i32>,
    /// What a kernel that holds the tile pays: the register-budget loop
    /// kernel (values live across iterations), compiled under the same
    /// launch bounds.
    pub loop_kernel: Option<LoopCost>,
    /// 32-bit registers the form's data alone needs: the larger side, one
    /// register per element (two per 64-bit element), or one per word in
    /// the packed form.
    pub data_regs: u32,
    /// Registers per thread the loop kernel may use: what the launch
    /// bounds allow (`min(255, 65536 / threads)` rounded down to a multiple
    /// of 8; PTX ISA / CUDA occupancy: 64K registers per SM), or the cap
    /// it was compiled under (`max_registers`) when lower.
    pub reg_limit: u32,
    /// The cap the loop kernel was compiled under (`__maxnreg__`, `verify
    /// --gpu --max-registers`, at most the launch bounds' limit); `None`:
    /// its launch bounds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_registers: Option<u32>,
    /// Threads per CTA of the helper: the launch bounds of the loop kernel
    /// (without `max_registers`).
    pub threads: u32,
    /// Threads per CTA of the one-shot check kernel, its launch bounds:
    /// `threads`, and the second warp group's where the helper
    /// synchronises with a named barrier (`kernels::other_group_threads`).
    pub check_threads: u32,
    /// Compiled only (`verify --compile-only`, [`compile_only`](crate::compile_only)): nothing
    /// ran, so no slot was checked; registers and spills are ptxas's.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub compiled_only: bool,
    /// The names of the case's one-shot check kernel and its loop kernel in
    /// the module ([`GpuReport::source`]).
    #[serde(skip)]
    pub kernels: [String; 2],
    /// For each kernel that fails the budget after spilling with 16 or
    /// more registers of its limit unused ([`CaseResult::spills_by_choice`]):
    /// ptxas's compile of the same kernel under `__launch_bounds__(threads,
    /// 1)` ([`recheck_min_blocks`](crate::occupancy::recheck_min_blocks)).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub occupancy_spill: Vec<MinBlocksRecheck>,
}

/// Registers and local-memory traffic of a register-budget loop kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct LoopCost {
    pub registers: i32,
    /// All the kernel's `LDL`/`STL`.
    pub ldl: u32,
    pub stl: u32,
    /// Those inside the loop body ([`SassCounts::ldl_in_loop`]): what every
    /// iteration pays.
    pub ldl_in_loop: u32,
    pub stl_in_loop: u32,
}

impl LoopCost {
    /// The cost of a loop kernel of `registers` registers (the driver's
    /// `CU_FUNC_ATTRIBUTE_NUM_REGS` or ptxas's `-v` report) whose SASS
    /// counted `s` ([`count_sass`](crate::count_sass)); no SASS: no spill seen.
    pub fn of(registers: i32, s: Option<&SassCounts>) -> LoopCost {
        LoopCost {
            registers,
            ldl: s.map_or(0, |s| s.ldl),
            stl: s.map_or(0, |s| s.stl),
            ldl_in_loop: s.map_or(0, |s| s.ldl_in_loop),
            stl_in_loop: s.map_or(0, |s| s.stl_in_loop),
        }
    }
    /// Spill instructions inside the loop body.
    pub fn spills_in_loop(&self) -> u32 {
        self.ldl_in_loop + self.stl_in_loop
    }
    /// Spill instructions outside the loop body (once per launch).
    pub fn spills_outside_loop(&self) -> u32 {
        (self.ldl + self.stl).saturating_sub(self.spills_in_loop())
    }
}

impl CaseResult {
    /// Every slot matched.
    /// Compiled only: the kernels compiled and it could launch.
    pub fn ok(&self) -> bool {
        if self.compiled_only {
            return self.first_error.is_none();
        }
        self.mismatches == 0 && self.slots_checked > 0
    }

    /// The data alone leaves less than 16 registers of the loop kernel's
    /// limit (`reg_limit`): its spills are the tile's, not the helper's (the
    /// caller should split the tile or use the packed form).
    pub fn spills_excused(&self) -> bool {
        self.data_regs + 16 > self.reg_limit
    }

    /// The kernels that fail the register budget, loop kernel first: the
    /// loop kernel spills in its loop body although the data alone leaves
    /// 16 of its limit (`reg_limit`: the launch bounds', or the cap) spare;
    /// the one-shot kernel spills although the data alone leaves 16 of its
    /// launch bounds' limit spare. Each: which (`loop`, `one-shot`), what
    /// it did, its limit, where the limit comes from, its registers.
    fn budget_spills(&self) -> Vec<(&'static str, String, u32, String, u32)> {
        let launch = register_limit(self.check_threads);
        let bounds = format!("the launch bounds at {} threads", self.check_threads);
        let loop_bounds = format!("the launch bounds at {} threads", self.threads);
        let mut out = Vec::new();
        if let Some(l) = self.loop_kernel.as_ref().filter(|l| l.spills_in_loop() > 0) {
            if !self.spills_excused() {
                out.push((
                    "loop",
                    format!(
                        "the loop kernel spills in its loop body ({} LDL, {} STL; {} more outside it) at {} registers",
                        l.ldl_in_loop,
                        l.stl_in_loop,
                        l.spills_outside_loop(),
                        l.registers
                    ),
                    self.reg_limit,
                    if self.max_registers.is_some() {
                        "--max-registers".to_string()
                    } else {
                        loop_bounds
                    },
                    l.registers.max(0) as u32,
                ));
            }
        }
        if let Some(s) = self.sass.as_ref().filter(|s| s.ldl + s.stl > 0) {
            if self.data_regs + 16 <= launch {
                out.push((
                    "one-shot",
                    format!(
                        "the one-shot kernel spills ({} LDL, {} STL) at {} registers",
                        s.ldl,
                        s.stl,
                        self.registers.unwrap_or(0)
                    ),
                    launch,
                    bounds,
                    self.registers.unwrap_or(0).max(0) as u32,
                ));
            }
        }
        out
    }

    /// The kernels that fail the budget ([`CaseResult::budget_spills`])
    /// having spilled with 16 or more registers of their limit unused,
    /// under their launch bounds (not a `--max-registers` cap): ptxas chose
    /// to, and [`recheck_min_blocks`](crate::occupancy::recheck_min_blocks) asks it again. Each: which kernel
    /// (`loop`, `one-shot`) and its registers.
    pub fn spills_by_choice(&self) -> Vec<(&'static str, u32)> {
        self.budget_spills()
            .into_iter()
            .filter(|(kind, _, limit, _, regs)| {
                !(*kind == "loop" && self.max_registers.is_some())
                    && regs + OCCUPANCY_SLACK <= *limit
            })
            .map(|(kind, _, _, _, regs)| (kind, regs))
            .collect()
    }

    /// The launch bounds' threads of kernel `kind`: `one-shot`, the check
    /// kernel's ([`CaseResult::check_threads`]); else the helper's.
    pub fn kernel_threads(&self, kind: &str) -> u32 {
        if kind == "one-shot" {
            self.check_threads
        } else {
            self.threads
        }
    }

    /// The recheck of kernel `kind` (`loop`, `one-shot`), if it was made.
    fn recheck(&self, kind: &str) -> Option<&MinBlocksRecheck> {
        self.occupancy_spill.iter().find(|r| r.kernel == kind)
    }

    /// Why this case's kernels fail their register budget, if they do
    /// ([`CaseResult::budget_spills`]): the first failing kernel that did
    /// not spill by choice, or did and still spills under
    /// `__launch_bounds__(threads, 1)` ([`CaseResult::occupancy_spill`]).
    /// `None`: every kernel fits its limit.
    pub fn spill_problem(&self) -> Option<String> {
        self.budget_spills().into_iter().find_map(|(kind, what, limit, source, _)| {
            let again = match self.recheck(kind) {
                Some(r) if r.min_blocks_spill_bytes == 0 => return None,
                Some(r) => format!(
                    "; under __launch_bounds__({}, 1) still {} bytes of spills at {} registers",
                    self.kernel_threads(kind),
                    r.min_blocks_spill_bytes,
                    r.min_blocks_registers
                ),
                None => String::new(),
            };
            Some(format!(
                "{what}; limit {limit} per thread ({source}) would leave {} for the helper beyond its {} data registers{again}",
                limit - self.data_regs,
                self.data_regs
            ))
        })
    }

    /// For reports: each kernel that spilled by choice and has no spill
    /// under `__launch_bounds__(threads, 1)`, in one clause.
    pub fn occupancy_note(&self) -> Option<String> {
        let notes: Vec<String> = self
            .occupancy_spill
            .iter()
            .filter(|r| r.min_blocks_spill_bytes == 0)
            .map(|r| {
                format!(
                    "ptxas spilled the {} kernel at {} registers to fit more CTAs per SM; under __launch_bounds__({}, 1): {} registers, no spill",
                    r.kernel, r.registers, self.kernel_threads(r.kernel), r.min_blocks_registers
                )
            })
            .collect();
        (!notes.is_empty()).then(|| notes.join("; "))
    }
}

/// Everything one GPU run found.
#[derive(Clone, Debug, serde::Serialize)]
pub struct GpuReport {
    pub gpu: GpuInfo,
    pub compile_seconds: f64,
    pub cases: Vec<CaseResult>,
    /// Notes (e.g. how f16 was represented, whether cuobjdump was found).
    pub notes: Vec<String>,
    /// The module source, for reproduction.
    #[serde(skip)]
    pub source: String,
    /// `cuobjdump -sass` of the module (empty without cuobjdump).
    #[serde(skip)]
    pub sass_text: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A compiled-only case of `threads` threads whose loop kernel used
    /// `loop_regs` registers with `in_loop` spill instructions in its body,
    /// and whose data alone needs `data_regs`.
    fn spilling_case(threads: u32, data_regs: u32, loop_regs: i32, in_loop: u32) -> CaseResult {
        CaseResult {
            name: "c".into(),
            ident: "wf_c".into(),
            dtype: DType::F16,
            form: "elements words::dst",
            ctype: "__half".into(),
            passes: 0,
            slots_checked: 0,
            mismatches: 0,
            first_error: None,
            sass: Some(SassCounts::default()),
            registers: Some(40),
            loop_kernel: Some(LoopCost {
                registers: loop_regs,
                ldl: in_loop,
                stl: in_loop,
                ldl_in_loop: in_loop,
                stl_in_loop: in_loop,
            }),
            data_regs,
            reg_limit: register_limit(threads),
            max_registers: None,
            threads,
            check_threads: threads,
            compiled_only: true,
            kernels: ["wf_test_c".into(), "wf_test_c_loop".into()],
            occupancy_spill: Vec::new(),
        }
    }

    /// ptxas held a one-warp loop kernel at 168 of 255 registers and
    /// spilled (Triton's warp-local tests, `words::dst`): a spill by
    /// choice, which fails until the recheck under
    /// `__launch_bounds__(32, 1)` finds none; one at the limit, or under a
    /// `--max-registers` cap, is never asked again.
    #[test]
    fn a_spill_with_registers_to_spare_is_asked_again() {
        let recheck = |kernel, registers, min_blocks_registers, bytes| MinBlocksRecheck {
            kernel,
            registers,
            min_blocks_registers,
            min_blocks_spill_bytes: bytes,
        };
        let mut c = spilling_case(32, 128, 168, 11);
        assert_eq!(c.spills_by_choice(), [("loop", 168)]);
        assert!(c.spill_problem().is_some());
        c.occupancy_spill = vec![recheck("loop", 168, 186, 0)];
        assert_eq!(c.spill_problem(), None);
        assert!(c
            .occupancy_note()
            .unwrap()
            .contains("186 registers, no spill"));
        // still spilling with one CTA per SM: a failure that says so
        c.occupancy_spill[0].min_blocks_spill_bytes = 24;
        assert!(c.spill_problem().unwrap().contains("still 24 bytes"));
        assert_eq!(c.occupancy_note(), None);
        // a recheck of the other kernel does not excuse this one
        c.occupancy_spill = vec![recheck("one-shot", 40, 48, 0)];
        assert!(c.spill_problem().is_some());
        // both kernels spill by choice: each is asked, and both must clear
        let mut both = spilling_case(32, 128, 168, 11);
        both.sass = Some(SassCounts {
            ldl: 2,
            stl: 2,
            ..SassCounts::default()
        });
        assert_eq!(both.spills_by_choice(), [("loop", 168), ("one-shot", 40)]);
        both.occupancy_spill = vec![recheck("loop", 168, 186, 0)];
        assert!(both
            .spill_problem()
            .unwrap()
            .starts_with("the one-shot kernel spills"));
        both.occupancy_spill.push(recheck("one-shot", 40, 72, 0));
        assert_eq!(both.spill_problem(), None);
        // at the limit: out of registers, not a choice
        assert!(spilling_case(32, 128, 250, 11)
            .spills_by_choice()
            .is_empty());
        // under a --max-registers cap the cap is what is tested
        let mut capped = spilling_case(32, 64, 96, 4);
        capped.max_registers = Some(128);
        capped.reg_limit = 128;
        assert!(capped.spills_by_choice().is_empty());
        // the data alone over the limit less 16: no failure to ask about
        assert!(spilling_case(32, 250, 255, 11)
            .spills_by_choice()
            .is_empty());
    }
}
